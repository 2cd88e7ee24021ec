// Batteries: parsing and validating battery documents (files, and the presets of suite/presets/, registered
// by battery_presets.cpp), loading one by preset name or path.
#include "suite/battery.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "judge/tuning.h"

namespace rb {

std::vector<int64_t> parse_seeds(const std::string& text) {
  std::vector<int64_t> seeds;
  std::stringstream ss(text);
  std::string part;
  const auto bad = [&]() {
    return UsageError("bad seed list '" + text + "'",
                      fmt::format("expected e.g. 3, 0-9 or 0,2,5-7: distinct integers in [0, {}], at most {} of them",
                                  kMaxSeed, kMaxSeeds));
  };
  while (std::getline(ss, part, ',')) {
    if (part.empty()) throw bad();
    const auto dash = part.find('-');
    try {
      size_t pos = 0;
      if (dash == std::string::npos) {
        const int64_t s = std::stoll(part, &pos);
        if (pos != part.size() || s < 0 || s > kMaxSeed) throw bad();
        seeds.push_back(s);
      } else {
        const std::string a = part.substr(0, dash), b = part.substr(dash + 1);
        size_t pa = 0, pb = 0;
        const int64_t lo = std::stoll(a, &pa), hi = std::stoll(b, &pb);
        if (pa != a.size() || pb != b.size() || lo < 0 || hi < lo || hi > kMaxSeed ||
            hi - lo >= kMaxSeeds - static_cast<int64_t>(seeds.size()))
          throw bad();
        for (int64_t s = lo; s <= hi; ++s) seeds.push_back(s);
      }
    } catch (const std::logic_error&) {
      throw bad();
    }
    if (static_cast<int64_t>(seeds.size()) > kMaxSeeds) throw bad();
  }
  if (seeds.empty()) throw bad();
  std::vector<int64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UsageError("bad seed list '" + text + "': seed " + std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) +
                         " appears twice", "give each seed once (e.g. 0-3, not 0-3,2)");
  return seeds;
}

namespace {

using nlohmann::json;

std::string type_of(const json& v) {
  if (v.is_number_integer()) return "integer " + v.dump();
  if (v.is_number()) return "number " + v.dump();
  if (v.is_string()) return "string " + v.dump();
  return std::string(v.type_name()) + (v.is_primitive() ? " " + v.dump() : "");
}

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& expected,
                       const json& got) {
  throw UsageError(where + ": field '" + field + "': expected " + expected + ", got " + type_of(got));
}

// Rejects fields not in `known` (typos would otherwise be silently ignored).
void check_fields(const json& obj, const std::string& where, const std::string& prefix,
                  const std::vector<std::string>& known) {
  for (const auto& [k, v] : obj.items()) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string valid;
      for (const auto& n : known) valid += (valid.empty() ? "" : ", ") + n;
      throw UsageError(where + ": unknown field '" + prefix + k + "'", "valid fields here: " + valid);
    }
  }
}

double get_number(const json& obj, const std::string& key, const std::string& where, const std::string& field) {
  const json& v = obj.at(key);
  if (!v.is_number()) fail(where, field, "a number", v);
  return v.get<double>();
}

std::string get_string(const json& obj, const std::string& key, const std::string& where, const std::string& field) {
  const json& v = obj.at(key);
  if (!v.is_string() || v.get<std::string>().empty()) fail(where, field, "a non-empty string", v);
  return v.get<std::string>();
}

bool valid_name(const std::string& s) {
  return !s.empty() && s.size() <= 100 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

// One number of a model or recipe (a row of model_numbers() or train_numbers()): type and plausible range.
template <class Spec>
void read_number(const json& v, const SpecNumber<Spec>& row, Spec& s, const std::string& where, const std::string& field) {
  const std::string expected = std::string(row.is_integer() ? "an integer" : "a number") + " in " + row.range();
  if (!(row.is_integer() ? v.is_number_integer() : v.is_number()) || !row.in_range(v.get<double>()))
    fail(where, field, expected, v);
  std::visit([&](auto m) { s.*m = v.get<std::remove_reference_t<decltype(s.*m)>>(); }, row.member);
}

template <class Spec>
const SpecNumber<Spec>& number_row(const std::vector<SpecNumber<Spec>>& rows, const std::string& name) {
  return *std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.name == name; });
}

