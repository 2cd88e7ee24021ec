// recallbench: the command line. Exit codes (every command): 0 success, 1 significant regression,
// 2 bad input or usage, 3 inconclusive (only when asked to fail on it), 4 internal error.
#include <cstdio>
#include <iostream>

#include "suite/cli.h"
#include "suite/core/errors.h"

int main(int argc, char** argv) {
  CLI::App app{
      "recallbench: trains and scores recurrent cells on matched-state associative-recall tasks, tests\n"
      "lock-in counts with exact statistics, and gates CI on significant regressions.\n"
      "Exit codes: 0 ok, 1 regression, 2 bad input/usage, 3 inconclusive (with --fail-on-inconclusive),\n"
      "4 internal error.",
      "recallbench"};
  app.require_subcommand(1);
  app.fallthrough(false);
  rb::Commands commands;
  rb::add_list_command(app, commands);
  rb::add_run_command(app, commands);
  rb::add_version_command(app, commands);
  rb::add_unbuilt_commands(app, commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::string valid;
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        valid += (valid.empty() ? "" : ", ") + sub->get_name();
      std::fprintf(stderr, "recallbench: unknown command '%s'\n  valid commands: %s\n", argv[1], valid.c_str());
      return rb::kExitUsage;
    }
    app.exit(e);
    return rb::kExitUsage;
  }

  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
    std::fprintf(stderr, "recallbench: no command given; see --help\n");
    return rb::kExitUsage;
  } catch (const rb::UsageError& e) {
    std::fprintf(stderr, "recallbench: error: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
    return rb::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "recallbench: internal error: %s\n", e.what());
    return rb::kExitInternal;
  }
}
