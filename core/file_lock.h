// An exclusive flock(2) on a lock file, waited for and held for the object's life: the mutual exclusion
// around a read-modify-write of a stored file (`leaderboard --add`). Atomic rename alone keeps a file whole
// but loses one of two concurrent updates; this serialises them. The kernel drops the lock when its holder
// dies (kill -9 included), so no stale lock survives a crash.
#pragma once

#include <string>

namespace rb {

class FileLock {
 public:
  explicit FileLock(const std::string& path);  // creates `path` when missing; UsageError when it cannot
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace rb
