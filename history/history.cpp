#include "history/history.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <ostream>
#include <queue>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "core/outcome.h"
#include "history/sqlite.h"
#include "judge/learning.h"

namespace rb::history {
namespace {

// Each entry moves the schema from version i to i + 1. Never edit a released entry: append one.
const std::vector<std::string> kMigrations = {
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commits(hash TEXT PRIMARY KEY, parent TEXT, date TEXT NOT NULL, branch TEXT NOT NULL DEFAULT '',
                     subject TEXT NOT NULL DEFAULT '', context TEXT);
CREATE TABLE outcomes(commit_hash TEXT NOT NULL REFERENCES commits(hash), config TEXT NOT NULL, seed INTEGER NOT NULL,
                      locked_in INTEGER NOT NULL, lock_in_step INTEGER, budget INTEGER NOT NULL, recall REAL NOT NULL,
                      best_recall REAL, status TEXT NOT NULL, state_size INTEGER NOT NULL, architecture TEXT NOT NULL,
                      eval_fingerprint TEXT NOT NULL, train_fingerprint TEXT NOT NULL,
                      PRIMARY KEY(commit_hash, config, seed)) WITHOUT ROWID;
CREATE INDEX outcomes_by_config ON outcomes(config, commit_hash);
CREATE TABLE configs(commit_hash TEXT NOT NULL REFERENCES commits(hash), config TEXT NOT NULL, document TEXT NOT NULL,
                     PRIMARY KEY(commit_hash, config)) WITHOUT ROWID;
CREATE TABLE benchmarks(commit_hash TEXT NOT NULL REFERENCES commits(hash), name TEXT NOT NULL, sample TEXT NOT NULL,
                        value REAL NOT NULL, PRIMARY KEY(commit_hash, name, sample)) WITHOUT ROWID;
CREATE TABLE verdicts(commit_hash TEXT NOT NULL REFERENCES commits(hash), claim TEXT NOT NULL, verdict TEXT NOT NULL,
                      p REAL, PRIMARY KEY(commit_hash, claim)) WITHOUT ROWID;
INSERT INTO meta(key, value) VALUES ('kind', 'recallbench.history');
)sql",
    R"sql(
CREATE TABLE accepted(commit_hash TEXT NOT NULL REFERENCES commits(hash), config TEXT NOT NULL, reason TEXT NOT NULL,
                      PRIMARY KEY(commit_hash, config)) WITHOUT ROWID;
)sql",
    R"sql(
ALTER TABLE outcomes ADD COLUMN learning TEXT;
)sql",
};
static_assert(kSchemaVersion == 3, "add a migration to kMigrations with the new schema version");

const char* kRestoreHint = "nothing was written; rebuild the database from an export with `recallbench history import`";

bool same_number(double a, double b) { return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }

std::string short_of(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace

std::string resolve_database(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("RECALLBENCH_HISTORY"); env && *env) return env;
  return kDefaultDatabase;
}

std::vector<CommitInfo> order_commits(std::vector<CommitInfo> commits) {
  std::sort(commits.begin(), commits.end(), [](const CommitInfo& a, const CommitInfo& b) {
    return a.date != b.date ? a.date < b.date : a.hash < b.hash;
  });
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < commits.size(); ++i) index[commits[i].hash] = i;
  std::vector<std::vector<size_t>> children(commits.size());
  std::vector<int> waiting(commits.size(), 0);
  for (size_t i = 0; i < commits.size(); ++i)
    if (auto it = index.find(commits[i].parent); !commits[i].parent.empty() && it != index.end() && it->second != i) {
      children[it->second].push_back(i);
      waiting[i] = 1;
    }
  // Kahn's algorithm, always taking the earliest-dated ready commit (indices are in date order).
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < commits.size(); ++i)
    if (!waiting[i]) ready.push(i);
  std::vector<CommitInfo> out;
  std::vector<bool> placed(commits.size(), false);
  while (out.size() < commits.size()) {
    if (ready.empty()) {  // a parent cycle (impossible in git; possible in a hand-written import): break it by date
      for (size_t i = 0; i < commits.size(); ++i)
        if (!placed[i]) {
          ready.push(i);
          break;
        }
    }
    const size_t i = ready.top();
    ready.pop();
    if (placed[i]) continue;
    placed[i] = true;
    out.push_back(commits[i]);
    for (size_t c : children[i])
      if (!placed[c]) ready.push(c);
  }
  return out;
}

struct History::Impl {
  Database db;
  int64_t opened_version = 0;  // the schema version as opened (read mode keeps an older one)
  Impl(const std::string& path, Database::Mode mode) : db(path, mode) {}

