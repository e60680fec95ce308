// The cooperative-matrix path: conv2d_coopmat_gather.comp, weights packed to fp16.
#include <cmath>
#include <cstring>

#include "kernels/common/coopmat_common.hpp"
#include "kernels/common/kernel_specs.hpp"
#include "kernels/common/prepared_kernel.hpp"

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
    const uint32_t lanes = c.is<CoopMatGatherKernel>() ? std::max(c.as<CoopMatGatherKernel>().sLanes, 1u) : 1u;
    return roundUp(uint64_t(p.kernelW), lanes);
}

std::vector<uint8_t> halfBytes(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * 2);
    auto* half = reinterpret_cast<uint16_t*>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i) half[i] = toHalf(values[i]);
    return bytes;
}

CoopMatKernelSpec coopMatKernelSpec(const KernelConfig& c, const ProblemSpec& problem) {
    CoopMatKernelSpec spec{};
    spec.problem = problem;
    spec.bm = c.bm, spec.bn = c.bn, spec.bk = c.bk;
    const CoopMatTiling& t = tiling(c);
    spec.warpsM = t.warpsM, spec.warpsN = t.warpsN;
    spec.mmaM = t.mmaM, spec.mmaN = t.mmaN, spec.mmaK = t.mmaK;
    spec.stages = t.stages;
    spec.subgroup = c.subgroupSize;
    spec.threads = c.threads();
    const CoopMatGatherKernel* gather = std::get_if<CoopMatGatherKernel>(&c.params);
    spec.bGlobal = gather && gather->bGlobal ? VK_TRUE : VK_FALSE;
    spec.debugSkip = 0;  // parts are left out by diagnostics only (conv/diagnostics.hpp)
    spec.sLanes = gather ? gather->sLanes : 1;
    return spec;
}

PreparedKernel prepareCoopMatKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    const uint32_t sCols = gemmColumnsPerRow(c, p);
    const uint32_t bRows = roundUp(uint64_t(p.inChannels / p.groups * p.kernelH) * sCols, c.bk);
    const uint32_t bCols = roundUp(p.gemmN(), c.bn);
    const CoopMatKernelSpec spec = coopMatKernelSpec(c, makeProblemSpec(p, bRows, bCols, sCols));

    PreparedKernel k;
    k.pipeline = pipelineKey("conv2d_coopmat_f16", spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;
    k.packedWeights = halfBytes(packWeightsKxN(p, weight, bRows, bCols, sCols));
    return k;
}

}  // namespace vkconv::detail
