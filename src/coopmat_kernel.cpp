// The cooperative-matrix path: shaders/conv2d_coopmat.comp, weights packed to fp16.
#include <cmath>
#include <cstring>

#include "kernel_specs.hpp"
#include "kernels.hpp"

namespace vkconv::detail {

// IEEE fp32 -> fp16, round to nearest even; overflow to infinity, subnormals kept.
uint16_t toHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7FFFFFFFu;
    if (absx >= 0x7F800000u) return uint16_t(sign | (absx > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (absx >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds past 65504
    if (absx < 0x38800000u) {                                   // fp16 subnormal or zero
        const float scaled = std::fabs(f) * 16777216.0f;        // 2^24: units of the smallest subnormal
        return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
    }
    const uint32_t mant = absx & 0x7FFFFFu;
    uint32_t h = ((absx >> 23) - 112) << 10 | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return uint16_t(sign | h);
}

uint32_t gemmColumnsPerRow(const KernelConfig& c, const ConvProblem& p) {
    const uint32_t lanes = c.aLoader == ALoader::Gather ? std::max(c.sLanes, 1u) : 1u;
    return roundUp(uint64_t(p.kernelW), lanes);
}

PreparedKernel prepareCoopMatKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    CoopMatKernelSpec spec{};
    const uint32_t sCols = gemmColumnsPerRow(c, p);
    const uint32_t bRows = roundUp(uint64_t(p.inChannels / p.groups * p.kernelH) * sCols, c.bk);
    const uint32_t bCols = roundUp(p.gemmN(), c.bn);
    spec.problem = makeProblemSpec(p, bRows, bCols, sCols);
    spec.bm = c.bm, spec.bn = c.bn, spec.bk = c.bk;
    spec.warpsM = c.warpsM, spec.warpsN = c.warpsN;
    spec.mmaM = c.mmaM, spec.mmaN = c.mmaN, spec.mmaK = c.mmaK;
    spec.stages = c.stages;
    spec.subgroup = c.subgroupSize;
    spec.threads = c.threads();
    spec.tileH = c.tileH;
    spec.tileW = c.tileW;
    spec.bGlobal = c.bGlobal ? VK_TRUE : VK_FALSE;
    spec.debugSkip = c.debugSkip;
    spec.sLanes = c.aLoader == ALoader::Gather ? c.sLanes : 1;

    PreparedKernel k;
    k.pipeline.shader = c.aLoader == ALoader::Patch ? "conv2d_coopmat_patch_f16" : "conv2d_coopmat_f16";
    k.pipeline.specData.resize(sizeof spec);
    std::memcpy(k.pipeline.specData.data(), &spec, sizeof spec);
    k.pipeline.entries = CoopMatKernelSpec::entries();
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;

    const std::vector<float> packed = packWeightsKxN(p, weight, bRows, bCols, sCols);
    k.packedWeights.resize(packed.size() * 2);
    auto* half = reinterpret_cast<uint16_t*>(k.packedWeights.data());
    for (size_t i = 0; i < packed.size(); ++i) half[i] = toHalf(packed[i]);
    return k;
}

}  // namespace vkconv::detail
