// The run context: facts about the machine and build, captured once per process and attached to every
// result so that a number can always be traced back to where it came from.
#pragma once

#include <nlohmann/json.hpp>

namespace rb {

// Returns the context as JSON: recallbench_version, git_commit (the commit the running executable was
// built from, "-dirty" when its checkout had uncommitted changes, empty when it was not built from a git
// checkout; a binary that records none, such as a test, asks its source checkout at run time), date (UTC, ISO 8601), host, cpu_model, cpu_isa (family/model/stepping and the vector extensions that
// change which kernels run), cores, threads
// (LibTorch intra-op threads each run uses), compiler, libtorch_version, blas (the BLAS library mapped
// into this process, resolved through symlinks), build_type, allocator (suite/allocator.h).
// `threads` is passed in because the torch-free core cannot ask LibTorch.
nlohmann::json capture_context(int threads);

// What differs between the build that recorded `context` (a run document's) and this one, among the fields
// that can change a run's numbers: git_commit, compiler, libtorch_version, build_type; "" when none does.
// E.g. "git_commit 1a2b… (this build 3c4d…)".
std::string build_difference(const nlohmann::json& context);

// Records the commit this executable was built from (called once, at static initialisation, by the
// translation unit cmake/build_commit.cmake generates for `recallbench`). `commit` must outlive the process.
void set_build_commit(const char* commit);

// The BLAS shared libraries loaded in this process (from /proc/self/maps), resolved; empty if none yet.
std::string loaded_blas();

// The stored leaderboard: ci/leaderboard/leaderboard.json in the current directory, else in the checkout this
// executable was built from, else installed beside it (<prefix>/share/recallbench/leaderboard.json); "" when
// none exists.
std::string find_leaderboard();

}  // namespace rb
