#include "judge/verdict.h"

#include "core/errors.h"

namespace rb::judge {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kNoChange: return "no change";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kBelowMinimumEffect: return "below minimum effect";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kRegression: return "regression";
    case Verdict::kDataStreamChanged: return "data stream changed";
    case Verdict::kTaskChanged: return "task changed";
    case Verdict::kModelChanged: return "model changed";
    case Verdict::kSeedsNotIndependent: return "seeds not independent";
  }
  return "?";
}

const char* speed_verdict_name(SpeedVerdict v) {
  switch (v) {
    case SpeedVerdict::kNoChange: return "no change";
    case SpeedVerdict::kImprovement: return "improvement";
    case SpeedVerdict::kUnreliable: return "unreliable";
    case SpeedVerdict::kInconclusive: return "inconclusive";
    case SpeedVerdict::kRegression: return "regression";
  }
  return "?";
}

GateEffect gate_effect(Verdict v) {
  switch (v) {
    case Verdict::kNoChange:
    case Verdict::kImprovement:
    case Verdict::kBelowMinimumEffect: return GateEffect::kPass;
    case Verdict::kInconclusive: return GateEffect::kUndecided;
    case Verdict::kRegression: return GateEffect::kFail;
    case Verdict::kDataStreamChanged:
    case Verdict::kTaskChanged:
    case Verdict::kModelChanged:
    case Verdict::kSeedsNotIndependent: return GateEffect::kRefused;
  }
  return GateEffect::kRefused;
}

GateEffect gate_effect(SpeedVerdict v) {
  switch (v) {
    case SpeedVerdict::kNoChange:
    case SpeedVerdict::kImprovement: return GateEffect::kPass;
    case SpeedVerdict::kUnreliable:
    case SpeedVerdict::kInconclusive: return GateEffect::kUndecided;
    case SpeedVerdict::kRegression: return GateEffect::kFail;
  }
  return GateEffect::kFail;
}

int gate_exit_code(GateEffect effect, bool fail_on_inconclusive) {
  switch (effect) {
    case GateEffect::kRefused: return kExitUsage;
    case GateEffect::kFail: return kExitRegression;
    case GateEffect::kUndecided: return fail_on_inconclusive ? kExitInconclusive : kExitOk;
    case GateEffect::kPass: return kExitOk;
  }
  return kExitInternal;
}

}  // namespace rb::judge
