// The results store: validation of run files (partial, corrupt, wrong key), quarantine, per-run locks
// across processes, and the aggregate's independence from the order runs finish in.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "core/json_io.h"
#include "suite/runner.h"
#include "suite/store.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/rb_store_test_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

RunSpec spec_with_seed(int64_t seed) {
  RunSpec s;
  s.cell.name = "diag";
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}};
  s.seed = seed;
  return s;
}

double seed_noise(const RunSpec& s) { return 0.37 * static_cast<double>(s.seed); }

// A well-formed run document, as train_run writes it (without training).
json document(const RunSpec& s, bool locked, double acc) {
  return {{"schema_version", kRunSchemaVersion},
          {"kind", "recallbench.run"},
          {"key", s.key()},
          {"config_key", s.config_key()},
          {"spec", s.to_json()},
          {"context", {{"host", "h"}}},
          {"result",
           {{"status", "ok"}, {"message", ""}, {"final_accuracy", acc}, {"best_accuracy", acc},
            {"final_loss", 0.5}, {"locked_in", locked}, {"lock_in_step", locked ? json(100) : json(nullptr)},
            {"steps", 100}, {"wall_seconds", 1.0 + seed_noise(s)}, {"steps_per_second", 100.0},
            {"state_size", 64}, {"parameters", 10}, {"capacity_bits", 8.0}}},
          {"curve", json::array({{{"step", 50}, {"loss", 1.0}, {"accuracy", acc}}})}};
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(Store, MissingValidCorrupt) {
  TempDir t;
  const Store store(t.path);
  const RunSpec s = spec_with_seed(3);
  EXPECT_EQ(store.check(s).state, ResultCheck::State::kMissing);
  store.write(s, document(s, true, 0.995));
  EXPECT_EQ(store.check(s).state, ResultCheck::State::kValid);

  const std::string full = read_json_file(store.result_path(s)).dump(2);
  struct Case {
    const char* what;
    std::string text;
    const char* reason;
  };
  json wrong_key = document(s, true, 0.995);
  wrong_key["key"] = spec_with_seed(4).key();
  json no_result = document(s, true, 0.995);
  no_result["result"].erase("locked_in");
  json disagree = document(s, true, 0.995);
  disagree["result"]["lock_in_step"] = nullptr;
  json old_schema = document(s, true, 0.995);
  old_schema["schema_version"] = 0;
  const std::vector<Case> cases = {
      {"truncated", full.substr(0, full.size() / 2), "malformed JSON"},
      {"empty", "", "malformed JSON"},
      {"garbage", "\x01\x02 not json", "malformed JSON"},
      {"wrong key", wrong_key.dump(), "does not match"},
      {"missing result field", no_result.dump(), "result.locked_in"},
      {"inconsistent", disagree.dump(), "contradict each other"},
      {"old schema", old_schema.dump(), "schema_version"},
  };
  for (const auto& c : cases) {
    write_text(store.result_path(s), c.text);
    const auto r = store.check(s);
    EXPECT_EQ(r.state, ResultCheck::State::kCorrupt) << c.what;
    EXPECT_NE(r.reason.find(c.reason), std::string::npos) << c.what << ": " << r.reason;
  }
  const fs::path aside = store.quarantine(s);
  EXPECT_TRUE(fs::exists(aside));
  EXPECT_EQ(store.check(s).state, ResultCheck::State::kMissing);
}

TEST(Store, RefusesToWriteAnInvalidDocument) {
  TempDir t;
  const Store store(t.path);
  const RunSpec s = spec_with_seed(1);
  json bad = document(s, true, 1.0);
  bad["key"] = "x";
  EXPECT_DEATH(store.write(s, bad), "refusing to store");
}

TEST(Store, LockIsExclusiveAcrossProcessesAndDiesWithItsHolder) {
  TempDir t;
  const fs::path lock_path = t.path / "locks" / "a.lock";
  int to_child[2], to_parent[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t child = ::fork();
  if (child == 0) {  // holds the lock until told to die
    RunLock lock = RunLock::try_acquire(lock_path);
    char c = lock.held() ? 'y' : 'n';
    (void)!::write(to_parent[1], &c, 1);
    (void)!::read(to_child[0], &c, 1);
    ::_exit(0);  // without releasing: like kill -9
  }
  char c = 0;
  ASSERT_EQ(::read(to_parent[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  EXPECT_FALSE(RunLock::try_acquire(lock_path).held()) << "a second process took a held lock";
  (void)!::write(to_child[1], &c, 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  RunLock mine = RunLock::try_acquire(lock_path);
  EXPECT_TRUE(mine.held()) << "the lock outlived its dead holder";
  mine.release();
  EXPECT_FALSE(fs::exists(lock_path));
  EXPECT_TRUE(RunLock::try_acquire(lock_path).held());
}

TEST(Store, AggregateIgnoresOrderAndTimings) {
  std::vector<json> docs;
  for (int64_t seed = 0; seed < 5; ++seed) docs.push_back(document(spec_with_seed(seed), seed % 2 == 0, seed % 2 == 0 ? 0.99 + 0.001 * seed : 0.5 + 0.1 * seed));
  const json plan = {{"battery", {{"name", "t"}}}, {"runs", json::array()}, {"contrasts", json::array()}};
  const json a = aggregate_runs(docs, plan);
  std::reverse(docs.begin(), docs.end());
  for (auto& d : docs) d["result"]["wall_seconds"] = 99.0;  // timings are not metrics
  const json b = aggregate_runs(docs, plan);
  EXPECT_EQ(a.dump(), b.dump());
  ASSERT_EQ(a["configs"].size(), 1u);
  EXPECT_EQ(a["configs"][0]["locked_in"], 3);
  EXPECT_EQ(a["configs"][0]["runs"], 5);
  docs[0]["result"]["final_accuracy"] = 0.1;  // a metric is
  EXPECT_NE(aggregate_runs(docs, plan).dump(), a.dump());
}

TEST(Store, SweepsOnlyOldTemporaries) {
  TempDir t;
  const Store store(t.path);
  write_text(store.runs_dir() / ".x.json.1.2.tmp", "{");
  write_text(store.runs_dir() / ".y.json.1.2.tmp", "{");
  fs::last_write_time(store.runs_dir() / ".x.json.1.2.tmp", fs::file_time_type::clock::now() - std::chrono::hours(1));
  EXPECT_EQ(store.sweep_temporaries(), 1);
  EXPECT_TRUE(fs::exists(store.runs_dir() / ".y.json.1.2.tmp"));
}

}  // namespace
}  // namespace rb
