// The data a run sees, for every registered task (tasks/task.h training_batch, held_out_set,
// DataFingerprint): each seed has its own training stream, reproducible for one seed; the held-out set is
// the same whatever the seed and is none of the training batches. These are the premises the gate's data
// identity (issue 24) and every per-seed statistic rest on; a task registered later is covered here too.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tasks/task.h"

namespace rb {
namespace {

constexpr int64_t kBatch = 16;
constexpr int64_t kSeeds = 6;

std::string stream_fingerprint(const Task& task, int64_t seed) {
  DataFingerprint fp;
  for (int64_t step = 1; step <= 4; ++step) fp.add(training_batch(task, kBatch, seed, step));
  return fp.hex();
}

bool same(const Batch& a, const Batch& b) {
  return a.n == b.n && a.length == b.length && a.inputs == b.inputs && a.labels == b.labels;
}

class EveryTask : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Task> task_ = make_task(GetParam(), nlohmann::json::object());
};

TEST_P(EveryTask, TrainingStreamDiffersBetweenSeedsAndRepeatsForOne) {
  std::set<std::string> seen;
  for (int64_t seed = 0; seed < kSeeds; ++seed) {
    const std::string fp = stream_fingerprint(*task_, seed);
    ASSERT_EQ(fp.size(), 12u);
    EXPECT_EQ(fp, stream_fingerprint(*task_, seed)) << "seed " << seed << " is not reproducible";
    EXPECT_TRUE(seen.insert(fp).second) << "seed " << seed << " repeats another seed's training batches";
  }
  // Steps of one stream differ from each other too (the step reaches the generator).
  EXPECT_FALSE(same(training_batch(*task_, kBatch, 0, 1), training_batch(*task_, kBatch, 0, 2)));
}

TEST_P(EveryTask, HeldOutSetIsFixedAndIsNoTrainingBatch) {
  const Batch held = held_out_set(*task_, kBatch);
  EXPECT_TRUE(same(held, held_out_set(*task_, kBatch)));
  for (int64_t seed = 0; seed < kSeeds; ++seed)
    for (int64_t step = 1; step <= 8; ++step)
      EXPECT_FALSE(same(held, training_batch(*task_, kBatch, seed, step)))
          << "the held-out set equals training batch " << step << " of seed " << seed;
}

TEST_P(EveryTask, FingerprintSeesEveryTokenLabelAndTheShape) {
  Batch b = training_batch(*task_, kBatch, 3, 1);
  DataFingerprint base;
  base.add(b);
  Batch token = b;
  token.inputs.back() = (token.inputs.back() + 1) % task_->vocab_size();
  Batch label = b;
  label.labels.front() = label.labels.front() == kIgnore ? 0 : kIgnore;
  for (const Batch* changed : {&token, &label}) {
    DataFingerprint fp;
    fp.add(*changed);
    EXPECT_NE(fp.hex(), base.hex());
  }
  Batch reshaped = b;
  reshaped.n = b.n / 2;
  reshaped.length = b.length * 2;
  DataFingerprint fp;
  fp.add(reshaped);
  EXPECT_NE(fp.hex(), base.hex());
  EXPECT_EQ(DataFingerprint().hex(), "");
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const auto& e : TaskRegistry::instance().entries()) names.push_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Tasks, EveryTask, ::testing::ValuesIn(task_names()),
                         [](const auto& info) { return info.param; });

TEST(DataIdentity, EveryTaskIsCovered) { EXPECT_GE(task_names().size(), 5u); }

}  // namespace
}  // namespace rb
