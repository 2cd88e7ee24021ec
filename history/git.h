// The few git questions the history asks (by running `git`): a commit's identity, and the first-parent
// path between two commits (bisect).
#pragma once

#include <string>
#include <vector>

#include "history/history.h"

namespace rb::history {

// Runs `git -C repo ARGS` and returns its standard output (trailing newline removed); `ok` false (and "")
// when git fails. Arguments are passed without a shell.
std::string git(const std::string& repo, const std::vector<std::string>& args, bool* ok = nullptr);

// The commit `rev` names in `repo`: full hash, first parent, committer date (ISO 8601), subject. A revision
// git does not know (or no repository): UsageError naming both.
CommitInfo resolve_commit(const std::string& repo, const std::string& rev);

// The commits after `good` up to and including `bad` along the first-parent chain, oldest first.
// UsageError when good is not an ancestor of bad.
std::vector<CommitInfo> first_parent_path(const std::string& repo, const std::string& good, const std::string& bad);

}  // namespace rb::history
