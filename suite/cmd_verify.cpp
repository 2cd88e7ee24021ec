// recallbench verify --claims FILE --results DIR [DIR ...] [--html F] [--md F] [--json F]
//
// One verdict per claim (judge/claims.h; narrated by reports/claims.h): reproduced, reproduced on a proxy, direction
// reproduced but size not, contradicted, claimed size not reproduced, undecided, not informative or not run;
// observations (not claims of the source) are reported apart as "observation", not graded.
// Exit 1 when a claim marked "gate": true is not reproduced (or reproduced on a proxy), so a reproduced claim can
// join CI.
#include <memory>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/claims.h"
#include "reports/document.h"
#include "reports/report.h"
#include "suite/cli.h"
#include "suite/task_chance.h"

namespace rb {
namespace {

struct VerifyOptions {
  std::string claims;
  std::vector<std::string> results;
  std::string html, md, json;
};

int run_verify(const VerifyOptions& o) {
  const judge::ClaimSet set = judge::read_claims(o.claims);
  std::vector<rb::RunSet> results;
  for (const auto& dir : o.results) results.push_back(reports::load_results(dir));
  const auto verdicts = judge::verify_claims(set, results, task_chance_of);
  const reports::Document doc = reports::verdicts_document(set, verdicts);  // built once: JSON and pages agree
  reports::write_outputs(doc, {o.json, o.html, o.md});
  fmt::print("{}", reports::verdicts_text(verdicts));
  const int code = judge::verify_exit_code(verdicts);
  fmt::print("{}\n", code ? "verify: a gated claim is not reproduced" : "verify: every gated claim is reproduced");
  for (const auto* p : {&o.html, &o.md, &o.json})
    if (!p->empty()) fmt::print("wrote {}\n", *p);
  return code;
}

CommandFn add_verify_command(CLI::App& sub) {
  auto o = std::make_shared<VerifyOptions>();
  sub.add_option("--claims", o->claims, "Claims file (reports/claims_schema.md), e.g. ci/claims/seed-claims.json")
      ->required();
  sub.add_option("--results", o->results, "Results directories, baselines or reports to read (their configs together)")
      ->required();
  sub.add_option("--html", o->html, "Write the verdicts as a self-contained HTML page here");
  sub.add_option("--md", o->md, "Write the verdict table as Markdown here");
  sub.add_option("--json", o->json, "Write the verdicts as JSON here");
  sub.footer("Where a config is in several --results (the same key recorded twice), the recording that holds both arms "
             "of a comparison is read, else the one named last; a note names arms from different recordings.\n"
             "Exit codes: 0 every gated claim reproduced (or reproduced on a proxy), 1 a gated claim not reproduced, "
             "2 bad input.");
  return [o]() { return run_verify(*o); };
}

}  // namespace

RB_REGISTER(CommandRegistry, verify,
            CommandEntry{"verify", "One verdict per claim (reproduced, reproduced on a proxy, size not, contradicted, claimed size not reproduced, undecided, not informative, not run; observations apart)",
                         add_verify_command});

}  // namespace rb
