// The portable fp32 path: conv2d_fp32.comp.
#include <cstring>

#include "kernels/common/tensor_io.hpp"
#include "kernels/common/kernel_specs.hpp"
#include "kernels/common/prepared_kernel.hpp"

namespace vkconv::detail {

std::vector<float> packWeightsKxN(const ConvProblem& p, const float* weight, uint32_t bRows,
                                  uint32_t bCols, uint32_t sCols) {
    const int64_t cG = p.inChannels / p.groups, kG = p.gemmN(), S = p.kernelW;
    if (sCols == 0) sCols = uint32_t(S);
    std::vector<float> packed(size_t(p.groups) * bRows * bCols, 0.0f);
    for (int64_t g = 0; g < p.groups; ++g)
        for (int64_t n = 0; n < kG; ++n) {
            const float* w = weight + (g * kG + n) * cG * p.kernelH * S;
            float* dst = packed.data() + size_t(g) * bRows * bCols + n;
            for (int64_t row = 0; row < cG * p.kernelH; ++row)  // (c, r)
                for (int64_t s = 0; s < S; ++s) dst[size_t(row * sCols + s) * bCols] = w[row * S + s];
        }
    return packed;
}

std::vector<uint8_t> floatBytes(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

PreparedKernel prepareFp32Kernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    Fp32KernelSpec spec{};
    const uint32_t bRows = roundUp(p.gemmK(), c.bk), bCols = roundUp(p.gemmN(), c.bn);
    spec.problem = makeProblemSpec(p, bRows, bCols);
    spec.bm = c.bm;
    spec.bn = c.bn;
    spec.bk = c.bk;
    spec.tm = c.as<Fp32GemmKernel>().tm;
    spec.tn = c.as<Fp32GemmKernel>().tn;
    spec.threads = c.threads();

    PreparedKernel k;
    k.pipeline = pipelineKey(outputModule("conv2d_fp32", p), spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.packedWeights = floatBytes(packWeightsKxN(p, weight, bRows, bCols));
    return k;
}

}  // namespace vkconv::detail
