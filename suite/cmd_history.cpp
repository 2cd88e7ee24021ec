// recallbench history: the regression history across commits (history/history.h, docs/tracking.md).
//
//   recallbench history add DIR|bench.json|verdicts.json... [--db F] [--commit REV] [--branch B] [--repo DIR]
//   recallbench history import FILE|- [--db F]         JSON Lines (the interchange form)
//   recallbench history export [--out FILE] [--db F]
//   recallbench history log [--config SEL] [--metric lock-in|time|recall|speed]
//   recallbench history changes [--config SEL] [--alpha A] [--json]
//   recallbench history report [--html F] [--md F] [--json F] [--config SEL] [--alpha A]   (default: history-report/)
//   recallbench history report --document F [--html F] [--md F]   re-render a trend document written by --json
//   recallbench history accept REV --reason TEXT [--config SEL]   accept a change: the gate's anchor moves there
// The database: --db, else $RECALLBENCH_HISTORY, else .recallbench/history.sqlite (current directory).
// Exit codes: 0 ok (with or without changes found), 2 bad input (nothing written), 4 internal error.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "history/analysis.h"
#include "history/git.h"
#include "history/history.h"
#include "reports/history_page.h"
#include "reports/report.h"
#include "reports/speed_gate.h"
#include "suite/cli.h"
#include "suite/history_text.h"

