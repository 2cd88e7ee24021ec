# The pages' assets, the one list the build (reports/CMakeLists.txt), embed.cmake and ci/fuzz read.
set(RB_REPORT_ASSETS report.css report.js)  # embedded byte for byte
set(RB_REPORT_ASSETS_ONE_LINE history.css)  # one rule per line, embedded without the line breaks
