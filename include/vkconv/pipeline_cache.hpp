// The persistent pipeline cache: each Context keeps one VkPipelineCache, loaded from
// <cache dir>/pipelines-<vendor>-<device>-<pipelineCacheUUID>.bin when the first Conv2d is
// planned and saved when the Context is destroyed (if new pipelines were built), so that a
// second process planning the same problems skips most of the driver's shader compilation.
// A file for another device or driver, or a damaged one, is ignored (and replaced on save).
// Off with ContextOptions::persistentPipelineCache = false or env VKCONV_NO_PIPELINE_CACHE=1.
#pragma once

#include <cstdint>
#include <string>

#include "vkconv/context.hpp"

namespace vkconv {

struct PipelineCacheStatus {
    bool persistent = false;  // backed by a file
    std::string file;         // the file ("" when not persistent)
    uint64_t loadedBytes = 0; // pipeline-cache data loaded from it (0: started empty, "cold")
    size_t pipelines = 0;     // pipelines built or fetched in this Context so far
    std::string note;         // what happened when it was loaded, e.g. "no file yet"
};

// The state of the Context's pipeline cache (creates it if no Conv2d has been planned yet, which
// loads the file).
PipelineCacheStatus pipelineCacheStatus(const Context& context);

// Saves the Context's pipeline cache now (atomically: temporary file and rename). Returns the
// file written, "" when persistence is off. Throws vkconv::Error(Io) if it cannot be written.
// Destroying the Context saves too, but silently ignores write errors.
std::string savePipelineCache(const Context& context);

}  // namespace vkconv
