// The tuning-cache lookup Conv2d makes when the caller gives no configuration.
#pragma once

#include <optional>
#include <string>

#include "vkconv/tuning.hpp"

namespace vkconv::detail {

struct TuningLookup {
    std::optional<TuningEntry> entry;  // a usable entry for exactly this device, problem and path
    std::string note;  // why a present entry or file was not used ("" if there was none)
};

// Reads the tuning cache in `dir` (resolved as TuningCache does). A corrupt file is reported on
// stderr once per process and file, and in the note. Never throws.
TuningLookup lookupTuning(const std::string& dir, const DeviceInfo& device,
                          const ConvProblem& problem, Path path);

// "measured 1.065 ms on 2026-11-21" for describe().
std::string describeTuningEntry(const TuningEntry& entry);

}  // namespace vkconv::detail
