// Slurm job arrays: one array task per shard of a battery's plan, all writing into one shared results
// store, plus a dependent job that merges (and reports, once `recallbench report` exists).
//
//   SlurmJob job = make_slurm_job(battery, options);       // writes nothing
//   write_slurm_files(job);                                // DIR/slurm/{battery.json,array.sbatch,merge.sbatch,submit.sh}
//   auto ids = submit_slurm_job(job);                      // sbatch --parsable ...; then the dependent merge
//
// The array script runs `recallbench run --battery DIR/slurm/battery.json --out DIR --shard
// $SLURM_ARRAY_TASK_ID/N`, with the battery frozen (canonical JSON) at submission time, and the absolute
// path of this binary: on a cluster both DIR and the binary must be on a shared file system. Shards are
// crash-safe and idempotent (suite/store.h), so resubmitting the array finishes only what is missing.
#pragma once

#include <filesystem>
#include <string>
#include <utility>

#include "suite/battery.h"

namespace rb {

struct SlurmOptions {
  std::filesystem::path out;       // the shared results store (made absolute)
  int array = 1;                   // array tasks = shards
  int throttle = 0;                // at most this many tasks at once (%K); 0 = no limit
  std::string partition;           // --partition, "" = the cluster's default
  std::string time;                // --time per task, e.g. 02:00:00; "" = the partition's default
  int cpus_per_task = 1;           // cores per array task; the task runs that many workers
  std::string extra;               // more #SBATCH lines' arguments, e.g. "--account=abc" (may be empty)
  std::string executable;          // "" = this binary (/proc/self/exe)
  // Where the tasks train: "" = the battery's device, else cpu. cuda or cuda:N passes --device to every task
  // and asks Slurm for the GPUs (#SBATCH --gres=gpu:1, or gpu:N+1 for cuda:N) unless `extra` asks for GPUs.
  std::string device;
};

struct SlurmJob {
  Battery battery;
  SlurmOptions options;
  size_t runs = 0;
  std::filesystem::path dir;             // DIR/slurm
  std::string array_script, merge_script, submit_script;
  // A battery with a tuning stage: a first array of its tuning runs (tuning.sbatch, `run --stage tuning`); the
  // scoring array (`--stage scoring`) depends on it (afterok), so it starts only when every tuning run has a
  // result and the choice is final.
  size_t tuning_runs = 0;
  std::string tuning_script;             // "" without a tuning stage
};

// Plans the battery (a bad battery fails here, before anything is written) and renders the scripts.
SlurmJob make_slurm_job(const Battery& battery, SlurmOptions options);

// Writes DIR/slurm/battery.json, array.sbatch, merge.sbatch, submit.sh (executable) and tuning.sbatch.
void write_slurm_files(const SlurmJob& job);

// Submits the tuning array (if any), the array (--dependency=afterok:<tuning id>), then the merge with
// --dependency=afterany:<array id>. sbatch missing or failing: UsageError with its output.
struct SlurmIds {
  std::string tuning, array, merge;  // tuning "" without a tuning stage
};
SlurmIds submit_slurm_job(const SlurmJob& job);

}  // namespace rb
