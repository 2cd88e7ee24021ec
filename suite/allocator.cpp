#include "suite/allocator.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace rb {
namespace {

constexpr int kMmapThreshold = 32 << 20;   // glibc's upper limit for M_MMAP_THRESHOLD on 64-bit
constexpr int kTrimThreshold = 512 << 20;  // free memory kept at the top of the heap before trimming
constexpr int kTopPad = 16 << 20;          // extra asked of sbrk each time the heap grows

std::string g_description = "glibc (defaults)";
bool g_done = false;

// Another allocator interposed on malloc (LD_PRELOAD or linked in): its own symbols are visible.
const char* preloaded_allocator() {
  if (::dlsym(RTLD_DEFAULT, "mallctl")) return "jemalloc";
  if (::dlsym(RTLD_DEFAULT, "tc_malloc")) return "tcmalloc";
  return nullptr;
}

}  // namespace

void tune_allocator() {
  if (g_done) return;
  g_done = true;
  if (const char* other = preloaded_allocator()) {
    g_description = other;
    return;
  }
  if (const char* t = std::getenv("GLIBC_TUNABLES"); t && std::strstr(t, "glibc.malloc.")) {
    g_description = std::string("glibc (GLIBC_TUNABLES=") + t + ")";
    return;
  }
  if (const char* keep = std::getenv("RECALLBENCH_KEEP_MALLOC"); keep && *keep && std::strcmp(keep, "0") != 0) {
    g_description = "glibc (defaults: RECALLBENCH_KEEP_MALLOC)";
    return;
  }
  // Each mallopt returns 1 on success; setting M_MMAP_THRESHOLD also turns off glibc's dynamic threshold.
  const bool ok = ::mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && ::mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1 &&
                  ::mallopt(M_TOP_PAD, kTopPad) == 1;
  g_description = ok ? "glibc (mmap_threshold 32 MiB, trim_threshold 512 MiB, top_pad 16 MiB)"
                     : "glibc (defaults: mallopt refused the settings)";
}

std::string allocator_description() { return g_description; }

}  // namespace rb