  int64_t version() {
    auto st = db.prepare("PRAGMA user_version");
    st.step();
    return st.integer(0);
  }

  // A migration that only adds a column the table already has (a database whose version number was set back
  // by hand, or by a tool that copied a newer one's tables) is skipped: SQLite has no ADD COLUMN IF NOT EXISTS.
  bool adds_existing_column(const std::string& migration) {
    static const std::regex add(R"(^\s*ALTER TABLE (\w+) ADD COLUMN (\w+)[^;]*;\s*$)");
    std::smatch m;
    if (!std::regex_match(migration, m, add)) return false;
    auto st = db.prepare("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?");
    st.bind(1, m[1].str()).bind(2, m[2].str());
    st.step();
    return st.integer(0) > 0;
  }

  void check_kind() {
    auto st = db.prepare("SELECT value FROM meta WHERE key = 'kind'");
    if (!st.step() || st.text(0) != "recallbench.history")
      throw UsageError("history database " + db.path() + " is an SQLite file but not a recallbench history",
                       "point --db (or RECALLBENCH_HISTORY) at a history database, or at a new file to create one");
  }

  void open(Mode mode) {
    const int64_t v = version();  // reading the header also detects a file that is not SQLite at all
    if (v > kSchemaVersion)
      throw UsageError(fmt::format("history database {} has schema version {}, newer than this recallbench's {}",
                                   db.path(), v, kSchemaVersion),
                       "use the recallbench that wrote it, or export it there and import here");
    if (v == 0) {
      auto st = db.prepare("SELECT count(*) FROM sqlite_master");
      st.step();
      if (st.integer(0) > 0)
        throw UsageError("history database " + db.path() + " is an SQLite file but not a recallbench history",
                         "point --db (or RECALLBENCH_HISTORY) at a history database, or at a new file to create one");
      if (mode == Mode::kRead)
        throw UsageError("history database " + db.path() + " is empty",
                         "record runs first with `recallbench history add`");
    }
    if (v < kSchemaVersion && mode == Mode::kWrite) {
      Transaction tx(db);
      const int64_t now = version();  // another process may have migrated meanwhile
      for (int64_t i = now; i < kSchemaVersion; ++i)
        if (!adds_existing_column(kMigrations[static_cast<size_t>(i)])) db.exec(kMigrations[static_cast<size_t>(i)]);
      if (now < kSchemaVersion) {
        db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
        db.exec("INSERT OR IGNORE INTO meta(key, value) VALUES ('created', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
      }
      tx.commit();
    } else if (v < kSchemaVersion && v < 1) {
      throw UsageError(fmt::format("history database {} has the old schema version {}", db.path(), v),
                       "run `recallbench history add` (or import) once to migrate it");
    }
    opened_version = version();  // read mode reads a version-1 database as it is: it has no acceptances
    check_kind();
  }

  std::string meta(const std::string& key) {
    auto st = db.prepare("SELECT value FROM meta WHERE key = ?");
    st.bind(1, key);
    return st.step() ? st.text(0) : std::string();
  }
};

History::History(const std::string& path, Mode mode) {
  if (mode == Mode::kWrite) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  impl_ = std::make_unique<Impl>(path, mode == Mode::kRead ? Database::Mode::kRead : Database::Mode::kWrite);
  impl_->open(mode);
}

History::~History() = default;

const std::string& History::path() const { return impl_->db.path(); }
std::string History::battery() const { return impl_->meta("battery"); }

IngestSummary History::ingest(const Batch& batch) {
  auto& db = impl_->db;
  IngestSummary s;
  Transaction tx(db);
  const std::string stored_battery = impl_->meta("battery");
  if (!batch.battery.empty()) {
    if (!stored_battery.empty() && stored_battery != batch.battery)
      throw UsageError(fmt::format("history database {} tracks battery '{}', not '{}'", db.path(), stored_battery,
                                   batch.battery),
                       "keep one database per battery: pass another --db for this one");
    if (stored_battery.empty()) {
      auto st = db.prepare("INSERT INTO meta(key, value) VALUES ('battery', ?)");
      st.bind(1, batch.battery).step();
    }
  }

  auto find_commit = db.prepare("SELECT parent, date, branch, subject FROM commits WHERE hash = ?");
  auto insert_commit =
      db.prepare("INSERT INTO commits(hash, parent, date, branch, subject, context) VALUES (?, ?, ?, ?, ?, ?)");
  auto fill_commit = db.prepare(
      "UPDATE commits SET parent = coalesce(parent, ?), branch = CASE WHEN branch = '' THEN ? ELSE branch END, "
      "subject = CASE WHEN subject = '' THEN ? ELSE subject END, context = coalesce(context, ?) WHERE hash = ?");
  for (const auto& c : batch.commits) {
    RB_CHECK_INPUT(!c.hash.empty(), "a commit without a hash");
    find_commit.reset();
    find_commit.bind(1, c.hash);
    const std::optional<std::string> parent = c.parent.empty() ? std::nullopt : std::optional(c.parent);
    const std::optional<std::string> context = c.context.is_null() ? std::nullopt : std::optional(c.context.dump());
    if (find_commit.step()) {
      if (!find_commit.is_null(0) && parent && find_commit.text(0) != *parent)
        throw UsageError(fmt::format("commit {}: the database records parent {}, this input says {}", short_of(c.hash),
                                     short_of(find_commit.text(0)), short_of(*parent)),
                         kRestoreHint);
      fill_commit.reset();
      fill_commit.bind(1, parent).bind(2, c.branch).bind(3, c.subject).bind(4, context).bind(5, c.hash).step();
      continue;
    }
    RB_CHECK_INPUT(!c.date.empty(), "commit " + short_of(c.hash) + " has no date");
    insert_commit.reset();
    insert_commit.bind(1, c.hash).bind(2, parent).bind(3, c.date).bind(4, c.branch).bind(5, c.subject).bind(6, context);
    insert_commit.step();
    ++s.commits;
  }

  auto insert_outcome = db.prepare(
      "INSERT INTO outcomes(commit_hash, config, seed, locked_in, lock_in_step, budget, recall, best_recall, status, "
      "state_size, architecture, eval_fingerprint, train_fingerprint, learning) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT DO NOTHING");
  auto find_outcome = db.prepare(
      "SELECT locked_in, lock_in_step, budget, recall, state_size, architecture, eval_fingerprint, train_fingerprint "
      "FROM outcomes WHERE commit_hash = ? AND config = ? AND seed = ?");
  for (const auto& o : batch.outcomes) {
    insert_outcome.reset();
    insert_outcome.bind(1, o.commit).bind(2, o.config).bind(3, o.seed).bind(4, int64_t{o.locked_in});
    insert_outcome.bind(5, o.lock_in_step).bind(6, o.budget).bind(7, o.recall);
    if (o.best_recall) insert_outcome.bind(8, *o.best_recall);
    insert_outcome.bind(9, std::string(run_status_name(o.status))).bind(10, o.state_size).bind(11, o.architecture).bind(12, o.eval_fingerprint);
    insert_outcome.bind(13, o.train_fingerprint);
    if (o.learning != Learning::kUnknown) insert_outcome.bind(14, std::string(learning_name(o.learning)));
    insert_outcome.step();
    if (db.changes() == 1) {
      ++s.outcomes;
      continue;
    }
    find_outcome.reset();
    find_outcome.bind(1, o.commit).bind(2, o.config).bind(3, o.seed);
    if (!find_outcome.step()) throw UsageError("outcome of commit " + short_of(o.commit) + " lost its commit", kRestoreHint);
    std::string differs;
    if ((find_outcome.integer(0) != 0) != o.locked_in) differs = "locked_in";
    else if (find_outcome.optional_integer(1) != o.lock_in_step) differs = "lock_in_step";
    else if (find_outcome.integer(2) != o.budget) differs = "budget";
    else if (!same_number(find_outcome.real(3), o.recall)) differs = "recall";
    else if (o.state_size && find_outcome.integer(4) && find_outcome.integer(4) != o.state_size) differs = "state_size";
    else if (!o.architecture.empty() && !find_outcome.text(5).empty() && find_outcome.text(5) != o.architecture)
      differs = "architecture";
    else if (!o.eval_fingerprint.empty() && !find_outcome.text(6).empty() && find_outcome.text(6) != o.eval_fingerprint)
      differs = "eval_fingerprint";
    else if (!o.train_fingerprint.empty() && !find_outcome.text(7).empty() &&
             find_outcome.text(7) != o.train_fingerprint)
      differs = "train_fingerprint";
    if (!differs.empty())
      throw UsageError(fmt::format("conflicting {} for commit {}, config {}, seed {}: the database holds another value",
                                   differs, short_of(o.commit), o.config, o.seed),
                       "runs are deterministic per seed and commit: a different outcome means another build or "
                       "machine (record it under its own commit) or a corrupted input; " + std::string(kRestoreHint));
    ++s.unchanged;
  }

  auto insert_config = db.prepare("INSERT INTO configs(commit_hash, config, document) VALUES (?,?,?) ON CONFLICT DO NOTHING");
  for (const auto& [key, doc] : batch.config_documents) {
    insert_config.reset();
    insert_config.bind(1, key.first).bind(2, key.second).bind(3, doc.dump()).step();
    s.configs += db.changes();
  }

  auto insert_bench = db.prepare("INSERT INTO benchmarks(commit_hash, name, sample, value) VALUES (?,?,?,?) ON CONFLICT DO NOTHING");
  auto find_bench = db.prepare("SELECT value FROM benchmarks WHERE commit_hash = ? AND name = ? AND sample = ?");
  for (const auto& b : batch.benchmarks) {
    RB_CHECK_INPUT(std::isfinite(b.value), "benchmark " + b.name + ": the value is not finite");
    insert_bench.reset();
    insert_bench.bind(1, b.commit).bind(2, b.name).bind(3, b.sample).bind(4, b.value).step();
    if (db.changes() == 1) {
      ++s.benchmarks;
      continue;
    }
    find_bench.reset();
    find_bench.bind(1, b.commit).bind(2, b.name).bind(3, b.sample);
    if (find_bench.step() && !same_number(find_bench.real(0), b.value))
      throw UsageError(fmt::format("conflicting value for benchmark {} of commit {} (sample {})", b.name,
                                   short_of(b.commit), b.sample),
                       kRestoreHint);
    ++s.unchanged;
  }

  auto insert_verdict = db.prepare("INSERT INTO verdicts(commit_hash, claim, verdict, p) VALUES (?,?,?,?) ON CONFLICT DO NOTHING");
  auto find_verdict = db.prepare("SELECT verdict FROM verdicts WHERE commit_hash = ? AND claim = ?");
  for (const auto& v : batch.verdicts) {
    insert_verdict.reset();
    insert_verdict.bind(1, v.commit).bind(2, v.claim).bind(3, v.verdict);
    if (v.p) insert_verdict.bind(4, *v.p);
    insert_verdict.step();
    if (db.changes() == 1) {
      ++s.verdicts;
      continue;
    }
    find_verdict.reset();
    find_verdict.bind(1, v.commit).bind(2, v.claim);
    if (find_verdict.step() && find_verdict.text(0) != v.verdict)
      throw UsageError(fmt::format("conflicting verdict for claim {} at commit {}: stored '{}', new '{}'", v.claim,
                                   short_of(v.commit), find_verdict.text(0), v.verdict),
                       kRestoreHint);
    ++s.unchanged;
  }
  auto insert_accept = db.prepare("INSERT INTO accepted(commit_hash, config, reason) VALUES (?,?,?) ON CONFLICT DO NOTHING");
  auto find_accept = db.prepare("SELECT reason FROM accepted WHERE commit_hash = ? AND config = ?");
  auto has_commit = db.prepare("SELECT 1 FROM commits WHERE hash = ?");
  for (const auto& a : batch.acceptances) {
    has_commit.reset();
    has_commit.bind(1, a.commit);
    RB_CHECK_INPUT(has_commit.step(), "an acceptance names commit " + short_of(a.commit) + ", which the history does not hold");
    RB_CHECK_INPUT(!a.reason.empty(), "an acceptance of " + a.config + " at " + short_of(a.commit) + " has no reason");
    insert_accept.reset();
    insert_accept.bind(1, a.commit).bind(2, a.config).bind(3, a.reason).step();
    if (db.changes() == 1) {
      ++s.acceptances;
      continue;
    }
    find_accept.reset();
    find_accept.bind(1, a.commit).bind(2, a.config);
    if (find_accept.step() && find_accept.text(0) != a.reason)
      throw UsageError(fmt::format("{} at commit {} is already accepted, for another reason: '{}'", a.config,
                                   short_of(a.commit), find_accept.text(0)),
                       kRestoreHint);
    ++s.unchanged;
  }
  tx.commit();
  return s;
}

std::vector<CommitInfo> History::commits() const {
  auto st = impl_->db.prepare("SELECT hash, coalesce(parent, ''), date, branch, subject, context FROM commits");
  std::vector<CommitInfo> out;
  while (st.step()) {
    CommitInfo c{st.text(0), st.text(1), st.text(2), st.text(3), st.text(4), nullptr};
    if (!st.is_null(5)) c.context = json::parse(st.text(5), nullptr, false);
    out.push_back(std::move(c));
  }
  return order_commits(std::move(out));
}

std::vector<Outcome> History::outcomes(const std::string& config) const {
  auto st = impl_->db.prepare(
      "SELECT commit_hash, config, seed, locked_in, lock_in_step, budget, recall, best_recall, status, state_size, "
      "architecture, eval_fingerprint, train_fingerprint, " +
      std::string(impl_->opened_version >= 3 ? "learning" : "NULL") + " FROM outcomes " +
      std::string(config.empty() ? "" : "WHERE config = ? ") + "ORDER BY config, commit_hash, seed");
  if (!config.empty()) st.bind(1, config);
  std::vector<Outcome> out;
  while (st.step()) {
    Outcome o;
    o.commit = st.text(0);
    o.config = st.text(1);
    o.seed = st.integer(2);
    o.locked_in = st.integer(3) != 0;
    o.lock_in_step = st.optional_integer(4);
    o.budget = st.integer(5);
    o.recall = st.real(6);
    if (!st.is_null(7)) o.best_recall = st.real(7);
    RB_CHECK_INPUT(parse_run_status(st.text(8), &o.status),
                   "the history database holds an outcome with status '" + st.text(8) + "', expected ok, diverged or error");
    o.state_size = st.integer(9);
    o.architecture = st.text(10);
    o.eval_fingerprint = st.text(11);
    o.train_fingerprint = st.text(12);
    if (!st.is_null(13))
      RB_CHECK_INPUT(parse_learning(st.text(13), &o.learning),
                     "the history database holds an outcome with learning '" + st.text(13) +
                         "', expected locked-in, plateaued, budget-limited or unknown");
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<Benchmark> History::benchmarks() const {
  auto st = impl_->db.prepare("SELECT commit_hash, name, sample, value FROM benchmarks ORDER BY name, commit_hash, sample");
  std::vector<Benchmark> out;
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), st.real(3)});
  return out;
}

