// The run document's one writer and one reader (see run_document.h).
#include "core/run_document.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"

namespace rb {
namespace {

using json = nlohmann::json;

// Largest count a document may state (steps, sizes): far above any real run, far below int64 overflow.
constexpr double kMaxCount = 1e15;
// Most curve points a document may hold (a 10^6-step run evaluated every step).
constexpr size_t kMaxCurvePoints = 1'000'000;

// Typed access with "got X, expected Y" messages naming the field; `path` is e.g. "result.steps".
class Fields {
 public:
  Fields(const json& object, std::string where, std::string prefix)
      : object_(object), where_(std::move(where)), prefix_(std::move(prefix)) {
    if (!object_.is_object())
      fail(prefix_.empty() ? "the document" : "field '" + prefix_ + "'", object_, "a JSON object");
  }

  const json* find(const char* name) const {
    const auto it = object_.find(name);
    return it == object_.end() ? nullptr : &*it;
  }
  const json& need(const char* name) const {
    const json* v = find(name);
    if (!v) throw UsageError(fmt::format("{}: missing field '{}'", where_, path(name)));
    return *v;
  }
  std::string text(const char* name) const {
    const json& v = need(name);
    if (!v.is_string()) fail(name, v, "a string");
    return v.get<std::string>();
  }
  std::string text_or(const char* name, const std::string& fallback) const {
    const json* v = find(name);
    if (!v || v->is_null()) return fallback;
    if (!v->is_string()) fail(name, *v, "a string");
    return v->get<std::string>();
  }
  bool flag(const char* name) const {
    const json& v = need(name);
    if (!v.is_boolean()) fail(name, v, "true or false");
    return v.get<bool>();
  }
  double number(const char* name, double lo, double hi) const { return checked_number(name, need(name), lo, hi); }
  double number_or(const char* name, double lo, double hi, double fallback) const {
    const json* v = find(name);
    return !v || v->is_null() ? fallback : checked_number(name, *v, lo, hi);
  }
  // A count in [lo, kMaxCount]; null gives `if_null` when `nullable`.
  int64_t count(const char* name, int64_t lo, bool nullable = false, int64_t if_null = -1) const {
    const json& v = need(name);
    if (nullable && v.is_null()) return if_null;
    return checked_count(name, v, lo);
  }
  int64_t count_or(const char* name, int64_t lo, int64_t fallback) const {
    const json* v = find(name);
    return !v || v->is_null() ? fallback : checked_count(name, *v, lo);
  }
  // A reference into the document (Fields over it must not outlive the document).
  const json& object(const char* name) const {
    const json& v = need(name);
    if (!v.is_object()) fail(name, v, "a JSON object");
    return v;
  }
  std::string path(const char* name) const { return prefix_.empty() ? name : prefix_ + "." + name; }
  [[noreturn]] void fail(const std::string& name, const json& got, const std::string& expected) const {
    std::string shown = got.is_primitive() ? got.dump() : std::string(got.type_name());
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    const std::string field = name.rfind("the document", 0) == 0 || name.rfind("field '", 0) == 0
                                  ? name
                                  : "field '" + path(name.c_str()) + "'";
    throw UsageError(fmt::format("{}: {} got {} ({}), expected {}", where_, field, shown, got.type_name(), expected));
  }

 private:
  double checked_number(const char* name, const json& v, double lo, double hi) const {
    if (!v.is_number()) fail(name, v, fmt::format("a number in [{}, {}]", lo, hi));
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) fail(name, v, fmt::format("a number in [{}, {}]", lo, hi));
    return x;
  }
  int64_t checked_count(const char* name, const json& v, int64_t lo) const {
    if (!v.is_number_integer()) fail(name, v, fmt::format("a whole number ≥ {}", lo));
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(kMaxCount)
                               : v.get<int64_t>() < lo || static_cast<double>(v.get<int64_t>()) > kMaxCount)
      fail(name, v, fmt::format("a whole number in [{}, {:g}]", lo, kMaxCount));
    return v.get<int64_t>();
  }

  const json& object_;
  std::string where_, prefix_;
};

const char* const kResultFields[] = {"status",  "message",      "final_accuracy",   "best_accuracy", "locked_in",
                                     "lock_in_step", "steps",   "wall_seconds",     "steps_per_second",
                                     "state_size", "parameters", "architecture",     "knobs", "capacity_bits",
                                     "eval_fingerprint", "train_fingerprint"};

}  // namespace

json RunDocument::to_json() const {
  json r = result.details.is_object() ? result.details : json::object();
  r["status"] = run_status_name(result.status);
  r["message"] = result.message;
  r["final_accuracy"] = result.final_accuracy;
  r["best_accuracy"] = result.best_accuracy;
  r["locked_in"] = result.reached_threshold;
  r["lock_in_step"] = result.lock_in_step >= 0 ? json(result.lock_in_step) : json(nullptr);
  r["steps"] = result.steps;
  r["wall_seconds"] = result.wall_seconds;
  r["steps_per_second"] = result.steps_per_second;
  r["state_size"] = result.state_size;
  r["parameters"] = result.parameters;
  if (!result.architecture.empty()) r["architecture"] = result.architecture;
  if (!result.eval_fingerprint.empty()) r["eval_fingerprint"] = result.eval_fingerprint;
  if (!result.train_fingerprint.empty()) r["train_fingerprint"] = result.train_fingerprint;
  if (result.knobs.is_object()) r["knobs"] = result.knobs;
  r["capacity_bits"] = result.capacity_bits;
  json c = json::array();
  for (const auto& p : curve) {
    json j = p.extra.is_object() ? p.extra : json::object();
    j["step"] = p.step;
    j["accuracy"] = p.accuracy;
    j["loss"] = std::isfinite(p.loss) ? json(p.loss) : json(nullptr);
    c.push_back(std::move(j));
  }
  return {{"schema_version", kRunSchemaVersion},
          {"kind", kRunKind},
          {"key", key},
          {"config_key", config_key},
          {"spec", spec},
          {"context", context},
          {"result", std::move(r)},
          {"curve", std::move(c)}};
}

