// The presets as data (suite/presets/, suite/battery_presets.h): every embedded file is a registered preset
// named after its file, with one description, that parses (and plans, unless it runs every cell); the shared
// recipes are written once (suite/presets/recipes.json) and give the batteries using them the same run keys.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "suite/battery.h"
#include "suite/battery_presets.h"
#include "suite/planner.h"

namespace rb {
namespace {

using nlohmann::json;

// The canonical training settings of a battery's recipe i (its name aside).
json recipe_settings(const Battery& b, size_t i) {
  json r = b.to_json()["recipes"][i];
  r.erase("name");
  return r;
}

// A one-run battery on the shared recipe `name` (as a user's battery file would name it).
Battery on_shared_recipe(const std::string& name) {
  return Battery::from_json(json{{"schema_version", 1}, {"name", "user"}, {"cells", {"diag"}}, {"seeds", "0"},
                                 {"tasks", {{{"name", "mqar"}}}}, {"recipes", {name}}},
                            "battery user.json");
}

TEST(Presets, EveryEmbeddedFileIsARegisteredPresetThatParses) {
  EXPECT_EQ(BatteryRegistry::instance().entries().size(), kEmbeddedPresetCount);
  for (size_t i = 0; i < kEmbeddedPresetCount; ++i) {
    const EmbeddedFile& file = kEmbeddedPresets[i];
    SCOPED_TRACE(file.name);
    const std::string name = json::parse(file.text)["name"];
    const BatteryEntry* entry = BatteryRegistry::instance().find(name);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(name + ".json", file.name);
    const Battery battery = entry->make();
    EXPECT_FALSE(entry->description.empty());
    EXPECT_EQ(entry->description, battery.description);  // one description: `list` and `plan` print the same
    // The presets over every registered cell are parsed, not planned: standard and paper resolve hundreds of
    // configs at lengths up to 1024 (seconds even on one cell); the leaderboard is planned below.
    if (!battery.all_cells) {
      EXPECT_FALSE(make_plan(battery).runs.empty());
    }
  }
}

TEST(Presets, SharedRecipesAreWrittenOnce) {
  const json shared = json::parse(kEmbeddedRecipes.text);
  ASSERT_FALSE(shared["recipes"].empty());
  EXPECT_EQ(SharedRecipeRegistry::instance().entries().size(), shared["recipes"].size());
  for (size_t p = 0; p < kEmbeddedPresetCount; ++p) {  // no preset writes a shared recipe out again
    const json written = json::parse(kEmbeddedPresets[p].text);
    if (!written.contains("recipes")) continue;
    const Battery b = Battery::from_json(written, kEmbeddedPresets[p].name);
    for (size_t i = 0; i < b.recipes.size(); ++i) {
      if (written["recipes"][i].is_string()) continue;  // named, not written
      for (const auto& entry : SharedRecipeRegistry::instance().entries()) {
        EXPECT_NE(b.recipes[i].name, entry.name) << kEmbeddedPresets[p].name << " redefines a shared recipe";
        EXPECT_NE(recipe_settings(b, i), recipe_settings(on_shared_recipe(entry.name), 0))
            << kEmbeddedPresets[p].name << ": recipe " << b.recipes[i].name << " is the shared recipe " << entry.name
            << " written out again; name it instead (\"recipes\": [\"" << entry.name << "\"])";
      }
    }
  }
}

TEST(Presets, TheSharedRecipeGivesTwoBatteriesTheSameRunKeys) {
  const Plan leaderboard = make_plan(load_battery("leaderboard"));
  const Plan claims = make_plan(load_battery("seed-claims"));
  std::set<std::string> keys;
  for (const auto& r : leaderboard.runs) keys.insert(r.key());
  size_t shared = 0;
  for (const auto& r : claims.runs) shared += keys.count(r.key());
  // The seed-claims configs the leaderboard also runs, on lb or lb-distance: MQAR 8 pairs for diag,
  // diag+conv, rank1, rank1+conv, mamba2, rank1+decay+conv; haystack with the distance curriculum for
  // rank1+decay+conv; collision for diag+conv; S_3 at length 16 for rank1, rank1+conv. 10 configs x 10 seeds.
  EXPECT_EQ(shared, 100u);
}

TEST(Presets, ABatteryFileNamesASharedRecipe) {
  EXPECT_EQ(on_shared_recipe("lb").recipes[0].train.steps, 1500);
  try {
    on_shared_recipe("lbx");
    ADD_FAILURE() << "an unknown shared recipe was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'recipes[0]': 'lbx' is not a shared recipe"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.hint()).find("lb-distance"), std::string::npos) << e.hint();
  }
}

}  // namespace
}  // namespace rb
