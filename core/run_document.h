// The run document: what one trained run writes (one JSON file per run in a results store), with one
// writer (RunDocument::to_json, called by the trainer) and one reader (RunDocument::from_json, called by the
// store, the runner's aggregate and the reports). Schema: reports/schema/run.schema.json.
//
//   RunDocument doc = RunDocument::from_json(read_json_file(path), path.string());   // UsageError if bad
//   if (doc.result.locked_in()) ... doc.result.lock_in_step ...
//
// The reader checks kind, schema_version, and the type and range of every field the tool uses, and names
// the field on failure ("run.json: field 'result.final_accuracy' got string, expected a number in
// [0, 1]"), so a corrupt or hostile file is a UsageError (a store moves it aside and reruns the run; a
// report exits 2), never a crash. The run spec stays JSON here: its meaning (keys, options) belongs to
// suite/spec.h, which the store uses to check that a document's key matches its spec.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/outcome.h"

namespace rb {

inline constexpr int kRunSchemaVersion = 1;
inline constexpr const char* kRunKind = "recallbench.run";
// Training batches (the first ones, steps 1..4) hashed into a run's train_fingerprint.
inline constexpr int64_t kTrainFingerprintBatches = 4;

// The document's "result": the run's outcome (core/outcome.h) and the model's and data's identity.
struct RunResult : Outcome {
  int64_t state_size = 0;        // recurrent state per layer per sequence, in numbers
  int64_t parameters = 0;        // trainable parameters of the whole model
  std::string architecture;      // hash of the parameters' names and shapes ("" in older documents)
  std::string eval_fingerprint;  // hash of the held-out set (tasks/task.h DataFingerprint): the same for
                                 // every seed of a config ("" in older documents)
  nlohmann::json knobs = nullptr;  // the cell's registered knobs (core/knobs.h); null in older documents
  double capacity_bits = 0.0;    // what the task requires the state to hold
  nlohmann::json details = nlohmann::json::object();  // the rest, kept as written: final_loss, best_step,
                                                       // divergence, curriculum, breakdown, length_generalisation
};

// One point of the learning curve.
struct RunCurvePoint {
  int64_t step = 0;
  double accuracy = 0.0;         // held-out accuracy at `step`
  double loss = 0.0;             // mean training loss since the previous point; NaN when not finite (null)
  nlohmann::json extra = nlohmann::json::object();  // lr, stage, train_accuracy, difficulty (as written)
};

struct RunDocument {
  std::string key;                                    // run key (config key + "/seed:N")
  std::string config_key;                             // joins baselines and results
  nlohmann::json spec = nlohmann::json::object();     // the resolved run spec (suite/spec.h)
  nlohmann::json context = nlohmann::json::object();  // machine, build, commit
  RunResult result;
  std::vector<RunCurvePoint> curve;

  // The document as written to disk (kind, schema_version, then the fields above).
  nlohmann::json to_json() const;
  // Parses and validates a document; UsageError naming `where` and the field on anything wrong.
  static RunDocument from_json(const nlohmann::json& doc, const std::string& where);

  // The spec's seed and cell/task names (validated by from_json).
  int64_t seed() const;
  std::string cell() const;
  std::string task() const;
};

}  // namespace rb
