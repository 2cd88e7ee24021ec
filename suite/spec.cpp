#include "suite/spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "tasks/task.h"

namespace rb {

bool is_script_cell(const std::string& name) { return name.rfind(kScriptCellPrefix, 0) == 0; }

void prepare_script_cell(NamedSpec& cell, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (!is_script_cell(cell.name) || !cell.path.empty()) return;
  const std::string given = cell.name.substr(std::string(kScriptCellPrefix).size());
  const std::string hint = "a TorchScript cell is script:PATH to a file written by torch.jit.script(...).save(PATH) "
                           "(README: Score your own cell)";
  if (given.empty()) throw UsageError("cell '" + cell.name + "': no file after 'script:'", hint);
  fs::path file(given);
  if (file.is_relative() && !base_dir.empty()) file = fs::path(base_dir) / file;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw UsageError("cell '" + cell.name + "': file " + file.string() + " not found", hint);
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw UsageError("cell '" + cell.name + "': cannot read " + file.string(), hint);
  cell.path = fs::absolute(file).lexically_normal().string();
  cell.name = std::string(kScriptCellPrefix) + file.stem().string();
  if (!cell.options.is_object()) cell.options = json::object();
  cell.options["content_hash"] = short_hash_of(bytes);
  fs::path sidecar = file;
  sidecar.replace_extension(".cell.json");
  if (fs::exists(sidecar, ec)) read_script_sidecar(cell, sidecar.string());
}

void read_script_sidecar(NamedSpec& cell, const std::string& file) {
  const std::string hint = "a script cell's sidecar is {\"name\": \"my_cell\", \"description\": \"...\", "
                           "\"options\": {\"heads\": 1}} (README: Score your own cell)";
  const json j = read_json_file(file);
  if (!j.is_object()) throw UsageError(file + ": expected a JSON object", hint);
  for (const auto& [k, v] : j.items())
    if (k != "name" && k != "description" && k != "options")
      throw UsageError(fmt::format("{}: unknown field '{}' (name, description, options)", file, k), hint);
  if (j.contains("name")) {
    const json& n = j.at("name");
    const std::string name = n.is_string() ? n.get<std::string>() : std::string();
    const bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '+';
    });
    if (!ok)
      throw UsageError(fmt::format("{}: name {} must be 1 to 64 letters, digits or _ - . +", file, n.dump()), hint);
    cell.name = std::string(kScriptCellPrefix) + name;
  }
  json info = json::object();
  if (j.contains("description")) {
    const json& d = j.at("description");
    if (!d.is_string() || d.get<std::string>().size() > 500)
      throw UsageError(file + ": description must be a string of at most 500 characters", hint);
    info["description"] = d;
  }
  if (j.contains("options")) {
    const json& o = j.at("options");
    if (!o.is_object()) throw UsageError(file + ": options must be an object of numbers, strings or booleans", hint);
    for (const auto& [k, v] : o.items())
      if (!v.is_primitive() || v.is_null())
        throw UsageError(fmt::format("{}: option '{}' is {}, expected a number, string or boolean", file, k, v.dump()),
                         hint);
    info["options"] = o;
  }
  info["sidecar"] = std::filesystem::path(file).filename().string();
  cell.info = std::move(info);
}

