// Run specifications: what one training run is, in canonical JSON, with a stable key.
//
// One run = (cell spec, model spec, task spec, training spec, seed). Its key joins results to baselines,
// so it must never change for the same spec:
//   config key  mqar/diag+conv/length:64/pairs:8/vocab:256/3fa9c2d1e0b4   (all but the seed)
//   run key     <config key>/seed:3
// The readable part lists the task's scalar options; the trailing hash covers the whole canonical spec
// (cell options, model shape, training recipe), so two configs that differ anywhere differ in key.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_io.h"  // short_hash, canonical_config

namespace rb {

using json = nlohmann::json;

// A registered unit with its options, e.g. {"mqar", {"pairs": 8, "length": 64}}.
struct NamedSpec {
  std::string name;
  json options = json::object();  // resolved options (defaults filled in by the unit's factory)
  // A TorchScript cell's file (absolute; "" for registered units). Recorded in the spec so a worker can
  // load it, but not part of the config key: the key carries the file's content hash (options), so moving
  // the file keeps the keys and editing it gives new ones.
  std::string path;
  // A script cell's description from its sidecar file (name, description, options: prepare_script_cell).
  // Recorded in the spec and carried into results and the board, but not part of the config key: editing
  // the description does not retrain anything. Empty for registered units.
  json info = json::object();
};

// Cells given as "script:PATH" (a TorchScript module, cells/script_cell.h): the prefix, and the
// preparation every plan builder applies before resolving a spec: reads the file (relative PATHs against
// `base_dir`, "" = the working directory), names the cell "script:<file stem>", records the absolute
// path and the content hash (option "content_hash"). A missing or unreadable file is a UsageError.
// A sidecar FILE_STEM.cell.json beside the file ({"name": ..., "description": ..., "options": {...}}, every
// field optional, nothing else allowed) names the cell "script:<name>" instead and fills NamedSpec::info
// with its description and options (the hyperparameters the module was built with, recorded, not passed).
// Specs already prepared (path set) and registered names are left as they are.
inline constexpr const char* kScriptCellPrefix = "script:";
bool is_script_cell(const std::string& name);
// Reads a sidecar file into `cell` (name and info); bad content is a UsageError naming the field.
void read_script_sidecar(NamedSpec& cell, const std::string& file);
void prepare_script_cell(NamedSpec& cell, const std::string& base_dir = "");

// The model wrapper around a cell: embedding → layers × (norm → cell → residual → norm → MLP →
// residual) → norm → head.
struct ModelSpec {
  int64_t d_model = 64;       // residual width
  int64_t layers = 2;         // number of blocks
  int64_t state_budget = 0;   // recurrent state per layer, in numbers; 0 = the cell's own default sizing
  bool mlp = true;            // MLP after each cell (false: identity state mixer, as in Zoology's MQAR configs)
  // The model may read the whole sequence (a denoiser): bidirectional cells run only here, and the causality
  // check is not made. Recorded only when true, so the keys of causal runs are unchanged.
  bool bidirectional = false;
};

// The training recipe.
struct TrainSpec {
  int64_t steps = 2000;              // maximum optimiser steps
  int64_t batch = 64;                // sequences per step, generated on the fly
  double lr = 3e-3;                  // peak learning rate (AdamW)
  double weight_decay = 0.1;         // AdamW decoupled weight decay
  double warmup = 0.05;              // linear warmup, as a fraction of `steps`; cosine decay to 0 after
  int64_t eval_every = 50;           // steps between evaluations on the held-out set
  int64_t eval_examples = 512;       // size of the fixed held-out set
  double threshold = 0.99;           // lock-in: held-out accuracy ≥ threshold (training stops there)
  std::string curriculum = "none";   // curriculum name (tasks/curriculum.h): none|distance|ramp|gated
  json curriculum_options = json::object();  // its options; resolve_spec fills in the defaults
  // Extra held-out lengths for a length-generalisation curve (evaluated at the end of training); empty =
  // none. Recorded in to_json() only when non-empty, so keys of runs without it are unchanged.
  std::vector<int64_t> eval_lengths;
  // Plateau stopping (judge/learning.h plateau_should_stop): a run that has stopped learning by the diagnosis's
  // rule ends at that evaluation, recorded as stopped. Off by default; recorded in to_json() only when on, so
  // keys of runs without it are unchanged.
  bool stop_on_plateau = false;
  std::string impl = "auto";         // kernel implementation the cell trains on: auto|ref|chunked|fused (not
                                     // cuda: forward only)
};

struct RunSpec {
  NamedSpec cell;
  ModelSpec model;
  NamedSpec task;
  TrainSpec train;
  int64_t seed = 0;

  json to_json() const;
  // Parses and checks types; throws UsageError naming the field (`where` prefixes messages).
  static RunSpec from_json(const json& j, const std::string& where = "run spec");

  std::string config_key() const;  // all but the seed
  std::string key() const;         // config_key() + "/seed:N"
  // A file name for the run's result, unique per key and safe on every file system.
  std::string file_name() const;
};

// The numbers of a model and of a training recipe, each spelled once: its JSON name (battery recipes and run
// documents use it; `run`'s flag is `flag`), the member it sets, its plausible bounds and what it means.
// RunSpec::to_json/from_json, check_plausible, battery recipes and `run`'s flags are all built from these
// tables, so a new number is one new row.
template <class Spec>
struct SpecNumber {
  const char* name;                                            // "eval_every"
  const char* flag;                                            // "--eval-every"
  std::variant<int64_t Spec::*, double Spec::*> member;
  double lo, hi;
  bool lo_open;                                                // (lo, hi] instead of [lo, hi]
  bool hi_open;                                                // [lo, hi) instead of [lo, hi]
  const char* help;                                            // one line for --help and error hints

  double get(const Spec& s) const {
    return std::visit([&](auto m) { return static_cast<double>(s.*m); }, member);
  }
  bool is_integer() const { return std::holds_alternative<int64_t Spec::*>(member); }
  bool in_range(double v) const { return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi); }
  std::string range() const;                                   // "[1, 1e+07]", "(0, 10]"
};
const std::vector<SpecNumber<ModelSpec>>& model_numbers();
const std::vector<SpecNumber<TrainSpec>>& train_numbers();

// Plausible bounds on a run, stated in `recallbench run --help` and suite/battery_schema.md. Beyond them a
// run is an impossible config (exit 2) rather than an hour of swapping or a crash inside LibTorch: every
// row of model_numbers() and train_numbers(); task options length 1..65536, vocab 2..10^6, pairs 1..10^5;
// cell options 0..65536 (heads at most d_model); and batch·length·d_model ≤ 2^30 (one 4 GiB activation).
void check_plausible(const RunSpec& spec, const std::string& where = "run");

}  // namespace rb
