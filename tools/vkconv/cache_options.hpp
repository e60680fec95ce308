// The command-line flags for vkconv's caches (the tuning cache and the pipeline cache), shared by
// `run` and `sweep`, and what `run` prints about them: plan-creation time, cold or warm, and
// with --explain the candidates the heuristic weighed.
#pragma once

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv::cli {

struct CacheFlags {
    std::string dir;  // --cache-dir; "" = VKCONV_CACHE_DIR, $XDG_CACHE_HOME/vkconv, ~/.cache/vkconv
    bool noTuningCache = false;
    bool noPipelineCache = false;
};

// Adds --cache-dir, --no-tuning-cache with `tuningHelp` as its help text, and
// --no-pipeline-cache when `pipelineFlag`.
void addCacheFlags(CLI::App& command, CacheFlags& flags, const std::string& tuningHelp, bool pipelineFlag);

// The Context options the flags ask for (cache folder, pipeline-cache persistence).
ContextOptions cacheContextOptions(const CacheFlags& flags);

// "412.3 ms (Conv2d construction; pipeline cache warm: loaded 12345 bytes from FILE)".
std::string describePlanTime(const Context& context, double planMs);

// The heuristic's candidates for the chosen path (the `top` cheapest, with their costs relative
// to the cheapest), and why the configuration in use was chosen.
void printExplanation(std::ostream& out, const Context& context, const Conv2d& conv, size_t top = 10);

}  // namespace vkconv::cli