json train_to_json(const TrainSpec& t) {
  RunSpec s;
  s.train = t;
  json j = s.to_json()["train"];
  j.erase("threshold");  // the battery's, not the recipe's
  return j;
}

BatteryRecipe recipe_from_json(const json& r, const std::string& where, const std::string& field) {
  if (!r.is_object()) fail(where, field, "an object", r);
  BatteryRecipe out;
  json defaults = train_to_json(out.train);
  std::vector<std::string> known = {"name", "stop_on_plateau"};
  for (const auto& [k, v] : defaults.items()) known.push_back(k);
  check_fields(r, where, field + ".", known);
  if (!r.contains("name")) throw UsageError(where + ": missing field '" + field + ".name'");
  out.name = get_string(r, "name", where, field + ".name");
  if (!valid_name(out.name)) fail(where, field + ".name", "a name of letters, digits, _ - .", r["name"]);
  TrainSpec& t = out.train;
  const std::string f = field + ".";
  for (const auto& row : train_numbers()) {  // every number of the recipe, with its plausible range
    if (!r.contains(row.name) || std::string(row.name) == "threshold") continue;  // the threshold is the battery's
    read_number(r[row.name], row, t, where, f + row.name);
  }
  if (r.contains("curriculum")) t.curriculum = get_string(r, "curriculum", where, f + "curriculum");
  if (r.contains("impl")) t.impl = get_string(r, "impl", where, f + "impl");
  if (r.contains("stop_on_plateau")) {
    if (!r["stop_on_plateau"].is_boolean()) fail(where, f + "stop_on_plateau", "true or false", r["stop_on_plateau"]);
    t.stop_on_plateau = r["stop_on_plateau"].get<bool>();
  }
  if (r.contains("curriculum_options")) {
    if (!r["curriculum_options"].is_object()) fail(where, f + "curriculum_options", "an object", r["curriculum_options"]);
    t.curriculum_options = r["curriculum_options"];
  }
  return out;
}

BatteryTask task_from_json(const json& t, const std::string& where, const std::string& field) {
  if (!t.is_object()) fail(where, field, "an object {\"name\": ..., \"options\": {...}, \"grid\": {...}}", t);
  check_fields(t, where, field + ".", {"name", "options", "grid", "recipes", "cells"});
  if (!t.contains("name")) throw UsageError(where + ": missing field '" + field + ".name'");
  BatteryTask out;
  out.name = get_string(t, "name", where, field + ".name");
  if (t.contains("options")) {
    if (!t["options"].is_object()) fail(where, field + ".options", "an object of task options", t["options"]);
    out.options = t["options"];
  }
  if (t.contains("grid")) {
    const json& g = t["grid"];
    if (!g.is_object()) fail(where, field + ".grid", "an object of option → list of values", g);
    for (const auto& [k, v] : g.items()) {
      const std::string gf = field + ".grid." + k;
      if (!v.is_array() || v.empty()) fail(where, gf, "a non-empty list of values", v);
      std::vector<json> values;
      for (const auto& x : v) {
        if (!x.is_primitive() || x.is_null()) fail(where, gf, "a list of numbers, strings or booleans", v);
        if (std::find(values.begin(), values.end(), x) != values.end()) fail(where, gf, "distinct values", v);
        values.push_back(x);
      }
      if (out.options.contains(k)) throw UsageError(where + ": task option '" + k + "' is both in " + field +
                                                    ".options and " + field + ".grid; keep one");
      out.grid.emplace_back(k, values);
    }
  }
  // Names checked against the battery's recipes and cells in from_json.
  for (auto [key, target] : {std::pair{"recipes", &out.recipes}, {"cells", &out.cells}}) {
    if (!t.contains(key)) continue;
    const json& r = t[key];
    const std::string f = field + "." + key;
    const std::string expected = std::string("a non-empty list of distinct ") + (target == &out.cells ? "cell" : "recipe") + " names";
    if (!r.is_array() || r.empty()) fail(where, f, expected, r);
    for (const auto& name : r) {
      if (!name.is_string() || std::find(target->begin(), target->end(), name.get<std::string>()) != target->end())
        fail(where, f, expected, r);
      target->push_back(name.get<std::string>());
    }
  }
  return out;
}

}  // namespace

