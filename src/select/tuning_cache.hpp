// The tuning-cache lookup Conv2d makes when the caller gives no configuration.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "runtime/cache_files.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::detail {

struct TuningLookup {
    std::optional<TuningEntry> entry;  // a usable entry for exactly this device, problem and path
    std::string note;  // why a present entry or file was not used ("" if there was none)
};

// The tuning cache as one Context reads it for its plans: the file is parsed once, and again only
// when it changes (another identity: replaced by a save, rewritten), so that planning does not
// pay for a large cache at every Conv2d. Thread-safe.
class TuningCacheReader {
public:
    // The lookup in the tuning cache of `dir` (resolved as TuningCache does). A corrupt file is
    // reported on stderr once per version of the file, and in the note. Never throws.
    TuningLookup lookup(const std::string& dir, const DeviceInfo& device, const ConvProblem& problem, Path path);

private:
    std::mutex mutex_;
    std::string dir_;
    FileIdentity identity_;
    int64_t readAtNs_ = 0;  // wall-clock time of the read, to compare with the file's mtime
    std::shared_ptr<const TuningCache> cache_;
    std::string warning_;  // the read's warning, the note of every lookup in that version
};

// "measured 1.065 ms on 2026-11-21" for describe().
std::string describeTuningEntry(const TuningEntry& entry);

}  // namespace vkconv::detail
