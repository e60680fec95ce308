// What each path contributes to a Conv2d: its pipeline key (shader and specialization
// constants) and its weights packed into the operand type and layout the shader reads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kernels/common/kernel_specs.hpp"
#include "runtime/pipeline.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

struct PreparedKernel {
    PipelineKey pipeline;
    std::vector<uint8_t> packedWeights;  // bytes, uploaded once to binding 1
    // Above 0: the kernel also reads the first this many bytes of them as a uniform buffer
    // (PipelineCache::kUniformWeights).
    uint64_t uniformWeightBytes = 0;
    // Loaders that rewrite the input first: the pass that writes each chunk's packed input (its
    // size is the plan's workspace, planFor() in conv2d.cpp) and its grid for a chunk's images.
    std::optional<PipelineKey> packInput;
    std::function<uint64_t(uint64_t images)> packWorkgroups;
    // Kernels that split K (TileShape::splits): the pass that adds each chunk's partial sums into
    // the output, and its workgroups for a chunk of that many output values.
    std::optional<PipelineKey> reduce;
    std::function<uint32_t(uint64_t outputValues)> reduceWorkgroups;
};

// Weights KCRS -> per group a [bRows][bCols] row-major matrix B[kk][n] (kk = (c*R + r)*sCols + s,
// n = output channel within the group), zero-padded: rows past the K, columns past the group's
// channels, and taps s >= S when sCols > S.
std::vector<float> packWeightsKxN(const ConvProblem& problem, const float* weight, uint32_t bRows,
                                  uint32_t bCols, uint32_t sCols = 0);

PreparedKernel prepareFp32Kernel(const ConvProblem& problem, const KernelConfig& config,
                                 const float* weight);
// Weights as [group][channel block][C/groups][directChannels][R][S], each (block, channel)
// padded to whole 16-byte vectors, zero past K/groups; read as a uniform buffer where they fit
// the device's maxUniformBufferRange.
PreparedKernel prepareGroupedDirectKernel(const ConvProblem& problem, const KernelConfig& config,
                                          const DeviceInfo& device, const float* weight);
PreparedKernel prepareCoopMatKernel(const ConvProblem& problem, const KernelConfig& config,
                                    const float* weight);

// Columns per kernel row in the K ordering of the cooperative-matrix kernels: S, padded to a
// multiple of the gather loader's lanes per row.
uint32_t gemmColumnsPerRow(const KernelConfig& config, const ConvProblem& problem);

// A packed weight matrix as the bytes of its fp16 values.
std::vector<uint8_t> halfBytes(const std::vector<float>& values);
// A packed weight matrix as the bytes of its fp32 values (the fp32 kernels).
std::vector<uint8_t> floatBytes(const std::vector<float>& values);

// The cooperative-matrix kernels' constants (ids 20..34, 40) for `config` over `problem`.
CoopMatKernelSpec coopMatKernelSpec(const KernelConfig& config, const ProblemSpec& problem);

inline uint32_t roundUp(uint64_t value, uint32_t multiple) {
    return static_cast<uint32_t>((value + multiple - 1) / multiple * multiple);
}

}  // namespace vkconv::detail
