// recallbench worker (hidden): trains one run for the runner (suite/runner.cpp) and stores its result.
//
//   recallbench worker --out DIR --key KEY --spec '<resolved RunSpec JSON>' [--threads 1] [--device cpu]
//
// The runner starts one worker process per run, holding the run's lock for it; the worker writes
// DIR/runs/<run file>.json atomically and exits 0. Not meant to be called by hand.
#include <fmt/format.h>

#include "suite/cli.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "suite/store.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct WorkerOptions {
  std::string out, key, spec;
  int threads = 1;
  std::string device = kDefaultDevice;
};

int run_worker(const WorkerOptions& o) {
  const json parsed = parse_json_text(o.spec, "worker --spec");
  const RunSpec spec = RunSpec::from_json(parsed, "worker --spec");
  if (spec.key() != o.key) throw UsageError("worker: --spec keys to " + spec.key() + ", expected " + o.key);
  const Store store(o.out);
  // One line per evaluation: DIR/logs/<run>.log, and the runner's live lines on a terminal, read the latest.
  const json doc = train_run(spec, [&](const TrainProgress& p) {
    fmt::print(stderr, "step {:>5}/{}  loss {:.4f}  acc {:.3f}  {:.1f} steps/s\n", p.step, p.steps, p.loss, p.accuracy,
               p.steps_per_second);
  }, o.threads, o.device);
  store.write(spec, doc);
  fmt::print(stderr, "done: {}\n", store.result_path(spec).string());
  return kExitOk;
}

}  // namespace

CommandFn add_worker_command(CLI::App& sub) {
  auto o = std::make_shared<WorkerOptions>();
  sub.group("");  // hidden from --help (as listed in suite/cli_main.cpp's torch_side_commands)
  sub.add_option("--out", o->out, "Results directory")->required();
  sub.add_option("--key", o->key, "The run key the spec must have")->required();
  sub.add_option("--spec", o->spec, "The resolved run spec, JSON")->required();
  sub.add_option("--threads", o->threads, "LibTorch threads (1 to 64)")->check(CLI::Range(1, 64));
  sub.add_option("--device", o->device, "Where the run trains: cpu, cuda, cuda:N");
  return [o]() { return run_worker(*o); };
}

RB_REGISTER(CommandRegistry, worker,
            CommandEntry{"worker", torch_side_help("worker"), add_worker_command});

}  // namespace rb
