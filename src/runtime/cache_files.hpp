// The files vkconv keeps in its cache folder (tuning.json, pipelines-*.bin): where the folder is,
// reading a whole file, and writing one atomically so that a reader (another process) never sees
// a half-written file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

namespace vkconv::detail {

// explicitDir if given, else env VKCONV_CACHE_DIR, $XDG_CACHE_HOME/vkconv, $HOME/.cache/vkconv;
// "" if none is set.
std::string cacheDirFor(const std::string& explicitDir);

// The whole file into `out`; false if it does not exist, is not a regular file, or cannot be read.
bool readWholeFile(const std::string& path, std::string& out);

// How reading a file of bounded size went.
enum class FileRead { Absent, Ok, TooLarge };

// The whole file into `out` if it holds at most `maxBytes` bytes (larger: TooLarge, `out` empty,
// nothing read past the limit). Absent if it does not exist, is not a regular file, or cannot be
// read.
FileRead readFileAtMost(const std::string& path, std::string& out, size_t maxBytes);

// What identifies one version of a file (device, inode, size, modification time): a file
// replaced by rename or rewritten gets a different identity. All zero when absent.
struct FileIdentity {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modifiedNs = 0;
    bool exists = false;
    bool operator==(const FileIdentity& o) const {
        return exists == o.exists && device == o.device && inode == o.inode && size == o.size &&
               modifiedNs == o.modifiedNs;
    }
    bool operator!=(const FileIdentity& o) const { return !(*this == o); }
};
FileIdentity fileIdentity(const std::string& path);

// Throws vkconv::Error(Io) unless a file can be created in `dir` (made if missing): the check a
// long measurement makes before it starts, so that it cannot learn at the end that it has
// nowhere to save. Creates and removes a temporary file.
void requireWritableFolder(const std::string& dir, const std::string& what);

// Why `path` could not be written now (its folder, which is not made, takes no new files, or the
// file exists and is not writable), "" if it could: checked before work whose result goes there.
std::string unwritableFileReason(const std::string& path);

// Creates the file's folder (and parents) if needed, writes `bytes` to a temporary file next to
// `path` and renames it over `path`. Throws vkconv::Error(Io) naming the path and the cause.
void writeFileAtomically(const std::string& path, const std::string& bytes);

// The same for a file written in parts (a header and a large body, without joining them), into
// an existing folder only when createFolder is false. A symbolic link at `path` is written
// through: its target is replaced, the link stays.
struct ByteSpan {
    const void* data;
    size_t size;
};
void writeFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, bool createFolder = true);

// An exclusive advisory lock (flock) on `path`, created if absent (with its folder), held until
// destruction. While it holds the lock it writes its process id into the file; a writer that
// finds the lock taken reports (through `onWait`, once) that it is waiting, and for which process. Writers of one cache file take it around read-merge-write, so that two processes
// (or two threads, each with its own lock object) never lose each other's entries. The lock
// file itself stays: removing it would let a third writer lock a new file while one holds the old.
class FileLock {
public:
    // Blocks until locked; throws Error(Io).
    explicit FileLock(const std::string& path, const std::function<void(const std::string&)>& onWait = {});
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
