// The presets: registers every battery of suite/presets/ in BatteryRegistry and every recipe of
// suite/presets/recipes.json in SharedRecipeRegistry, from the text embedded at build time
// (suite/battery_presets.h). Only a preset's name and description are read here; the whole battery is
// parsed and validated when it is loaded (BatteryEntry::make), as a battery file is.
#include "suite/battery_presets.h"

#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "suite/battery.h"

namespace rb {
namespace {

using nlohmann::json;

// An embedded file that is not a JSON object is a broken build, not bad input: abort naming the file.
json parse_embedded(const EmbeddedFile& file) {
  json j = json::parse(file.text, nullptr, /*allow_exceptions=*/false);
  RB_ASSERT(j.is_object(), std::string("suite/presets/") + file.name + " is not a JSON object");
  return j;
}

bool is_string(const json& j, const char* key) { return j.contains(key) && j[key].is_string(); }

bool register_presets() {
  for (size_t i = 0; i < kEmbeddedPresetCount; ++i) {
    const EmbeddedFile& file = kEmbeddedPresets[i];
    const json j = parse_embedded(file);
    RB_ASSERT(is_string(j, "name") && j["name"].get<std::string>() + ".json" == file.name,
              std::string("suite/presets/") + file.name + ": the field 'name' must be the file's name without .json");
    const std::string name = j["name"].get<std::string>();
    const std::string description = is_string(j, "description") ? j["description"].get<std::string>() : "";
    const char* text = file.text;
    const auto make = [name, text] { return Battery::from_json(json::parse(text), "preset " + name); };
    BatteryRegistry::instance().add(BatteryEntry{name, description, make});
  }
  const json shared = parse_embedded(kEmbeddedRecipes);
  RB_ASSERT(shared.value("schema_version", json()) == kBatterySchemaVersion && shared.contains("recipes") &&
                shared["recipes"].is_array(),
            "suite/presets/recipes.json: expected {\"schema_version\": 1, \"recipes\": [...]}");
  for (const json& recipe : shared["recipes"]) {
    RB_ASSERT(recipe.is_object() && is_string(recipe, "name"),
              "suite/presets/recipes.json: every recipe is an object with a 'name', got " + recipe.dump());
    SharedRecipeRegistry::instance().add(SharedRecipeEntry{recipe["name"].get<std::string>(), recipe});
  }
  return true;
}

const bool registered = register_presets();

}  // namespace
}  // namespace rb
