// Measuring one configuration for `vkconv sweep`: build it (a Conv2d with exactly that
// configuration), run it once and compare sample images with the CPU reference, then time it
// with GPU timestamps after a warm-up (vkconv::TimingOptions). A configuration that fails to build or run, or gives a wrong result, is
// recorded as such and never timed or selected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "idle_warmup.hpp"  // bench/
#include "run_inputs.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tensor.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::cli {

struct CandidateResult {
    enum class Status { Ok, Wrong, Failed };
    KernelConfig config;
    size_t heuristicRank = 0;  // 1-based position in the heuristic's ranking (0: not ranked)
    Status status = Status::Failed;
    std::string error;         // Failed: what failed; Wrong: the error against the bound
    double relativeError = 0;  // over the sample images
    double planMs = 0;         // Conv2d construction (pipeline build, weight packing)
    TimingStats timing;        // Ok only
    WarmupReport warmup;       // what ran before its timing
    size_t order = 0;          // 1-based position in the order of measurement
    double atSeconds = 0;      // when its measurement ended, since the path's sweep began
};
const char* toString(CandidateResult::Status status);

// One problem on one device: inputs, device tensors and the reference of the sample images,
// made once and shared by every configuration measured.
class SweepBench {
public:
    SweepBench(const Context& context, const ConvProblem& problem, uint64_t seed);

    const ConvProblem& problem() const { return inputs_.problem; }

    // Builds, checks and (if correct) times `config`. Throws only for failures that end the
    // sweep (the device was lost); everything else is recorded in the result.
    CandidateResult measure(const KernelConfig& config, const TimingOptions& timing);

    // Builds each of `configs` once on `jobs` threads and drops it: its pipelines stay in the
    // context's pipeline cache, from which measure() builds it again in milliseconds, and its
    // result's planMs is this first build's time. Returns the wall seconds taken. A configuration
    // that fails here fails again in measure(), which records why.
    double prebuild(const std::vector<KernelConfig>& configs, unsigned jobs);

    // Builds `config` again, checks its output as measure() does, and times it: the re-timings
    // of the leaders and of the acceptance rule. Throws Error if the output is now wrong.
    TimingStats retime(const KernelConfig& config, const TimingOptions& timing);

private:
    // Runs `conv` once on a NaN-poisoned output and returns the largest relative error over the
    // sample images: the first and last image of every chunk the conv splits the batch into.
    double checkOutput(Conv2d& conv);
    const std::vector<double>& reference(int64_t image);
    // Times `conv` with a warm-up at least as long as the device sat idle since the last timing
    // (all of --warmup-ms's default before the first), and notes when it ended.
    TimingStats timeWarm(Conv2d& conv, const TimingOptions& timing, WarmupReport* report);

    const Context& context_;
    RunInputs inputs_;
    Tensor input_, output_;
    std::optional<Tensor> residual_;  // the epilogue's, where the problem has one
    std::map<int64_t, std::vector<double>> references_;  // by image, computed once
    std::map<std::string, double> firstPlanMs_;           // by configuration name, from prebuild()
    bench::IdleAwareWarmup warmup_;
};

}  // namespace vkconv::cli