namespace {

// The parts of Battery::from_json, each reading its fields of `j` into `b` (UsageError naming the field).
void read_cells(const json& j, const std::string& where, Battery& b) {
  const json& cells = j["cells"];
  if (cells.is_string() && cells.get<std::string>() == "all") {
    b.all_cells = true;
  } else if (cells.is_array() && !cells.empty()) {
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string f = "cells[" + std::to_string(i) + "]";
      if (!cells[i].is_string() || cells[i].get<std::string>().empty()) fail(where, f, "a cell name", cells[i]);
      const auto name = cells[i].get<std::string>();
      if (std::find(b.cells.begin(), b.cells.end(), name) != b.cells.end())
        throw UsageError(where + ": field '" + f + "': cell '" + name + "' is listed twice");
      b.cells.push_back(name);
    }
  } else {
    fail(where, "cells", "\"all\" or a non-empty list of cell names", cells);
  }
  if (j.contains("cell_options")) {
    if (!j["cell_options"].is_object()) fail(where, "cell_options", "an object of cell options", j["cell_options"]);
    b.cell_options = j["cell_options"];
  }
  if (j.contains("reference")) {
    b.reference = get_string(j, "reference", where, "reference");
    if (!b.all_cells && std::find(b.cells.begin(), b.cells.end(), b.reference) == b.cells.end())
      throw UsageError(where + ": field 'reference': cell '" + b.reference + "' is not in 'cells'");
  }
}

void read_model(const json& j, const std::string& where, Battery& b) {
  if (j.contains("model")) {
    const json& m = j["model"];
    if (!m.is_object()) fail(where, "model", "an object {\"d_model\", \"layers\", \"mlp\"}", m);
    check_fields(m, where, "model.", {"d_model", "layers", "mlp", "bidirectional"});
    for (const char* name : {"d_model", "layers"})
      if (m.contains(name)) read_number(m[name], number_row(model_numbers(), name), b.model, where, std::string("model.") + name);
    if (m.contains("mlp")) {
      if (!m["mlp"].is_boolean()) fail(where, "model.mlp", "true or false", m["mlp"]);
      b.model.mlp = m["mlp"].get<bool>();
    }
    if (m.contains("bidirectional")) {  // the model may read the whole sequence: denoiser cells run here only
      if (!m["bidirectional"].is_boolean()) fail(where, "model.bidirectional", "true or false", m["bidirectional"]);
      b.model.bidirectional = m["bidirectional"].get<bool>();
    }
  }
  if (j.contains("state_budget"))
    read_number(j["state_budget"], number_row(model_numbers(), "state_budget"), b.model, where, "state_budget");
  if (j.contains("threshold")) {
    b.threshold = get_number(j, "threshold", where, "threshold");
    if (!(b.threshold > 0 && b.threshold <= 1)) fail(where, "threshold", "a number in (0, 1]", j["threshold"]);
  }
}