std::vector<Verdict> History::verdicts() const {
  auto st = impl_->db.prepare("SELECT commit_hash, claim, verdict, p FROM verdicts ORDER BY claim, commit_hash");
  std::vector<Verdict> out;
  while (st.step()) {
    Verdict v{st.text(0), st.text(1), st.text(2), std::nullopt};
    if (!st.is_null(3)) v.p = st.real(3);
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<Acceptance> History::acceptances() const {
  std::vector<Acceptance> out;
  if (impl_->opened_version < 2) return out;
  auto st = impl_->db.prepare("SELECT commit_hash, config, reason FROM accepted ORDER BY config, commit_hash");
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2)});
  return out;
}

json History::config_document(const std::string& commit, const std::string& config) const {
  auto st = impl_->db.prepare("SELECT document FROM configs WHERE commit_hash = ? AND config = ?");
  st.bind(1, commit).bind(2, config);
  return st.step() ? json::parse(st.text(0)) : json(nullptr);
}

void History::export_jsonl(std::ostream& out) const {
  const auto order = commits();
  std::map<std::string, const CommitInfo*> by_hash;
  for (const auto& c : order) by_hash[c.hash] = &c;
  out << json{{"recallbench_history", kSchemaVersion}, {"battery", battery()}}.dump() << '\n';
  auto head = [&](const std::string& hash) {
    const CommitInfo& c = *by_hash.at(hash);
    return json{{"commit", c.hash}, {"parent", c.parent.empty() ? json(nullptr) : json(c.parent)}, {"date", c.date}};
  };
  std::map<std::string, std::vector<json>> lines;  // commit → its lines
  for (const auto& o : outcomes()) {
    json j = head(o.commit);
    j.update({{"config", o.config}, {"seed", o.seed}, {"locked_in", o.locked_in},
              {"lock_in_step", o.lock_in_step ? json(*o.lock_in_step) : json(nullptr)}, {"budget", o.budget},
              {"recall", o.recall}, {"status", run_status_name(o.status)}});
    if (o.best_recall) j["best_recall"] = *o.best_recall;
    if (o.state_size) j["state_size"] = o.state_size;
    if (!o.architecture.empty()) j["architecture"] = o.architecture;
    if (!o.eval_fingerprint.empty()) j["eval_fingerprint"] = o.eval_fingerprint;
    if (!o.train_fingerprint.empty()) j["train_fingerprint"] = o.train_fingerprint;
    if (o.learning != Learning::kUnknown) j["learning"] = learning_name(o.learning);
    lines[o.commit].push_back(std::move(j));
  }
  {
    auto st = impl_->db.prepare("SELECT commit_hash, config, document FROM configs ORDER BY commit_hash, config");
    while (st.step()) {
      json j = head(st.text(0));
      j.update({{"config", st.text(1)}, {"config_document", json::parse(st.text(2))}});
      lines[st.text(0)].push_back(std::move(j));
    }
  }
  for (const auto& b : benchmarks()) {
    json j = head(b.commit);
    j.update({{"benchmark", b.name}, {"value", b.value}, {"sample", b.sample}});
    lines[b.commit].push_back(std::move(j));
  }
  for (const auto& v : verdicts()) {
    json j = head(v.commit);
    j.update({{"claim", v.claim}, {"verdict", v.verdict}});
    if (v.p) j["p"] = *v.p;
    lines[v.commit].push_back(std::move(j));
  }
  for (const auto& a : acceptances()) {
    json j = head(a.commit);
    j.update({{"accepted", a.config}, {"reason", a.reason}});
    lines[a.commit].push_back(std::move(j));
  }
  for (const auto& c : order) {
    json j = head(c.hash);
    if (!c.branch.empty()) j["branch"] = c.branch;
    if (!c.subject.empty()) j["subject"] = c.subject;
    if (!c.context.is_null()) j["context"] = c.context;
    out << j.dump() << '\n';
    for (const auto& l : lines[c.hash]) out << l.dump() << '\n';
  }
}

