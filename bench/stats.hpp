// Order statistics of a set of timings: the figures the benchmark reports for every shape.
#pragma once

#include <vector>

#include "vkconv/tuning.hpp"

namespace vkconv::bench {

// The library's summary (runs, median, min, max, p10, p90, spread = (p90 - p10) / median).
using TimingSummary = TimingStats;

// vkconv::summarizeTimes, with the benchmark's empty-input convention: all zero.
inline TimingSummary summarize(std::vector<double> ms) {
    return ms.empty() ? TimingSummary{} : summarizeTimes(std::move(ms));
}

}  // namespace vkconv::bench
