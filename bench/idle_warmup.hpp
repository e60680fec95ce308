// The warm-up of a timing that follows host work: `vkconv sweep` and kernel-lab build a pipeline
// (0.1-2.5 s on NVIDIA's driver) and check its output before each timing, and the GPU's clocks
// fall while it idles. A short warm-up (--warmup-ms 100, to keep a search of hundreds of
// candidates short) then measured the clock ramp: on the H100 the sweep timed the grouped direct
// kernel's candidates 1.5-3x slow after their long builds, and on the H200 kernel-lab timed a
// ConvNeXt 7x7 depthwise tile built in 0.65 s at 0.054 ms, 0.029 once its warm-up covered the
// build (docs/performance.md). So a short warm-up stretches to the time the device
// sat idle since the last timing, up to the library's default (TimingOptions::warmupMs), which
// the first timing gets whole; 0 still means none.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "vkconv/conv2d.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::bench {

// The warm-up for a timing `idleMs` after the last one ended (none: the first timing).
inline double warmupAfterIdle(double requestedMs, std::optional<double> idleMs) {
    if (requestedMs <= 0) return 0;
    const double full = TimingOptions{}.warmupMs;
    return std::max(requestedMs, std::min(idleMs.value_or(full), full));
}

// Tracks when the last timing ended and stretches each timing's warm-up by warmupAfterIdle.
class IdleAwareWarmup {
public:
    // Conv2d::time with the warm-up stretched (next), noting when it ended (ended).
    // `residual`: the epilogue's, where the problem has one.
    std::vector<double> time(Conv2d& conv, const Tensor& input, Tensor& output, const TimingOptions& requested,
                             WarmupReport* report = nullptr, const Tensor* residual = nullptr) {
        std::vector<double> ms = residual ? conv.time(input, output, *residual, next(requested), report)
                                          : conv.time(input, output, next(requested), report);
        ended();
        return ms;
    }
    // The options for a timing starting now.
    TimingOptions next(const TimingOptions& requested) const {
        TimingOptions t = requested;
        std::optional<double> idleMs;
        if (lastEnded_)
            idleMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - *lastEnded_).count();
        t.warmupMs = warmupAfterIdle(requested.warmupMs, idleMs);
        return t;
    }
    // Marks the end of a timing.
    void ended() { lastEnded_ = std::chrono::steady_clock::now(); }

private:
    std::optional<std::chrono::steady_clock::time_point> lastEnded_;
};

}  // namespace vkconv::bench
