// Measuring one configuration for `vkconv sweep`: build it (a Conv2d with exactly that
// configuration), run it once and compare sample images with the CPU reference, then time it
// with GPU timestamps. A configuration that fails to build or run, or gives a wrong result, is
// recorded as such and never timed or selected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "run_inputs.hpp"
#include "vkconv/context.hpp"
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
};
const char* toString(CandidateResult::Status status);

struct TimingOptions {
    int warmup = 3;
    int iterations = 20;
};

// One problem on one device: inputs, device tensors and the reference of the sample images,
// made once and shared by every configuration measured.
class SweepBench {
public:
    SweepBench(const Context& context, const ConvProblem& problem, uint64_t seed);

    const ConvProblem& problem() const { return inputs_.problem; }
    const std::vector<int64_t>& sampleImages() const { return images_; }

    // Builds, checks and (if correct) times `config`. Throws only for failures that end the
    // sweep (the device was lost); everything else is recorded in the result.
    CandidateResult measure(const KernelConfig& config, const TimingOptions& timing);

    // Times `config` again (it was measured before, so its pipeline is cached): the confirming
    // timing of the acceptance rule.
    TimingStats retime(const KernelConfig& config, const TimingOptions& timing);

private:
    const Context& context_;
    RunInputs inputs_;
    Tensor input_, output_;
    std::vector<int64_t> images_;           // sample images checked
    std::vector<std::vector<double>> refs_;  // their reference outputs
    bool spunUp_ = false;                    // the device has been kept busy before timing
};

}  // namespace vkconv::cli