namespace {

std::string required_string(const json& j, const char* key, const std::string& where) {
  RB_CHECK_INPUT(j.contains(key) && j.at(key).is_string() && !j.at(key).get<std::string>().empty(),
                 where + ": \"" + key + "\" must be a non-empty string");
  return j.at(key).get<std::string>();
}

// A commit hash as git writes it: 4 to 64 hexadecimal digits, in lower case (ABCD and abcd are one commit).
std::string commit_hash(const json& j, const char* key, const std::string& where) {
  std::string hash = required_string(j, key, where);
  RB_CHECK_INPUT(hash.size() >= 4 && hash.size() <= 64 && hash.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos,
                 where + ": \"" + key + "\" must be 4 to 64 hexadecimal digits, got '" + hash.substr(0, 80) + "'");
  for (char& ch : hash) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return hash;
}

// A commit date as `history add` records it (git's ISO 8601, e.g. 2026-12-03T10:00:00+00:00): the date part is
// checked as a calendar date, what follows as a time of day with an optional zone.
bool is_commit_date(const std::string& d) {
  static const std::regex form(R"(^(\d{4})-(\d{2})-(\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$)");
  std::smatch m;
  if (!std::regex_match(d, m, form)) return false;
  const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// The most steps a recipe can have (suite/battery.cpp's plausible range for train.steps).
constexpr int64_t kMaxBudget = 10000000;

}  // namespace

Batch parse_jsonl(std::istream& in, const std::string& where_file) {
  Batch batch;
  std::map<std::string, CommitInfo> commits;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{} line {}", where_file, number);
    const json j = parse_json_text(line, where);
    // A field of the wrong type anywhere in the line is bad input naming the line, not an internal error.
    with_json_errors(where, [&] {
      RB_CHECK_INPUT(j.is_object(), where + ": expected a JSON object");
      if (j.contains("recallbench_history")) {
        RB_CHECK_INPUT(j.at("recallbench_history").is_number_integer(), where + ": \"recallbench_history\" must be an integer");
        const int64_t v = j.at("recallbench_history").get<int64_t>();
        if (v > kSchemaVersion)
          throw UsageError(fmt::format("{}: written by a newer recallbench (history format {}, this one reads up to {})",
                                       where, v, kSchemaVersion));
        batch.battery = j.value("battery", "");
        return;
      }
      CommitInfo c;
      c.hash = commit_hash(j, "commit", where);
      if (j.contains("parent") && !j.at("parent").is_null()) c.parent = commit_hash(j, "parent", where);
      c.date = j.contains("date") && j.at("date").is_string() ? j.at("date").get<std::string>() : "";
      RB_CHECK_INPUT(c.date.empty() || is_commit_date(c.date),
                     where + ": \"date\" must be an ISO 8601 date (2026-12-03T10:00:00+00:00), got '" +
                         c.date.substr(0, 80) + "'");
      c.branch = j.value("branch", "");
      c.subject = j.value("subject", "");
      if (j.contains("context")) c.context = j.at("context");
      auto [it, fresh] = commits.try_emplace(c.hash, c);
      if (!fresh) {
        auto& known = it->second;
        if (!c.parent.empty() && !known.parent.empty() && c.parent != known.parent)
          throw UsageError(where + ": commit " + short_of(c.hash) + " has two different parents in this file");
        if (known.parent.empty()) known.parent = c.parent;
        if (known.date.empty()) known.date = c.date;
        if (known.branch.empty()) known.branch = c.branch;
        if (known.subject.empty()) known.subject = c.subject;
        if (known.context.is_null()) known.context = c.context;
      }
      if (j.contains("seed")) {
        Outcome o;
        o.commit = c.hash;
        o.config = required_string(j, "config", where);
        o.seed = checked_integer(j.at("seed"), where + ": seed");
        RB_CHECK_INPUT(o.seed >= 0, fmt::format("{}: seed {} is negative", where, o.seed));
        RB_CHECK_INPUT(j.contains("locked_in") && j.at("locked_in").is_boolean(), where + ": \"locked_in\" must be true or false");
        o.locked_in = j.at("locked_in").get<bool>();
        RB_CHECK_INPUT(j.contains("budget"), where + ": \"budget\" (the step budget) is missing");
        o.budget = checked_integer(j.at("budget"), where + ": budget");
        RB_CHECK_INPUT(o.budget > 0 && o.budget <= kMaxBudget,
                       fmt::format("{}: \"budget\" {} is outside [1, {}] (a recipe's steps)", where, o.budget, kMaxBudget));
        if (j.contains("lock_in_step") && !j.at("lock_in_step").is_null())
          o.lock_in_step = checked_integer(j.at("lock_in_step"), where + ": lock_in_step");
        RB_CHECK_INPUT(o.locked_in == o.lock_in_step.has_value(),
                       where + ": \"lock_in_step\" must be an integer when locked_in is true and null when it is false");
        RB_CHECK_INPUT(!o.lock_in_step || (*o.lock_in_step >= 0 && *o.lock_in_step <= o.budget),
                       where + ": \"lock_in_step\" must be within 0..budget");
        RB_CHECK_INPUT(j.contains("recall") && j.at("recall").is_number(), where + ": \"recall\" must be a number");
        o.recall = j.at("recall").get<double>();
        if (j.contains("best_recall") && !j.at("best_recall").is_null()) {
          RB_CHECK_INPUT(j.at("best_recall").is_number(), where + ": \"best_recall\" must be a number or null");
          o.best_recall = j.at("best_recall").get<double>();
        }
        RB_CHECK_INPUT(j.value("status", json("ok")).is_string() && parse_run_status(j.value("status", "ok"), &o.status),
                       where + ": \"status\" must be \"ok\", \"diverged\" or \"error\"");
        if (j.contains("learning") && !j.at("learning").is_null())
          RB_CHECK_INPUT(j.at("learning").is_string() && parse_learning(j.at("learning").get<std::string>(), &o.learning),
                         where + ": \"learning\" must be \"locked-in\", \"plateaued\", \"budget-limited\", \"unknown\" or null");
        if (j.contains("state_size") && !j.at("state_size").is_null()) {
          o.state_size = checked_integer(j.at("state_size"), where + ": state_size");
          RB_CHECK_INPUT(o.state_size >= 0, fmt::format("{}: state_size {} is negative", where, o.state_size));
        }
        {  // the one rule of a valid outcome (core/outcome.h); the steps taken are not recorded here
          rb::Outcome facts;
          facts.status = o.status;
          facts.reached_threshold = o.locked_in;
          facts.lock_in_step = o.lock_in_step.value_or(-1);
          facts.final_accuracy = o.recall;
          facts.best_accuracy = o.best_recall.value_or(o.recall);
          if (const std::string why = facts.contradiction(o.budget, 0.0); !why.empty())
            throw UsageError(where + ": " + why);
          // "locked_in" here is the decision (an export writes Outcome::locked_in()), which a run that did not
          // end ok never is: the row would count as a lock-in that the rule does not grant.
          RB_CHECK_INPUT(!o.locked_in || facts.locked_in(),
                         fmt::format("{}: \"locked_in\" is true but the status is \"{}\" (a run that did not end ok is not "
                                     "locked in)", where, run_status_name(o.status)));
        }
        o.architecture = j.value("architecture", "");
        o.eval_fingerprint = j.value("eval_fingerprint", "");
        o.train_fingerprint = j.value("train_fingerprint", "");
        batch.outcomes.push_back(std::move(o));
      } else if (j.contains("benchmark")) {
        Benchmark b;
        b.commit = c.hash;
        b.name = required_string(j, "benchmark", where);
        RB_CHECK_INPUT(j.contains("value") && j.at("value").is_number(), where + ": \"value\" must be a number");
        b.value = j.at("value").get<double>();
        RB_CHECK_INPUT(std::isfinite(b.value) && b.value > 0, where + ": \"value\" must be a finite number > 0");
        b.sample = j.value("sample", "import");
        batch.benchmarks.push_back(std::move(b));
      } else if (j.contains("claim")) {
        Verdict v{c.hash, required_string(j, "claim", where), required_string(j, "verdict", where), std::nullopt};
        if (j.contains("p") && j.at("p").is_number()) v.p = j.at("p").get<double>();
        batch.verdicts.push_back(std::move(v));
      } else if (j.contains("config_document")) {
        batch.config_documents[{c.hash, required_string(j, "config", where)}] = j.at("config_document");
      } else if (j.contains("accepted")) {
        batch.acceptances.push_back({c.hash, required_string(j, "accepted", where), required_string(j, "reason", where)});
      }
  
    });
  }
  for (auto& [hash, c] : commits) {
    RB_CHECK_INPUT(!c.date.empty(), where_file + ": commit " + short_of(hash) + " has no \"date\" on any line");
    batch.commits.push_back(c);
  }
  return batch;
}

