// One path of one problem in `vkconv sweep`: choose the candidates (the heuristic's top K, all of
// them, or the neighbourhood of the current choice), measure each, and apply the acceptance rule
// against the default (the tuning cache's entry, else the heuristic's choice).
#pragma once

#include <optional>
#include <string>

#include "sweep_measure.hpp"
#include "sweep_report.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::cli {

struct SweepSettings {
    bool nearby = false;
    bool all = false;            // every valid configuration
    size_t candidates = 150;     // else the heuristic's top K,
    size_t perTile = 3;          // at most this many of one workgroup tile (sweepCandidates; 0: no cap)
    double budgetSeconds = 0;    // per path; 0: no limit
    TimingOptions timing;        // each timing warms the device up first
    size_t leaders = 4;          // fastest configurations re-timed with the default at the end
    int rounds = 3;              // interleaved rounds of that re-timing
    unsigned jobs = 1;           // threads that build the candidates first (1: each as it is timed)
    AcceptanceRule rule;
};

// How a pruned sweep (neither --all nor --nearby) picks its candidates, for the report:
// "150 in the heuristic's order, each kernel's best first, at most 3 of one workgroup tile".
std::string prunedSelection(size_t timed, const SweepSettings& settings);

// The default a sweep must beat: the tuning cache's entry (when given), else the heuristic's.
struct SweepDefault {
    std::optional<TuningEntry> cached;
    std::string note;  // why a cache entry was not used, if there was one
};

PathSweep sweepPath(SweepBench& bench, const DeviceInfo& device, Path path, const SweepDefault& start,
                    const SweepSettings& settings, Progress& progress, const std::string& label);

}  // namespace vkconv::cli