// A seed list (`field` names it in messages): "0-9", "0,2,5-7" or a list of distinct integers.
std::vector<int64_t> read_seed_list(const json& seeds, const std::string& where, const std::string& field) {
  std::vector<int64_t> out;
  if (seeds.is_string()) {
    try {
      out = parse_seeds(seeds.get<std::string>());
    } catch (const UsageError& e) {
      throw UsageError(where + ": field '" + field + "': " + e.what(), e.hint());
    }
  } else if (seeds.is_array() && !seeds.empty()) {
    for (const auto& s : seeds) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() > kMaxSeed)
        fail(where, field, fmt::format("integers in [0, {}]", kMaxSeed), seeds);
      if (static_cast<int64_t>(out.size()) >= kMaxSeeds) fail(where, field, fmt::format("at most {} seeds", kMaxSeeds), seeds);
      out.push_back(s.get<int64_t>());
    }
  } else {
    fail(where, field, "a seed list like \"0-9\" or a non-empty list of integers", seeds);
  }
  std::set<int64_t> distinct(out.begin(), out.end());
  if (distinct.size() != out.size()) fail(where, field, "distinct seeds", seeds);
  return out;
}

// The shared recipe `name` (suite/presets/recipes.json) where a battery's recipes[i] names one.
BatteryRecipe shared_recipe(const std::string& name, const std::string& where, const std::string& field) {
  const SharedRecipeEntry* shared = SharedRecipeRegistry::instance().find(name);
  if (shared == nullptr)
    throw UsageError(where + ": field '" + field + "': '" + name + "' is not a shared recipe",
                     "shared recipes (suite/presets/recipes.json): " + SharedRecipeRegistry::instance().joined_names() +
                         "; or write the recipe out as an object");
  return recipe_from_json(shared->recipe, where, field + " (shared recipe '" + name + "')");
}

// Recipes (default: one; each an object or a shared recipe's name), then the tasks' references to recipes and
// cells.
void read_recipes(const json& j, const std::string& where, Battery& b) {
  if (j.contains("recipes")) {
    const json& r = j["recipes"];
    if (!r.is_array() || r.empty()) fail(where, "recipes", "a non-empty list of recipes", r);
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string field = "recipes[" + std::to_string(i) + "]";
      if (!r[i].is_object() && !r[i].is_string()) fail(where, field, "a recipe object or a shared recipe's name", r[i]);
      auto recipe = r[i].is_string() ? shared_recipe(r[i].get<std::string>(), where, field)
                                     : recipe_from_json(r[i], where, field);
      for (const auto& other : b.recipes)
        if (other.name == recipe.name)
          throw UsageError(where + ": field 'recipes[" + std::to_string(i) + "].name': recipe '" + recipe.name +
                           "' is defined twice");
      b.recipes.push_back(recipe);
    }
  } else {
    b.recipes.push_back(BatteryRecipe{});
  }
  for (auto& r : b.recipes) r.train.threshold = b.threshold;
  for (size_t i = 0; i < b.tasks.size(); ++i)
    for (const auto& name : b.tasks[i].recipes)
      if (std::none_of(b.recipes.begin(), b.recipes.end(), [&](const auto& r) { return r.name == name; }))
        throw UsageError(fmt::format("{}: field 'tasks[{}].recipes': recipe '{}' is not one of the battery's recipes",
                                     where, i, name));
  for (size_t i = 0; i < b.tasks.size(); ++i)
    for (const auto& name : b.tasks[i].cells)
      if (!b.all_cells && std::find(b.cells.begin(), b.cells.end(), name) == b.cells.end())
        throw UsageError(fmt::format("{}: field 'tasks[{}].cells': cell '{}' is not in the battery's 'cells'", where, i,
                                     name));
}

void read_contrasts(const json& j, const std::string& where, Battery& b) {
  if (j.contains("contrasts")) {
    const json& c = j["contrasts"];
    if (!c.is_array()) fail(where, "contrasts", "a list of contrast kinds", c);
    for (size_t i = 0; i < c.size(); ++i) {
      const std::string f = "contrasts[" + std::to_string(i) + "]";
      const std::string kind = c[i].is_string() ? c[i].get<std::string>() : "";
      if (std::find(std::begin(kContrastKinds), std::end(kContrastKinds), kind) == std::end(kContrastKinds))
        fail(where, f, "one of conv, transition, decay, curriculum, reference", c[i]);
      if (kind == "reference" && b.reference.empty())
        throw UsageError(where + ": field '" + f + "': the 'reference' contrast needs the field 'reference'");
      b.contrasts.push_back(kind);
    }
  }
}

