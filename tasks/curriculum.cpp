// The registered curricula (see curriculum.h for their definitions) and the shared stage machinery.
#include "tasks/curriculum.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "core/errors.h"
#include "core/options.h"

namespace rb {

void Curriculum::record(int64_t step, int64_t stage, const Difficulty& d) {
  if (!history_.empty()) {
    const auto& last = history_.back();
    if (last.stage == stage && last.difficulty.max_distance == d.max_distance && last.difficulty.length == d.length)
      return;
  }
  history_.push_back({step, stage, d});
}

nlohmann::json difficulty_json(const Difficulty& d) {
  return {{"max_distance", d.max_distance ? nlohmann::json(*d.max_distance) : nlohmann::json(nullptr)},
          {"length", d.length ? nlohmann::json(*d.length) : nlohmann::json(nullptr)}};
}

std::unique_ptr<Curriculum> make_curriculum(const std::string& name, const nlohmann::json& options,
                                            const CurriculumContext& ctx) {
  return CurriculumRegistry::instance().get(name, "curriculum").make(options, ctx);
}

namespace {

class NoCurriculum final : public Curriculum {
 public:
  explicit NoCurriculum(const nlohmann::json& given) : reader_("curriculum none", given, nlohmann::json::object()) {}
  Difficulty difficulty(int64_t step) override {
    record(step, 0, {});
    return {};
  }
  int64_t stage() const override { return 0; }
  int64_t stages() const override { return 0; }
  const nlohmann::json& options() const override { return reader_.resolved(); }

 private:
  OptionReader reader_;
};

// Shape functions on u in [0, 1] → fraction of the way from start to full, in [0, 1].
double shape_fraction(const std::string& shape, double u, double start, double full) {
  u = std::clamp(u, 0.0, 1.0);
  if (shape == "linear") return u;
  if (shape == "cosine") return 0.5 * (1.0 - std::cos(M_PI * u));
  if (shape == "sqrt") return std::sqrt(u);
  if (shape == "square") return u * u;
  // geometric: start·(full/start)^u, as a fraction of (full - start).
  if (full <= start) return u;
  return (start * std::pow(full / start, u) - start) / (full - start);
}

const char* const kShapes = "linear, cosine, sqrt, square, geometric";

// Stages 0 .. S over distance or length: stage s < S caps the quantity at start + (full-start)·s/S;
// stage S is the configured task. Subclasses decide when to move.
class Staged : public Curriculum {
 public:
  Staged(const std::string& name, const nlohmann::json& given, nlohmann::json defaults, const CurriculumContext& ctx)
      : where_("curriculum " + name), reader_(where_, given, std::move(defaults)), ctx_(ctx) {
    stages_ = reader_.integer("stages");
    start_ = reader_.integer("start");
    const auto& r = reader_.resolved();
    if (r.contains("until")) {
      until_ = reader_.number("until");
      reader_.require_range("until", 1e-9, 1.0);
    }
    if (r.contains("over")) {
      over_length_ = reader_.text("over") == "length";
      RB_CHECK_INPUT(over_length_ || reader_.text("over") == "distance",
                     where_ + ": option 'over' must be distance or length, got " + reader_.text("over"));
    }
    RB_CHECK_INPUT(stages_ >= 1 && stages_ <= 1000,
                   where_ + ": option 'stages' must be in [1, 1000], got " + std::to_string(stages_));
    RB_CHECK_INPUT(start_ >= 1, where_ + ": option 'start' must be ≥ 1, got " + std::to_string(start_));
    full_ = over_length_ ? ctx.length : ctx.max_distance;
  }

  int64_t stage() const override { return stage_; }
  int64_t stages() const override { return stages_; }
  const nlohmann::json& options() const override { return reader_.resolved(); }

  Difficulty difficulty(int64_t step) override {
    stage_ = std::clamp<int64_t>(next_stage(step), 0, stages_);
    Difficulty d;
    if (stage_ < stages_ && start_ < full_) {
      const int64_t cap = start_ + (full_ - start_) * stage_ / stages_;
      (over_length_ ? d.length : d.max_distance) = cap;
    }
    record(step, stage_, d);
    return d;
  }

 protected:
  virtual int64_t next_stage(int64_t step) = 0;
  // Training progress in [0, 1]: the fraction of the way to step until·steps.
  double progress(int64_t step) const {
    return std::min(1.0, static_cast<double>(step) / std::max(1.0, until_ * static_cast<double>(ctx_.steps)));
  }

  std::string where_;
  OptionReader reader_;
  CurriculumContext ctx_;
  int64_t stages_ = 1, start_ = 1, full_ = 1, stage_ = 0;
  double until_ = 1.0;
  bool over_length_ = false;
};

class DistanceCurriculum final : public Staged {
 public:
  DistanceCurriculum(const nlohmann::json& given, const CurriculumContext& ctx)
      : Staged("distance", given, defaults(), ctx) {}
  static nlohmann::json defaults() { return {{"start", 16}, {"stages", 4}, {"until", 0.5}}; }