RunDocument RunDocument::from_json(const json& doc, const std::string& where) {
  const Fields top(doc, where, "");
  const std::string kind = top.text_or("kind", "");
  if (kind != kRunKind)
    throw UsageError(fmt::format("{}: got kind '{}', expected '{}'", where, kind, kRunKind),
                     "pass a results directory (recallbench run --out DIR), a run file, a baseline or a report");
  const json& version = top.need("schema_version");
  if (!version.is_number_integer() || version.get<int64_t>() != kRunSchemaVersion)
    throw UsageError(fmt::format("{}: got run schema_version {}, expected {}", where, version.dump(), kRunSchemaVersion),
                     "rerun with this version of recallbench (recallbench run --force)");
  RunDocument d;
  d.key = top.text("key");
  d.config_key = top.text("config_key");
  d.spec = top.object("spec");
  {
    const Fields spec(d.spec, where, "spec");
    Fields(spec.object("cell"), where, "spec.cell").text("name");
    Fields(spec.object("task"), where, "spec.task").text("name");
    spec.object("model");
    spec.object("train");
    spec.count("seed", 0);
  }
  // The key and the spec must agree: a spec edited after the run (or pasted from another) is refused.
  const std::string want = short_hash(canonical_config(d.spec));
  if (!key_ends_with_hash(d.config_key, want) || d.key.rfind(d.config_key + "/seed:", 0) != 0)
    throw UsageError(fmt::format("{}: its spec hashes to {}, but its keys are '{}' and '{}': the spec was edited or "
                                 "belongs to another run",
                                 where, want, d.config_key, d.key),
                     "rerun it (recallbench run moves such a file aside and reruns it)");
  const json* context = top.find("context");
  if (context && !context->is_null()) d.context = top.object("context");

  const Fields r(top.object("result"), where, "result");
  RunResult& o = d.result;
  if (!parse_run_status(r.text("status"), &o.status))
    r.fail("status", r.need("status"), "\"ok\", \"diverged\" or \"error\"");
  o.message = r.text_or("message", "");
  o.reached_threshold = r.flag("locked_in");
  o.final_accuracy = r.number("final_accuracy", 0.0, 1.0);
  o.best_accuracy = r.number_or("best_accuracy", 0.0, 1.0, o.final_accuracy);
  o.lock_in_step = r.count("lock_in_step", 0, /*nullable=*/true);
  o.steps = r.count("steps", 0);
  {  // the one rule of a valid outcome (core/outcome.h), against the run's own recipe
    const json& train = d.spec.at("train");
    const auto recipe_number = [&](const char* field) {
      return train.contains(field) && train.at(field).is_number() ? train.at(field).get<double>() : 0.0;
    };
    if (const std::string why = o.contradiction(static_cast<int64_t>(recipe_number("steps")), recipe_number("threshold"));
        !why.empty())
      throw UsageError(fmt::format("{}: result: {}", where, why),
                       "rerun it (recallbench run moves such a file aside and reruns it)");
  }
  o.wall_seconds = r.number("wall_seconds", 0.0, kMaxCount);
  o.steps_per_second = r.number_or("steps_per_second", 0.0, kMaxCount, 0.0);
  o.state_size = r.count("state_size", 0);
  o.parameters = r.count_or("parameters", 0, 0);
  o.architecture = r.text_or("architecture", "");
  o.eval_fingerprint = r.text_or("eval_fingerprint", "");
  o.train_fingerprint = r.text_or("train_fingerprint", "");
  if (const json* k = r.find("knobs"); k && !k->is_null()) o.knobs = r.object("knobs");
  o.capacity_bits = r.number_or("capacity_bits", 0.0, kMaxCount, 0.0);
  o.details = top.object("result");
  for (const char* f : kResultFields) o.details.erase(f);

  const json& curve = top.need("curve");
  if (!curve.is_array()) top.fail("curve", curve, "an array of evaluation points");
  if (curve.size() > kMaxCurvePoints)
    throw UsageError(fmt::format("{}: field 'curve' has {} points, expected at most {}", where, curve.size(),
                                 kMaxCurvePoints));
  d.curve.reserve(curve.size());
  for (size_t i = 0; i < curve.size(); ++i) {
    const Fields p(curve[i], where, fmt::format("curve[{}]", i));
    RunCurvePoint point;
    point.step = p.count("step", 0);
    point.accuracy = p.number("accuracy", 0.0, 1.0);
    point.loss = p.number_or("loss", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::quiet_NaN());
    point.extra = curve[i];
    for (const char* f : {"step", "accuracy", "loss"}) point.extra.erase(f);
    d.curve.push_back(std::move(point));
  }
  return d;
}

int64_t RunDocument::seed() const { return spec.at("seed").get<int64_t>(); }
std::string RunDocument::cell() const { return spec.at("cell").at("name").get<std::string>(); }
std::string RunDocument::task() const { return spec.at("task").at("name").get<std::string>(); }

}  // namespace rb
