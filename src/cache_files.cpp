#include "cache_files.hpp"

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
#include <sstream>

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
    if (!explicitDir.empty()) return explicitDir;
    if (std::string d = env("VKCONV_CACHE_DIR"); !d.empty()) return d;
    // The XDG base-directory rule: relative values are invalid and are ignored.
    if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') return x + "/vkconv";
    if (std::string h = env("HOME"); !h.empty()) return h + "/.cache/vkconv";
    return "";
}

bool readWholeFile(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) return false;
    out = s.str();
    return true;
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos) makeDirs(path.substr(0, slash));
    // Unique per process and per call, so that concurrent writers never share a temporary file.
    static std::atomic<unsigned> counter{0};
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) throw ioError("cannot write", temp, errno);
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    const int writeErr = errno;
    const bool synced = std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
    const int syncErr = errno;
    if (std::fclose(f) != 0 || !written || !synced) {
        std::remove(temp.c_str());
        throw ioError("cannot write", temp, !written ? writeErr : syncErr);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(temp.c_str());
        throw ioError("cannot replace", path, err);
    }
}

FileLock::FileLock(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos) makeDirs(path.substr(0, slash));
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw ioError("cannot open the lock file", path, errno);
    while (::flock(fd_, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd_);
        throw ioError("cannot lock", path, err);
    }
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
