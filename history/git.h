// The few git questions the history asks (by running `git`): a commit's identity, and the first-parent
// path between two commits (bisect).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "history/history.h"

namespace rb::history {

// Runs `git -C repo ARGS` and returns its standard output (trailing newline removed); `ok` false (and "")
// when git fails. Arguments are passed without a shell.
std::string git(const std::string& repo, const std::vector<std::string>& args, bool* ok = nullptr);

// Runs argv (PATH lookup) in `cwd` ("" = here) with `env` added to the environment, its standard output and
// error appended to `log` ("" = inherited). Returns the exit code (128 + signal when killed).
int run_logged(const std::vector<std::string>& argv, const std::string& cwd,
               const std::vector<std::pair<std::string, std::string>>& env, const std::string& log);

// The commit `rev` names in `repo`: full hash, first parent, committer date (ISO 8601), subject. A revision
// git does not know (or no repository): UsageError naming both.
CommitInfo resolve_commit(const std::string& repo, const std::string& rev);

// The commit recorded results belong to: `rev` when given, else `recorded` (a run context's git_commit,
// which ends in "-dirty" for a build from a modified tree: refused unless `allow_dirty`, then recorded under
// its base commit). `what` names the input in messages.
CommitInfo commit_of_results(const std::string& repo, std::string recorded, const std::string& rev, bool allow_dirty,
                             const std::string& what);

// The commits after `good` up to and including `bad` along the first-parent chain, oldest first.
// UsageError when good is not an ancestor of bad.
std::vector<CommitInfo> first_parent_path(const std::string& repo, const std::string& good, const std::string& bad);

}  // namespace rb::history
