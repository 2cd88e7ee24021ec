#include "suite/cli_main.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "suite/needs_libtorch.h"
#include "suite/cli.h"
#include "suite/context.h"

namespace rb {
namespace {

// Numbers on the command line are read one way, as battery files read them: integers in decimal digits
// (CLI11 alone reads 0x10 as 16 and 0b11 as 3, and reports 1e3 as "not in range"), floating-point numbers
// in decimal notation with an optional exponent (no hex floats, no inf or nan). Added in front of every
// INT, UINT and FLOAT option's own range check, so the message names what is wrong.
void decimal_numbers_only(CLI::App& app) {
  static const std::regex integer(R"(^[+-]?[0-9]+$)");
  static const std::regex real(R"(^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$)");
  for (CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    const bool is_int = type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0;
    const bool is_real = type.rfind("FLOAT", 0) == 0;
    if (!is_int && !is_real) continue;
    opt->transform(CLI::Validator(
        [is_int](std::string& value) -> std::string {
          if (std::regex_match(value, is_int ? integer : real)) return "";
          return is_int ? "expected an integer in decimal digits (e.g. 1000), got '" + value + "'"
                        : "expected a decimal number (e.g. 0.003 or 3e-3), got '" + value + "'";
        },
        "", "decimal"));
  }
  for (CLI::App* sub : app.get_subcommands({})) decimal_numbers_only(*sub);
}

// A command's exit code, unless what it printed did not reach standard output (a full disk, a closed pipe
// without SIGPIPE): then exit 2 and say so, so that `plan --battery-json > F` on a full disk never passes.
int output_checked(int rc) {
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!failed || rc == kExitInternal) return rc;
  std::fprintf(stderr, "recallbench: error: writing to standard output failed: %s\n", std::strerror(errno));
  return kExitUsage;
}

}  // namespace

const std::vector<TorchSideCommand>& torch_side_commands() {
  static const std::vector<TorchSideCommand> commands{
      {"bench", "Kernel microbenchmarks: every kernel implementation, forward and forward+backward, tokens/s and FLOP/s, next to its _ref (Google Benchmark JSON)"},
      {"check-cell", "Check that a cell is a fair entrant: shape, causality, gradients, state, step path, determinism"},
      {"gate", "Run a battery and gate it on a baseline, adding seeds where the answer is open (sequential paired test)"},
      {"run", "Train and score runs (a battery, or one cell on one task over seeds)"},
      {"score", "Score a new cell: check it, plan and confirm, train its leaderboard row, show the board"},
      {"version", "Print the version and the run context (commit, compiler, LibTorch, BLAS)"},
      {"worker", "(internal) train one run for the runner", true},
  };
  return commands;
}

std::string torch_side_help(const std::string& name) {
  for (const auto& c : torch_side_commands())
    if (name == c.name) return c.help;
  RB_ASSERT(false, "command '" + name + "' is not in torch_side_commands()");
  return "";
}

int run_cli(int argc, char** argv) {
  CLI::App app{
      "recallbench: trains and scores recurrent cells on matched-state associative-recall tasks, tests\n"
      "lock-in counts with exact statistics, and gates CI on significant regressions.\n"
      "Exit codes: 0 ok, 1 regression, 2 bad input/usage, 3 inconclusive (with --fail-on-inconclusive),\n"
      "4 internal error; 130 when `run` is interrupted (Ctrl-C, SIGTERM: finished runs are kept).",
      "recallbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    const auto c = capture_context(1);
    const std::string commit = c.value("git_commit", "");
    return "recallbench " + c.value("recallbench_version", "") + ", built from " +
           (commit.empty() ? std::string("no git checkout") : "commit " + commit) + " (" +
           c.value("build_type", "") + ", LibTorch " + c.value("libtorch_version", "") + ", " +
           c.value("compiler", "") + ")";
  });
  // Declared for --help only: plugin_arguments() has already taken these out of argv.
  std::vector<std::string> plugin_help;
  app.add_option("--plugin", plugin_help,
                 "Load cells from a shared library built against the installed cell API (repeatable; before the "
                 "command; also RECALLBENCH_PLUGINS=a.so:b.so)");
  // Every command by name: the registered ones, and in the front end, which does not link the torch side's
  // commands, those listed for the global --help only (never run here: suite/main.cpp hands them over).
  struct Listed {
    const CommandEntry* entry = nullptr;        // registered in this process
    const TorchSideCommand* torch_side = nullptr;  // else only listed
  };
  std::map<std::string, Listed> by_name;
  for (const auto& c : torch_side_commands()) by_name[c.name].torch_side = &c;
  for (const auto& entry : CommandRegistry::instance().entries()) by_name[entry.name].entry = &entry;
  std::vector<std::pair<CLI::App*, CommandFn>> commands;
  for (const auto& [name, listed] : by_name) {
    if (listed.entry == nullptr) {
      app.add_subcommand(name, listed.torch_side->help)->group(listed.torch_side->hidden ? "" : "Subcommands");
      continue;
    }
    auto* sub = app.add_subcommand(listed.entry->name, listed.entry->help);
    commands.emplace_back(sub, listed.entry->add(*sub));
  }
  decimal_numbers_only(app);

  // An unknown command is named even when --help follows it (CLI11 would print the general help and exit 0).
  if (argc > 1 && argv[1][0] != '-' && CommandRegistry::instance().find(argv[1]) == nullptr) {
    std::string valid;
    for (const auto& [sub, fn] : commands) valid += (valid.empty() ? "" : ", ") + sub->get_name();
    std::fprintf(stderr, "recallbench: unknown command '%s'\n  valid commands: %s\n", argv[1], valid.c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const bool known = argc > 1 && CommandRegistry::instance().find(argv[1]) != nullptr;
    if (argc > 1 && argv[1][0] != '-' && !known) {
      std::string valid;
      for (const auto& [sub, fn] : commands) valid += (valid.empty() ? "" : ", ") + sub->get_name();
      std::fprintf(stderr, "recallbench: unknown command '%s'\n  valid commands: %s\n", argv[1], valid.c_str());
      return kExitUsage;
    }
    app.exit(e);
    return kExitUsage;
  }

  try {
    for (const auto& [sub, fn] : commands)
      if (sub->parsed()) return output_checked(fn());
    std::fprintf(stderr, "recallbench: no command given; see --help\n");
    return kExitUsage;
  } catch (const NeedsLibTorch&) {
    throw;  // the front end hands the command over (suite/main.cpp)
  } catch (const UsageError& e) {
    std::fprintf(stderr, "recallbench: error: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
    return kExitUsage;
  } catch (const std::system_error& e) {  // a write that failed (fmt::print to a log, a filesystem call)
    const bool full = e.code() == std::errc::no_space_on_device || e.code().value() == EDQUOT;
    if (std::ferror(stdout) != 0) {  // a full standard output (/dev/full, a full disk under a redirection)
      std::fprintf(stderr, "recallbench: error: writing to standard output failed: %s\n", e.what());
      return kExitUsage;
    }
    if (full) {  // a log or another file on a full disk: the user's to fix, as a full disk is everywhere
      std::fprintf(stderr, "recallbench: error: %s\n  hint: free some space and run the same command again\n",
                   e.what());
      return kExitUsage;
    }
    std::fprintf(stderr, "recallbench: internal error: %s\n", e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    if (std::ferror(stdout) != 0) {  // fmt::print throws when standard output is full: the user's to fix
      std::fprintf(stderr, "recallbench: error: writing to standard output failed: %s\n", e.what());
      return kExitUsage;
    }
    std::fprintf(stderr, "recallbench: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

}  // namespace rb
