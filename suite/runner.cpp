// The runner: a pool of worker processes over a plan, the progress line, aggregation. See runner.h.
#include "suite/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/store.h"

namespace rb {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

// The worker binary: this process's own executable through /proc/self/exe, which names the running
// inode even after a rebuild replaces (or deletes) the file it was started from.
std::string self_executable() { return "/proc/self/exe"; }

std::string clock_text(double seconds) {
  if (seconds < 0) return "--";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string run_label(const RunSpec& s) {
  std::string label = s.cell.name + " " + s.task.name;
  for (const auto& [k, v] : s.task.options.items())
    if (v.is_number_integer() && (k == "pairs" || k == "length")) label += " " + k + ":" + v.dump();
  return label + " seed " + std::to_string(s.seed);
}

std::string tail_of(const fs::path& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    | " + l + "\n";
  return out;
}

struct Worker {
  size_t index = 0;
  RunLock lock;
  Clock::time_point started;
};

// Starts `recallbench worker` for one run; the child inherits the run's lock and dies with us.
pid_t spawn_worker(const std::string& exe, const RunSpec& spec, const Store& store, const RunnerOptions& o,
                   const RunLock& lock) {
  fs::create_directories(store.log_path(spec).parent_path());
  const std::string log = store.log_path(spec).string();
  const std::vector<std::string> args = {exe, "worker", "--out", store.dir().string(), "--threads",
                                         std::to_string(o.threads), "--key", spec.key(), "--spec",
                                         spec.to_json().dump()};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const int lock_fd = lock.fd();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::fcntl(lock_fd, F_SETFD, 0);  // keep the claim open in the worker
    ::execv(argv[0], argv.data());
    const char msg[] = "recallbench runner: exec of the worker binary failed\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  return pid;
}

}  // namespace

std::map<std::string, json> read_store(const fs::path& dir, size_t* invalid) {
  std::map<std::string, json> docs;
  std::error_code ec;
  const fs::path runs = dir / "runs";
  if (!fs::is_directory(runs, ec)) return docs;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(runs, ec)) {
    const auto name = e.path().filename().string();
    if (name.empty() || name[0] == '.' || e.path().extension() != ".json") continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string reason;
    json doc;
    try {
      doc = read_json_file(f);
      reason = validate_run_document(doc, "");
      if (reason.empty() && RunSpec::from_json(doc["spec"]).file_name() != f.filename().string())
        reason = "its key belongs in " + RunSpec::from_json(doc["spec"]).file_name();
    } catch (const UsageError& e) {
      reason = e.what();
    }
    if (!reason.empty()) {
      fmt::print(stderr, "warning: skipping {}: {}\n", f.string(), reason);
      if (invalid) ++*invalid;
      continue;
    }
    docs.emplace(doc["key"].get<std::string>(), std::move(doc));
  }
  return docs;
}

json aggregate_runs(const std::vector<json>& docs_in, const json& plan) {
  // Validated documents (the store's and merge's), read through the run document's one reader.
  std::vector<std::pair<RunDocument, const json*>> docs;
  for (const auto& d : docs_in) docs.emplace_back(RunDocument::from_json(d, "run document"), &d);
  std::sort(docs.begin(), docs.end(), [](const auto& a, const auto& b) { return a.first.key < b.first.key; });
  struct Tally {
    const RunDocument* first = nullptr;
    int64_t n = 0, locked = 0;
    double acc = 0;
    std::vector<int64_t> seeds_locked, seeds;
  };
  std::map<std::string, Tally> configs;
  json metrics = json::array();
  std::set<std::string> have;
  for (const auto& [d, raw] : docs) {
    have.insert(d.key);
    auto& t = configs[d.config_key];
    if (t.n == 0) t.first = &d;
    t.n += 1;
    t.locked += d.result.locked_in ? 1 : 0;
    t.acc += d.result.final_accuracy;
    t.seeds.push_back(d.seed());
    if (d.result.locked_in) t.seeds_locked.push_back(d.seed());
    metrics.push_back(run_metrics(*raw));
  }
  json cfgs = json::array();
  for (auto& [key, t] : configs) {
    std::sort(t.seeds.begin(), t.seeds.end());
    std::sort(t.seeds_locked.begin(), t.seeds_locked.end());
    cfgs.push_back({{"config_key", key},
                    {"cell", t.first->cell()},
                    {"task", t.first->task()},
                    {"task_options", t.first->spec.at("task").value("options", json::object())},
                    {"state_size", t.first->result.state_size},
                    {"runs", t.n},
                    {"locked_in", t.locked},
                    {"seeds", t.seeds},
                    {"seeds_locked_in", t.seeds_locked},
                    {"mean_final_accuracy", t.acc / static_cast<double>(t.n)}});
  }
  json missing = json::array();
  if (plan.is_object() && plan.contains("runs"))
    for (const auto& r : plan["runs"])
      if (!have.count(r["key"].get<std::string>())) missing.push_back(r["key"]);
  return {{"schema_version", 1},
          {"kind", "recallbench.aggregate"},
          {"battery", plan.is_object() && plan.contains("battery") ? plan["battery"]["name"] : json(nullptr)},
          {"runs", docs.size()},
          {"missing", missing},
          {"configs", cfgs},
          {"contrasts", plan.is_object() && plan.contains("contrasts") ? plan["contrasts"] : json::array()},
          {"run_metrics", metrics}};
}

