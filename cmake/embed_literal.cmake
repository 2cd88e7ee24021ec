# The helper the build-time embedding scripts share (suite/presets/embed.cmake,
# reports/assets/embed.cmake): include()d by a cmake -P script that writes a generated
# translation unit.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)  # recorded with the function: its "ONE_LINE" is a string, not a variable

# The C++ raw string literal of the file at `path`, in `out`: its text byte for byte, or, with
# ONE_LINE as a fourth argument, with its line breaks dropped (a style sheet written one rule per
# line: a line break that does not follow a '}' is refused, so that no two tokens run together).
# A file containing `)<delimiter>"`, which would end the literal, is refused.
#   rb_embedded_literal(<dir>/smoke.json rbjson literal)
function(rb_embedded_literal path delimiter out)
  file(READ "${path}" text)
  string(FIND "${text}" ")${delimiter}\"" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR
            "${path} contains ')${delimiter}\"', which ends the literal it is embedded in")
  endif()
  if(ARGC GREATER 3 AND ARGV3 STREQUAL "ONE_LINE")
    string(REGEX MATCH "[^}\n]\n" bad "${text}")
    if(bad)
      message(FATAL_ERROR "${path}: embedded as one line, so every line must end a rule with '}'")
    endif()
    string(REPLACE "\n" "" text "${text}")
  endif()
  set(${out} "R\"${delimiter}(${text})${delimiter}\"" PARENT_SCOPE)
endfunction()

cmake_policy(POP)
