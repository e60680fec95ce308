// What each path contributes to a Conv2d: its pipeline key (shader and specialization
// constants) and its weights packed into the operand type and layout the shader reads.
#pragma once

#include <cstdint>
#include <vector>

#include "pipeline.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

struct PreparedKernel {
    PipelineKey pipeline;
    std::vector<uint8_t> packedWeights;  // bytes, uploaded once to binding 1
};

// Weights KCRS -> per group a [bRows][bCols] row-major matrix B[kk][n] (kk = c*R*S + r*S + s,
// n = output channel within the group), zero-padded to bRows x bCols.
std::vector<float> packWeightsKxN(const ConvProblem& problem, const float* weight, uint32_t bRows,
                                  uint32_t bCols);

PreparedKernel prepareFp32Kernel(const ConvProblem& problem, const KernelConfig& config,
                                 const float* weight);
PreparedKernel prepareCoopMatKernel(const ConvProblem& problem, const KernelConfig& config,
                                    const float* weight);

inline uint32_t roundUp(uint64_t value, uint32_t multiple) {
    return static_cast<uint32_t>((value + multiple - 1) / multiple * multiple);
}

}  // namespace vkconv::detail
