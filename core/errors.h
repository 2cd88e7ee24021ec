// Errors in three tiers (STYLE.md):
//   1. RB_ASSERT: a broken invariant; prints file, line, expression, message and aborts.
//   2. UsageError: bad input or configuration; the CLI prints it and exits 2 (kExitUsage).
//   3. A failing unit inside a battery is recorded in its result as "error"/"diverged" and the battery goes on.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rb {

// Exit codes shared by every command (DESIGN.md).
enum ExitCode : int {
  kExitOk = 0,            // success, no regression
  kExitRegression = 1,    // a statistically significant regression
  kExitUsage = 2,         // bad input or usage, with a clear message
  kExitInconclusive = 3,  // inconclusive, only with --fail-on-inconclusive
  kExitInternal = 4,      // internal error
};

// Bad input: "got X, expected Y", plus a hint when the fix is known. Maps to exit code 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what, std::string hint = {})
      : std::runtime_error(what), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

[[noreturn]] inline void assert_fail(const char* file, int line, const char* expr, const std::string& msg) {
  std::fprintf(stderr, "recallbench: internal error at %s:%d: assertion `%s` failed: %s\n", file, line, expr,
               msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace rb

// Always on, in every build type.
#define RB_ASSERT(cond, msg)                                  \
  do {                                                        \
    if (!(cond)) ::rb::assert_fail(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Throws rb::UsageError when cond is false.
#define RB_CHECK_INPUT(cond, msg)                \
  do {                                           \
    if (!(cond)) throw ::rb::UsageError((msg)); \
  } while (0)
