// The grouped direct kernel's host side: shaders/conv2d_grouped_direct.comp, fp32 weights in the
// order its workgroups read them.
#include <algorithm>
#include <cstring>

#include "kernel_specs.hpp"
#include "kernels.hpp"

namespace vkconv::detail {

PreparedKernel prepareGroupedDirectKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    GroupedDirectSpec spec{};
    spec.problem = makeProblemSpec(p, 0, 0);
    spec.threadsW = c.directThreadsW;
    spec.threadsH = c.directThreadsH;
    spec.vecW = c.directVecW;
    spec.rows = c.directRows;
    spec.channels = c.directChannels;
    spec.threads = c.threads();

    // KCRS already keeps each output channel's C/groups x R x S weights together; only the
    // channel blocks' padding past K/groups is added, per group.
    const size_t kG = size_t(p.outChannels / p.groups), perChannel = size_t(p.inChannels / p.groups * p.kernelH * p.kernelW);
    const size_t kPadded = roundUp(kG, c.directChannels);
    std::vector<float> packed(size_t(p.groups) * kPadded * perChannel, 0.0f);
    for (size_t g = 0; g < size_t(p.groups); ++g)
        std::copy_n(weight + g * kG * perChannel, kG * perChannel, packed.data() + g * kPadded * perChannel);

    PreparedKernel k;
    k.pipeline = pipelineKey("conv2d_grouped_direct", spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.packedWeights.resize(packed.size() * sizeof(float));
    std::memcpy(k.packedWeights.data(), packed.data(), k.packedWeights.size());
    return k;
}

}  // namespace vkconv::detail
