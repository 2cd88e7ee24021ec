// recallbench slurm: writes (and with --submit, submits) a Slurm job array for a battery: task i runs
// shard i/N into the shared store DIR; a dependent job merges (suite/slurm.h).
//
//   recallbench slurm --battery standard --out /shared/results --array 50 [--partition P] [--time 04:00:00]
//                     [--throttle 20] [--cpus-per-task 2] [--submit]
#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "suite/slurm.h"

namespace rb {
namespace {

struct SlurmCommandOptions {
  std::string battery = kDefaultBattery;
  SlurmOptions slurm;
  std::string out;
  bool submit = false;
};

int run_slurm(SlurmCommandOptions& o) {
  o.slurm.out = o.out;
  const SlurmJob job = make_slurm_job(load_battery(o.battery), o.slurm);
  write_slurm_files(job);
  fmt::print("battery {}: {} runs in {} array tasks (shards); store {}\n", job.battery.name, job.runs,
             job.options.array, job.options.out.string());
  if (!job.tuning_script.empty())
    fmt::print("  first its tuning stage: {} runs (tuning.sbatch); the scoring array starts when it has ended well\n",
               job.tuning_runs);
  fmt::print("wrote {}/array.sbatch, merge.sbatch, submit.sh, battery.json{}\n", job.dir.string(),
             job.tuning_script.empty() ? "" : ", tuning.sbatch");
  if (!o.submit) {
    fmt::print("submit with: {}/submit.sh\n", job.dir.string());
    return kExitOk;
  }
  const SlurmIds ids = submit_slurm_job(job);
  if (!ids.tuning.empty()) fmt::print("submitted: tuning array job {}\n", ids.tuning);
  fmt::print("submitted: array job {} ({} tasks{}), merge job {} (after the array)\n", ids.array, job.options.array,
             ids.tuning.empty() ? "" : ", after the tuning array", ids.merge);
  return kExitOk;
}

}  // namespace

CommandFn add_slurm_command(CLI::App& sub) {
  auto o = std::make_shared<SlurmCommandOptions>();
  sub.add_option("--battery", o->battery, "Preset name or battery JSON file (default smoke)");
  sub.add_option("--out", o->out, "Shared results directory (on a file system every node sees)")->required();
  sub.add_option("--array", o->slurm.array, "Array tasks, i.e. shards of the plan")->required()->check(CLI::PositiveNumber);
  sub.add_option("--partition", o->slurm.partition, "Slurm partition (default: the cluster's default)");
  sub.add_option("--time", o->slurm.time, "Time limit per array task, e.g. 04:00:00");
  sub.add_option("--throttle", o->slurm.throttle, "At most this many array tasks at once (0 = no limit)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--cpus-per-task", o->slurm.cpus_per_task, "Cores per array task = its workers (default 1)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--device", o->slurm.device,
                 "Where the tasks train: cpu, cuda or cuda:N (default: the battery's \"device\", else cpu); a GPU "
                 "adds #SBATCH --gres=gpu:1 (cuda:N: gpu:N+1) unless --sbatch-extra asks for GPUs");
  sub.add_option("--sbatch-extra", o->slurm.extra, "Extra sbatch arguments for both scripts, e.g. --account=abc");
  sub.add_flag("--submit", o->submit, "Submit with sbatch and print the job ids");
  return [o]() { return run_slurm(*o); };
}

RB_REGISTER(CommandRegistry, slurm,
            CommandEntry{"slurm", "Write (and --submit) a Slurm job array running a battery in shards, plus a merge job",
                         add_slurm_command});

}  // namespace rb
