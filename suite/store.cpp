// The results store: validation, quarantine, atomic writes and per-run locks. See store.h.
#include "suite/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "core/run_document.h"
#include "suite/spec.h"

namespace rb {

namespace fs = std::filesystem;
using nlohmann::json;

Store::Store(fs::path dir) : dir_(std::move(dir)) {}

std::string validate_run_document(const json& doc, const std::string& expected_key, RunDocument* parsed) {
  try {
    RunDocument d = RunDocument::from_json(doc, "run document");
    if (!expected_key.empty() && d.key != expected_key)
      return "key \"" + d.key + "\" does not match the file's run " + expected_key;
    const RunSpec spec = RunSpec::from_json(d.spec, "spec");
    if (spec.key() != d.key) return "its spec keys to " + spec.key() + ", not its 'key'";
    if (spec.config_key() != d.config_key) return "its spec's config key is " + spec.config_key() + ", not its 'config_key'";
    if (parsed) *parsed = std::move(d);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const nlohmann::json::exception& e) {
    return std::string("malformed spec: ") + e.what();
  }
  return "";
}

ResultCheck Store::check(const RunSpec& spec) const {
  ResultCheck out;
  const fs::path path = result_path(spec);
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  try {
    json doc = read_json_file(path);
    const std::string reason = validate_run_document(doc, spec.key(), &out.run);
    if (!reason.empty()) {
      out.state = ResultCheck::State::kCorrupt;
      out.reason = reason;
      return out;
    }
    out.state = ResultCheck::State::kValid;
    out.document = std::move(doc);
  } catch (const UsageError& e) {
    out.state = ResultCheck::State::kCorrupt;
    out.reason = e.what();
  }
  return out;
}

fs::path Store::set_aside(const RunSpec& spec, const std::string& folder) const {
  const fs::path dir = dir_ / folder;
  fs::create_directories(dir);
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", std::gmtime(&now));
  const fs::path to = dir / fmt::format("{}.{}.{}", spec.file_name(), stamp, ::getpid());
  std::error_code ec;
  fs::rename(result_path(spec), to, ec);
  if (ec) throw UsageError("cannot move " + result_path(spec).string() + " aside to " + to.string() + ": " + ec.message());
  return to;
}

void Store::write(const RunSpec& spec, const json& document) const {
  const std::string reason = validate_run_document(document, spec.key());
  RB_ASSERT(reason.empty(), "refusing to store an invalid run document: " + reason);
  write_json_atomic(result_path(spec), document);
}

int Store::sweep_temporaries() const {
  int removed = 0;
  std::error_code ec;
  if (!fs::is_directory(runs_dir(), ec)) return 0;
  const auto cutoff = fs::file_time_type::clock::now() - std::chrono::minutes(10);
  for (const auto& entry : fs::directory_iterator(runs_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 5 || name[0] != '.' || name.substr(name.size() - 4) != ".tmp") continue;
    if (entry.last_write_time(ec) < cutoff && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // the kernel drops the flock; the file stays (harmless, reused next time)
}

RunLock RunLock::try_acquire(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw UsageError("cannot open lock file " + path.string() + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK || err == EINTR) return RunLock{};
      throw UsageError("cannot lock " + path.string() + ": " + std::strerror(err));
    }
    // The previous holder may have unlinked the file between our open and our flock: then we hold a lock
    // on a file nobody else can see. Only a lock on the file that is at `path` now counts.
    struct stat held{}, now{};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      RunLock lock;
      lock.fd_ = fd;
      lock.path_ = path;
      char host[256] = {0};
      ::gethostname(host, sizeof host - 1);
      const std::string owner = fmt::format("{} {}\n", host, ::getpid());  // for humans; the flock decides
      if (::ftruncate(fd, 0) == 0) {
        [[maybe_unused]] const ssize_t n = ::pwrite(fd, owner.data(), owner.size(), 0);
      }
      return lock;
    }
    ::close(fd);
  }
  throw UsageError("cannot take the lock " + path.string() + ": it keeps being replaced");
}

void RunLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still holding the flock: see try_acquire's inode check
  ::close(fd_);
  fd_ = -1;
}

json run_metrics(const json& doc) {
  json r = doc.at("result");
  r.erase("wall_seconds");
  r.erase("steps_per_second");
  return {{"key", doc.at("key")}, {"result", r}, {"curve", doc.value("curve", json::array())}};
}

}  // namespace rb
