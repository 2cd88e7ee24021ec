#include "suite/context.h"

#include "suite/allocator.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>

namespace rb {
namespace {

std::string run_command(const std::string& cmd) {
  std::array<char, 256> buf{};
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return out;
  while (std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(pos + 2);
    }
  }
  return "unknown";
}

// Set before main() by the generated build_commit.cpp; constant-initialised, so no order problem.
const char* g_build_commit = nullptr;

std::string git_commit() {
  if (g_build_commit) return g_build_commit;
  const std::string src = RECALLBENCH_SOURCE_DIR;
  if (!std::filesystem::exists(std::filesystem::path(src) / ".git")) return "";
  std::string commit = run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  if (commit.empty()) return "";
  if (!run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty())
    commit += "-dirty";
  return commit;
}

// The CPU's family/model/stepping and the vector extensions that change which kernels run (OpenBLAS's
// core, oneDNN's ISA, the -march=native kernels), e.g. "6/167/1 avx2 avx512f avx512_fp16 amx_tile": two
// machines with the same model name can differ here, and then in the last bits of every result.
std::string cpu_isa() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, family, model, stepping, flags;
  const auto value = [](const std::string& l) {
    const auto pos = l.find(':');
    return pos == std::string::npos ? std::string() : l.substr(pos + 2);
  };
  while (std::getline(in, line)) {
    if (family.empty() && line.rfind("cpu family", 0) == 0) family = value(line);
    else if (model.empty() && line.rfind("model\t", 0) == 0) model = value(line);
    else if (stepping.empty() && line.rfind("stepping", 0) == 0) stepping = value(line);
    else if (flags.empty() && line.rfind("flags", 0) == 0) flags = " " + value(line) + " ";
    if (!flags.empty() && !family.empty() && !model.empty() && !stepping.empty()) break;
  }
  std::string out = family + "/" + model + "/" + stepping;
  for (const char* f : {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                        "amx_tile", "amx_bf16"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) out += std::string(" ") + f;
  return out;
}

}  // namespace

void set_build_commit(const char* commit) { g_build_commit = commit; }

std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> libs;
  std::string line;
  while (std::getline(maps, line)) {
    auto pos = line.find('/');
    if (pos == std::string::npos) continue;
    std::string path = line.substr(pos);
    const std::string file = std::filesystem::path(path).filename().string();
    if (file.find("blas") == std::string::npos && file.find("mkl") == std::string::npos) continue;
    // The GPU's BLAS (a CUDA LibTorch maps cuBLAS) is not the one CPU runs use; pip's LibTorch links its CPU
    // BLAS (MKL) statically, so its context names none.
    if (file.rfind("libcublas", 0) == 0 || file.rfind("libnvblas", 0) == 0) continue;
    std::error_code ec;
    auto resolved = std::filesystem::canonical(path, ec);
    libs.insert(ec ? path : resolved.string());
  }
  std::string out;
  for (const auto& l : libs) out += (out.empty() ? "" : ", ") + l;
  return out;
}

std::string build_difference(const nlohmann::json& context) {
  static const nlohmann::json self = capture_context(1);
  std::string out;
  for (const char* field : {"git_commit", "compiler", "libtorch_version", "build_type"}) {
    const nlohmann::json& mine = self.at(field);
    const nlohmann::json theirs = context.is_object() && context.contains(field) ? context.at(field) : nlohmann::json();
    if (theirs == mine) continue;
    out += fmt::format("{}{} {} (this build {})", out.empty() ? "" : ", ", field,
                       theirs.is_string() ? theirs.get<std::string>() : theirs.dump(),
                       mine.is_string() ? mine.get<std::string>() : mine.dump());
  }
  return out;
}

nlohmann::json capture_context(int threads) {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json c;
  c["recallbench_version"] = RECALLBENCH_VERSION;
  c["git_commit"] = git_commit();
  c["date"] = date;
  c["host"] = host;
  c["cpu_model"] = cpu_model();
  c["cpu_isa"] = cpu_isa();
  c["cores"] = std::thread::hardware_concurrency();
  c["threads"] = threads;
  c["compiler"] = RECALLBENCH_COMPILER;
  c["libtorch_version"] = RECALLBENCH_TORCH_VERSION;
  c["blas"] = loaded_blas();
  // OpenBLAS's kernel choice changes speed 4× and the last bits of results (suite/blas_core.h).
  using CoreName = char* (*)();
  if (auto corename = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename")))
    c["blas_core"] = corename();
  c["build_type"] = RECALLBENCH_BUILD_TYPE;
  c["allocator"] = allocator_description();  // suite/allocator.h: speed, never the numbers
  return c;
}

std::string find_leaderboard() {
  namespace fs = std::filesystem;
  const fs::path rel = "ci/leaderboard/leaderboard.json";
  std::error_code ec;
  std::vector<fs::path> candidates{rel, fs::path(RECALLBENCH_SOURCE_DIR) / rel};
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "recallbench" / "leaderboard.json");
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.string();
  return "";
}

}  // namespace rb
