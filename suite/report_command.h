// The bodies of `recallbench report`, `compare` and `gate`: read, judge, write the documents, print
// the verdict to the console and return the exit code (README "Exit codes"). CLI11-free: the flags
// that fill these options are declared in suite/report_flags.h.
#pragma once

#include <string>
#include <vector>

#include "judge/recall_gate.h"
#include "judge/speed_gate.h"
#include "reports/report.h"
#include "stats/stats.h"

namespace rb {

// The gate's options as the command line spells them.
struct GateFlags {
  judge::GateOptions gate;
  std::string adjust = "holm";
  std::string spending = "pocock";
  bool unpaired = false;
  bool fail_on_inconclusive = false;
  bool allow_other_battery = false;  // compare with a baseline recorded from another battery

  // Parses the adjustment and spending names into `gate` (UsageError on an unknown name).
  judge::GateOptions resolved() const {
    judge::GateOptions g = gate;
    g.adjust = stats::parse_adjust_method(adjust);
    g.spending = stats::parse_spending(spending);
    g.rule = unpaired ? judge::GateOptions::Rule::kUnpaired : judge::GateOptions::Rule::kPaired;
    return g;
  }
};

// Where `report` and `compare` write their documents ("" = not written).
struct OutputFlags {
  std::string html, json, md, bench;
  std::string claims;  // a claims file (reports/claims_schema.md): its verdicts on these results
                       // join the report
};

// Loads, compares (when a baseline is given), writes what was asked for, prints the verdict, and
// returns the exit code (0; 1 on a regression; 2 when a model changed; 3 when inconclusive with
// --fail-on-inconclusive).
// `baseline_from`, when set, makes the baseline from the current runs instead of reading
// `baseline_path` (which then only names it): the history's pooled baseline (history/analysis.h).
int run_report(const std::string& current_path, const std::string& baseline_path,
               const GateFlags& flags, const OutputFlags& out,
               const std::vector<ContrastSpec>& declared, bool print_configs,
               const reports::BaselineSource& baseline_from = {});

// `recallbench compare` on two Google Benchmark files (judge/speed_gate.h).
struct SpeedCompareRequest {
  std::string baseline, current;  // benchmark files
  judge::SpeedGateOptions options;
  bool fail_on_inconclusive = false;
  bool aa = false;               // A/A calibration instead of the gate
  std::string json_out, md_out;  // written when not empty
};

// Reads both files (before writing anything), warns on stderr when they come from different
// machines, compares or calibrates, prints the table, writes the requested documents, and returns
// the exit code (A/A: always 0).
int run_speed_compare(const SpeedCompareRequest& request);

}  // namespace rb
