// Loading C++ plugin cells. See plugins.h.
#include "suite/plugins.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "cells/catalog.h"
#include "core/errors.h"
#include "core/registry.h"

namespace rb {

std::vector<std::string> plugin_arguments(int& argc, char** argv) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("RECALLBENCH_PLUGINS")) {
    std::stringstream list(env);
    for (std::string p; std::getline(list, p, ':');)
      if (!p.empty()) paths.push_back(p);
  }
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--plugin") {
      if (i + 1 >= argc) throw UsageError("--plugin needs a path to a shared library (PATH.so)");
      paths.push_back(argv[++i]);
    } else if (a.rfind("--plugin=", 0) == 0) {
      paths.push_back(a.substr(9));
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  return paths;
}

std::vector<std::string> load_plugins(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  const std::string hint = "a plugin is a shared library built against the installed cell API "
                           "(find_package(recallbench); examples/plugin_cell)";
  std::vector<std::string> loaded, report;
  std::set<std::string> seen;
  for (const auto& given : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(given, ec)) throw UsageError("plugin " + given + ": file not found", hint);
    const std::string path = fs::canonical(given).string();
    if (!seen.insert(path).second) continue;  // the same library twice (flag and environment)
    const auto before = registered_cell_names();
    auto& log = registration_log();
    log.collecting = true;
    log.duplicates.clear();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    log.collecting = false;
    if (!handle) {
      const char* err = ::dlerror();
      throw UsageError("plugin " + given + " does not load: " + std::string(err ? err : "unknown error"), hint);
    }
    if (!log.duplicates.empty()) {
      std::string names;
      for (const auto& n : log.duplicates) names += (names.empty() ? "" : ", ") + n;
      throw UsageError("plugin " + given + " registers a name that already exists: " + names,
                       "rename the plugin's cell (in-tree and earlier plugins' names are taken)");
    }
    const auto after = registered_cell_names();
    std::vector<std::string> added;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
    if (added.empty()) throw UsageError("plugin " + given + " registers no cell", hint);
    std::string names;
    for (const auto& n : added) names += (names.empty() ? "" : ", ") + n;
    report.push_back(path + ": " + names);
    loaded.push_back(path);
  }
  std::string env;
  for (const auto& p : loaded) env += (env.empty() ? "" : ":") + p;
  if (!env.empty()) ::setenv("RECALLBENCH_PLUGINS", env.c_str(), 1);  // workers load the same libraries
  return report;
}

}  // namespace rb
