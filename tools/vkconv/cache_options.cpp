// Cache flags, plan-time report and --explain.
#include "cache_options.hpp"

#include <cstdio>

#include "vkconv/pipeline_cache.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::cli {

void addCacheFlags(CLI::App& command, CacheFlags& f, const std::string& tuningHelp, bool pipelineFlag) {
    command.add_option("--cache-dir", f.dir,
                       "folder of the tuning cache and the pipeline cache (default: $VKCONV_CACHE_DIR, "
                       "else $XDG_CACHE_HOME/vkconv, else ~/.cache/vkconv)")
        ->type_name("DIR");
    command.add_flag("--no-tuning-cache", f.noTuningCache, tuningHelp);
    if (pipelineFlag)
        command.add_flag("--no-pipeline-cache", f.noPipelineCache,
                     "do not load or save the pipeline cache (also env VKCONV_NO_PIPELINE_CACHE=1)");
}

ContextOptions cacheContextOptions(const CacheFlags& f) {
    ContextOptions o;
    o.cacheDir = f.dir;
    o.persistentPipelineCache = !f.noPipelineCache;
    return o;
}

std::string describePlanTime(const Context& context, double planMs) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f ms", planMs);
    const PipelineCacheStatus s = pipelineCacheStatus(context);
    // The note starts with "warm", "cold" or "not persistent" (see pipeline_cache.hpp).
    const std::string state = "pipeline cache " + s.note;
    return std::string(ms) + " (Conv2d construction: configuration, pipeline, weights; " + state + ")";
}

void printExplanation(std::ostream& out, const Context& context, const Conv2d& conv, size_t top) {
    const DeviceInfo& device = context.device();
    const ConvProblem& problem = conv.problem();
    const KernelConfig& used = conv.config();
    const std::vector<RankedConfig> ranked = rankConfigs(used.path, device, problem);
    size_t usedRank = 0;
    for (size_t i = 0; i < ranked.size(); ++i)
        if (ranked[i].config == used) usedRank = i + 1;
    const std::string why = conv.describe();
    const bool fromCache = why.find("from the tuning cache") != std::string::npos;
    const bool given = why.find("given by the caller") != std::string::npos;
    const bool cacheOff = why.find("tuning cache off") != std::string::npos;

    out << "explain:     the heuristic weighed " << ranked.size() << " " << toString(used.path)
        << " configurations (estimated cost: edge-tile waste x shape factors x device fill; "
           "relative to the cheapest):\n";
    const double best = ranked.empty() ? 1.0 : ranked.front().cost;
    for (size_t i = 0; i < ranked.size() && i < top; ++i) {
        char line[64];
        std::snprintf(line, sizeof line, "  %3zu. %7.3f  ", i + 1, ranked[i].cost / best);
        out << "           " << line << ranked[i].config.str()
            << (ranked[i].config == used ? "   <- in use" : "") << "\n";
    }
    if (usedRank > top)
        out << "             ... " << usedRank << ". " << ranked[usedRank - 1].cost / best << "  "
            << used.str() << "   <- in use\n";
    out << "chosen:      ";
    if (fromCache)
        out << "from the tuning cache (a sweep measured it on this device and driver); the heuristic "
               "ranks it "
            << (usedRank ? "#" + std::to_string(usedRank) : std::string("outside its candidates"))
            << "; --no-tuning-cache uses the heuristic's #1\n";
    else if (given)
        out << "given by the caller\n";
    else if (cacheOff)
        out << "the heuristic's cheapest (the tuning cache is turned off)\n";
    else
        out << "the heuristic's cheapest (no tuning-cache entry for this device, driver, problem and "
               "path; `vkconv sweep` with the same flags measures one)\n";
}

}  // namespace vkconv::cli
