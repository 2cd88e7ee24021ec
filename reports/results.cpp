// Reading run documents into configurations, and the per-configuration summary.
#include "reports/results.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "core/run_document.h"

namespace rb::reports {
namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An optional string field ("" when absent or null); a stored fingerprint of another type was edited.
std::string string_or_null(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return "";
  if (!j.at(key).is_string())
    throw UsageError(fmt::format("{}: field '{}' got {}, expected a string or null", where, key, j.at(key).dump()));
  return j.at(key).get<std::string>();
}

std::vector<CurvePoint> curve_from_json(const json& c) {
  std::vector<CurvePoint> out;
  if (!c.is_array()) return out;
  for (const auto& p : c) {
    if (!p.is_object()) continue;
    out.push_back({integer_or(p, "step", 0), number_or(p, "accuracy", 0.0), number_or(p, "loss", kNaN)});
  }
  return out;
}

json curve_to_json(const std::vector<CurvePoint>& curve) {
  json out = json::array();
  for (const auto& p : curve) out.push_back({{"step", p.step}, {"accuracy", p.accuracy}, {"loss", json_number(p.loss)}});
  return out;
}

// One run document into (config skeleton, seed outcome), through the run document's one reader.
std::pair<Config, SeedOutcome> parse_run(const json& j, const std::string& where) {
  const RunDocument doc = RunDocument::from_json(j, where);
  const json& cell = doc.spec.at("cell");
  const json& task = doc.spec.at("task");
  Config c;
  c.key = doc.config_key;
  c.cell = doc.cell();
  c.task = doc.task();
  c.cell_options = cell.value("options", json::object());
  if (cell.contains("info") && cell.at("info").is_object()) c.cell_info = cell.at("info");
  c.task_options = task.value("options", json::object());
  // The readers after this one (the claims' check for vacuous MQAR pairs, the pages' labels) take them as objects.
  for (const auto& [field, options] :
       {std::pair{"spec.cell.options", &c.cell_options}, {"spec.task.options", &c.task_options}})
    if (!options->is_object())
      throw UsageError(fmt::format("{}: field '{}' got {}, expected an object", where, field, options->type_name()));
  c.model = doc.spec.at("model");
  c.set_train(doc.spec.at("train"));
  c.state_budget = integer_or(c.model, "state_budget", 0);
  c.state_size = doc.result.state_size;
  c.parameters = doc.result.parameters;
  c.architecture = doc.result.architecture;
  c.eval_fingerprint = doc.result.eval_fingerprint;
  c.knobs = doc.result.knobs;
  c.capacity_bits = doc.result.capacity_bits;

  SeedOutcome s;
  static_cast<Outcome&>(s) = doc.result;
  s.seed = doc.seed();
  for (const auto& p : doc.curve) s.curve.push_back({p.step, p.accuracy, p.loss});
  // Plateau stopping ended it (the trainer's result.stopped); its label is diagnosed from the curve.
  s.stopped = doc.result.details.value("stopped", json()) == "plateau";
  return {c, s};
}

std::vector<fs::path> run_files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  const fs::path runs = fs::is_directory(dir / "runs") ? dir / "runs" : dir;
  for (const auto& e : fs::directory_iterator(runs)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The battery name and declared contrasts of the runner's DIR/plan.json (suite/planner.h), when present.
void read_plan(const fs::path& plan_path, RunSet& set) {
  if (!fs::exists(plan_path)) return;
  const json plan = read_json_file(plan_path);
  const std::string where = plan_path.string();
  if (kind_of(plan) != "recallbench.plan")
    throw UsageError(where + ": got no 'recallbench.plan' document, expected the runner's plan (or no plan.json)");
  if (plan.contains("battery") && plan.at("battery").is_object()) {
    set.battery_document = plan.at("battery");
    set.battery = with_json_errors(where, [&] { return set.battery_document.value("name", std::string()); });
  }
  if (!plan.contains("contrasts")) return;
  const json& contrasts = plan.at("contrasts");
  if (!contrasts.is_array()) throw UsageError(where + ": field 'contrasts' must be an array");
  for (size_t i = 0; i < contrasts.size(); ++i) {
    const std::string w = fmt::format("{}: contrasts[{}]", where, i);
    ContrastSpec c;
    c.name = require_field<std::string>(contrasts[i], "name", w);
    c.knob = contrasts[i].value("knob", "");
    c.a = require_field<std::string>(contrasts[i], "a", w);
    c.b = require_field<std::string>(contrasts[i], "b", w);
    c.declared = true;
    set.declared_contrasts.push_back(c);
  }
}

}  // namespace

RunSet group_runs(const std::vector<std::pair<std::string, json>>& documents) {
  RunSet set;
  std::map<std::string, Config> by_key;
  std::map<std::string, std::string> seen_run;  // run key → where
  std::set<std::string> commits;
  for (const auto& [where, doc] : documents) {
    auto [config, seed] = parse_run(doc, where);
    const std::string run_key = config.key + "/seed:" + std::to_string(seed.seed);
    if (auto it = seen_run.find(run_key); it != seen_run.end())
      throw UsageError("run " + run_key + " appears twice: in " + it->second + " and in " + where,
                       "a results directory holds one file per run; remove the duplicate");
    seen_run[run_key] = where;
    if (set.run_count == 0) set.context = doc.value("context", json::object());
    if (doc.contains("context") && doc.at("context").contains("git_commit") && doc.at("context").at("git_commit").is_string())
      commits.insert(doc.at("context").at("git_commit").get<std::string>());
    ++set.run_count;
    auto [it, fresh] = by_key.try_emplace(config.key, config);
    if (!fresh && (it->second.state_size != config.state_size || it->second.parameters != config.parameters ||
                   it->second.architecture != config.architecture))
      throw UsageError(fmt::format("config {}: runs disagree on the model (state_size {} / {}, parameters {} / {}, "
                                   "architecture '{}' / '{}' in {}): they were trained by different builds",
                                   config.key, it->second.state_size, config.state_size, it->second.parameters,
                                   config.parameters, it->second.architecture, config.architecture, where),
                       "rerun the stale runs into a fresh results directory (recallbench run --out NEW_DIR)");
    // The held-out set is the same for every seed by design (older documents record none).
    if (it->second.eval_fingerprint.empty()) it->second.eval_fingerprint = config.eval_fingerprint;
    if (!config.eval_fingerprint.empty() && it->second.eval_fingerprint != config.eval_fingerprint)
      throw UsageError(fmt::format("config {}: runs disagree on the held-out set (eval_fingerprint '{}' / '{}' in {}): "
                                   "its generator changed between them, or the held-out set depends on the seed",
                                   config.key, it->second.eval_fingerprint, config.eval_fingerprint, where),
                       "rerun the stale runs into a fresh results directory (recallbench run --out NEW_DIR)");
    it->second.seeds.push_back(std::move(seed));
  }
  for (auto& [key, c] : by_key) {
    std::sort(c.seeds.begin(), c.seeds.end(), [](const SeedOutcome& a, const SeedOutcome& b) { return a.seed < b.seed; });
    set.configs.push_back(std::move(c));
  }
  for (const auto& c : commits) set.commits.push_back(c);
  return set;
}

namespace {
RunSet read_results(const fs::path& path);
}  // namespace

RunSet load_results(const fs::path& path) {
  return with_json_errors(path.string(), [&] { return read_results(path); });
}

namespace {

// The plan's runs (DIR/plan.json) that have no document among `docs`: said, so that nobody gates on a
// partial store unknowingly.
std::vector<std::string> missing_planned_runs(const fs::path& plan_file,
                                              const std::vector<std::pair<std::string, json>>& docs) {
  std::vector<std::string> missing;
  if (!fs::exists(plan_file)) return missing;
  const json plan = read_json_file(plan_file);
  std::set<std::string> have;
  for (const auto& [where, d] : docs)
    if (d.is_object() && d.contains("key") && d.at("key").is_string()) have.insert(d.at("key").get<std::string>());
  if (plan.contains("runs") && plan.at("runs").is_array())
    for (const auto& r : plan.at("runs"))
      if (r.is_object() && r.contains("key") && r.at("key").is_string() && !have.count(r.at("key").get<std::string>()))
        missing.push_back(r.at("key").get<std::string>());
  return missing;
}

// A results directory: its run documents grouped into configs, its plan and what the plan misses.
RunSet read_results_directory(const fs::path& path) {
  std::vector<std::pair<std::string, json>> docs;
  for (const auto& f : run_files_in(path)) {
    if (f.filename() == "plan.json" || f.filename() == "aggregate.json" || f.filename().string().rfind("report", 0) == 0)
      continue;  // the runner's and the reports' own documents, when runs sit directly in DIR
    docs.emplace_back(f.string(), read_json_file(f));
  }
  if (docs.empty())
    throw UsageError("no run results in " + path.string() + ": got 0 files *.json, expected at least one",
                     "run `recallbench run ... --out " + path.string() + "` first");
  RunSet set = group_runs(docs);
  set.source = path.string();
  read_plan(path / "plan.json", set);
  set.missing_planned = missing_planned_runs(path / "plan.json", docs);
  return set;
}

// A baseline, report or leaderboard document: its configs (a leaderboard's, every row's), sorted by key.
RunSet read_config_document(const json& doc, const std::string& where, const std::string& kind) {
  RunSet set;
  set.source = where;
  const auto add_configs = [&](const json& holder, const std::string& at) {
    const json configs = require_field<json>(holder, "configs", at);
    if (!configs.is_array()) throw UsageError(at + ": field 'configs' must be an array");
    for (size_t i = 0; i < configs.size(); ++i) {
      set.configs.push_back(config_from_json(configs[i], fmt::format("{}: configs[{}]", at, i)));
      set.run_count += static_cast<int64_t>(set.configs.back().seeds.size());
    }
  };
  if (kind == "recallbench.leaderboard") {  // every row's configs (a row is one cell's)
    const json rows = require_field<json>(doc, "rows", where);
    if (!rows.is_array()) throw UsageError(where + ": field 'rows' must be an array");
    for (size_t r = 0; r < rows.size(); ++r) add_configs(rows[r], fmt::format("{}: rows[{}]", where, r));
  } else {
    add_configs(doc, where);
  }
  set.context = doc.value("context", json::object());
  // Where the runs come from (verify names arms from different recordings): a baseline's or report's commits; a
  // leaderboard's, every row's (its context: the first row's).
  const auto add_commits = [&](const json& holder) {
    if (holder.contains("commits") && holder.at("commits").is_array())
      for (const auto& c : holder.at("commits"))
        if (std::find(set.commits.begin(), set.commits.end(), c) == set.commits.end()) set.commits.push_back(c);
  };
  if (kind == "recallbench.leaderboard") {
    for (const auto& row : doc.at("rows")) {
      add_commits(row);
      if (set.context.empty() && row.contains("context") && row.at("context").is_object()) set.context = row.at("context");
    }
  } else {
    add_commits(doc);
  }
  std::sort(set.configs.begin(), set.configs.end(), [](const Config& a, const Config& b) { return a.key < b.key; });
  for (size_t i = 1; i < set.configs.size(); ++i)
    if (set.configs[i].key == set.configs[i - 1].key)
      throw UsageError(where + ": config " + set.configs[i].key + " appears twice", "restore the file from git");
  return set;
}

RunSet read_results(const fs::path& path) {
  if (!fs::exists(path))
    throw UsageError("results not found: " + path.string(),
                     "expected a results directory (recallbench run --out DIR) or a JSON file");
  if (fs::is_directory(path)) return read_results_directory(path);
  const json doc = read_json_file(path);
  const std::string where = path.string();
  const std::string kind = kind_of(doc);
  if (kind == "recallbench.run") {
    RunSet set = group_runs({{where, doc}});
    set.source = where;
    return set;
  }
  if (kind == "recallbench.baseline" || kind == "recallbench.report" || kind == "recallbench.leaderboard")
    return read_config_document(doc, where, kind);
  throw UsageError(where + ": got kind '" + kind + "', expected 'recallbench.run', 'recallbench.baseline', 'recallbench.report' or 'recallbench.leaderboard'");
}

}  // namespace

json json_number(double v, Infinity infinity) {
  if (std::isfinite(v)) return v;
  if (std::isinf(v) && infinity == Infinity::kString) return v > 0 ? "inf" : "-inf";
  return nullptr;
}

json summary_to_json(const judge::ConfigSummary& s) {
  return {{"locked_in", s.k},
          {"seeds", s.n},
          {"lock_in_rate", s.rate},
          {"lock_in_ci", {{"low", s.ci.low}, {"high", s.ci.high}, {"level", s.level}, {"method", "clopper-pearson"}}},
          {"recall",
           {{"mean", json_number(s.recall.mean)}, {"median", json_number(s.recall.median)},
            {"sd", json_number(s.recall.sd)}, {"min", json_number(s.recall.min)}, {"max", json_number(s.recall.max)},
            {"q1", json_number(s.recall.q1)}, {"q3", json_number(s.recall.q3)}}},
          {"median_lock_in_step", s.median_lock_in_step >= 0 ? json(s.median_lock_in_step) : json(nullptr)},
          {"failed", s.failed},
          {"learning",
           {{"not_locked_in", s.learning.not_locked_in}, {"budget_limited", s.learning.budget_limited},
            {"plateaued", s.learning.plateaued}, {"unknown", s.learning.unknown}, {"stopped", s.learning.stopped},
            {"budget_limited_config", s.learning.budget_limited_config()},
            {"suggested_steps", s.learning.suggested_steps > 0 ? json(s.learning.suggested_steps) : json(nullptr)}}},
          {"floor_bits_per_number", s.floor_bits_per_number}};
}

// A config's summary with what plateau stopping would have saved on it (computed here only: it is the costly part).
static json summary_with_simulation(const Config& c) {
  json j = summary_to_json(judge::summarize(c));
  const judge::StoppingSimulation sim = judge::simulate_plateau_stopping(c);
  j["learning"]["stopping_simulation"] = {
      {"seeds", sim.seeds}, {"steps", sim.steps}, {"saved_steps", sim.saved_steps}, {"false_stops", sim.false_stops}};
  return j;
}

json config_to_json(const Config& c, bool with_curves) {
  json seeds = json::array();
  const judge::LearningSchedule schedule = judge::LearningSchedule::of(c);
  for (const auto& s : c.seeds) {
    json j = {{"seed", s.seed},
              {"status", run_status_name(s.status)},
              {"locked_in", s.locked_in()},
              {"final_accuracy", s.final_accuracy},
              {"best_accuracy", s.best_accuracy},
              {"lock_in_step", s.lock_in_step >= 0 ? json(s.lock_in_step) : json(nullptr)},
              {"steps", s.steps},
              {"wall_seconds", s.wall_seconds},
              {"steps_per_second", s.steps_per_second}};
    if (!s.message.empty()) j["message"] = s.message;
    if (!s.train_fingerprint.empty()) j["train_fingerprint"] = s.train_fingerprint;
    j["learning"] = learning_name(judge::diagnose_seed(s, schedule).label);
    if (s.stopped) j["stopped"] = true;
    if (with_curves) j["curve"] = curve_to_json(s.curve);
    seeds.push_back(std::move(j));
  }
  return {{"key", c.key},
          {"cell", c.cell},
          {"task", c.task},
          {"task_options", c.task_options},
          {"cell_options", c.cell_options},
          {"cell_info", c.cell_info},
          {"model", c.model},
          {"train", c.train()},
          {"state_size", c.state_size},
          {"state_budget", c.state_budget},
          {"parameters", c.parameters},
          {"architecture", c.architecture},
          {"eval_fingerprint", c.eval_fingerprint.empty() ? json(nullptr) : json(c.eval_fingerprint)},
          {"knobs", c.knobs},
          {"capacity_bits", c.capacity_bits},
          {"summary", summary_with_simulation(c)},
          {"seeds", seeds}};
}

namespace {
Config read_config(const json& j, const std::string& where);
}  // namespace

std::string over_budget(int64_t state_size, int64_t state_budget) {
  if (state_budget <= 0) return "";
  const double over = static_cast<double>(state_size) / static_cast<double>(state_budget) - 1.0;
  return over > 0.10 ? fmt::format(" (over budget by {:.0f}%)", 100 * over) : "";
}

Config config_from_json(const json& j, const std::string& where) {
  return with_json_errors(where, [&] { return read_config(j, where); });
}

namespace {

// One stored seed outcome of the config at `where`, whose recipe is `train` (a locked-in seed must have reached its
// threshold, when the recipe states one: the document is checked against its own field, not the default);
// `seen` holds the seeds read before it.
SeedOutcome read_seed(const json& sj, const std::string& w, const std::string& where, const json& train,
                      std::set<int64_t>& seen) {
  if (!sj.is_object()) throw UsageError(w + ": expected an object");
  SeedOutcome s;
  s.seed = require_field<int64_t>(sj, "seed", w);
  if (!seen.insert(s.seed).second) throw UsageError(fmt::format("{}: seed {} appears twice", where, s.seed));
  if (!parse_run_status(sj.value("status", "ok"), &s.status))
    throw UsageError(fmt::format("{}: field 'status' got {}, expected \"ok\", \"diverged\" or \"error\"", w,
                                 sj.at("status").dump()));
  s.message = sj.value("message", "");
  s.reached_threshold = require_field<bool>(sj, "locked_in", w);
  s.final_accuracy = require_field<double>(sj, "final_accuracy", w);
  s.best_accuracy = number_or(sj, "best_accuracy", s.final_accuracy);
  s.lock_in_step = integer_or(sj, "lock_in_step", -1);
  s.steps = integer_or(sj, "steps", 0);
  s.train_fingerprint = string_or_null(sj, "train_fingerprint", w);
  if (s.seed < 0) throw UsageError(fmt::format("{}: seed {} is negative", w, s.seed));
  // The one rule of a valid outcome (core/outcome.h), against the recipe's own budget and threshold.
  const auto recipe_number = [&](const char* field) {
    return train.contains(field) && train.at(field).is_number() ? train.at(field).get<double>() : 0.0;
  };
  if (const std::string why = s.contradiction(static_cast<int64_t>(recipe_number("steps")), recipe_number("threshold"));
      !why.empty())
    throw UsageError(fmt::format("{}: {}", w, why), "re-record the file from its results with recallbench");
  s.wall_seconds = number_or(sj, "wall_seconds", 0.0);
  s.steps_per_second = number_or(sj, "steps_per_second", 0.0);
  s.curve = curve_from_json(sj.value("curve", json::array()));
  if (sj.contains("learning") && !parse_learning(require_field<std::string>(sj, "learning", w), &s.learning))
    throw UsageError(fmt::format("{}: field 'learning' got {}, expected \"unknown\", \"locked-in\", \"plateaued\" or "
                                 "\"budget-limited\"", w, sj.at("learning").dump()));
  if (sj.contains("stopped")) s.stopped = require_field<bool>(sj, "stopped", w);
  return s;
}

// A stored summary must be the summary of the stored seeds (both are written together from the same runs).
void check_summary(const json& j, const Config& c, const std::string& where) {
  if (!j.contains("summary") || !j.at("summary").is_object()) return;
  const json& sum = j.at("summary");
  const judge::ConfigSummary mine = judge::summarize(c);
  const auto stored_k =
      sum.contains("locked_in") && sum.at("locked_in").is_number_integer() ? sum.at("locked_in").get<int64_t>() : mine.k;
  const auto stored_n =
      sum.contains("seeds") && sum.at("seeds").is_number_integer() ? sum.at("seeds").get<int64_t>() : mine.n;
  double stored_median = mine.recall.median;
  if (sum.contains("recall") && sum.at("recall").is_object() && sum.at("recall").contains("median") &&
      sum.at("recall").at("median").is_number())
    stored_median = sum.at("recall").at("median").get<double>();
  if (stored_k != mine.k || stored_n != mine.n || std::fabs(stored_median - mine.recall.median) > 1e-9)
    throw UsageError(fmt::format("{}: its summary ({} of {} locked in, median recall {:.6g}) disagrees with its per-seed "
                                 "outcomes ({} of {}, {:.6g}): the file contradicts itself (edited?)",
                                 where, stored_k, stored_n, stored_median, mine.k, mine.n, mine.recall.median),
                     "re-record the file from its results with recallbench");
}

Config read_config(const json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError(where + ": got a JSON " + std::string(j.type_name()) + ", expected an object");
  Config c;
  c.key = require_field<std::string>(j, "key", where);
  c.cell = require_field<std::string>(j, "cell", where);
  c.task = require_field<std::string>(j, "task", where);
  c.task_options = require_field<json>(j, "task_options", where);
  c.cell_options = j.value("cell_options", json::object());
  c.cell_info = j.value("cell_info", json(nullptr));
  if (!c.cell_info.is_null() && !c.cell_info.is_object())
    throw UsageError(where + ": field 'cell_info' must be an object or null");
  c.model = require_field<json>(j, "model", where);
  c.set_train(require_field<json>(j, "train", where));
  // The gate, the claims and the pages read these as objects (the model's fields, the recipe's steps, an option).
  for (const auto& [field, value] : {std::pair<const char*, const json*>{"task_options", &c.task_options}, {"cell_options", &c.cell_options},
                                     {"model", &c.model}, {"train", &c.train()}})
    if (!value->is_object())
      throw UsageError(fmt::format("{}: field '{}' got {}, expected an object", where, field, value->type_name()));
  // The key's hash covers the cell, model, task and train fields: fields that contradict it were edited.
  const std::string want = config_hash(c);
  if (!key_ends_with_hash(c.key, want))
    throw UsageError(fmt::format("{}: its cell, model, task and train fields hash to {}, but its key is '{}': the "
                                 "fields were edited or belong to another config",
                                 where, want, c.key),
                     "rebuild the file from results (recallbench baseline update BATTERY --results DIR)");
  c.state_size = require_field<int64_t>(j, "state_size", where);
  if (c.state_size < 0) throw UsageError(fmt::format("{}: state_size {} is negative", where, c.state_size));
  c.state_budget = require_field<int64_t>(j, "state_budget", where);
  c.parameters = integer_or(j, "parameters", 0);
  c.architecture = j.value("architecture", "");
  c.eval_fingerprint = string_or_null(j, "eval_fingerprint", where);
  c.knobs = j.value("knobs", json(nullptr));
  c.capacity_bits = number_or(j, "capacity_bits", 0.0);
  const json seeds = require_field<json>(j, "seeds", where);
  if (!seeds.is_array() || seeds.empty())
    throw UsageError(where + ": field 'seeds' must be a non-empty array of per-seed outcomes");
  std::set<int64_t> seen;
  for (size_t i = 0; i < seeds.size(); ++i)
    c.seeds.push_back(read_seed(seeds[i], fmt::format("{}.seeds[{}]", where, i), where, c.train(), seen));
  std::sort(c.seeds.begin(), c.seeds.end(), [](const SeedOutcome& a, const SeedOutcome& b) { return a.seed < b.seed; });
  check_summary(j, c, where);
  return c;
}

}  // namespace

}  // namespace rb::reports
