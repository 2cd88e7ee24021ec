// The learning-rate choices of judge/tuning.h as text and JSON (`recallbench tune`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/tuning.h"

namespace rb::reports {

// Per cell its rates' rows (the chosen one marked) and the choice with the step of the rule that made it.
std::string tuning_table(const std::vector<judge::RateChoice>& choices);
nlohmann::json tuning_json(const std::vector<judge::RateChoice>& choices, const std::vector<int64_t>& tuning_seeds);

// The rule in words: "most lock-ins over the task points, then the higher median recall, then ...".
std::string rule_text(judge::TuningRule rule);

// One cell's choice as tuning_json writes it under "cells", and back (UsageError naming `where` and the field).
nlohmann::json rate_choice_json(const judge::RateChoice& choice);
judge::RateChoice rate_choice_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace rb::reports