void print_aggregate_table(const json& agg) {
  fmt::print("\n{:<72} {:>9} {:>9} {:>8}\n", "config", "locked-in", "mean acc", "state");
  for (const auto& c : agg["configs"])
    fmt::print("{:<72} {:>5}/{:<3} {:>9.3f} {:>8}\n", c["config_key"].get<std::string>(), c["locked_in"].get<int64_t>(),
               c["runs"].get<int64_t>(), c["mean_final_accuracy"].get<double>(), c["state_size"].get<int64_t>());
}

RunnerSummary run_plan(const Plan& plan, const RunnerOptions& o) {
  const Store store(o.out);
  const std::string exe = o.executable.empty() ? self_executable() : o.executable;
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const std::vector<size_t> slice = shard_indices(plan.runs.size(), o.shard);
  const bool tty = ::isatty(STDERR_FILENO);

  fs::create_directories(store.runs_dir());
  const json plan_json = plan.to_json();
  write_json_atomic(store.dir() / "plan.json", plan_json);
  if (const int swept = store.sweep_temporaries())
    fmt::print(stderr, "removed {} temporary file(s) left by interrupted writers\n", swept);

  RunnerSummary sum;
  sum.total = slice.size();
  std::deque<size_t> pending;
  std::vector<size_t> deferred;
  std::map<size_t, int> attempts;
  std::map<pid_t, Worker> running;
  std::set<size_t> forced;  // with --force: runs retrained once already (or claimed for it)

  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const auto done = [&] { return sum.already + sum.trained; };
  const auto progress = [&]() {
    const double e = elapsed();
    const size_t left = sum.total - done() - sum.failed;
    // Throughput so far (runs this process trained per second, all workers together) times what is left.
    const double eta = sum.trained > 0 ? e / static_cast<double>(sum.trained) * static_cast<double>(left) : -1.0;
    return fmt::format("[{}/{}] locked-in {}  running {}  elapsed {}  ETA {}", done(), sum.total, sum.locked_in,
                       running.size(), clock_text(e), left == 0 ? "0s" : clock_text(eta));
  };
  const auto note = [&](const std::string& line) {
    if (tty) fmt::print(stderr, "\r\033[K");
    fmt::print(stderr, "{}\n", line);
  };

  for (size_t i : slice) {
    const auto c = store.check(plan.runs[i]);
    if (c.state == ResultCheck::State::kValid && !o.force) {
      ++sum.already;
      sum.locked_in += c.run.result.locked_in ? 1 : 0;
    } else {
      pending.push_back(i);
    }
  }
  if (sum.already > 0)
    note(fmt::format("{} of {} runs already have valid results in {}; {} to run", sum.already, sum.total,
                     store.runs_dir().string(), pending.size()));

  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  g_interrupted = 0;

  auto last_progress = Clock::now() - std::chrono::seconds(10);
  bool waiting_noted = false;
  while (true) {
    if (g_interrupted) break;
    // Start workers.
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      const size_t i = pending.front();
      pending.pop_front();
      const RunSpec& spec = plan.runs[i];
      RunLock lock = RunLock::try_acquire(store.lock_path(spec));
      if (!lock.held()) {
        deferred.push_back(i);
        continue;
      }
      const auto c = store.check(spec);
      if (c.state == ResultCheck::State::kValid && !(o.force && !forced.count(i))) {
        ++sum.already;  // finished by another process since our scan
        sum.locked_in += c.run.result.locked_in ? 1 : 0;
        lock.release();
        continue;
      }
      if (c.state == ResultCheck::State::kCorrupt) {
        const fs::path to = store.quarantine(spec);
        ++sum.corrupt;
        note(fmt::format("warning: corrupt result for {} ({}); moved to {}; running it again", spec.key(), c.reason,
                         to.string()));
      }
      forced.insert(i);
      const pid_t pid = spawn_worker(exe, spec, store, o, lock);
      running.emplace(pid, Worker{i, std::move(lock), Clock::now()});
    }
    // Reap finished workers.
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = running.find(pid);
      if (it == running.end()) continue;
      Worker w = std::move(it->second);
      running.erase(it);
      const RunSpec& spec = plan.runs[w.index];
      const auto c = store.check(spec);
      if (c.state == ResultCheck::State::kValid) {
        ++sum.trained;
        const RunResult& r = c.run.result;
        const bool locked = r.locked_in;
        sum.locked_in += locked ? 1 : 0;
        w.lock.release();
        note(fmt::format("{}: {}  acc {:.3f}  {} steps  {:.1f}s{}   {}", run_label(spec),
                         locked ? "LOCKED IN" : "not locked in", r.final_accuracy, r.steps, r.wall_seconds,
                         r.status == "ok" ? "" : "  [" + r.status + ": " + r.message + "]", progress()));
        continue;
      }
      const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                                  : fmt::format("exited {}", WEXITSTATUS(status));
      const int n = ++attempts[w.index];
      if (c.state == ResultCheck::State::kCorrupt) store.quarantine(spec);
      w.lock.release();
      const bool retry = n <= o.retries && !g_interrupted;
      note(fmt::format("worker for {} {} without a valid result{}; log {}:\n{}", spec.key(), how,
                       retry ? " (retrying)" : "", store.log_path(spec).string(), tail_of(store.log_path(spec), 8)));
      if (retry) {
        forced.erase(w.index);
        pending.push_back(w.index);
      } else {
        ++sum.failed;
      }
    }
    if (running.empty() && pending.empty()) {
      if (deferred.empty()) break;
      if (!waiting_noted) {
        note(fmt::format("waiting for {} run(s) claimed by other processes on {}", deferred.size(), store.dir().string()));
        waiting_noted = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      pending.insert(pending.end(), deferred.begin(), deferred.end());
      deferred.clear();
    }
    if (tty && Clock::now() - last_progress > std::chrono::seconds(1)) {
      fmt::print(stderr, "\r{}\033[K", progress());
      last_progress = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  if (g_interrupted) {
    sum.interrupted = true;
    for (auto& [p, w] : running) ::kill(p, SIGTERM);
    for (auto& [p, w] : running) {
      int st = 0;
      ::waitpid(p, &st, 0);
      w.lock.release();
    }
    running.clear();
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (tty) fmt::print(stderr, "\r\033[K");
  sum.elapsed = elapsed();

  // Lock files left by a killed runner whose runs are done (the kernel released the locks; the files stay).
  if (!sum.interrupted) {
    std::error_code ec;
    for (size_t i : slice)
      if (fs::exists(store.lock_path(plan.runs[i]), ec)) {
        RunLock lock = RunLock::try_acquire(store.lock_path(plan.runs[i]));
        if (lock.held()) lock.release();
      }
  }

  // The aggregate, once the whole plan (every shard) is complete. Equal results → equal bytes, so several
  // shards finishing together write the same file.
  if (!sum.interrupted) {
    std::vector<json> docs;
    bool complete = true;
    for (const auto& spec : plan.runs) {
      auto c = store.check(spec);
      if (c.state != ResultCheck::State::kValid) {
        complete = false;
        break;
      }
      docs.push_back(std::move(c.document));
    }
    if (complete) write_json_atomic(store.dir() / "aggregate.json", aggregate_runs(docs, plan_json));
  }
  return sum;
}

}  // namespace rb