// The tuning block, after the seeds and recipes it refers to.
void read_tuning(const json& j, const std::string& where, Battery& b) {
  if (!j.contains("tuning")) return;
  const json& t = j["tuning"];
  if (!t.is_object()) fail(where, "tuning", "an object {\"lr\": [...], \"seeds\": \"100-101\"}", t);
  check_fields(t, where, "tuning.", {"lr", "seeds", "rule"});
  for (const char* required : {"lr", "seeds"})
    if (!t.contains(required)) throw UsageError(where + ": missing field 'tuning." + std::string(required) + "'",
                                                "see suite/battery_schema.md, \"The tuning stage\"");
  BatteryTuning out;
  const json& lrs = t["lr"];
  const auto& lr_row = number_row(train_numbers(), "lr");
  if (!lrs.is_array() || lrs.size() < 2) fail(where, "tuning.lr", "a list of at least two learning rates", lrs);
  for (const auto& v : lrs) {
    if (!v.is_number() || !lr_row.in_range(v.get<double>()))
      fail(where, "tuning.lr", "learning rates in " + lr_row.range(), lrs);
    out.lrs.push_back(v.get<double>());
  }
  std::sort(out.lrs.begin(), out.lrs.end());
  if (std::adjacent_find(out.lrs.begin(), out.lrs.end()) != out.lrs.end())
    fail(where, "tuning.lr", "distinct learning rates", lrs);
  out.seeds = read_seed_list(t["seeds"], where, "tuning.seeds");
  for (int64_t s : out.seeds)
    if (std::find(b.seeds.begin(), b.seeds.end(), s) != b.seeds.end())
      throw UsageError(fmt::format("{}: field 'tuning.seeds': seed {} is also a scoring seed ('seeds')", where, s),
                       "tuning seeds choose the rate and must never be the seeds a row is scored on; take "
                       "seeds outside 'seeds', e.g. 100-101");
  if (t.contains("rule")) {
    out.rule = get_string(t, "rule", where, "tuning.rule");
    if (!judge::parse_tuning_rule(out.rule))
      fail(where, "tuning.rule", std::string("one of ") + judge::kTuningRuleNames + " (judge/tuning.h)", t["rule"]);
  }
  for (const auto& r : b.recipes)
    for (double lr : out.lrs)
      if (!valid_name(BatteryTuning::recipe_name(r.name, lr)))
        fail(where, "recipes", "recipe names short enough to take a rate suffix", json(r.name));
  b.tuning = out;
}

}  // namespace

std::string BatteryTuning::recipe_name(const std::string& recipe, double lr) {
  return fmt::format("{}-lr{:g}", recipe, lr);
}

