// The runner: a pool of worker processes over a plan, the progress line, aggregation. See runner.h.
#include "suite/runner.h"

#include "reports/results.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/context.h"
#include "suite/planner.h"
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

// "diag+conv mqar length:64 pairs:8": the cell and task point of a run, for its console lines.
std::string config_label(const RunSpec& s) {
  std::string label = s.cell.name + " " + s.task.name;
  for (const auto& [k, v] : s.task.options.items())
    if (v.is_number_integer() && (k == "pairs" || k == "length")) label += " " + k + ":" + v.dump();
  return label;
}

std::string run_label(const RunSpec& s) { return config_label(s) + " seed " + std::to_string(s.seed); }

// A run writes about 12 KiB (its document and its log, measured on the seed-claims-fair store); below
// kMinFreeBytes nothing can be written reliably, and a worker that cannot write its result or its log
// fails with an empty log, so the free space is said at the start and with every failure.
constexpr uintmax_t kRunBytes = 12 * 1024;
constexpr uintmax_t kMinFreeBytes = 1024 * 1024;

uintmax_t free_bytes(const fs::path& dir) {
  std::error_code ec;
  const fs::space_info si = fs::space(dir, ec);
  return ec ? UINTMAX_MAX : si.available;
}

// " — the file system of DIR is full (N bytes free): No space left on device" when it is, else "".
std::string disk_full_note(const fs::path& dir) {
  const uintmax_t free = free_bytes(dir);
  if (free >= kMinFreeBytes) return "";
  return fmt::format(" — the file system holding {} has {} bytes free: No space left on device (free space and run "
                     "again; finished runs are kept)",
                     dir.string(), free);
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

// The last complete line of a worker's log (its latest "step N/M  loss  acc  steps/s"), "" when none yet:
// reads only the file's last 512 bytes, once a second per running worker.
std::string last_log_line(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 512);
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<size_t>(in.gcount()));
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  const size_t nl = tail.rfind('\n');
  return nl == std::string::npos ? (from == 0 ? tail : "") : tail.substr(nl + 1);
}

// The terminal's width in columns (80 when it cannot be told): the live line is cut to it, so that \r redraws it.
size_t terminal_columns() {
  winsize w{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20 ? w.ws_col : 80;
}

// `text` cut to at most `columns` characters (UTF-8: continuation bytes take no column).
std::string cut_to_columns(const std::string& text, size_t columns) {
  size_t used = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++used > columns) return text.substr(0, i);
  }
  return text;
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
                                         std::to_string(o.threads), "--device", o.device, "--key", spec.key(), "--spec",
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
    std::vector<double> recalls;
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
    t.locked += d.result.locked_in() ? 1 : 0;
    t.acc += d.result.final_accuracy;
    t.recalls.push_back(d.result.final_accuracy);
    t.seeds.push_back(d.seed());
    if (d.result.locked_in()) t.seeds_locked.push_back(d.seed());
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
                    {"eval_fingerprint", t.first->result.eval_fingerprint.empty()
                                             ? json(nullptr) : json(t.first->result.eval_fingerprint)},
                    {"runs", t.n},
                    {"locked_in", t.locked},
                    {"seeds", t.seeds},
                    {"seeds_locked_in", t.seeds_locked},
                    {"mean_final_accuracy", t.acc / static_cast<double>(t.n)},
                    // what reports and the leaderboard call "recall": the median per-seed final accuracy
                    {"median_recall", rb::spread(t.recalls).median}});
  }
  json missing = json::array();
  if (plan.is_object() && plan.contains("runs"))
    for (const auto& r : plan.at("runs"))
      if (!have.count(r.at("key").get<std::string>())) missing.push_back(r.at("key"));
  return {{"schema_version", 1},
          {"kind", "recallbench.aggregate"},
          {"battery", plan.is_object() && plan.contains("battery") ? plan.at("battery").at("name") : json(nullptr)},
          {"runs", docs.size()},
          {"missing", missing},
          {"configs", cfgs},
          {"contrasts", plan.is_object() && plan.contains("contrasts") ? plan.at("contrasts") : json::array()},
          {"run_metrics", metrics}};
}

void print_aggregate_table(const json& agg) {
  // "recall" is the median per-seed final held-out accuracy, as in the reports and on the leaderboard. at(), not
  // operator[]: a missing field of a file read back is a JSON error (with_json_errors), not undefined behaviour.
  fmt::print("\n{:<72} {:>9} {:>9} {:>8}\n", "config", "locked-in", "recall", "state");
  for (const auto& c : agg.at("configs"))
    fmt::print("{:<72} {:>5}/{:<3} {:>9.3f} {:>8}\n", c.at("config_key").get<std::string>(),
               c.at("locked_in").get<int64_t>(), c.at("runs").get<int64_t>(),
               c.value("median_recall", c.at("mean_final_accuracy").get<double>()), c.at("state_size").get<int64_t>());
}

