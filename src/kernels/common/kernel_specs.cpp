#include "kernels/common/kernel_specs.hpp"

namespace vkconv::detail {

ProblemSpec makeProblemSpec(const ConvProblem& p, uint32_t bRows, uint32_t bCols, uint32_t sCols) {
    ProblemSpec s{};
    s.cG = uint32_t(p.inChannels / p.groups);
    s.inH = uint32_t(p.height);
    s.inW = uint32_t(p.width);
    s.kG = uint32_t(p.outChannels / p.groups);
    s.outH = uint32_t(p.outHeight());
    s.outW = uint32_t(p.outWidth());
    s.kernelR = uint32_t(p.kernelH);
    s.kernelS = uint32_t(p.kernelW);
    s.strideH = int32_t(p.strideH);
    s.strideW = int32_t(p.strideW);
    s.padH = int32_t(p.padH);
    s.padW = int32_t(p.padW);
    s.dilH = int32_t(p.dilationH);
    s.dilW = int32_t(p.dilationW);
    s.cTotal = uint32_t(p.inChannels);
    s.kTotal = uint32_t(p.outChannels);
    s.sCols = sCols ? sCols : uint32_t(p.kernelW);
    s.gemmK = uint32_t(p.inChannels / p.groups * p.kernelH) * s.sCols;
    s.bRows = bRows;
    s.bCols = bCols;
    s.hasBias = p.bias ? VK_TRUE : VK_FALSE;
    s.epilogue = makeEpilogueSpec(p.epilogue, p.outputFormat);
    return s;
}

EpilogueSpec makeEpilogueSpec(const Epilogue& e, const TensorFormat& output) {
    EpilogueSpec s{};
    s.activation = uint32_t(e.activation);
    s.hasResidual = e.residual ? VK_TRUE : VK_FALSE;
    s.unitAlpha = e.alpha == 1.0f ? VK_TRUE : VK_FALSE;
    s.alpha = e.alpha;
    s.beta = e.beta;
    s.lower = e.activation == Activation::LeakyRelu ? e.slope : e.lower;
    s.upper = e.upper;
    s.outF16 = output.type == DataType::F16 ? VK_TRUE : VK_FALSE;
    s.outNhwc = output.layout == Layout::NHWC ? VK_TRUE : VK_FALSE;
    s.outBf16 = output.type == DataType::BF16 ? VK_TRUE : VK_FALSE;
    return s;
}

void appendEpilogueEntries(std::vector<VkSpecializationMapEntry>& e, uint32_t base) {
    const uint32_t offsets[] = {offsetof(EpilogueSpec, activation), offsetof(EpilogueSpec, hasResidual),
                                offsetof(EpilogueSpec, unitAlpha),  offsetof(EpilogueSpec, alpha),
                                offsetof(EpilogueSpec, beta),       offsetof(EpilogueSpec, lower),
                                offsetof(EpilogueSpec, upper),      offsetof(EpilogueSpec, outF16),
                                offsetof(EpilogueSpec, outNhwc),    offsetof(EpilogueSpec, outBf16)};
    const uint32_t ids[] = {42, 43, 44, 45, 46, 47, 48, 70, 71, 75};
    for (uint32_t i = 0; i < 10; ++i) e.push_back({ids[i], base + offsets[i], 4});
}

void appendProblemEntries(std::vector<VkSpecializationMapEntry>& e, uint32_t base) {
    const uint32_t offsets[] = {
        offsetof(ProblemSpec, cG),      offsetof(ProblemSpec, inH),     offsetof(ProblemSpec, inW),
        offsetof(ProblemSpec, kG),      offsetof(ProblemSpec, outH),    offsetof(ProblemSpec, outW),
        offsetof(ProblemSpec, kernelR), offsetof(ProblemSpec, kernelS), offsetof(ProblemSpec, strideH),
        offsetof(ProblemSpec, strideW), offsetof(ProblemSpec, padH),    offsetof(ProblemSpec, padW),
        offsetof(ProblemSpec, dilH),    offsetof(ProblemSpec, dilW),    offsetof(ProblemSpec, cTotal),
        offsetof(ProblemSpec, kTotal),  offsetof(ProblemSpec, gemmK),   offsetof(ProblemSpec, bRows),
        offsetof(ProblemSpec, bCols),   offsetof(ProblemSpec, hasBias)};
    for (uint32_t id = 0; id < 20; ++id) e.push_back({id, base + offsets[id], 4});
    e.push_back({41, base + uint32_t(offsetof(ProblemSpec, sCols)), 4});
    appendEpilogueEntries(e, base + uint32_t(offsetof(ProblemSpec, epilogue)));
}

}  // namespace vkconv::detail
