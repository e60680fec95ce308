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
    // false: the Conv2d allocates no workspace for its passes (packing, conversion, split-K
    // partials); the caller gives it one with useWorkspace() before the first run or record.
    bool ownWorkspace = true;
};

// How Conv2d::time measures. A GPU's clocks fall when it idles (the H200's SM clock reads 345 of
// 1980 MHz at rest) and climb back only after the device has been kept busy for a while, so a
// timing taken after CPU work (planning, packing, a reference check) measures the clock ramp, not
// the kernel. Every timing therefore first runs the kernel back to back for warmupMs: 200 ms was
// not always enough after seconds of host work (the H200's SM clock still climbing, VGG conv1_2
// with timed runs up to 3.4x its median), 500 was.
struct TimingOptions {
    double warmupMs = 500;  // at least this long of the kernel itself, untimed, first (0: none)
    int warmupRuns = 3;     // then these untimed runs, in the timed runs' own submission
    int iterations = 20;    // timed runs
};

// What a warm-up did (for reports and tests).
struct WarmupReport {
    double wallMs = 0;  // host time spent running the kernel before the timed submission
    int runs = 0;       // runs in that time
};

namespace detail {
struct BuildVariant;  // vkconv's own uses (kernel-lab --skip, precise mode's parts); not part of the API
}

// The weights as the caller holds them: problem.weightElements() values of `type` (f32: floats,
// f16: fp16 bit patterns as uint16_t), (K, C/groups, R, S) in `layout`'s order. Read once, while
// the Conv2d is built; the kernels get them packed in their own operand type and order.
struct WeightData {
    const void* data = nullptr;
    DataType type = DataType::F32;
    WeightLayout layout = WeightLayout::KCRS;
};

class Conv2d {
public:
    // weight: KCRS (C per group), problem.weightElements() floats; bias: K floats, or null when
    // problem.bias is false.
    Conv2d(const Context& context, const ConvProblem& problem, const float* weight,
           const float* bias, const ConvOptions& options = {});
    Conv2d(const Context& context, const ConvProblem& problem, const std::vector<float>& weight,
           const std::vector<float>& bias, const ConvOptions& options = {});
    // Weights of any type and layout (WeightData); bias: K floats, or null when problem.bias is
    // false.
    Conv2d(const Context& context, const ConvProblem& problem, const WeightData& weight, const float* bias,
           const ConvOptions& options = {});
    // For vkconv's diagnostics tools only: the same, with parts of the kernel left out (its
    // results are then wrong; src/conv/diagnostics.hpp).
    Conv2d(const Context& context, const ConvProblem& problem, const float* weight, const float* bias,
           const ConvOptions& options, const detail::BuildVariant& diagnostics);
    ~Conv2d();
    Conv2d(Conv2d&&) noexcept;
    Conv2d& operator=(Conv2d&&) noexcept;

    // output = epilogue(conv2d(input)); shapes must be problem().inputShape() / outputShape(),
    // with any batch from 1 to problem().batch (the same packed weights and configuration; each
    // batch size is planned once), formats problem().inputFormat / outputFormat. Waits. A problem whose epilogue has a residual takes it in the overload below.
    void run(const Tensor& input, Tensor& output);
    // output = act(alpha * conv2d(input) + bias + beta * residual): the residual has the output's
    // shape and format and may be `output` itself (an in-place residual add), never `input`.
    void run(const Tensor& input, Tensor& output, const Tensor& residual);

    // Records the convolution into the caller's command buffer (recording, primary, of a queue
    // family with compute, on this Context's device): its passes and the barriers between them.
    // Nothing is submitted. What the caller provides:
    //   before: a barrier that makes what wrote the input (and residual) available to compute
    //     shader storage reads, and orders earlier reads and writes of the output before compute
    //     shader storage writes (dstStageMask VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dstAccessMask
    //     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    //   after: before anything reads the output, a barrier from srcStageMask
    //     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, srcAccessMask VK_ACCESS_SHADER_WRITE_BIT.
    // vkconv's own workspaces are guarded inside (a Conv2d with a packing, conversion or split-K
    // pass starts with a compute-to-compute barrier), so the same Conv2d may be recorded many
    // times in one command buffer. Each distinct (input, output, residual) gets descriptor sets
    // of its own, made once and kept while those tensors live: a recorded command buffer stays
    // valid, and may be submitted again, while the tensors, this Conv2d and the Context live.
    // The tensors may have any batch from 1 to problem().batch (the same in all three).
    // Thread-safe: several threads may record the same Conv2d.
    void record(VkCommandBuffer cmd, const Tensor& input, Tensor& output);
    void record(VkCommandBuffer cmd, const Tensor& input, Tensor& output, const Tensor& residual);

    // The bytes of workspace its passes need (0: none). With ConvOptions::ownWorkspace false the
    // caller gives it one: a tensor of at least that many bytes (any shape and type, e.g. a view
    // of an engine's arena), kept alive by the Conv2d, given once. Several Conv2ds may share one
    // when they run one after another: record() starts with a barrier wherever a workspace is
    // used, so the same memory is never read by one and written by the next at once.
    uint64_t workspaceBytes() const;
    void useWorkspace(const Tensor& workspace);

    // Bounds of the run counts (TimingOptions::warmupRuns, iterations): anything outside them is
    // InvalidArgument.
    static constexpr int kMaxWarmupRuns = 10000;
    static constexpr int kMaxTimedRuns = 10000;
    // GPU time in milliseconds of each of `options.iterations` runs: the warm-up first (see
    // TimingOptions), then timestamp queries around each run, all recorded in one submission.
    std::vector<double> time(const Tensor& input, Tensor& output, const TimingOptions& options,
                             WarmupReport* warmup = nullptr);
    // The same with TimingOptions' default warm-up time.
    std::vector<double> time(const Tensor& input, Tensor& output, int warmup, int iterations);
    // The same for a problem whose epilogue adds a residual.
    std::vector<double> time(const Tensor& input, Tensor& output, const Tensor& residual, const TimingOptions& options,
                             WarmupReport* warmup = nullptr);

    // The first image of each chunk the batch is split into (planned to fit device limits), in
    // order: a check that samples each chunk's first and last image covers every dispatch.
    std::vector<int64_t> chunkFirstImages() const;

    const ConvProblem& problem() const;
    const KernelConfig& config() const;  // a precise Conv2d: its parts' configuration
    // What runs: Fast (the matrix units' fp16 path), Fp32, or Precise (fp32 accuracy on the matrix
    // units); a fallback from the precision asked for is named in describe().
    Precision precision() const;
    // The bounds the tests hold what runs to (kernel_config.hpp's errorBound): its path's, fp32's
    // for precise, and no tighter than the output type's rounding allows.
    double errorBound() const;
    double elementErrorBound() const;
    std::string describe() const;  // path and configuration, plus why (e.g. fallback reasons)
    // The driver's statistics of the pipelines this conv runs (registers, spills, ...), one line
    // per shader executable; "" unless the Context was made with pipelineStatistics and the
    // device has VK_KHR_pipeline_executable_properties.
    std::string driverStatistics() const;

private:
    void runWith(const Tensor& input, Tensor& output, const Tensor* residual);
    void recordWith(VkCommandBuffer cmd, const Tensor& input, Tensor& output, const Tensor* residual);
    std::vector<double> timeWith(const Tensor& input, Tensor& output, const Tensor* residual,
                                 const TimingOptions& options, WarmupReport* warmup);
    std::unique_ptr<detail::Conv2dImpl> impl_;
};

}  // namespace vkconv