Batch batch_from_runs(const rb::RunSet& runs, const CommitInfo& commit) {
  Batch batch;
  batch.battery = runs.battery;
  batch.commits.push_back(commit);
  for (const auto& cfg : runs.configs) {
    const int64_t budget = cfg.step_budget();
    const judge::LearningSchedule schedule = judge::LearningSchedule::of(cfg);
    for (const auto& s : cfg.seeds) {
      Outcome o;
      o.commit = commit.hash;
      o.config = cfg.key;
      o.seed = s.seed;
      o.locked_in = s.locked_in();
      if (o.locked_in) o.lock_in_step = s.lock_in_step;
      o.budget = budget;
      o.recall = s.final_accuracy;
      o.best_recall = s.best_accuracy;
      o.status = s.status;
      o.state_size = cfg.state_size;
      o.architecture = cfg.architecture;
      o.eval_fingerprint = cfg.eval_fingerprint;
      o.train_fingerprint = s.train_fingerprint;
      o.learning = judge::diagnose_seed(s, schedule).label;  // from the curve (or the stored label)
      batch.outcomes.push_back(std::move(o));
    }
    rb::Config identity = cfg;
    identity.seeds.clear();
    json doc = reports::config_to_json(identity, false);
    doc.erase("summary");  // the identity carries no seeds, so no summary of them
    batch.config_documents[{commit.hash, cfg.key}] = std::move(doc);
  }
  return batch;
}

