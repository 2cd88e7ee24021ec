// Thrown by the front end (`recallbench`, without LibTorch) when a command needs what only LibTorch has (a
// plugin or TorchScript cell's module, the cell catalog): suite/main.cpp hands the whole command over to
// recallbench-torch. Thrown before the command writes anything.
#pragma once

#include <stdexcept>
#include <string>

namespace rb {

class NeedsLibTorch : public std::runtime_error {
 public:
  explicit NeedsLibTorch(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace rb
