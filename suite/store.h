// The results store: a directory holding one JSON document per run, safe under crashes and under several
// writers (runners, shards, Slurm array tasks) sharing it.
//
//   DIR/runs/<run file>.json     a finished run (RunSpec::file_name), written atomically (write_json_atomic)
//   DIR/locks/<run file>.lock    held while a run trains (flock), removed when it is done
//   DIR/corrupt/<file>.<time>    unreadable or wrong documents moved aside (never deleted, never accepted)
//   DIR/logs/<run file>.log      the worker's output for the last attempt of a run
//   DIR/plan.json                the plan of the last battery run here (keys, specs, contrasts)
//   DIR/aggregate.json           per-config lock-in counts and per-run metrics (deterministic; no timings)
//
// Claiming a run: RunLock::try_acquire takes an exclusive flock(2) on the run's lock file without
// blocking. The kernel drops the lock when its holder dies (kill -9 included), so a crashed runner never
// leaves a stale lock, and PID reuse cannot fool it; on NFS, Linux maps flock to POSIX locks, which the
// server arbitrates across machines. The holder re-checks the result after taking the lock (another
// writer may have finished it meanwhile), so a run is never trained twice and never lost.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_document.h"
#include "suite/spec.h"

namespace rb {

// What a result file on disk is.
struct ResultCheck {
  enum class State { kMissing, kValid, kCorrupt };
  State state = State::kMissing;
  std::string reason;        // for kCorrupt: why (malformed JSON, wrong key, missing field ...)
  nlohmann::json document;   // for kValid: the parsed document
  RunDocument run;           // for kValid: the same, typed
};

class Store {
 public:
  explicit Store(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path runs_dir() const { return dir_ / "runs"; }
  std::filesystem::path result_path(const RunSpec& spec) const { return runs_dir() / spec.file_name(); }
  std::filesystem::path lock_path(const RunSpec& spec) const { return dir_ / "locks" / (spec.file_name() + ".lock"); }
  std::filesystem::path log_path(const RunSpec& spec) const { return dir_ / "logs" / (spec.file_name() + ".log"); }

  // Reads and validates the result of `spec`: complete JSON, the current run schema, the same key, a
  // spec that re-keys to that key, and every result field with the right type.
  ResultCheck check(const RunSpec& spec) const;

  // Moves a corrupt result aside to DIR/corrupt/ and returns where it went.
  std::filesystem::path quarantine(const RunSpec& spec) const { return set_aside(spec, "corrupt"); }
  // Moves the result of `spec` into DIR/<folder>/ (named as quarantine names it); returns where it went.
  std::filesystem::path set_aside(const RunSpec& spec, const std::string& folder) const;

  // Writes a finished run atomically (validating it first: a document that would not pass check() is an
  // internal error, never written).
  void write(const RunSpec& spec, const nlohmann::json& document) const;

  // Removes temporary files that interrupted writers left in runs/ (older than ten minutes: a live write
  // takes milliseconds). Returns how many were removed.
  int sweep_temporaries() const;

 private:
  std::filesystem::path dir_;
};

// Validates a run document against `key` without a spec (merge uses it on files it finds): the run
// document's reader (core/run_document.h) plus the key checks. Returns "" when valid, otherwise the reason;
// when valid and `parsed` is given, the typed document is stored there.
std::string validate_run_document(const nlohmann::json& doc, const std::string& expected_key,
                                  RunDocument* parsed = nullptr);

// An exclusive claim on one run (see the file comment). Movable, not copyable; released on destruction.
class RunLock {
 public:
  RunLock() = default;
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

  // Takes the lock at `path` without blocking; returns an unheld lock when another process holds it.
  static RunLock try_acquire(const std::filesystem::path& path);

  bool held() const { return fd_ >= 0; }
  int fd() const { return fd_; }        // so a worker child can inherit the lock across exec
  // Removes the lock file and releases the lock.
  void release();

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

// The metrics of a run document that must be identical across workers, shards and machines: the result
// without timings, and the learning curve. Used by aggregate.json and by the determinism checks.
nlohmann::json run_metrics(const nlohmann::json& doc);

}  // namespace rb
