# Writes OUT, the translation unit that embeds the HTML pages' style sheets and script in the
# executables (reports/report_assets.h): each file of ASSETS_DIR named in ASSETS as a string
# literal, byte for byte, and each named in ONE_LINE_ASSETS with its line breaks dropped. A file's
# symbol is its name in kCamelCase: report.css is kReportCss. reports/CMakeLists.txt runs this at
# build time whenever one of the files changes.
#   cmake -DASSETS_DIR=<reports/assets> -DASSETS=a.css,b.js -DONE_LINE_ASSETS=c.css \
#         -DOUT=<file.cpp> -P embed.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/embed_literal.cmake")
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
string(REPLACE "," ";" assets "${ASSETS}")
foreach(file ${assets})
  append_asset(${file} "")
endforeach()
string(REPLACE "," ";" one_line_assets "${ONE_LINE_ASSETS}")
foreach(file ${one_line_assets})
  append_asset(${file} ONE_LINE)
endforeach()
string(APPEND cpp "}  // namespace rb::reports\n")
file(WRITE "${OUT}.tmp" "${cpp}")
file(RENAME "${OUT}.tmp" "${OUT}")
