#include "core/json_io.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <type_traits>
#include <unordered_set>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/rng.h"

namespace rb {

void write_json_atomic(const std::filesystem::path& path, const json& value, int indent) {
  write_text_atomic(path, value.dump(indent) + "\n");
}

void write_text_atomic(const std::filesystem::path& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create directory " + dir.string() + ": " + ec.message());
  // Only a regular file (or nothing) is replaced: a folder, device node or socket named as the output is a
  // mistake, and renaming over it would destroy it.
  if (fs::exists(fs::symlink_status(path, ec)) && !fs::is_regular_file(fs::status(path, ec)))
    throw UsageError("cannot write " + path.string() + ": it exists and is not a regular file",
                     "name a file to write (a new one, or a file to replace)");

  // Unique temporary name per process and call, so concurrent writers never share one.
  std::random_device rd;
  const fs::path tmp = dir / ("." + path.filename().string() + "." + std::to_string(::getpid()) + "." +
                              std::to_string(rd()) + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw UsageError("cannot write " + tmp.string() + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw UsageError("cannot write " + tmp.string() + ": " + err);
    }
    done += static_cast<size_t>(n);
  }
  // A full disk can show only here (delayed allocation, network file systems): both are checked.
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  if (::close(fd) != 0 || !synced) {
    const std::string err = std::strerror(synced ? errno : sync_errno);
    ::unlink(tmp.c_str());
    throw UsageError("cannot write " + tmp.string() + ": " + err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw UsageError("cannot rename " + tmp.string() + " to " + path.string() + ": " + err);
  }
}

json parse_json_text(const std::string& text, const std::string& where) {
  if (text.size() > kMaxJsonBytes)
    throw UsageError(where + ": " + std::to_string(text.size()) + " bytes, expected at most " +
                     std::to_string(kMaxJsonBytes) + " (no document this tool reads is that large)");
  // Depth and duplicate keys are checked while parsing, so a hostile document never becomes a deep tree
  // (whose recursive destruction or printing would overflow the stack) and "last key wins" never hides
  // a conflicting value.
  std::vector<std::unordered_set<std::string>> keys;  // the keys of each open object: one lookup per key
  const auto check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth)
          throw UsageError(where + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels, expected a shallow document");
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key: {
        auto& open = keys.back();
        const auto& k = parsed.get_ref<const std::string&>();
        if (!open.insert(k).second)
          throw UsageError(where + ": key '" + k + "' appears twice in one object, expected each key once");
        break;
      }
      default: break;
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {  // parse errors, and numbers out of range (1e999)
    throw UsageError("malformed JSON in " + where + ": " + e.what());
  }
}

std::string read_regular_file(const std::filesystem::path& path, uintmax_t max_bytes) {
  // Opened without blocking (a FIFO would hang a plain open), then judged by what was opened: only a regular
  // file is read; the message says what the path is instead.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw UsageError(path.string() + ": not found");
    if (err == ELOOP) throw UsageError(path.string() + ": a loop of symbolic links, expected a file");
    throw UsageError("cannot read " + path.string() + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t m = st.st_mode;
    ::close(fd);
    const char* what = S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
                       : (S_ISCHR(m) || S_ISBLK(m)) ? "a device" : "not a regular file";
    throw UsageError(path.string() + " is " + what + ", expected a regular file");
  }
  if (static_cast<uintmax_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw UsageError(path.string() + ": " + std::to_string(st.st_size) + " bytes, expected at most " +
                     std::to_string(max_bytes) + " (no document this tool reads is that large)");
  }
  std::string text;
  text.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

json read_json_file(const std::filesystem::path& path) {
  return parse_json_text(read_regular_file(path, kMaxJsonBytes), path.string());
}

std::string kind_of(const json& doc) {
  if (!doc.is_object()) return "";
  const auto it = doc.find("kind");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string string_or(const json& object, const std::string& key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double number_or(const json& j, const char* key, double fallback) {
  if (!j.contains(key) || !j.at(key).is_number()) return fallback;
  return j.at(key).get<double>();
}

int64_t integer_or(const json& j, const char* key, int64_t fallback) {
  if (!j.contains(key) || !j.at(key).is_number()) return fallback;
  return checked_integer(j.at(key), key);
}

int64_t checked_integer(const json& v, const std::string& name) {
  const auto bad = [&] {
    return UsageError("field '" + name + "' got " + v.dump() + ", expected a whole number within ±9.2e18");
  };
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) throw bad();
    return static_cast<int64_t>(v.get<uint64_t>());
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_number_float()) throw bad();
  const double d = v.get<double>();
  if (!(std::fabs(d) < 9.2e18) || d != std::floor(d)) throw bad();
  return static_cast<int64_t>(d);
}

template <class T>
T require_field(const json& object, const std::string& key, const std::string& where) {
  if (!object.is_object()) throw UsageError(where + ": expected a JSON object, got " + std::string(object.type_name()));
  auto it = object.find(key);
  if (it == object.end()) throw UsageError(where + ": missing field '" + key + "'");
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (it->is_number()) {
      const int64_t x = checked_integer(*it, key);
      if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max())
        throw UsageError(where + ": field '" + key + "' got " + it->dump() + ", out of range");
      return static_cast<T>(x);
    }
  }
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw UsageError(where + ": field '" + key + "' has the wrong type (got " + std::string(it->type_name()) + ")");
  }
}

template std::string require_field<std::string>(const json&, const std::string&, const std::string&);
template int64_t require_field<int64_t>(const json&, const std::string&, const std::string&);
template int require_field<int>(const json&, const std::string&, const std::string&);
template double require_field<double>(const json&, const std::string&, const std::string&);
template bool require_field<bool>(const json&, const std::string&, const std::string&);
template json require_field<json>(const json&, const std::string&, const std::string&);

std::string short_hash_of(const std::string& bytes) {
  return fmt::format("{:012x}", hash_string(bytes) & 0xFFFFFFFFFFFFull);
}

std::string short_hash(const json& j) { return short_hash_of(j.dump()); }

bool key_ends_with_hash(const std::string& key, const std::string& hash) {
  return key.size() > hash.size() && key.compare(key.size() - hash.size() - 1, std::string::npos, "/" + hash) == 0;
}

json canonical_config(const json& spec) {
  json canonical = spec;
  canonical.erase("seed");
  if (canonical.contains("cell") && canonical["cell"].is_object()) {
    canonical["cell"].erase("path");
    canonical["cell"].erase("info");
  }
  return canonical;
}

}  // namespace rb