template <class Spec>
std::string SpecNumber<Spec>::range() const {
  return fmt::format("{}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

const std::vector<SpecNumber<ModelSpec>>& model_numbers() {
  static const std::vector<SpecNumber<ModelSpec>> rows = {
      {"d_model", "--d-model", &ModelSpec::d_model, 1, 4096, false, false, "model width"},
      {"layers", "--layers", &ModelSpec::layers, 1, 64, false, false, "number of blocks"},
      {"state_budget", "--budget", &ModelSpec::state_budget, 0, 67108864, false, false,
       "state budget per layer in numbers; 0 = the cell's default"},
  };
  return rows;
}

const std::vector<SpecNumber<TrainSpec>>& train_numbers() {
  static const std::vector<SpecNumber<TrainSpec>> rows = {
      {"steps", "--steps", &TrainSpec::steps, 1, 1e7, false, false, "maximum training steps"},
      {"batch", "--batch", &TrainSpec::batch, 1, 65536, false, false, "sequences per step"},
      {"lr", "--lr", &TrainSpec::lr, 0, 10, true, false, "peak learning rate (AdamW)"},
      {"weight_decay", "--weight-decay", &TrainSpec::weight_decay, 0, 10, false, false, "AdamW weight decay"},
      {"warmup", "--warmup", &TrainSpec::warmup, 0, 1, false, true, "linear warmup as a fraction of steps"},
      {"eval_every", "--eval-every", &TrainSpec::eval_every, 1, 1e7, false, false, "steps between held-out evaluations"},
      {"eval_examples", "--eval-examples", &TrainSpec::eval_examples, 1, 1e6, false, false, "held-out set size"},
      {"threshold", "--threshold", &TrainSpec::threshold, 0, 1, true, false, "lock-in threshold on held-out accuracy"},
  };
  return rows;
}

template struct SpecNumber<ModelSpec>;
template struct SpecNumber<TrainSpec>;

namespace {

template <class Spec>
void numbers_to_json(const Spec& s, const std::vector<SpecNumber<Spec>>& rows, json& out) {
  for (const auto& row : rows) std::visit([&](auto m) { out[row.name] = s.*m; }, row.member);
}

template <class Spec>
void numbers_from_json(const json& j, const std::string& where, const std::vector<SpecNumber<Spec>>& rows, Spec& s) {
  for (const auto& row : rows)
    std::visit([&](auto m) { s.*m = require_field<std::remove_reference_t<decltype(s.*m)>>(j, row.name, where); },
               row.member);
}

}  // namespace

json RunSpec::to_json() const {
  json j{
      {"cell", {{"name", cell.name}, {"options", cell.options}}},
      {"model", {{"mlp", model.mlp}}},
      {"task", {{"name", task.name}, {"options", task.options}}},
      {"train",
       {{"curriculum", train.curriculum}, {"curriculum_options", train.curriculum_options}, {"impl", train.impl}}},
      {"seed", seed},
  };
  numbers_to_json(model, model_numbers(), j["model"]);
  numbers_to_json(train, train_numbers(), j["train"]);
  if (!train.eval_lengths.empty()) j["train"]["eval_lengths"] = train.eval_lengths;  // additive: keys unchanged
  if (model.bidirectional) j["model"]["bidirectional"] = true;                         // likewise
  if (train.stop_on_plateau) j["train"]["stop_on_plateau"] = true;                     // likewise
  if (!cell.path.empty()) j["cell"]["path"] = cell.path;  // additive, and not in the key (config_key)
  if (!cell.info.empty()) j["cell"]["info"] = cell.info;  // likewise
  return j;
}

namespace {
NamedSpec named_from_json(const json& j, const std::string& where) {
  NamedSpec s;
  s.name = require_field<std::string>(j, "name", where);
  if (j.contains("path")) s.path = require_field<std::string>(j, "path", where);
  if (j.contains("info")) {
    s.info = j.at("info");
    if (!s.info.is_object()) throw UsageError(where + ": field 'info' must be an object");
  }
  if (j.contains("options")) {
    s.options = j.at("options");
    if (!s.options.is_object()) throw UsageError(where + ": field 'options' must be an object");
  }
  return s;
}
}  // namespace

RunSpec RunSpec::from_json(const json& j, const std::string& where) {
  RunSpec s;
  s.cell = named_from_json(require_field<json>(j, "cell", where), where + ".cell");
  s.task = named_from_json(require_field<json>(j, "task", where), where + ".task");
  const json m = require_field<json>(j, "model", where);
  numbers_from_json(m, where + ".model", model_numbers(), s.model);
  s.model.mlp = require_field<bool>(m, "mlp", where + ".model");
  if (m.contains("bidirectional")) s.model.bidirectional = require_field<bool>(m, "bidirectional", where + ".model");
  const json t = require_field<json>(j, "train", where);
  const std::string tw = where + ".train";
  numbers_from_json(t, tw, train_numbers(), s.train);
  s.train.curriculum = require_field<std::string>(t, "curriculum", tw);
  s.train.curriculum_options = require_field<json>(t, "curriculum_options", tw);
  s.train.impl = require_field<std::string>(t, "impl", tw);
  if (t.contains("eval_lengths")) {
    const json lengths = require_field<json>(t, "eval_lengths", tw);
    if (!lengths.is_array()) throw UsageError(tw + ": field 'eval_lengths' must be a list of integers");
    for (const auto& l : lengths) {
      if (!l.is_number_integer()) throw UsageError(tw + ": field 'eval_lengths' must be a list of integers, got " + l.dump());
      s.train.eval_lengths.push_back(l.get<int64_t>());
    }
  }
  if (t.contains("stop_on_plateau")) s.train.stop_on_plateau = require_field<bool>(t, "stop_on_plateau", tw);
  s.seed = require_field<int64_t>(j, "seed", where);
  return s;
}

std::string RunSpec::config_key() const {
  const json canonical = canonical_config(to_json());  // no seed, no script path (the content hash stands for it)
  std::string key = task.name + "/" + cell.name;
  for (const auto& [k, v] : task.options.items()) {
    if (v.is_primitive()) key += "/" + k + ":" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  if (train.curriculum != "none") key += "/curriculum:" + train.curriculum;
  return key + "/" + short_hash(canonical);
}

std::string RunSpec::key() const { return config_key() + "/seed:" + std::to_string(seed); }

std::string RunSpec::file_name() const {
  std::string name;
  for (char c : key()) {
    if (c == '/') name += "__";
    else if (c == ':') name += '-';
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '_' || c == '.') name += c;
    else name += '_';
  }
  return name + ".json";
}

void check_plausible(const RunSpec& spec, const std::string& where) {
  const auto fail = [&](const std::string& field, double value, const std::string& range) {
    throw UsageError(fmt::format("{}: {} = {} is outside the plausible range {}", where, field, value, range),
                     "recallbench run --help and suite/battery_schema.md list the bounds");
  };
  const auto check = [&](const auto& row, double value) {
    if (!row.in_range(value)) fail(row.name, value, row.range());
    // A subnormal (e.g. --lr 1e-320) is in range but no training step can use it: every update underflows.
    if (std::fpclassify(value) == FP_SUBNORMAL)
      throw UsageError(fmt::format("{}: {} = {:g} is a subnormal number (below {:g}), which no training step can use",
                                   where, row.name, value, std::numeric_limits<double>::min()),
                       "give a normal value within " + row.range());
  };
  const auto check_closed = [&](const std::string& field, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi)) fail(field, value, fmt::format("[{}, {}]", lo, hi));
  };
  for (const auto& row : model_numbers()) check(row, row.get(spec.model));
  for (const auto& row : train_numbers()) check(row, row.get(spec.train));
  check_task_sizes(spec.task.options, where);
  const double length = spec.task.options.contains("length") && spec.task.options.at("length").is_number()
                            ? spec.task.options.at("length").get<double>()
                            : 1.0;
  // Cell options that size the cell (heads, key_dim, window, d_state, ...): whole numbers in [0, 65536], heads at
  // most d_model. Beyond them LibTorch fails on an allocation inside the cell.
  for (const auto& [name, value] : spec.cell.options.items()) {
    // A script cell's content_hash is a hex digest, not a size: one that happens to be all decimal digits
    // (about 1 file in 280) would read as a number far above the bound.
    if (name == "content_hash") continue;
    double v = 0;
    if (value.is_number()) {
      v = value.get<double>();
    } else if (value.is_string()) {  // --cell-opt heads=8 arrives as text
      const std::string text = value.get<std::string>();
      char* end = nullptr;
      v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) continue;  // not a number: the cell judges it
    } else {
      continue;
    }
    check_closed("cell option " + name, v, 0, 65536);
    if (name == "heads") check_closed("cell option heads", v, 0, static_cast<double>(spec.model.d_model));
  }
  const double activation = static_cast<double>(spec.train.batch) * length * static_cast<double>(spec.model.d_model);
  if (activation > 1073741824.0)
    throw UsageError(fmt::format("{}: batch × length × d_model = {:.3g} numbers in one activation (more than 2^30, "
                                 "4 GiB): an impossible config on this kind of machine",
                                 where, activation),
                     "lower the batch, the length or the width");
}

}  // namespace rb
