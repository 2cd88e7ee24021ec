// The preset batteries and the shared recipes, as data: JSON files under suite/presets/ (one battery each, in
// the battery file format, suite/battery_schema.md; recipes.json holds the shared recipes), embedded at build
// time by suite/presets/embed.cmake into a generated translation unit that defines what is declared here.
// battery_presets.cpp registers them (BatteryRegistry, SharedRecipeRegistry), so adding a preset is adding
// a file: no C++ changes.
#pragma once

#include <cstddef>

namespace rb {

// One embedded file: its name under suite/presets/ and its text, byte for byte.
struct EmbeddedFile {
  const char* name;  // e.g. "smoke.json"; a preset's file is named after the preset
  const char* text;
};

// The preset batteries (every suite/presets/*.json but recipes.json), sorted by file name.
extern const EmbeddedFile kEmbeddedPresets[];
extern const size_t kEmbeddedPresetCount;

// The shared recipes (suite/presets/recipes.json): {"schema_version": 1, "recipes": [recipe, ...]}.
extern const EmbeddedFile kEmbeddedRecipes;

}  // namespace rb
