# Writes OUT, the translation unit that embeds the presets in the executables (suite/battery_presets.h): every
# *.json of PRESETS_DIR as a string literal, byte for byte, sorted by file name. recipes.json holds the shared
# recipes; every other file is one preset battery. suite/CMakeLists.txt runs this at build time whenever a file
# of PRESETS_DIR changes, so adding a preset is adding a file.
#   cmake -DPRESETS_DIR=<suite/presets> -DOUT=<file.cpp> -P embed.cmake
set(delimiter "rbjson")  # of the raw string literals; a file containing )rbjson" is refused

include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/embed_literal.cmake")

file(GLOB presets RELATIVE "${PRESETS_DIR}" "${PRESETS_DIR}/*.json")
list(SORT presets)
list(REMOVE_ITEM presets recipes.json)
if(NOT presets OR NOT EXISTS "${PRESETS_DIR}/recipes.json")
  message(FATAL_ERROR "${PRESETS_DIR}: expected recipes.json and at least one preset battery (*.json)")
endif()

set(cpp "// Generated from suite/presets/*.json by suite/presets/embed.cmake at build time: do not edit.\n")
string(APPEND cpp "#include \"suite/battery_presets.h\"\n\nnamespace rb {\n\nconst EmbeddedFile kEmbeddedPresets[] = {\n")
foreach(file ${presets})
  if(NOT file MATCHES "^[A-Za-z0-9_.-]+\\.json$")
    message(FATAL_ERROR "${PRESETS_DIR}/${file}: a preset's file is named after it: letters, digits, _ - . and .json")
  endif()
  rb_embedded_literal("${PRESETS_DIR}/${file}" ${delimiter} literal)
  string(APPEND cpp "{\"${file}\", ${literal}},\n")
endforeach()
list(LENGTH presets count)
rb_embedded_literal("${PRESETS_DIR}/recipes.json" ${delimiter} literal)
string(APPEND cpp "};\n\nconst size_t kEmbeddedPresetCount = ${count};\n\n"
                  "const EmbeddedFile kEmbeddedRecipes = {\"recipes.json\", ${literal}};\n\n}  // namespace rb\n")
file(WRITE "${OUT}.tmp" "${cpp}")
file(RENAME "${OUT}.tmp" "${OUT}")
