// Order statistics of a set of timings: the figures the benchmark reports for every shape.
#pragma once

#include <algorithm>
#include <vector>

namespace vkconv::bench {

struct TimingSummary {
    int runs = 0;
    double medianMs = 0, minMs = 0, maxMs = 0, p10Ms = 0, p90Ms = 0;
    double spread = 0;  // (p90 - p10) / median: how far the middle 80% of runs stray
};

// Linear interpolation between the two nearest ranks (numpy's default), on sorted values.
inline double percentileOfSorted(const std::vector<double>& sorted, double q) {
    const double pos = q * double(sorted.size() - 1);
    const size_t lo = size_t(pos), hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

inline TimingSummary summarize(std::vector<double> ms) {
    TimingSummary s;
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    s.runs = int(ms.size());
    s.minMs = ms.front();
    s.maxMs = ms.back();
    s.medianMs = percentileOfSorted(ms, 0.5);
    s.p10Ms = percentileOfSorted(ms, 0.1);
    s.p90Ms = percentileOfSorted(ms, 0.9);
    s.spread = s.medianMs > 0 ? (s.p90Ms - s.p10Ms) / s.medianMs : 0;
    return s;
}

}  // namespace vkconv::bench
