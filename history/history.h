// The history database: what every recorded commit's runs, kernel benchmarks and claims' verdicts were, so
// that change points, trends, a pooled baseline and bisect can look back (DESIGN.md, "History and
// identity"). One SQLite file (history/sqlite.h), schema versioned by PRAGMA user_version and migrated
// forward on open for writing; a file from a newer schema is refused, never touched.
//
// Tables (schema 1): meta (battery, created), commits (hash, parent, date, branch, subject, context),
// outcomes (commit × config × seed: locked in, lock-in step or censored at the budget, final and best
// recall, status, state size, architecture hash, data fingerprints), configs (commit × config: the config's
// stored document, its identity), benchmarks (commit × benchmark × sample: median time relative to the
// same run's GEMM ceiling), verdicts (commit × claim).
//
// Writes are all-or-nothing (one IMMEDIATE transaction per command; a second writer waits for the lock),
// idempotent (recording the same thing twice changes nothing), and a value that contradicts the stored one
// is a UsageError (exit 2) that leaves the database as it was.
//
// The JSON Lines interchange (`history export` / `import`, docs/tracking.md) is one object per line:
//   header     {"recallbench_history": 1, "battery": "smoke"}
//   outcome    {"commit", "parent", "date", "config", "seed", "locked_in", "lock_in_step", "budget", "recall",
//               + optional "best_recall", "status", "state_size", "architecture", "eval_fingerprint",
//               "train_fingerprint", "branch", "subject"}
//   benchmark  {"commit", "parent", "date", "benchmark", "value", + optional "sample"}
//   verdict    {"commit", "parent", "date", "claim", "verdict", + optional "p"}
//   config     {"commit", "config", "config_document": {...}}
//   commit     {"commit", "parent", "date", + optional "branch", "subject", "context"}
// A line's type is the first of seed, benchmark, claim, config_document it has (else commit); unknown
// fields are ignored.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/outcome.h"
#include "judge/speed_gate.h"
#include "reports/results.h"

namespace rb::history {

using json = nlohmann::json;

inline constexpr int kSchemaVersion = 3;  // 2: accepted regressions (`history accept`); 3: the learning label
// Where the database is when neither --db nor RECALLBENCH_HISTORY says: relative to the current directory.
inline constexpr const char* kDefaultDatabase = ".recallbench/history.sqlite";

// --db when given, else $RECALLBENCH_HISTORY, else kDefaultDatabase.
std::string resolve_database(const std::string& flag);

struct CommitInfo {
  std::string hash;     // full hex
  std::string parent;   // first parent ("" when unknown or a root)
  std::string date;     // ISO 8601 (the commit date)
  std::string branch;
  std::string subject;
  json context = nullptr;  // the build context of the recorded runs (null when imported without)
};

// One seed's run at one commit, as stored: the row of rb::Outcome (core/outcome.h) with its commit, config and
// budget. `locked_in` is that type's decision (Outcome::locked_in(), which an import checks again), so the
// history judges with the same rule as every other reader.
struct Outcome {
  std::string commit, config;
  int64_t seed = 0;
  bool locked_in = false;
  std::optional<int64_t> lock_in_step;  // when locked in
  int64_t budget = 0;                   // where a seed that never locked in is censored
  double recall = 0.0;                  // final held-out accuracy
  std::optional<double> best_recall;
  RunStatus status = RunStatus::kOk;
  int64_t state_size = 0;               // 0 when unknown
  std::string architecture, eval_fingerprint, train_fingerprint;
  // How its learning ended (judge/learning.h, diagnosed from the run's curve when it was added): unknown for a
  // row without one (an older database, an import without the field).
  Learning learning = Learning::kUnknown;
};

struct Benchmark {
  std::string commit, name;
  std::string sample;   // which measurement (a file's identity): several samples of one commit are kept
  double value = 0.0;   // median time relative to the same run's reference (GEMM ceiling); raw ns when none
};

struct Verdict {
  std::string commit, claim, verdict;
  std::optional<double> p;
};

// A change accepted on purpose (`history accept`): from `commit` on, `config`'s pooled baseline is anchored at
// the epoch holding that commit (history/analysis.h pooled_baseline), so later commits are judged against
// the accepted level and the accepted regression no longer fails the history gate.
struct Acceptance {
  std::string commit, config, reason;
};

// Everything one command records, written in one transaction.
struct Batch {
  std::string battery;  // "" when unknown (an import without header, benchmark files)
  std::vector<CommitInfo> commits;
  std::vector<Outcome> outcomes;
  std::map<std::pair<std::string, std::string>, json> config_documents;  // (commit, config) → document
  std::vector<Benchmark> benchmarks;
  std::vector<Verdict> verdicts;
  std::vector<Acceptance> acceptances;
};

struct IngestSummary {
  int64_t commits = 0, outcomes = 0, configs = 0, benchmarks = 0, verdicts = 0, acceptances = 0;  // rows added
  int64_t unchanged = 0;                                                        // already there, equal
};

class History {
 public:
  enum class Mode { kRead, kWrite };
  // Opens (kWrite: creates and migrates) the database. A newer schema, a file that is not a recallbench
  // history, or a corrupted one: UsageError.
  History(const std::string& path, Mode mode);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  const std::string& path() const;
  std::string battery() const;  // "" when none recorded yet

  // Records a batch, all or nothing. A value contradicting a stored one, a battery other than the
  // database's: UsageError, nothing written.
  IngestSummary ingest(const Batch& batch);

  // Commits in history order: parents before children (following the parent chain), otherwise by date.
  std::vector<CommitInfo> commits() const;
  std::vector<Outcome> outcomes(const std::string& config = "") const;   // "" = all, ordered by config, commit, seed
  std::vector<Benchmark> benchmarks() const;
  std::vector<Verdict> verdicts() const;
  std::vector<Acceptance> acceptances() const;  // ordered by config, commit (none in a version-1 database)
  // The stored document of (commit, config), null when none.
  json config_document(const std::string& commit, const std::string& config) const;

  void export_jsonl(std::ostream& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses JSON Lines (the interchange above) into a batch; `where` names the source in messages (with the
// line number). Bad lines: UsageError.
Batch parse_jsonl(std::istream& in, const std::string& where);

// A results store (reports::load_results) as a batch for `commit`. The runs' own commit must match
// `commit.hash` unless `override_commit`.
Batch batch_from_runs(const rb::RunSet& runs, const CommitInfo& commit);
// A Google Benchmark file: each benchmark's median time divided by `reference`'s median in the same file
// (kernels relative to the GEMM ceiling; a name or a prefix of one), the ceilings themselves left out;
// reference "none": raw medians (ns). A reference the file lacks: UsageError.
Batch batch_from_bench(const judge::BenchFile& file, const CommitInfo& commit, const std::string& reference);
// A `recallbench verify --json` document.
Batch batch_from_verdicts(const json& doc, const CommitInfo& commit, const std::string& where);

// Orders commits: parents before children, ties and unconnected commits by date, then hash.
std::vector<CommitInfo> order_commits(std::vector<CommitInfo> commits);

}  // namespace rb::history
