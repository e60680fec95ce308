// Conv2d: one planned convolution. Construction validates the problem, chooses a configuration,
// builds (or fetches from the cache) the pipeline and packs the weights once; run() then
// convolves any number of inputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vkconv/context.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv {

namespace detail {
struct Conv2dImpl;
}

struct ConvOptions {
    Precision precision = Precision::Fast;
    std::optional<KernelConfig> config;  // use exactly this configuration (sweeps, tests)
    // Without a config: use the configuration `vkconv sweep` measured for this device, problem
    // and path if the tuning cache has one (include/vkconv/tuning.hpp), else the heuristic's.
    bool useTuningCache = true;
};

class Conv2d {
public:
    // weight: KCRS (C per group), problem.weightElements() floats; bias: K floats, or null when
    // problem.bias is false.
    Conv2d(const Context& context, const ConvProblem& problem, const float* weight,
           const float* bias, const ConvOptions& options = {});
    Conv2d(const Context& context, const ConvProblem& problem, const std::vector<float>& weight,
           const std::vector<float>& bias, const ConvOptions& options = {});
    ~Conv2d();
    Conv2d(Conv2d&&) noexcept;
    Conv2d& operator=(Conv2d&&) noexcept;

    // output = conv2d(input); shapes must be problem().inputShape() / outputShape(). Waits.
    void run(const Tensor& input, Tensor& output);

    // GPU time in milliseconds of each of `iterations` runs (timestamp queries around each run,
    // all recorded in one submission after `warmup` untimed runs). warmup must be in
    // [0, kMaxWarmupRuns], iterations in [1, kMaxTimedRuns]; anything else is InvalidArgument.
    static constexpr int kMaxWarmupRuns = 10000;
    static constexpr int kMaxTimedRuns = 10000;
    std::vector<double> time(const Tensor& input, Tensor& output, int warmup, int iterations);

    const ConvProblem& problem() const;
    const KernelConfig& config() const;
    std::string describe() const;  // path and configuration, plus why (e.g. fallback reasons)
    // The driver's statistics of the pipelines this conv runs (registers, spills, ...), one line
    // per shader executable; "" unless the Context was made with pipelineStatistics and the
    // device has VK_KHR_pipeline_executable_properties.
    std::string driverStatistics() const;

private:
    std::unique_ptr<detail::Conv2dImpl> impl_;
};

}  // namespace vkconv
