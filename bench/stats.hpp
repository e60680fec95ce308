// Order statistics of a set of timings: the figures the benchmark reports for every shape.
#pragma once

#include <vector>

#include "vkconv/tuning.hpp"

namespace vkconv::bench {

struct TimingSummary {
    int runs = 0;
    double medianMs = 0, minMs = 0, maxMs = 0, p10Ms = 0, p90Ms = 0;
    double spread = 0;  // (p90 - p10) / median: how far the middle 80% of runs stray
};

// The library's summary (vkconv::summarizeTimes), with the benchmark's empty-input convention.
inline TimingSummary summarize(std::vector<double> ms) {
    TimingSummary s;
    if (ms.empty()) return s;
    const TimingStats t = summarizeTimes(std::move(ms));
    s.runs = t.runs;
    s.minMs = t.minMs;
    s.maxMs = t.maxMs;
    s.medianMs = t.medianMs;
    s.p10Ms = t.p10Ms;
    s.p90Ms = t.p90Ms;
    s.spread = t.spread;
    return s;
}

}  // namespace vkconv::bench
