#include "history/sqlite.h"

#include <sqlite3.h>

#include <filesystem>

#include "core/errors.h"

namespace rb::history {
namespace {

std::string describe(int rc, sqlite3* db) {
  const int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
    return "the file is not a valid SQLite database (corrupted or truncated?)";
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return "the database stayed locked by another writer for longer than the 60 s busy timeout";
  if (primary == SQLITE_READONLY) return "the database is read-only";
  if (primary == SQLITE_FULL) return "the disk is full";
  return db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
}

}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql, const std::string& where) : db_(db), where_(where) {
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  if (rc != SQLITE_OK)
    throw UsageError("history database " + where_ + ": " + describe(rc, db),
                     "restore the file from a copy or rebuild it with `recallbench history import`");
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_), where_(std::move(other.where_)) {
  other.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, const std::string& v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind(int i, std::nullptr_t) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}
Statement& Statement::bind(int i, const std::optional<int64_t>& v) { return v ? bind(i, *v) : bind(i, nullptr); }
Statement& Statement::bind(int i, const std::optional<std::string>& v) { return v ? bind(i, *v) : bind(i, nullptr); }

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw UsageError("history database " + where_ + ": " + describe(rc, db_),
                   "nothing was written by this command; restore a corrupted file from a copy or rebuild it "
                   "with `recallbench history import`");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::integer(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::real(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string();
}
std::optional<int64_t> Statement::optional_integer(int col) const {
  if (is_null(col)) return std::nullopt;
  return integer(col);
}

Database::Database(const std::string& path, Mode mode) : path_(path) {
  // SQLite opens a folder and fails later with "disk I/O error"; what the path is is said here instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("history database " + path + " is a folder, expected an SQLite file",
                     "name a file, e.g. --db " + (std::filesystem::path(path) / "history.sqlite").string());
  if (mode == Mode::kRead && !std::filesystem::exists(path))
    throw UsageError("history database " + path + " does not exist",
                     "record runs first with `recallbench history add DIR --db " + path + "`");
  const int flags = mode == Mode::kRead ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = describe(rc, db_);
    sqlite3_close(db_);
    db_ = nullptr;
    throw UsageError("cannot open history database " + path + ": " + why);
  }
  sqlite3_busy_timeout(db_, 60000);
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(int rc, const std::string& doing) const {
  throw UsageError("history database " + path_ + ": " + doing + ": " + describe(rc, db_),
                   "nothing was written by this command; restore a corrupted file from a copy or rebuild it "
                   "with `recallbench history import`");
}

void Database::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) fail(rc, "executing " + sql.substr(0, 40));
}

Statement Database::prepare(const std::string& sql) { return Statement(db_, sql, path_); }

int64_t Database::changes() const { return sqlite3_changes64(db_); }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace rb::history
