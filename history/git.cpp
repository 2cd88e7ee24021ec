#include "history/git.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/errors.h"

namespace rb::history {

std::string git(const std::string& repo, const std::vector<std::string>& args, bool* ok) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    if (FILE* devnull = std::fopen("/dev/null", "w")) dup2(fileno(devnull), 2);
    std::vector<std::string> all{"git", "-C", repo};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("git", argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  std::array<char, 4096> buf{};
  ssize_t n;
  while ((n = read(out[0], buf.data(), buf.size())) > 0) text.append(buf.data(), static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const bool good = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok) *ok = good;
  if (!good) return "";
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

int run_logged(const std::vector<std::string>& argv_in, const std::string& cwd,
               const std::vector<std::pair<std::string, std::string>>& env, const std::string& log) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (!log.empty()) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0) _exit(126);
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<std::string> args = argv_in;
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

CommitInfo resolve_commit(const std::string& repo, const std::string& rev) {
  // A revision is never an option: "--output=PATH" given as a commit (by --commit, or recorded in a downloaded
  // run file) would make git write a file. Refused here, and --end-of-options keeps git from reading one.
  if (rev.empty() || rev.front() == '-')
    throw UsageError("'" + rev + "' is not a commit (a revision cannot start with '-')",
                     "pass --commit with a commit hash, branch or tag");
  bool ok = false;
  const std::string out =
      git(repo, {"show", "-s", "--format=%H%n%P%n%cI%n%s", "--end-of-options", rev + "^{commit}", "--"}, &ok);
  if (!ok || out.empty())
    throw UsageError("unknown commit '" + rev + "' in the git repository at " + repo,
                     "pass --repo DIR (the checkout the runs were built from) or --commit with a commit it has");
  std::istringstream in(out);
  CommitInfo c;
  std::string parents;
  std::getline(in, c.hash);
  std::getline(in, parents);
  std::getline(in, c.date);
  std::getline(in, c.subject);
  c.parent = parents.substr(0, parents.find(' '));
  return c;
}

CommitInfo commit_of_results(const std::string& repo, std::string recorded, const std::string& rev, bool allow_dirty,
                             const std::string& what) {
  if (!rev.empty()) return resolve_commit(repo, rev);
  const std::string suffix = "-dirty";
  const bool dirty = recorded.size() > suffix.size() &&
                     recorded.compare(recorded.size() - suffix.size(), suffix.size(), suffix) == 0;
  if (dirty) recorded.resize(recorded.size() - suffix.size());
  if (recorded.empty())
    throw UsageError(what + " records no git commit", "pass --commit REV to say which commit it belongs to");
  if (dirty && !allow_dirty)
    throw UsageError(what + " was built from a dirty tree (" + recorded.substr(0, 12) +
                         "-dirty): its results belong to no commit",
                     "commit the change and rerun, or pass --allow-dirty to record it under " + recorded.substr(0, 12));
  return resolve_commit(repo, recorded);
}

std::vector<CommitInfo> first_parent_path(const std::string& repo, const std::string& good, const std::string& bad) {
  const CommitInfo g = resolve_commit(repo, good), b = resolve_commit(repo, bad);
  bool ok = false;
  git(repo, {"merge-base", "--is-ancestor", g.hash, b.hash}, &ok);
  if (!ok) throw UsageError("bisect: the good commit " + good + " is not an ancestor of the bad commit " + bad);
  const std::string list = git(repo, {"rev-list", "--first-parent", "--reverse", g.hash + ".." + b.hash}, &ok);
  std::vector<CommitInfo> path;
  std::istringstream in(list);
  std::string hash;
  while (std::getline(in, hash))
    if (!hash.empty()) path.push_back(resolve_commit(repo, hash));
  return path;
}

}  // namespace rb::history
