# Writes OUT, the translation unit that embeds the HTML pages' style sheets and script in the
# executables (reports/report_assets.h): each file assets.cmake lists in RB_REPORT_ASSETS as a
# string literal, byte for byte, and each in RB_REPORT_ASSETS_ONE_LINE with its line breaks dropped.
# A file's symbol is its name in kCamelCase: report.css is kReportCss. reports/CMakeLists.txt runs
# this at build time whenever one of the files changes (ci/fuzz runs it too).
#   cmake -DOUT=<file.cpp> -P reports/assets/embed.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/embed_literal.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/assets.cmake")
set(ASSETS_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(delimiter "rbasset")  # of the raw string literals; a file containing )rbasset" is refused

# Appends to `cpp` the definition of the file's symbol ("history.css" defines kHistoryCss); `mode`
# is "" (byte for byte) or ONE_LINE.
function(append_asset file mode)
  if(NOT file MATCHES "^[a-z0-9_-]+\\.(css|js)$")
    message(FATAL_ERROR "${ASSETS_DIR}/${file}: expected a name of lowercase letters, digits, "
                        "_ and -, ending in .css or .js")
  endif()
  string(REGEX REPLACE "[._-]" ";" parts "${file}")
  set(symbol "k")
  foreach(part ${parts})
    string(SUBSTRING "${part}" 0 1 first)
    string(SUBSTRING "${part}" 1 -1 rest)
    string(TOUPPER "${first}" first)
    string(APPEND symbol "${first}${rest}")
  endforeach()
  rb_embedded_literal("${ASSETS_DIR}/${file}" ${delimiter} literal ${mode})
  set(cpp "${cpp}const char ${symbol}[] = ${literal};\n\n" PARENT_SCOPE)
endfunction()

set(cpp "// Generated from reports/assets/ by reports/assets/embed.cmake at build time: ")
string(APPEND cpp "do not edit.\n#include \"reports/report_assets.h\"\n\n")
string(APPEND cpp "namespace rb::reports {\n\n")
foreach(file ${RB_REPORT_ASSETS})
  append_asset(${file} "")
endforeach()
foreach(file ${RB_REPORT_ASSETS_ONE_LINE})
  append_asset(${file} ONE_LINE)
endforeach()
string(APPEND cpp "}  // namespace rb::reports\n")
# Rewritten only when its text changes, so an unchanged asset recompiles (and relinks the fuzz targets) nothing.
file(WRITE "${OUT}.tmp" "${cpp}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