namespace rb {
namespace {

struct HistoryOptions {
  std::string db;
  std::vector<std::string> inputs;
  std::string commit, branch, repo = ".", reference = "ceiling/gemm_fp32/N:512";
  bool allow_dirty = false;
  std::string out, html, md, json, config, metric = "lock-in";
  std::string document;  // history report: render this trend document instead of analysing the database
  std::string reason;    // history accept
  double alpha = 0.05;
  bool as_json = false;
};

void add_db_option(CLI::App* sub, HistoryOptions& o) {
  sub->add_option("--db", o.db,
                  std::string("History database (SQLite; default $RECALLBENCH_HISTORY, else ") +
                      history::kDefaultDatabase + ")");
}

// The commit a set of inputs belongs to: --commit, else the one the runs record.
history::CommitInfo commit_for(const HistoryOptions& o, const std::string& recorded, const std::string& what) {
  history::CommitInfo c = history::commit_of_results(o.repo, recorded, o.commit, o.allow_dirty, what);
  c.branch = o.branch;
  return c;
}

void merge(history::Batch& into, history::Batch&& b) {
  if (into.battery.empty()) into.battery = b.battery;
  else if (!b.battery.empty() && b.battery != into.battery)
    throw UsageError("history add: the inputs come from two batteries ('" + into.battery + "' and '" + b.battery + "')",
                     "record each battery into its own database");
  for (auto& c : b.commits) into.commits.push_back(std::move(c));
  for (auto& x : b.outcomes) into.outcomes.push_back(std::move(x));
  for (auto& [k, v] : b.config_documents) into.config_documents[k] = std::move(v);
  for (auto& x : b.benchmarks) into.benchmarks.push_back(std::move(x));
  for (auto& x : b.verdicts) into.verdicts.push_back(std::move(x));
  for (auto& x : b.acceptances) into.acceptances.push_back(std::move(x));
}

void print_summary(const history::IngestSummary& s, const std::string& db) {
  fmt::print("{}: {} commits, {} outcomes, {} config identities, {} benchmarks, {} verdicts, {} acceptances added; {} "
             "already there\n",
             db, s.commits, s.outcomes, s.configs, s.benchmarks, s.verdicts, s.acceptances, s.unchanged);
}

int run_add(const HistoryOptions& o) {
  history::Batch batch;
  for (const auto& path : o.inputs) {  // read and check everything before the database is opened for writing
    if (std::filesystem::is_regular_file(path)) {  // one read decides what the file is
      const json doc = read_json_file(path);
      if (reports::is_bench_json(doc)) {
        const std::string recorded = with_json_errors(path, [&] {
          const json& rb = doc.contains("recallbench") ? doc.at("recallbench") : json::object();
          return rb.is_object() && rb.contains("context") && rb.at("context").is_object()
                     ? rb.at("context").value("git_commit", std::string())
                     : std::string();
        });
        auto commit = commit_for(o, recorded, path);
        merge(batch, history::batch_from_bench(reports::bench_file_from_json(doc, path), commit, o.reference));
        fmt::print("{}: benchmarks of commit {}\n", path, commit.hash.substr(0, 12));
        continue;
      }
      if (kind_of(doc) == "recallbench.verdicts") {
        if (o.commit.empty())
          throw UsageError(path + ": a verdicts file records no commit", "pass --commit REV (the commit verify ran on)");
        auto commit = commit_for(o, "", path);
        merge(batch, history::batch_from_verdicts(doc, commit, path));
        fmt::print("{}: claims' verdicts of commit {}\n", path, commit.hash.substr(0, 12));
        continue;
      }
    }
    const rb::RunSet runs = reports::load_results(path);
    if (runs.configs.empty()) throw UsageError(path + ": no runs to record");
    std::string recorded;
    if (runs.commits.size() > 1 && o.commit.empty())
      throw UsageError(fmt::format("{}: its runs come from {} commits ({})", path, runs.commits.size(), runs.commits.dump()),
                       "record one commit's runs at a time, or pass --commit REV");
    if (!runs.commits.empty()) recorded = runs.commits.front().get<std::string>();
    auto commit = commit_for(o, recorded, path);
    commit.context = runs.context;
    merge(batch, history::batch_from_runs(runs, commit));
    fmt::print("{}: {} runs of {} configs{}, commit {} ({})\n", path, runs.run_count, runs.configs.size(),
               runs.battery.empty() ? "" : " (battery " + runs.battery + ")", commit.hash.substr(0, 12), commit.subject);
  }
  history::History h(history::resolve_database(o.db), history::History::Mode::kWrite);
  print_summary(h.ingest(batch), h.path());
  return kExitOk;
}

int run_import(const HistoryOptions& o) {
  history::Batch batch;
  if (o.inputs.front() == "-") {
    batch = history::parse_jsonl(std::cin, "standard input");
  } else {
    // A pipe is fine (import <(...)); a directory would read as an empty file and record nothing.
    if (std::filesystem::is_directory(o.inputs.front()))
      throw UsageError("history import: " + o.inputs.front() + " is a directory, expected a JSON Lines file (or -)");
    std::ifstream in(o.inputs.front());
    if (!in) throw UsageError("cannot read " + o.inputs.front() + ": " + std::strerror(errno));
    batch = history::parse_jsonl(in, o.inputs.front());
    if (in.bad()) throw UsageError("history import: reading " + o.inputs.front() + " failed: " + std::strerror(errno));
  }
  history::History h(history::resolve_database(o.db), history::History::Mode::kWrite);
  print_summary(h.ingest(batch), h.path());
  return kExitOk;
}

int run_export(const HistoryOptions& o) {
  history::History h(history::resolve_database(o.db), history::History::Mode::kRead);
  std::ostringstream text;
  h.export_jsonl(text);
  if (o.out.empty() || o.out == "-") {
    std::cout << text.str();
    std::cout.flush();
    if (!std::cout) throw UsageError(std::string("history export: writing to standard output failed: ") + std::strerror(errno));
    return kExitOk;
  }
  write_text_atomic(o.out, text.str());  // a unique temporary beside it, checked to the close, then renamed
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
  return kExitOk;
}

history::AnalysisOptions analysis_options(const HistoryOptions& o, bool detect) {
  history::AnalysisOptions a;
  a.alpha = o.alpha;
  a.config_selector = o.config;
  a.detect = detect;
  return a;
}

int run_log(const HistoryOptions& o) {
  const auto metric = history::parse_metric(o.metric);
  history::History h(history::resolve_database(o.db), history::History::Mode::kRead);
  const auto a = history::analyse(h, analysis_options(o, false));
  if (a.configs.empty() && a.benchmarks.empty())
    throw UsageError("history log: nothing recorded" + (o.config.empty() ? "" : " matches --config " + o.config));
  std::fputs(log_table(a, metric).c_str(), stdout);
  return kExitOk;
}

int run_changes(const HistoryOptions& o) {
  history::History h(history::resolve_database(o.db), history::History::Mode::kRead);
  const auto opts = analysis_options(o, true);
  const auto a = history::analyse(h, opts);
  if (o.as_json) {
    json list = json::array();
    for (const auto& c : a.changes) list.push_back(history::change_json(c, a));
    std::puts(list.dump(2).c_str());
  } else {
    std::fputs(changes_table(a).c_str(), stdout);
  }
  return kExitOk;
}

// The trend document in the formats asked for (--json, --html, --md).
void write_history_outputs(const HistoryOptions& o, const json& doc) {
  reports::write_outputs(reports::history_document(doc), {o.json, o.html, o.md});
}

// history report --document: the pages of a trend document written before (by --json), no database read.
int render_history_document(const HistoryOptions& o) {
  if (!o.json.empty())
    throw UsageError("history report: --json with --document", "the document is already the JSON form");
  const json doc = read_json_file(o.document);
  if (!doc.is_object() || doc.value("kind", "") != "recallbench.history_report")
    throw UsageError("history report: " + o.document + " is not a trend document",
                     "expected kind \"recallbench.history_report\" (written by history report --json)");
  write_history_outputs(o, doc);
  for (const auto* p : {&o.html, &o.md})
    if (!p->empty()) std::printf("wrote %s\n", p->c_str());
  return kExitOk;
}

int run_history_report(HistoryOptions o) {
  // Without an output named, as `report DIR`: every form into a folder, history-report/ here (--document: the
  // pages only, the document being the JSON form).
  if (o.html.empty() && o.md.empty() && o.json.empty()) {
    std::filesystem::create_directories("history-report");
    o.html = "history-report/history.html";
    o.md = "history-report/history.md";
    if (o.document.empty()) o.json = "history-report/history.json";
  }
  if (!o.document.empty()) return render_history_document(o);
  history::History h(history::resolve_database(o.db), history::History::Mode::kRead);
  const auto opts = analysis_options(o, true);
  const auto a = history::analyse(h, opts);
  const json doc = history::analysis_json(a, h, opts);
  write_history_outputs(o, doc);
  std::fputs(changes_table(a).c_str(), stdout);
  for (const auto* p : {&o.html, &o.md, &o.json})
    if (!p->empty()) std::printf("wrote %s\n", p->c_str());
  return kExitOk;
}

// The recorded commit a revision names: a full hash or a unique prefix of one (case-free).
std::string recorded_commit(const history::History& h, std::string rev) {
  for (char& ch : rev) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::vector<std::string> found;
  for (const auto& c : h.commits())
    if (!rev.empty() && c.hash.rfind(rev, 0) == 0) found.push_back(c.hash);
  if (found.empty())
    throw UsageError("history accept: no commit '" + rev + "' in " + h.path(),
                     "name a recorded commit (a hash or its prefix: `recallbench history log` lists them)");
  if (found.size() > 1)
    throw UsageError(fmt::format("history accept: '{}' is the prefix of {} recorded commits", rev, found.size()),
                     "give more of the hash");
  return found.front();
}

int run_accept(const HistoryOptions& o) {
  RB_CHECK_INPUT(o.reason.find_first_not_of(" \t") != std::string::npos,
                 "history accept: --reason is empty (say why the change is accepted: it is stored with it)");
  const std::string db = history::resolve_database(o.db);
  history::Batch batch;
  std::string commit;
  {
    const history::History h(db, history::History::Mode::kRead);
    commit = recorded_commit(h, o.inputs.front());
    for (const auto& key : history::configs_at(h, commit, o.config)) batch.acceptances.push_back({commit, key, o.reason});
  }
  if (batch.acceptances.empty())
    throw UsageError("history accept: commit " + commit.substr(0, 12) + " has no runs" +
                         (o.config.empty() ? std::string() : " of a config matching '" + o.config + "'"),
                     "`recallbench history log --db " + db + "` shows which configs each commit recorded");
  history::History h(db, history::History::Mode::kWrite);
  const auto s = h.ingest(batch);
  fmt::print("accepted at {} ({}): {} config(s){}\n", commit.substr(0, 12), o.reason, batch.acceptances.size(),
             s.acceptances == 0 ? ", every one already accepted" : "");
  for (const auto& a : batch.acceptances) fmt::print("  {}\n", a.config);
  fmt::print("From this commit on, `gate --baseline-history {}` judges them against the runs from {} on.\n", db,
             commit.substr(0, 7));
  return kExitOk;
}

CommandFn add_history_command(CLI::App& s) {
  auto o = std::make_shared<HistoryOptions>();
  s.require_subcommand(1);
  auto* add = s.add_subcommand("add", "Record results stores, benchmark files (recallbench bench --out) and verdicts "
                                      "(recallbench verify --json) under their commit");
  add->add_option("inputs", o->inputs, "Results directories, run files, benchmark JSON, verdicts JSON")->required();
  add->add_option("--commit", o->commit, "The commit they belong to (default: the one the runs record)");
  add->add_option("--branch", o->branch, "Branch name to record with the commit");
  add->add_option("--repo", o->repo, "The git repository the commits are in (default: the current directory)");
  add->add_option("--reference", o->reference,
                  "Benchmark files: the benchmark every time is divided by, a name or its prefix (default "
                  "ceiling/gemm_fp32/N:512, the GEMM ceiling `recallbench bench` measures in the same run; none: raw ns)");
  add->add_flag("--allow-dirty", o->allow_dirty, "Record results built from a dirty tree under its base commit");
  add_db_option(add, *o);
  auto* imp = s.add_subcommand("import", "Read JSON Lines (history export's form, docs/tracking.md) into the database");
  imp->add_option("file", o->inputs, "JSON Lines file, or - for standard input")->required()->expected(1);
  add_db_option(imp, *o);
  auto* exp = s.add_subcommand("export", "Write the database as JSON Lines (diffable; importable anywhere)");
  exp->add_option("--out", o->out, "File to write (default: standard output)");
  add_db_option(exp, *o);
  auto* log = s.add_subcommand("log", "A table per commit of one metric");
  log->add_option("--config", o->config, "Only configs whose key or label contains one of these (comma-separated)");
  log->add_option("--metric", o->metric, "lock-in (default), time, recall or speed");
  add_db_option(log, *o);
  auto* ch = s.add_subcommand("changes", "Change points and drifts per config and metric (exit 0 either way)");
  ch->add_option("--config", o->config, "Only configs whose key or label contains one of these (comma-separated)");
  ch->add_option("--alpha", o->alpha, "Family-wise error rate over every test of the history (Bonferroni with Tarone's rule; default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  ch->add_flag("--json", o->as_json, "A JSON list of changes instead of the table");
  add_db_option(ch, *o);
  auto* rep = s.add_subcommand("report", "Trend pages: per config, lock-in, time to lock-in, recall and kernel speed "
                                         "per commit, with change points marked");
  rep->footer("Without --html, --md or --json it writes history-report/history.{html,md,json} in the current directory.");
  rep->add_option("--html", o->html, "Write the self-contained HTML page here");
  rep->add_option("--md", o->md, "Write the Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)");
  rep->add_option("--json", o->json, "Write the trend document here");
  rep->add_option("--document", o->document,
                  "Render this trend document (written by --json) instead of reading the database");
  rep->add_option("--config", o->config, "Only configs whose key or label contains one of these (comma-separated)");
  rep->add_option("--alpha", o->alpha, "Family-wise error rate over every test of the history (Bonferroni with Tarone's rule; default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  add_db_option(rep, *o);
  auto* acc = s.add_subcommand("accept", "Accept a change on purpose (a regression traded for something else): "
                                         "the history gate's anchor moves to this commit for its configs");
  acc->add_option("commit", o->inputs, "The recorded commit (a hash or a unique prefix)")->required()->expected(1);
  acc->add_option("--reason", o->reason, "Why it is accepted (stored with it, shown when the gate pools)")->required();
  acc->add_option("--config", o->config,
                  "Only configs whose key or label contains one of these (comma-separated; default: every config "
                  "with runs at the commit)");
  add_db_option(acc, *o);
  return [o, add, imp, exp, log, ch, rep, acc]() {
    if (add->parsed()) return run_add(*o);
    if (imp->parsed()) return run_import(*o);
    if (exp->parsed()) return run_export(*o);
    if (log->parsed()) return run_log(*o);
    if (ch->parsed()) return run_changes(*o);
    if (rep->parsed()) return run_history_report(*o);
    if (acc->parsed()) return run_accept(*o);
    throw UsageError("history: no subcommand", "one of add, import, export, log, changes, report, accept");
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, history,
            CommandEntry{"history", "The regression history across commits: add, import, export, log, changes, report, accept",
                         &add_history_command});

}  // namespace rb
