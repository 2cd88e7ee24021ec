// C++ plugins: shared libraries, built against the installed cell API (find_package(recallbench)), that
// register cells with RB_REGISTER(CellRegistry, ...) like the in-tree ones. `recallbench --plugin PATH.so`
// and RECALLBENCH_PLUGINS (paths separated by ':') load them before any command runs; the loaded paths
// are exported in RECALLBENCH_PLUGINS so worker processes (and Slurm tasks) load the same ones.
#pragma once

#include <string>
#include <vector>

namespace rb {

// Loads each plugin (dlopen, RTLD_NOW | RTLD_GLOBAL). A missing file, a library that does not load, one
// that registers no cell, or one that registers a name that already exists: UsageError naming the file.
// Returns the cells each plugin added, "path: a, b".
std::vector<std::string> load_plugins(const std::vector<std::string>& paths);

// The plugin paths of argv (--plugin PATH, --plugin=PATH; removed from argv) and of RECALLBENCH_PLUGINS.
std::vector<std::string> plugin_arguments(int& argc, char** argv);

}  // namespace rb