bool Battery::valid_device(const std::string& d) {
  if (d == "cpu" || d == "cuda") return true;
  if (d.rfind("cuda:", 0) != 0 || d.size() == 5 || d.size() > 8) return false;
  return std::all_of(d.begin() + 5, d.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

Battery Battery::from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError(where + ": expected a JSON object, got " + std::string(j.type_name()));
  check_fields(j, where, "",
               {"schema_version", "name", "description", "cells", "cell_options", "reference", "model", "state_budget",
                "threshold", "seeds", "tasks", "recipes", "contrasts", "tuning", "device"});
  for (const char* required : {"schema_version", "name", "cells", "seeds", "tasks"})
    if (!j.contains(required)) throw UsageError(where + ": missing field '" + std::string(required) + "'",
                                                "see suite/battery_schema.md");
  if (!j["schema_version"].is_number_integer() || j["schema_version"].get<int64_t>() != kBatterySchemaVersion)
    fail(where, "schema_version", std::to_string(kBatterySchemaVersion), j["schema_version"]);

  Battery b;
  b.name = get_string(j, "name", where, "name");
  if (!valid_name(b.name)) fail(where, "name", "a name of at most 100 letters, digits, _ - .", j["name"]);
  if (j.contains("device")) {
    if (!j["device"].is_string() || !valid_device(j["device"].get<std::string>()))
      fail(where, "device", "cpu, cuda or cuda:N", j["device"]);
    b.device = j["device"].get<std::string>();
  }
  if (j.contains("description")) {
    if (!j["description"].is_string()) fail(where, "description", "a string", j["description"]);
    b.description = j["description"].get<std::string>();
  }

  read_cells(j, where, b);
  read_model(j, where, b);
  b.seeds = read_seed_list(j["seeds"], where, "seeds");
  const json& tasks = j["tasks"];
  if (!tasks.is_array() || tasks.empty()) fail(where, "tasks", "a non-empty list of tasks", tasks);
  for (size_t i = 0; i < tasks.size(); ++i)
    b.tasks.push_back(task_from_json(tasks[i], where, "tasks[" + std::to_string(i) + "]"));

  read_recipes(j, where, b);
  read_contrasts(j, where, b);
  read_tuning(j, where, b);
  return b;
}

json Battery::to_json() const {
  json j;
  j["schema_version"] = kBatterySchemaVersion;
  j["name"] = name;
  j["description"] = description;
  j["cells"] = all_cells ? json("all") : json(cells);
  if (!cell_options.empty()) j["cell_options"] = cell_options;
  if (!reference.empty()) j["reference"] = reference;
  if (!device.empty()) j["device"] = device;
  j["model"] = {{"d_model", model.d_model}, {"layers", model.layers}, {"mlp", model.mlp}};
  if (model.bidirectional) j["model"]["bidirectional"] = true;
  j["state_budget"] = model.state_budget;
  j["threshold"] = threshold;
  j["seeds"] = seeds;
  j["tasks"] = json::array();
  for (const auto& t : tasks) {
    json g = json::object();
    for (const auto& [k, v] : t.grid) g[k] = v;
    json tj = {{"name", t.name}, {"options", t.options}, {"grid", g}};
    if (!t.recipes.empty()) tj["recipes"] = t.recipes;
    if (!t.cells.empty()) tj["cells"] = t.cells;
    j["tasks"].push_back(tj);
  }
  j["recipes"] = json::array();
  for (const auto& r : recipes) {
    json rj = train_to_json(r.train);
    rj["name"] = r.name;
    j["recipes"].push_back(rj);
  }
  j["contrasts"] = contrasts;
  if (tuning) j["tuning"] = {{"lr", tuning->lrs}, {"seeds", tuning->seeds}, {"rule", tuning->rule}};
  return j;
}
Battery load_battery(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  const bool looks_like_file = name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json";
  std::error_code ec;
  if (looks_like_file || (name_or_path.find('/') != std::string::npos) || fs::is_regular_file(name_or_path, ec)) {
    if (!fs::is_regular_file(name_or_path, ec))
      throw UsageError("battery file '" + name_or_path + "' does not exist",
                       "give a preset name (" + BatteryRegistry::instance().joined_names() + ") or a JSON file");
    Battery b = Battery::from_json(read_json_file(name_or_path), "battery file " + name_or_path);
    b.base_dir = fs::absolute(name_or_path).parent_path().string();
    return b;
  }
  return BatteryRegistry::instance().get(name_or_path, "battery").make();
}

void restrict_to_cells(Battery& battery, const std::string& cells) {
  battery.all_cells = false;
  battery.cells.clear();
  std::stringstream list(cells);
  for (std::string name; std::getline(list, name, ',');) {
    if (name.empty() || std::find(battery.cells.begin(), battery.cells.end(), name) != battery.cells.end())
      throw UsageError("--cell '" + cells + "': expected distinct cell names separated by commas");
    if (is_script_cell(name) && name.size() > 7)  // a path given here is relative to the working directory
      name = kScriptCellPrefix + std::filesystem::absolute(name.substr(7)).string();
    battery.cells.push_back(name);
  }
  if (std::find(battery.cells.begin(), battery.cells.end(), battery.reference) == battery.cells.end())
    battery.reference.clear();
}

}  // namespace rb
