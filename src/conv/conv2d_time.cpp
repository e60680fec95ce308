// Conv2d::time: GPU timestamps around each run, after a warm-up that brings the clocks up.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "conv/conv2d_impl.hpp"
#include "runtime/timestamps.hpp"
#include "runtime/vk_util.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv {

std::vector<double> Conv2d::time(const Tensor& input, Tensor& output, int warmup, int iterations) {
    TimingOptions options;
    options.warmupRuns = warmup;
    options.iterations = iterations;
    return time(input, output, options);
}

std::vector<double> Conv2d::time(const Tensor& input, Tensor& output, const TimingOptions& options,
                                 WarmupReport* report) {
    return timeWith(input, output, nullptr, options, report);
}

std::vector<double> Conv2d::time(const Tensor& input, Tensor& output, const Tensor& residual,
                                 const TimingOptions& options, WarmupReport* report) {
    return timeWith(input, output, &residual, options, report);
}

std::vector<double> Conv2d::timeWith(const Tensor& input, Tensor& output, const Tensor* residual,
                                     const TimingOptions& options, WarmupReport* report) {
    using namespace detail;
    auto& impl = *impl_;
    if (options.warmupRuns < 0 || options.warmupRuns > kMaxWarmupRuns)
        throw invalidArgument("warmup", options.warmupRuns, "must be in 0.." + std::to_string(kMaxWarmupRuns));
    if (options.iterations < 1 || options.iterations > kMaxTimedRuns)
        throw invalidArgument("iterations", options.iterations, "must be in 1.." + std::to_string(kMaxTimedRuns));
    if (!(options.warmupMs >= 0) || options.warmupMs > 60000)
        throw invalidArgument("warmupMs", options.warmupMs, "must be between 0 and 60000");
    TimestampPairs timestamps(*impl.context, static_cast<uint32_t>(options.iterations));
    const auto record = impl.recorder(input, output, residual);

    // Warm-up: submissions of back-to-back runs, each about a quarter of warmupMs (by the rate
    // seen so far, at most kMaxRuns), so the device is never idle for longer than one
    // submission's turnaround. It lasts at least warmupMs and until two successive submissions
    // ran at the same rate (within 2%): on the H200 the SM clock sometimes dipped again after
    // 200 ms (VGG conv1_2: 10% of the timed runs at 2.1x the median), so a fixed time alone is
    // not enough. Four times warmupMs at most.
    using Clock = std::chrono::steady_clock;
    constexpr int kMaxRuns = 4096;
    const auto start = Clock::now();
    auto elapsedMs = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
    WarmupReport done;
    int batch = 1;
    double lastRate = 0;  // ms a run in the previous submission
    bool steady = false;
    while (options.warmupMs > 0 && (elapsedMs() < options.warmupMs || !steady) && elapsedMs() < 4 * options.warmupMs) {
        const double before = elapsedMs();
        impl.context->submitAndWait([&](VkCommandBuffer cmd) {
            for (int i = 0; i < batch; ++i) {
                barrierBeforeCompute(cmd);
                record(cmd);
            }
        });
        done.runs += batch;
        const double rate = (elapsedMs() - before) / batch;
        steady = lastRate > 0 && std::abs(rate - lastRate) <= 0.02 * lastRate;
        lastRate = rate;
        batch = int(std::clamp(std::ceil(options.warmupMs / 4 / std::max(rate, 1e-4)), 1.0, double(kMaxRuns)));
    }
    done.wallMs = elapsedMs();
    if (report) *report = done;

    impl.context->submitAndWait([&](VkCommandBuffer cmd) {
        timestamps.reset(cmd);
        for (int i = 0; i < options.warmupRuns + options.iterations; ++i) {
            barrierBeforeCompute(cmd);
            const int t = i - options.warmupRuns;
            if (t >= 0) timestamps.begin(cmd, uint32_t(t));
            record(cmd);
            if (t >= 0) timestamps.end(cmd, uint32_t(t));
        }
    });
    return timestamps.milliseconds();
}

}  // namespace vkconv
