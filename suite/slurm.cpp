// Slurm job arrays: rendering, writing and submitting the scripts. See slurm.h.
#include "suite/slurm.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/planner.h"

namespace rb {

namespace fs = std::filesystem;

namespace {

// Single-quotes a string for bash.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  RB_ASSERT(!ec, "cannot read /proc/self/exe: " + ec.message());
  return p.string();
}

void write_text(const fs::path& path, const std::string& text, bool executable) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) throw UsageError("cannot write " + tmp.string());
  }
  fs::permissions(tmp, executable ? fs::perms(0755) : fs::perms(0644));
  fs::rename(tmp, path);
}

// Runs a command, returns {exit status, stdout+stderr}.
std::pair<int, std::string> capture(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw UsageError("cannot run: " + command);
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe)) output += buf.data();
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, output};
}

}  // namespace

SlurmJob make_slurm_job(const Battery& battery, SlurmOptions o) {
  if (o.array < 1) throw UsageError("--array: expected a number of array tasks ≥ 1, got " + std::to_string(o.array));
  if (o.cpus_per_task < 1) throw UsageError("--cpus-per-task: expected ≥ 1, got " + std::to_string(o.cpus_per_task));
  if (!o.device.empty() && !Battery::valid_device(o.device))
    throw UsageError("--device " + o.device + ": expected cpu, cuda or cuda:N");
  const Plan plan = make_plan(battery);  // a bad battery fails here, with nothing written
  const std::string device = !o.device.empty() ? o.device : battery.device;
  SlurmJob job;
  job.battery = battery;
  job.runs = plan.runs.size();
  if (battery.tuning) job.tuning_runs = make_tuning_plan(battery).runs.size();
  o.out = fs::absolute(o.out).lexically_normal();
  if (o.executable.empty()) o.executable = self_executable();
  if (static_cast<size_t>(o.array) > job.runs) o.array = static_cast<int>(job.runs);  // no empty shards
  job.options = o;
  job.dir = o.out / "slurm";
  const std::string dir = job.dir.string(), out = o.out.string();
  const std::string rb = quote(o.executable), battery_file = quote((job.dir / "battery.json").string());

  std::string head = fmt::format("#SBATCH --job-name=rb-{}\n", battery.name);
  if (!o.partition.empty()) head += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) head += "#SBATCH --time=" + o.time + "\n";
  if (!o.extra.empty()) head += "#SBATCH " + o.extra + "\n";
  // A GPU device: each task's GPUs, unless the extra arguments already ask for them.
  std::string device_flag;
  if (!device.empty() && device != "cpu") {
    device_flag = " --device " + device;
    const bool asks = o.extra.find("--gres") != std::string::npos || o.extra.find("--gpus") != std::string::npos;
    const int gpus = device == "cuda" ? 1 : std::stoi(device.substr(5)) + 1;
    if (!asks) head += fmt::format("#SBATCH --gres=gpu:{}\n", gpus);
  }

  job.array_script = fmt::format(
      "#!/bin/bash\n"
      "# recallbench battery '{name}': {runs} runs in {n} shards, one array task per shard (written by\n"
      "# `recallbench slurm`). Every task writes into the shared store {out}; a task that is rerun finishes\n"
      "# only its missing runs.\n"
      "{head}"
      "#SBATCH --array=0-{last}{throttle}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --output={dir}/logs/array-%A_%a.out\n"
      "set -euo pipefail\n"
      "exec {rb} run --battery {battery} --out {qout} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --jobs {cpus}{stage}{device}\n",
      fmt::arg("name", battery.name), fmt::arg("runs", job.runs), fmt::arg("n", o.array), fmt::arg("out", out),
      fmt::arg("head", head), fmt::arg("last", o.array - 1),
      fmt::arg("throttle", o.throttle > 0 ? "%" + std::to_string(o.throttle) : ""), fmt::arg("cpus", o.cpus_per_task),
      fmt::arg("dir", dir), fmt::arg("rb", rb), fmt::arg("battery", battery_file), fmt::arg("qout", quote(out)),
      fmt::arg("stage", battery.tuning ? " --stage scoring" : ""), fmt::arg("device", device_flag));
  const int tuning_n = static_cast<int>(std::min<size_t>(static_cast<size_t>(o.array), std::max<size_t>(job.tuning_runs, 1)));
  if (battery.tuning)
    job.tuning_script = fmt::format(
        "#!/bin/bash\n"
        "# recallbench battery '{name}', its tuning stage: {runs} runs in {n} shards (written by `recallbench slurm`).\n"
        "# The scoring array starts after every task here ends well (afterok): it reads the choice from\n"
        "# {out}/tuning/.\n"
        "{head}"
        "#SBATCH --array=0-{last}{throttle}\n"
        "#SBATCH --ntasks=1\n"
        "#SBATCH --cpus-per-task={cpus}\n"
        "#SBATCH --output={dir}/logs/tuning-%A_%a.out\n"
        "set -euo pipefail\n"
        "exec {rb} run --battery {battery} --out {qout} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --jobs {cpus} --stage tuning{device}\n",
        fmt::arg("name", battery.name), fmt::arg("runs", job.tuning_runs), fmt::arg("n", tuning_n), fmt::arg("out", out),
        fmt::arg("head", head), fmt::arg("last", tuning_n - 1),
        fmt::arg("throttle", o.throttle > 0 ? "%" + std::to_string(o.throttle) : ""), fmt::arg("cpus", o.cpus_per_task),
        fmt::arg("dir", dir), fmt::arg("rb", rb), fmt::arg("battery", battery_file), fmt::arg("qout", quote(out)),
        fmt::arg("device", device_flag));

  job.merge_script = fmt::format(
      "#!/bin/bash\n"
      "# Merges the shards of battery '{name}' in {out} (runs after the array: --dependency=afterany), then\n"
      "# reports when this build has `recallbench report`.\n"
      "{head}"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output={dir}/logs/merge-%j.out\n"
      "set -uo pipefail\n"
      "{rb} merge {qout}{with_battery}\n"
      "status=$?\n"
      "# Report hook: once the report command is built, the merge job also writes the report.\n"
      "if {rb} --help 2>/dev/null | grep -Eq '^ +report +[^(]'; then\n"
      "  {rb} report {qout} || status=$?\n"
      "fi\n"
      "exit $status\n",
      fmt::arg("name", battery.name), fmt::arg("out", out), fmt::arg("head", head), fmt::arg("dir", dir),
      fmt::arg("rb", rb), fmt::arg("qout", quote(out)),
      // a tuned battery's scoring plan (with the chosen rates) is the store's plan.json
      fmt::arg("with_battery", battery.tuning ? std::string() : " --battery " + battery_file));

  if (battery.tuning)
    job.submit_script = fmt::format(
        "#!/bin/bash\n"
        "# Submits the tuning array, the scoring array after it (afterok), then the merge. Prints the job ids.\n"
        "set -euo pipefail\n"
        "tuning=$(sbatch --parsable {tuning})\n"
        "tuning=${{tuning%%;*}}\n"
        "array=$(sbatch --parsable --dependency=afterok:$tuning {array})\n"
        "array=${{array%%;*}}\n"
        "merge=$(sbatch --parsable --dependency=afterany:$array {merge})\n"
        "echo \"tuning job $tuning ({tn} tasks), array job $array ({n} tasks), merge job ${{merge%%;*}}\"\n",
        fmt::arg("tuning", quote(dir + "/tuning.sbatch")), fmt::arg("array", quote(dir + "/array.sbatch")),
        fmt::arg("merge", quote(dir + "/merge.sbatch")), fmt::arg("n", o.array), fmt::arg("tn", tuning_n));
  else
    job.submit_script = fmt::format(
        "#!/bin/bash\n"
        "# Submits the array, then the merge after it. Prints both job ids.\n"
        "set -euo pipefail\n"
        "array=$(sbatch --parsable {array})\n"
        "array=${{array%%;*}}\n"
        "merge=$(sbatch --parsable --dependency=afterany:$array {merge})\n"
        "echo \"array job $array ({n} tasks), merge job ${{merge%%;*}}\"\n",
        fmt::arg("array", quote(dir + "/array.sbatch")), fmt::arg("merge", quote(dir + "/merge.sbatch")),
        fmt::arg("n", o.array));
  return job;
}

