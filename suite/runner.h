// The runner: trains a plan (or one shard of it) into a results store with a pool of worker processes.
//
//   RunnerOptions o;  o.out = "results";  o.jobs = 2;
//   RunnerSummary s = run_plan(make_plan(load_battery("smoke")), o);
//
// Each run is trained by a fresh worker process: the same executable, exec'd as `recallbench worker`
// (cmd_worker.cpp) with one LibTorch thread, its output in DIR/logs/. The runner claims a run (store.h's
// RunLock) before starting its worker and hands the lock down to it, so the claim lasts exactly as long
// as someone is working on the run. Workers die with the runner (PR_SET_PDEATHSIG), so kill -9 of the
// runner leaves neither orphans nor stale claims; a rerun of the same command finishes the rest.
//
// Finished runs are never retrained; a corrupt result file is reported, moved to DIR/corrupt/ and rerun;
// a run held by another process (another runner, shard or Slurm task on the same store) is waited for,
// not duplicated. A worker that fails (crash, kill, error) is retried `retries` times, then reported.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/planner.h"

namespace rb {

struct RunnerOptions {
  std::filesystem::path out = "results";  // the results store
  int jobs = 0;                           // worker processes; 0 = the number of cores
  Shard shard;                            // the slice of the plan to run (default 0/1: all of it)
  int threads = 1;                        // LibTorch threads per worker (results are identical at 1)
  std::string device = "cpu";            // where workers train (suite/train/train_api.h require_device)
  bool force = false;                     // retrain runs whose results exist
  // Count results recorded by another build (commit, compiler, LibTorch, build type: suite/context.h
  // build_difference) as done. Otherwise they are moved to DIR/other-build/ and rerun, so one store never
  // mixes builds unknowingly.
  bool keep_other_builds = false;
  int retries = 1;                        // extra attempts for a failed worker
  std::string executable;                 // the worker binary; "" = this process's own (/proc/self/exe)
};

struct RunnerSummary {
  size_t total = 0;        // runs in this shard
  size_t already = 0;      // valid results found (before or while running; not retrained)
  size_t trained = 0;      // runs this process trained
  size_t failed = 0;       // runs that failed after their retries
  size_t failed_bad_input = 0;  // of them, workers that exited 2: the run's input (its cell, its options) is bad
  size_t failed_disk_full = 0;  // of them, workers that failed while the results' file system was full
  size_t corrupt = 0;      // corrupt result files found, moved aside and rerun
  size_t other_build = 0;  // results recorded by another build, moved to DIR/other-build/ and rerun
  size_t locked_in = 0;    // runs of this shard that locked in (all valid results)
  double elapsed = 0.0;    // seconds
  bool interrupted = false;  // SIGINT/SIGTERM arrived: workers were stopped; rerun to finish
};

// Runs the shard; returns when every run of it has a valid result (written by us or by others), failed,
// or an interrupt arrived. Writes DIR/plan.json and, once the whole plan is complete, DIR/aggregate.json.
RunnerSummary run_plan(const Plan& plan, const RunnerOptions& options);

// Aggregates valid run documents (sorted by key) into the deterministic summary written as
// DIR/aggregate.json: per-config lock-in counts and mean accuracy, the plan's contrasts, missing runs, and
// every run's metrics (store.h run_metrics). No timings, hosts or dates: equal results give equal bytes.
nlohmann::json aggregate_runs(const std::vector<nlohmann::json>& docs, const nlohmann::json& plan);

// Prints the per-config table (locked-in k/n, mean accuracy, state size) of an aggregate.
void print_aggregate_table(const nlohmann::json& aggregate);

// Reads every valid run document from DIR/runs/, each validated (store.h); invalid files are reported on
// stderr and skipped. Keyed by run key.
std::map<std::string, nlohmann::json> read_store(const std::filesystem::path& dir, size_t* invalid = nullptr);

}  // namespace rb
