#include "runtime/cache_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>

#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

Error ioError(const std::string& what, const std::string& path, int err) {
    return Error(Error::Kind::Io, what + " " + path + ": " + std::strerror(err));
}

// The folder a file path names: "." for a bare name, "/" for one at the root.
std::string folderOf(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// mkdir -p.
void makeDirs(const std::string& dir) {
    if (dir.empty()) return;
    std::string partial;
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = dir.find('/', pos + 1);
        partial = dir.substr(0, pos);
        if (partial.empty()) continue;
        if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
            throw ioError("cannot create the cache folder", partial, errno);
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(Error::Kind::Io, "cache folder " + dir + " is not a directory");
}

}  // namespace

std::string cacheDirFor(const std::string& explicitDir) {
    // A path is a C string to the system: one holding NUL would be cut short there, silently.
    if (const size_t nul = explicitDir.find('\0'); nul != std::string::npos)
        throw invalidArgument("cache_dir", "'" + explicitDir.substr(0, nul) + "\\0...'",
                              "holds a NUL byte at offset " + std::to_string(nul) + "; a folder name cannot");
    if (!explicitDir.empty()) return explicitDir;
    if (std::string d = env("VKCONV_CACHE_DIR"); !d.empty()) return d;
    // The XDG base-directory rule: relative values are invalid and are ignored.
    if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') return x + "/vkconv";
    if (std::string h = env("HOME"); !h.empty()) return h + "/.cache/vkconv";
    return "";
}

bool readWholeFile(const std::string& path, std::string& out) {
    return readFileAtMost(path, out, std::numeric_limits<size_t>::max() - 1) == FileRead::Ok;
}

FileRead readFileAtMost(const std::string& path, std::string& out, size_t maxBytes) {
    out.clear();
    // Only a regular file is read (a folder opens, and reports a size of 2^63), into a buffer
    // sized by the file, not by the limit: most are small.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return FileRead::Absent;
    if (uint64_t(st.st_size) > maxBytes) return FileRead::TooLarge;
    std::ifstream in(path, std::ios::binary);
    if (!in) return FileRead::Absent;
    // One byte past the size, so that a file that grew since is caught too.
    std::string data(size_t(st.st_size) + 1, '\0');
    in.read(&data[0], std::streamsize(data.size()));
    if (in.bad()) return FileRead::Absent;
    const size_t got = size_t(in.gcount());
    if (got > maxBytes) return FileRead::TooLarge;
    data.resize(got);
    out = std::move(data);
    return FileRead::Ok;
}

FileIdentity fileIdentity(const std::string& path) {
    struct stat st {};
    FileIdentity id;
    if (::stat(path.c_str(), &st) != 0) return id;
    id.exists = true;
    id.device = uint64_t(st.st_dev);
    id.inode = uint64_t(st.st_ino);
    id.size = uint64_t(st.st_size);
    id.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return id;
}

void requireWritableFolder(const std::string& dir, const std::string& what) {
    try {
        makeDirs(dir);
    } catch (const Error& e) {
        throw Error(Error::Kind::Io, what + ": " + e.what());
    }
    const std::string probe = dir + "/.vkconv-write-check." + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        throw Error(Error::Kind::Io, what + ": cannot create a file in " + dir + ": " + std::strerror(err));
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

std::string unwritableFileReason(const std::string& path) {
    const std::string folder = folderOf(path);
    if (::access(folder.c_str(), W_OK) != 0) return "cannot write in " + folder + ": " + std::strerror(errno);
    if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
    return "";
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    writeFileAtomically(path, {ByteSpan{bytes.data(), bytes.size()}});
}

void writeFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, bool createFolder) {
    // Through a symbolic link: the temporary file goes next to the file the link names, and the
    // rename replaces that file (renaming over the link would replace the link itself).
    std::string target = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        if (char* resolved = ::realpath(path.c_str(), nullptr)) {
            target = resolved;
            std::free(resolved);
        }
    }
    if (createFolder) makeDirs(folderOf(target));
    // Unique per process and per call, so that concurrent writers never share a temporary file.
    static std::atomic<unsigned> counter{0};
    const std::string temp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) throw ioError("cannot write", temp, errno);
    bool written = true;
    int writeErr = 0;
    for (const ByteSpan& part : parts) {
        if (std::fwrite(part.data, 1, part.size, f) != part.size) {
            written = false;
            writeErr = errno;
            break;
        }
    }
    const bool synced = written && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
    const int syncErr = errno;
    if (std::fclose(f) != 0 || !written || !synced) {
        std::remove(temp.c_str());
        throw ioError("cannot write", temp, !written ? writeErr : syncErr);
    }
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        std::remove(temp.c_str());
        throw ioError("cannot replace", target, err);
    }
}

FileLock::FileLock(const std::string& path, const std::function<void(const std::string&)>& onWait) {
    makeDirs(folderOf(path));
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw ioError("cannot open the lock file", path, errno);
    bool told = false;
    for (int op = LOCK_EX | LOCK_NB; ::flock(fd_, op) != 0;) {
        if (errno == EINTR) continue;
        if (errno == EWOULDBLOCK && (op & LOCK_NB)) {
            // Held by another writer: say so once, naming the process the holder wrote down,
            // then wait without a timeout (the holder's read-merge-write is short).
            if (onWait && !told) {
                char holder[64] = {};
                const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
                std::string who = n > 0 ? std::string(holder, size_t(n)) : std::string();
                while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
                onWait("waiting for the lock on " + path + ", held by " +
                       (who.empty() ? std::string("another process") : "process " + who));
                told = true;
            }
            op = LOCK_EX;
            continue;
        }
        const int err = errno;
        ::close(fd_);
        throw ioError("cannot lock", path, err);
    }
    // Our process id, for the message of the next writer that has to wait.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

std::string moveAside(const std::string& path) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    const std::string aside = path + ".unreadable-" + stamp + "-" + std::to_string(::getpid());
    if (std::rename(path.c_str(), aside.c_str()) != 0) throw ioError("cannot move aside", path, errno);
    return aside;
}

std::string hexBytes(const uint8_t* data, size_t size) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < size; ++i) {
        s += digits[data[i] >> 4];
        s += digits[data[i] & 15];
    }
    return s;
}

bool envFlag(const char* name) {
    const std::string v = env(name);
    return !(v.empty() || v == "0" || v == "false" || v == "no" || v == "off");
}

}  // namespace vkconv::detail
