// Command-line flags shared by `recallbench report`, `compare` and `gate`: the gate's options and the
// documents to write (header-only, CLI11; the command line lives in suite/, rb_reports knows nothing of it).
// The command body they feed is suite/report_command.h (GateFlags, OutputFlags).
//
//   add_gate_flags(sub, options->gate);  add_output_flags(sub, options->out);
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "suite/report_command.h"

namespace rb {

// --alpha, --min-lockin-drop, ... --fail-on-inconclusive: the gate's options (judge/recall_gate.h GateOptions).

inline void add_gate_flags(CLI::App* sub, GateFlags& f) {
  sub->add_option("--alpha", f.gate.alpha, "Family-wise error rate of the regression tests (default 0.05)")
      ->check(CLI::Range(1e-12, 0.999999));
  sub->add_option("--min-lockin-drop", f.gate.min_lockin_drop,
                  "Smallest lock-in rate change that counts, as a fraction (default 0.2 = 20 points; paired: the "
                  "drop's one-sided upper bound must reach it)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--min-recall-drop", f.gate.min_recall_drop,
                  "Smallest drop in recall that counts, relative to the baseline's median recall (default 0.1 = "
                  "10%; paired: the median per-seed drop's one-sided upper bound must reach it)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--min-slowdown", f.gate.min_slowdown,
                  "Smallest slowdown that counts, as a fraction (default 0.2 = 20% slower; paired: the median ratio "
                  "of lock-in steps over the seeds that lock in on both sides, its one-sided upper bound; unpaired: "
                  "the restricted mean steps to lock-in)")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_flag("--allow-model-change", f.gate.allow_model_change,
                "Compare configs whose model changed under the same key (state size, parameters, architecture); "
                "without it such a config is 'model changed' and the exit code is 2");
  sub->add_flag("--allow-data-change", f.gate.allow_data_change,
                "Compare configs whose task (held-out set fingerprint) or training data stream (first batches' "
                "fingerprint per seed) changed under the same key; without it such a config is 'task changed' or "
                "'data stream changed' and the exit code is 2. Seeds that are not independent are never compared");
  sub->add_option("--power", f.gate.target_power,
                  "Power the 'seeds needed' calculation aims for (default 0.8)")
      ->check(CLI::Range(0.01, 0.999));
  sub->add_option("--adjust", f.adjust,
                  "Multiple-comparison adjustment across the compared configs: holm (default), hochberg, "
                  "bonferroni, bh, by");
  sub->add_flag("--unpaired", f.unpaired,
                "The rule before seeds were paired: three unpaired tests per config (Fisher on lock-in counts, "
                "Mann–Whitney on recall, log-rank on time to lock-in), all in one Holm family. Default: one primary "
                "test per config, the paired sign test over the seeds both sides ran");
  sub->add_option("--stage-seeds", f.gate.stage_seeds,
                  "Sequential rule: seed pairs per look (0 = one look over every pair; `recallbench gate` sets it "
                  "to the battery's seed count)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}));
  sub->add_option("--stages", f.gate.max_stages, "Sequential rule: looks up to the cap (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{100}));
  sub->add_option("--spending", f.spending,
                  "Sequential rule: alpha-spending function, pocock (default) or obrien-fleming");
  sub->add_option("--futility-p", f.gate.futility_p,
                  "Sequential rule: stop a config at a look, no regression, when its sign test's p there exceeds "
                  "this (default 0.5: the pairs lean the other way or not at all; non-binding)")
      ->check(CLI::Range(1e-9, 1.0));
  sub->add_flag("--allow-other-battery", f.allow_other_battery,
                "Compare with a baseline recorded from another battery (the configs both hold); without it that is "
                "exit 2");
  sub->add_flag("--fail-on-inconclusive", f.fail_on_inconclusive,
                "Exit 3 when the verdict is inconclusive (default: exit 0)");
}

// --html, --json, --md, --bench, --claims: what `report` and `compare` write and show.
inline void add_output_flags(CLI::App* sub, OutputFlags& o) {
  sub->add_option("--html", o.html, "Write the self-contained HTML report here");
  sub->add_option("--json", o.json, "Write the JSON report here (schema: reports/schema/report.schema.json)");
  sub->add_option("--md", o.md, "Write the Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)");
  sub->add_option("--bench", o.bench, "Kernel throughput: a Google Benchmark JSON file to show in the report");
  sub->add_option("--claims", o.claims,
                  "A claims file (e.g. ci/claims/smoke-claims.json): a section with each claim's verdict on these "
                  "results (recallbench verify gates on them)");
}

}  // namespace rb
