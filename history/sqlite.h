// A thin RAII wrapper over SQLite's C API: a connection, prepared statements with typed binds and columns,
// and an IMMEDIATE transaction that rolls back unless committed. Every failure is a UsageError naming the
// database file (a corrupted or foreign file is bad input, exit 2), except misuse, which is an assertion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace rb::history {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& where);
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds are 1-based, as in SQLite.
  Statement& bind(int i, int64_t v);
  Statement& bind(int i, double v);
  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, std::nullptr_t);
  Statement& bind(int i, const std::optional<int64_t>& v);
  Statement& bind(int i, const std::optional<std::string>& v);

  bool step();   // true while a row is available; false when done
  void reset();  // clears the bindings too

  // Columns are 0-based.
  bool is_null(int col) const;
  int64_t integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::optional<int64_t> optional_integer(int col) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;
};

class Database {
 public:
  enum class Mode { kRead, kWrite };  // kWrite creates the file when missing
  Database(const std::string& path, Mode mode);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  int64_t changes() const;  // rows changed by the last statement
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }

  // Throws the UsageError for SQLite result code `rc` (with the connection's message).
  [[noreturn]] void fail(int rc, const std::string& doing) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE (the write lock is taken now, waiting up to the busy timeout for another writer); rolls back
// on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace rb::history
