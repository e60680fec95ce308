// The cooperative-matrix path: conv2d_coopmat_gather.comp, weights packed to fp16.
#include "kernels/common/tensor_io.hpp"
#include "kernels/common/coopmat_common.hpp"
#include "kernels/common/kernel_specs.hpp"
#include "kernels/common/prepared_kernel.hpp"

namespace vkconv::detail {

uint32_t gemmColumnsPerRow(const KernelConfig& c, const ConvProblem& p) {
    const uint32_t lanes = c.is<CoopMatGatherKernel>() ? std::max(c.as<CoopMatGatherKernel>().sLanes, 1u) : 1u;
    return roundUp(uint64_t(p.kernelW), lanes);
}

std::vector<uint8_t> halfBytes(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * 2);
    auto* half = reinterpret_cast<uint16_t*>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i) half[i] = halfFromFloat(values[i]);
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
    k.pipeline = pipelineKey(outputModule("conv2d_coopmat_f16", p), spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;
    k.packedWeights = halfBytes(packWeightsKxN(p, weight, bRows, bCols, sCols));
    return k;
}

}  // namespace vkconv::detail