 protected:
  int64_t next_stage(int64_t step) override {
    return static_cast<int64_t>(std::floor(progress(step) * static_cast<double>(stages_)));
  }
};

class RampCurriculum final : public Staged {
 public:
  RampCurriculum(const nlohmann::json& given, const CurriculumContext& ctx) : Staged("ramp", given, defaults(), ctx) {
    shape_ = reader_.text("shape");
    RB_CHECK_INPUT(valid_shape(shape_), where_ + ": unknown shape '" + shape_ + "' (valid: " + kShapes + ")");
  }
  static nlohmann::json defaults() {
    return {{"start", 16}, {"stages", 32}, {"until", 0.8}, {"over", "distance"}, {"shape", "linear"}};
  }
  static bool valid_shape(const std::string& s) {
    return s == "linear" || s == "cosine" || s == "sqrt" || s == "square" || s == "geometric";
  }

 protected:
  int64_t next_stage(int64_t step) override {
    const double f = shape_fraction(shape_, progress(step), static_cast<double>(start_), static_cast<double>(full_));
    // A small epsilon so that f = 1 at u = 1 reaches the last stage despite rounding.
    return static_cast<int64_t>(std::floor(f * static_cast<double>(stages_) + 1e-9));
  }

 private:
  std::string shape_;
};

class GatedCurriculum final : public Staged {
 public:
  GatedCurriculum(const nlohmann::json& given, const CurriculumContext& ctx)
      : Staged("gated", given, defaults(), ctx) {
    threshold_ = reader_.number("threshold");
    window_ = reader_.integer("window");
    min_steps_ = reader_.integer("min_stage_steps");
    max_steps_ = reader_.integer("max_stage_steps");
    reader_.require_range("threshold", 0.0, 1.0);
    RB_CHECK_INPUT(window_ >= 1, where_ + ": option 'window' must be ≥ 1, got " + std::to_string(window_));
    RB_CHECK_INPUT(min_steps_ >= 1, where_ + ": option 'min_stage_steps' must be ≥ 1, got " + std::to_string(min_steps_));
    RB_CHECK_INPUT(max_steps_ >= 0, where_ + ": option 'max_stage_steps' must be ≥ 0 (0 = 2·steps/stages), got " +
                                        std::to_string(max_steps_));
    if (max_steps_ == 0) max_steps_ = std::max<int64_t>(1, 2 * ctx.steps / stages_);
    RB_CHECK_INPUT(max_steps_ >= min_steps_, where_ + ": max_stage_steps " + std::to_string(max_steps_) +
                                                 " is below min_stage_steps " + std::to_string(min_steps_));
  }
  static nlohmann::json defaults() {
    return {{"start", 16},     {"stages", 8},         {"over", "distance"},    {"threshold", 0.9},
            {"window", 20},    {"min_stage_steps", 20}, {"max_stage_steps", 0}};
  }

  void observe(int64_t step, double train_accuracy) override {
    recent_.push_back(train_accuracy);
    if (static_cast<int64_t>(recent_.size()) > window_) recent_.pop_front();
    ++at_stage_;
    if (current_ >= stages_) return;
    double mean = 0.0;
    for (double a : recent_) mean += a;
    mean /= static_cast<double>(recent_.size());
    const bool ready = at_stage_ >= min_steps_ && static_cast<int64_t>(recent_.size()) >= std::min(window_, min_steps_) &&
                       mean >= threshold_;
    if (ready || at_stage_ >= max_steps_) {
      ++current_;
      at_stage_ = 0;
      recent_.clear();  // accuracy at the new stage starts afresh
    }
  }

 protected:
  int64_t next_stage(int64_t) override { return current_; }

 private:
  double threshold_ = 0.9;
  int64_t window_ = 20, min_steps_ = 20, max_steps_ = 0, current_ = 0, at_stage_ = 0;
  std::deque<double> recent_;
};

}  // namespace

RB_REGISTER(CurriculumRegistry, none,
            CurriculumEntry{"none", "no curriculum: the task as configured throughout", nlohmann::json::object(),
                            [](const nlohmann::json& o, const CurriculumContext&) {
                              return std::make_unique<NoCurriculum>(o);
                            }});
RB_REGISTER(CurriculumRegistry, distance,
            CurriculumEntry{"distance",
                            "query-key distance cap grows in equal stages over training (uniform curriculum)",
                            DistanceCurriculum::defaults(),
                            [](const nlohmann::json& o, const CurriculumContext& c) {
                              return std::make_unique<DistanceCurriculum>(o, c);
                            }});
RB_REGISTER(CurriculumRegistry, ramp,
            CurriculumEntry{"ramp", "shaped schedule (linear, cosine, sqrt, square, geometric) over distance or length",
                            RampCurriculum::defaults(),
                            [](const nlohmann::json& o, const CurriculumContext& c) {
                              return std::make_unique<RampCurriculum>(o, c);
                            }});
RB_REGISTER(CurriculumRegistry, gated,
            CurriculumEntry{"gated", "advance a stage only when training accuracy reaches a threshold (with a maximum)",
                            GatedCurriculum::defaults(),
                            [](const nlohmann::json& o, const CurriculumContext& c) {
                              return std::make_unique<GatedCurriculum>(o, c);
                            }});

}  // namespace rb