void write_slurm_files(const SlurmJob& job) {
  fs::create_directories(job.dir / "logs");
  write_json_atomic(job.dir / "battery.json", job.battery.to_json());
  write_text(job.dir / "array.sbatch", job.array_script, true);
  write_text(job.dir / "merge.sbatch", job.merge_script, true);
  write_text(job.dir / "submit.sh", job.submit_script, true);
  if (!job.tuning_script.empty()) write_text(job.dir / "tuning.sbatch", job.tuning_script, true);
}

SlurmIds submit_slurm_job(const SlurmJob& job) {
  if (capture("command -v sbatch").first != 0)
    throw UsageError("--submit: sbatch is not on PATH", "run on a Slurm login node, or submit later with " +
                                                            (job.dir / "submit.sh").string());
  const auto first_field = [](std::string s) {
    s = s.substr(0, s.find_first_of(";\n"));
    return s;
  };
  SlurmIds ids;
  std::string after;
  if (!job.tuning_script.empty()) {
    auto [rct, outt] = capture("sbatch --parsable " + quote((job.dir / "tuning.sbatch").string()));
    if (rct != 0) throw UsageError("sbatch of the tuning array failed (exit " + std::to_string(rct) + "): " + outt);
    ids.tuning = first_field(outt);
    after = "--dependency=afterok:" + ids.tuning + " ";
  }
  auto [rc, out] = capture("sbatch --parsable " + after + quote((job.dir / "array.sbatch").string()));
  if (rc != 0) throw UsageError("sbatch of the array failed (exit " + std::to_string(rc) + "): " + out);
  const std::string array_id = first_field(out);
  auto [rc2, out2] = capture("sbatch --parsable --dependency=afterany:" + array_id + " " +
                             quote((job.dir / "merge.sbatch").string()));
  if (rc2 != 0)
    throw UsageError("array job " + array_id + " submitted, but sbatch of the merge failed (exit " +
                     std::to_string(rc2) + "): " + out2);
  ids.array = array_id;
  ids.merge = first_field(out2);
  return ids;
}

}  // namespace rb
