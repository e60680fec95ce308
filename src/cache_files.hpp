// The files vkconv keeps in its cache folder (tuning.json, pipelines-*.bin): where the folder is,
// reading a whole file, and writing one atomically so that a reader (another process) never sees
// a half-written file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vkconv::detail {

// explicitDir if given, else env VKCONV_CACHE_DIR, $XDG_CACHE_HOME/vkconv, $HOME/.cache/vkconv;
// "" if none is set.
std::string cacheDirFor(const std::string& explicitDir);

// The whole file into `out`; false if it does not exist or cannot be read.
bool readWholeFile(const std::string& path, std::string& out);

// Creates the file's folder (and parents) if needed, writes `bytes` to a temporary file next to
// `path` and renames it over `path`. Throws vkconv::Error(Io) naming the path and the cause.
void writeFileAtomically(const std::string& path, const std::string& bytes);

// An exclusive advisory lock (flock) on `path`, created if absent (with its folder), held until
// destruction. Writers of one cache file take it around read-merge-write, so that two processes
// (or two threads, each with its own lock object) never lose each other's entries. The lock
// file itself stays: removing it would let a third writer lock a new file while one holds the old.
class FileLock {
public:
    explicit FileLock(const std::string& path);  // blocks until locked; throws Error(Io)
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

// Renames `path` to "<path>.unreadable-<UTC time>-<pid>" and returns the new name; throws
// Error(Io) if it cannot.
std::string moveAside(const std::string& path);

// Lower-case hex of `size` bytes.
std::string hexBytes(const uint8_t* data, size_t size);

// True when env `name` is set to something other than "", "0", "false", "no" or "off".
bool envFlag(const char* name);

}  // namespace vkconv::detail