Batch batch_from_bench(const judge::BenchFile& file, const CommitInfo& commit, const std::string& reference) {
  Batch batch;
  batch.commits.push_back(commit);
  const auto median = [](const std::vector<double>& v) { return rb::spread(v).median; };
  // The reference by its name, or by a prefix of it (`recallbench bench` appends the time key, e.g.
  // ceiling/gemm_fp32/N:512/process_time); "none" or "" records raw medians (ns).
  double ref = 1.0;
  std::string ref_name;
  if (!reference.empty() && reference != "none") {
    for (const auto& [name, times] : file.runs)
      if ((name == reference || name.rfind(reference + "/", 0) == 0) && !times.empty()) {
        ref_name = name;
        ref = median(times);
        break;
      }
    if (ref_name.empty())
      throw UsageError(file.path + ": no benchmark named " + reference + " to take times relative to",
                       "pass --reference NAME (a benchmark of the same file), or --reference none for raw times");
  }
  const std::string sample = short_hash_of(file.context.dump() + file.path);
  for (const auto& [name, times] : file.runs) {
    // The machine ceilings measure the machine, not the code: not a speed series.
    if (times.empty() || name == ref_name || name.rfind(judge::kCeilingPrefix, 0) == 0) continue;
    batch.benchmarks.push_back({commit.hash, name, sample, median(times) / ref});
  }
  RB_CHECK_INPUT(!batch.benchmarks.empty(), file.path + ": no benchmark rows to record");
  return batch;
}

Batch batch_from_verdicts(const json& doc, const CommitInfo& commit, const std::string& where) {
  RB_CHECK_INPUT(kind_of(doc) == "recallbench.verdicts" && doc.contains("verdicts"),
                 where + ": not a `recallbench verify --json` document (kind recallbench.verdicts)");
  Batch batch;
  batch.commits.push_back(commit);
  for (const auto& v : doc.at("verdicts")) {
    Verdict out{commit.hash, required_string(v, "id", where), required_string(v, "verdict", where), std::nullopt};
    batch.verdicts.push_back(std::move(out));
  }
  return batch;
}

}  // namespace rb::history