namespace {

// One run_plan call: the slice's queue of runs, the live workers, and the tallies. Its methods are the
// loop's seams: scan what the store already holds, start workers, reap them (retrying or failing), wait
// for runs other processes hold, stop on an interrupt, and write the aggregate when the plan is complete.
class Scheduler {
 public:
  Scheduler(const Plan& plan, const RunnerOptions& o)
      : plan_(plan),
        o_(o),
        store_(o.out),
        exe_(o.executable.empty() ? self_executable() : o.executable),
        jobs_(o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        slice_(shard_indices(plan.runs.size(), o.shard)),
        tty_(::isatty(STDERR_FILENO)) {}

  RunnerSummary run() {
    prepare_store();
    scan_existing();
    estimate_what_is_left();
    struct sigaction sa{}, old_int{}, old_term{};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int);
    ::sigaction(SIGTERM, &sa, &old_term);
    g_interrupted = 0;

    auto last_progress = Clock::now() - std::chrono::seconds(10);
    while (!g_interrupted) {
      start_workers();
      reap_workers();
      if (running_.empty() && pending_.empty() && !wait_for_others()) break;
      if (tty_ && Clock::now() - last_progress > std::chrono::seconds(1)) {
        draw_live();
        last_progress = Clock::now();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (g_interrupted) stop_workers();
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    if (tty_) fmt::print(stderr, "\r\033[J");
    sum_.elapsed = elapsed();
    if (!sum_.interrupted) {
      release_stale_locks();
      write_aggregate_if_complete();
    }
    return sum_;
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  size_t done() const { return sum_.already + sum_.trained; }

  std::string progress() const {
    const double e = elapsed();
    const size_t left = sum_.total - done() - sum_.failed;
    // Throughput so far (runs this process trained per second, all workers together) times what is left; before
    // the first run ends, the plan's estimate (suite/planner.h: an upper bound, runs that lock in stop early).
    std::string eta = "0s";
    if (left > 0 && sum_.trained > 0)
      eta = clock_text(e / static_cast<double>(sum_.trained) * static_cast<double>(left));
    else if (left > 0)
      eta = "≤" + clock_text(std::max(0.0, estimated_left_ / static_cast<double>(jobs_) - e)) + " (plan estimate)";
    return fmt::format("[{}/{}] locked-in {}  running {}  elapsed {}  ETA {}", done(), sum_.total, sum_.locked_in,
                       running_.size(), clock_text(e), eta);
  }

  // On a terminal, the live area under the finished runs' lines: the progress line, then one line per running
  // run with its latest step, training loss, held-out accuracy and steps/s, read from its log (the worker
  // writes them to DIR/logs/<run>.log). Each line is cut to the terminal's width; the cursor goes back to the
  // area's first line, so the next draw (or note) overwrites it.
  void draw_live() const {
    std::vector<std::string> lines{progress()};
    for (const auto& [pid, w] : running_) {
      const RunSpec& spec = plan_.runs[w.index];
      const std::string last = last_log_line(store_.log_path(spec));
      long long step = 0, steps = 0;
      double loss = 0, acc = 0, rate = 0;
      const bool parsed = std::sscanf(last.c_str(), "step %lld/%lld loss %lf acc %lf %lf steps/s", &step, &steps, &loss,
                                      &acc, &rate) == 5;
      // The seed and the numbers first, the config last: a line cut to an 80-column terminal keeps what moves.
      lines.push_back(parsed ? fmt::format("  seed {}: step {}/{}  loss {:.4f}  acc {:.3f}  {:.0f} steps/s  {}", spec.seed,
                                           step, steps, loss, acc, rate, config_label(spec))
                             : fmt::format("  seed {}: starting  {}", spec.seed, config_label(spec)));
    }
    const size_t cols = terminal_columns();
    std::string out = "\r";
    for (auto& line : lines) out += "\033[K" + cut_to_columns(line, cols - 1) + "\n";
    out += fmt::format("\033[{}A", lines.size());
    fmt::print(stderr, "{}", out);
  }

  void note(const std::string& line) const {
    if (tty_) fmt::print(stderr, "\r\033[J");  // the live area (draw_live) is cleared, the note printed over it
    fmt::print(stderr, "{}\n", line);
  }

  void count_existing(const ResultCheck& c) {
    ++sum_.already;
    sum_.locked_in += c.run.result.locked_in() ? 1 : 0;
  }

  void prepare_store() {
    fs::create_directories(store_.runs_dir());
    const uintmax_t free = free_bytes(store_.dir());
    if (free < kMinFreeBytes)
      throw UsageError(fmt::format("{}: the file system has {} bytes free: No space left on device", store_.dir().string(),
                                   free),
                       "free some space (each run writes about 12 KiB) or give --out on another file system");
    if (free != UINTMAX_MAX && free / kRunBytes < slice_.size())
      fmt::print(stderr, "warning: {} has {} KiB free, about {} runs' worth of results; this slice plans {}\n",
                 store_.dir().string(), free / 1024, free / kRunBytes, slice_.size());
    plan_json_ = plan_.to_json();
    write_json_atomic(store_.dir() / "plan.json", plan_json_);
    if (const int swept = store_.sweep_temporaries())
      fmt::print(stderr, "removed {} temporary file(s) left by interrupted writers\n", swept);
    sum_.total = slice_.size();
    t0_ = Clock::now();
  }

  void estimate_what_is_left() {
    estimated_left_ = 0;
    for (size_t i : pending_) estimated_left_ += estimate_run_seconds(plan_.runs[i]);
  }

  // A valid result recorded by another build, or on another device (and not kept by --keep-other-builds):
  // not done. A result without a recorded device was trained on the CPU (the only device before devices).
  std::string other_build(const ResultCheck& c) const {
    if (o_.keep_other_builds || c.state != ResultCheck::State::kValid) return "";
    const json context = c.document.contains("context") ? c.document.at("context") : json();
    std::string diff = build_difference(context);
    const std::string device = context.is_object() ? context.value("device", std::string("cpu")) : "cpu";
    if (!same_device(device, o_.device))
      diff += fmt::format("{}device {} (this run {})", diff.empty() ? "" : ", ", device, o_.device);
    return diff;
  }
  // "cuda" and "cuda:0" are the same device (a context records the index).
  static bool same_device(const std::string& a, const std::string& b) {
    const auto index = [](const std::string& d) { return d == "cuda" ? std::string("cuda:0") : d; };
    return index(a) == index(b);
  }

  void scan_existing() {
    size_t others = 0;
    std::string first_difference;
    for (size_t i : slice_) {
      const auto c = store_.check(plan_.runs[i]);
      const std::string diff = other_build(c);
      if (!diff.empty() && first_difference.empty()) first_difference = diff;
      others += diff.empty() ? 0 : 1;
      if (c.state == ResultCheck::State::kValid && !o_.force && diff.empty()) count_existing(c);
      else pending_.push_back(i);
    }
    if (others > 0)
      note(fmt::format("{} of {} runs in {} were recorded by another build ({}); they are moved to {} and rerun "
                       "(--keep-other-builds counts them as done)",
                       others, sum_.total, store_.runs_dir().string(), first_difference,
                       (store_.dir() / "other-build").string()));
    if (sum_.already > 0)
      note(fmt::format("{} of {} runs already have valid results in {}; {} to run", sum_.already, sum_.total,
                       store_.runs_dir().string(), pending_.size()));
  }

  // Claims runs (a lock per run, so concurrent runners share a store) and starts a worker for each, up to
  // --jobs; a run another process holds waits in deferred_.
  void start_workers() {
    while (static_cast<int>(running_.size()) < jobs_ && !pending_.empty()) {
      const size_t i = pending_.front();
      pending_.pop_front();
      const RunSpec& spec = plan_.runs[i];
      RunLock lock = RunLock::try_acquire(store_.lock_path(spec));
      if (!lock.held()) {
        deferred_.push_back(i);
        continue;
      }
      const auto c = store_.check(spec);
      const bool other = !other_build(c).empty();
      if (c.state == ResultCheck::State::kValid && !other && !(o_.force && !forced_.count(i))) {
        count_existing(c);  // finished by another process since our scan
        lock.release();
        continue;
      }
      if (other) {
        store_.set_aside(spec, "other-build");
        ++sum_.other_build;
      }
      if (c.state == ResultCheck::State::kCorrupt) {
        const fs::path to = store_.quarantine(spec);
        ++sum_.corrupt;
        note(fmt::format("warning: corrupt result for {} ({}); moved to {}; running it again", spec.key(), c.reason,
                         to.string()));
      }
      forced_.insert(i);
      const pid_t pid = spawn_worker(exe_, spec, store_, o_, lock);
      running_.emplace(pid, Worker{i, std::move(lock), Clock::now()});
    }
  }

  void reap_workers() {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = running_.find(pid);
      if (it == running_.end()) continue;
      Worker w = std::move(it->second);
      running_.erase(it);
      const RunSpec& spec = plan_.runs[w.index];
      const auto c = store_.check(spec);
      if (c.state == ResultCheck::State::kValid) {
        ++sum_.trained;
        const RunResult& r = c.run.result;
        sum_.locked_in += r.locked_in() ? 1 : 0;
        w.lock.release();
        note(fmt::format("{}: {}  acc {:.3f}  {} steps  {:.1f}s{}   {}", run_label(spec),
                         r.locked_in() ? "LOCKED IN" : "not locked in", r.final_accuracy, r.steps, r.wall_seconds,
                         r.ok() ? "" : "  [" + std::string(run_status_name(r.status)) + ": " + r.message + "]", progress()));
        continue;
      }
      const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                                  : fmt::format("exited {}", WEXITSTATUS(status));
      const int n = ++attempts_[w.index];
      if (c.state == ResultCheck::State::kCorrupt) store_.quarantine(spec);
      w.lock.release();
      // A worker that exited 2 found bad input (a user's cell raising, an impossible option): the same
      // input fails the same way, so it is not retried.
      // Nor is one that failed on a full disk: the disk stays full (README: the user's to fix, exit 2).
      const bool bad_input = WIFEXITED(status) && WEXITSTATUS(status) == kExitUsage;
      const std::string full = disk_full_note(store_.dir());
      const bool retry = n <= o_.retries && !g_interrupted && !bad_input && full.empty();
      note(fmt::format("worker for {} {} without a valid result{}{}; log {}:\n{}", spec.key(), how,
                       retry ? " (retrying)" : "", full, store_.log_path(spec).string(),
                       tail_of(store_.log_path(spec), 8)));
      if (retry) {
        forced_.erase(w.index);
        pending_.push_back(w.index);
      } else {
        ++sum_.failed;
        sum_.failed_bad_input += bad_input && full.empty() ? 1 : 0;
        sum_.failed_disk_full += full.empty() ? 0 : 1;
      }
    }
  }

  // Nothing running or queued: false when nothing is deferred either (the slice is done), else requeues the
  // runs other processes held, after a pause.
  bool wait_for_others() {
    if (deferred_.empty()) return false;
    if (!waiting_noted_) {
      note(fmt::format("waiting for {} run(s) claimed by other processes on {}", deferred_.size(), store_.dir().string()));
      waiting_noted_ = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    pending_.insert(pending_.end(), deferred_.begin(), deferred_.end());
    deferred_.clear();
    return true;
  }

  void stop_workers() {
    sum_.interrupted = true;
    for (auto& [p, w] : running_) ::kill(p, SIGTERM);
    for (auto& [p, w] : running_) {
      int st = 0;
      ::waitpid(p, &st, 0);
      w.lock.release();
    }
    running_.clear();
  }

  // Lock files left by a killed runner whose runs are done (the kernel released the locks; the files stay).
  void release_stale_locks() const {
    std::error_code ec;
    for (size_t i : slice_)
      if (fs::exists(store_.lock_path(plan_.runs[i]), ec)) {
        RunLock lock = RunLock::try_acquire(store_.lock_path(plan_.runs[i]));
        if (lock.held()) lock.release();
      }
  }

  // The aggregate, once the whole plan (every shard) is complete. Equal results → equal bytes, so several
  // shards finishing together write the same file.
  // Once every planned run is valid: the aggregate of every valid run in the store, so that it counts what
  // `report DIR` counts (an earlier command's other seeds of a config included).
  void write_aggregate_if_complete() const {
    for (const auto& spec : plan_.runs)
      if (store_.check(spec).state != ResultCheck::State::kValid) return;
    std::vector<json> docs;
    for (auto& [key, doc] : read_store(store_.dir())) docs.push_back(std::move(doc));
    write_json_atomic(store_.dir() / "aggregate.json", aggregate_runs(docs, plan_json_));
  }

  const Plan& plan_;
  const RunnerOptions& o_;
  const Store store_;
  const std::string exe_;
  const int jobs_;
  const std::vector<size_t> slice_;
  const bool tty_;
  double estimated_left_ = 0;  // the plan's estimate of the runs still to train, core-seconds (the ETA before any ends)
  json plan_json_;
  Clock::time_point t0_ = Clock::now();
  RunnerSummary sum_;
  std::deque<size_t> pending_;
  std::vector<size_t> deferred_;
  std::map<size_t, int> attempts_;
  std::map<pid_t, Worker> running_;
  std::set<size_t> forced_;  // with --force: runs retrained once already (or claimed for it)
  bool waiting_noted_ = false;
};

}  // namespace

RunnerSummary run_plan(const Plan& plan, const RunnerOptions& o) { return Scheduler(plan, o).run(); }

}  // namespace rb
