// The grouped direct kernel's host side: conv2d_grouped_direct.comp, fp32 weights in the
// order its workgroups read them.
#include <algorithm>

#include "kernels/common/tensor_io.hpp"
#include "kernels/common/kernel_specs.hpp"
#include "kernels/common/prepared_kernel.hpp"
#include "kernels/grouped_direct/grouped_direct.hpp"

namespace vkconv::detail {

PreparedKernel prepareGroupedDirectKernel(const ConvProblem& p, const KernelConfig& c, const DeviceInfo& device,
                                          const float* weight) {
    GroupedDirectSpec spec{};
    spec.problem = makeProblemSpec(p, 0, 0);
    spec.threadsW = direct(c).threadsW;
    spec.threadsH = direct(c).threadsH;
    spec.vecW = direct(c).vecW;
    spec.rows = direct(c).rows;
    spec.channels = direct(c).channels;
    spec.threads = c.threads();
    spec.groups = direct(c).groups;
    spec.groupSteps = direct(c).groupSteps;
    spec.fromMemory = direct(c).fromMemory ? VK_TRUE : VK_FALSE;
    spec.debugSkip = 0;  // parts are left out by diagnostics only (conv/diagnostics.hpp)
    // The input as it is (the "_io" module reads fp16 and NHWC inputs element by element).
    spec.inF16 = p.inputFormat.type == DataType::F16 ? VK_TRUE : VK_FALSE;
    spec.inNhwc = p.inputFormat.layout == Layout::NHWC ? VK_TRUE : VK_FALSE;

    // A workgroup's step (one input channel c of a channel block) reads the KB x R x S weights
    // it applies as 16-byte vectors: [group][channel block][c][kb][r][s], each (block, c) padded
    // to whole vectors, zero past K/groups.
    const size_t kG = size_t(p.outChannels / p.groups), cG = size_t(p.inChannels / p.groups);
    const size_t taps = size_t(p.kernelH * p.kernelW), kb = direct(c).channels;
    const size_t kBlocks = (kG + kb - 1) / kb, stepWords = (kb * taps + 3) / 4 * 4;
    std::vector<float> packed(size_t(p.groups) * kBlocks * cG * stepWords, 0.0f);
    for (size_t g = 0; g < size_t(p.groups); ++g)
        for (size_t k = 0; k < kG; ++k)
            for (size_t ch = 0; ch < cG; ++ch)
                std::copy_n(weight + ((g * kG + k) * cG + ch) * taps, taps,
                            packed.data() + ((g * kBlocks + k / kb) * cG + ch) * stepWords + (k % kb) * taps);

    PreparedKernel k;
    // Every thread of a group reads the same weights: as a uniform buffer a GPU can keep them in
    // registers its subgroup shares (NVIDIA's uniform registers) instead of each thread's own.
    const uint64_t bytes = packed.size() * sizeof(float);
    if (bytes <= device.maxUniformBufferRange) {
        spec.uniformWeightVectors = uint32_t(bytes / 16);
        k.uniformWeightBytes = bytes;
    }
    k.pipeline = pipelineKey(p.inputFormat.isDefault() ? outputModule("conv2d_grouped_direct", p) : "conv2d_grouped_direct_io", spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.packedWeights = floatBytes(packed);
    return k;
}

}  // namespace vkconv::detail
