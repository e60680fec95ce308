#include "kernels/common/tensor_io.hpp"
#include "kernels/coopmat_packed/packed_input.hpp"

#include <algorithm>

#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

// b = 0 (a configuration canImplement has not checked yet) counts as 1 rather than trapping.
uint32_t ceilDiv(uint64_t a, uint64_t b) {
    b = std::max<uint64_t>(b, 1);
    return static_cast<uint32_t>((a + b - 1) / b);
}

}  // namespace

std::string packedInputSupport(const ConvProblem& p) {
    if (p.groups != 1) return "the packed loader serves groups = 1 only";
    if (p.dilationH != 1 || p.dilationW != 1) return "the packed loader serves dilation 1 only";
    // Packed channels per pixel: beyond a few hundred, the window of packed pixels no longer fits
    // a workgroup's shared memory (canImplement checks the exact size).
    if (!detail::checkedProduct({p.inChannels, p.strideH, p.strideW}, 4096))
        return "C*stride_h*stride_w = " + std::to_string(p.inChannels) + "*" + std::to_string(p.strideH) + "*" +
               std::to_string(p.strideW) +
               " packed channels is more than the packed loader serves (4096)";
    return "";
}

PackedInputLayout packedInputLayout(const ConvProblem& p, uint32_t bm, uint32_t bk, uint32_t mmaK) {
    PackedInputLayout l;
    l.kernelRows = ceilDiv(p.kernelH, p.strideH);
    l.kernelCols = ceilDiv(p.kernelW, p.strideW);
    // Each tap (r, s) of the stride-1 kernel is its own K run of tapK channels of one packed
    // pixel, so the GEMM K holds no channel padding beyond the MMA's K (alexnet1: 9 x 48 = 432;
    // with one run per kernel row it was 3 x 176 = 528).
    l.tapK = roundUp(uint64_t(p.inChannels) * p.strideH * p.strideW, std::max(mmaK, 1u));
    // An odd number of 16-byte units per packed pixel: the window's rows are PACK_C halves apart,
    // and an odd multiple of 16 bytes puts the 8 rows of a fragment load in 8 different bank
    // groups (H200, alexnet1: 48 -> 56, 0.720 -> 0.662 ms). The extra channels are never read.
    l.channels = roundUp(l.tapK, 8);
    if ((l.channels / 8) % 2 == 0) l.channels += 8;
    l.height = static_cast<uint32_t>(p.outHeight()) + l.kernelRows - 1;
    l.width = static_cast<uint32_t>(p.outWidth()) + l.kernelCols - 1;
    l.gemmK = roundUp(uint64_t(l.kernelRows) * l.kernelCols * l.tapK, std::max(bk, 1u));
    l.tilesPerImage = ceilDiv(uint64_t(p.outHeight()) * l.width, bm);
    return l;
}

uint64_t PackedInputLayout::windowBytes(uint32_t bm) const {
    // packed_window.glsl: WINDOW_LOAD_WORDS 16-byte words.
    const uint64_t rows = uint64_t(bm) - 1 + uint64_t(kernelRows - 1) * width + kernelCols - 1;
    return (rows * channels + tapK + 7) / 8 * 16;
}

uint32_t packedWindowWords(const PackedInputLayout& layout, const KernelConfig& c) {
    const uint64_t window = layout.windowBytes(c.bm) / 16;
    const uint64_t staged = uint64_t(packed(c).warpsN) * c.bm * (packed(c).mmaN + 4) / 4;  // the epilogue's warp tiles
    return static_cast<uint32_t>(std::min<uint64_t>(std::max(window, staged), 1u << 26));
}

PackedInputSpec PackedInputSpec::from(const PackedInputLayout& l) {
    return {l.kernelRows, l.kernelCols, l.channels, l.height, l.width, l.tapK, l.tilesPerImage};
}

void PackedInputSpec::appendEntries(std::vector<VkSpecializationMapEntry>& e, uint32_t base) {
    const uint32_t offsets[] = {
        offsetof(PackedInputSpec, kernelRows), offsetof(PackedInputSpec, kernelCols),
        offsetof(PackedInputSpec, channels),   offsetof(PackedInputSpec, height),
        offsetof(PackedInputSpec, width),      offsetof(PackedInputSpec, tapK),
        offsetof(PackedInputSpec, tilesPerImage)};
    for (uint32_t i = 0; i < 7; ++i) e.push_back({50 + i, base + offsets[i], 4});
}

std::vector<VkSpecializationMapEntry> PackInputKernelSpec::entries() {
    std::vector<VkSpecializationMapEntry> e;
    appendProblemEntries(e, offsetof(PackInputKernelSpec, problem));
    PackedInputSpec::appendEntries(e, offsetof(PackInputKernelSpec, packed));
    return e;
}

std::vector<VkSpecializationMapEntry> CoopMatPackedKernelSpec::entries() {
    std::vector<VkSpecializationMapEntry> e = CoopMatKernelSpec::entries();
    for (auto& entry : e) entry.offset += offsetof(CoopMatPackedKernelSpec, kernel);
    PackedInputSpec::appendEntries(e, offsetof(CoopMatPackedKernelSpec, packed));
    e.push_back({58, offsetof(CoopMatPackedKernelSpec, tilesPerWorkgroup), 4});
    e.push_back({59, offsetof(CoopMatPackedKernelSpec, windowWords), 4});
    return e;
}

namespace {

// Weights KCRS -> B[(r'*PACK_S + s')*tapK + j][n], j = (c*strideH + dy)*strideW + dx the packed
// channel of tap (r'*strideH + dy, s'*strideW + dx); zero where that tap is past the kernel and
// in every padding row and column.
std::vector<float> packWeightsForPackedInput(const ConvProblem& p, const PackedInputLayout& l,
                                             const float* weight, uint32_t bCols) {
    const int64_t sh = p.strideH, sw = p.strideW, R = p.kernelH, S = p.kernelW, C = p.inChannels;
    std::vector<float> b(size_t(l.gemmK) * bCols, 0.0f);
    for (int64_t n = 0; n < p.outChannels; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < R; ++r)
                for (int64_t s = 0; s < S; ++s) {
                    const int64_t j = (c * sh + r % sh) * sw + s % sw;
                    const int64_t row = ((r / sh) * l.kernelCols + s / sw) * l.tapK + j;
                    b[size_t(row) * bCols + n] = weight[((n * C + c) * R + r) * S + s];
                }
    return b;
}

}  // namespace

PreparedKernel preparePackedCoopMatKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    const PackedInputLayout layout = packedInputLayout(p, c.bm, c.bk, packed(c).mmaK);
    const uint32_t bCols = roundUp(p.gemmN(), c.bn);

    CoopMatPackedKernelSpec spec{};
    spec.kernel = coopMatKernelSpec(c, makeProblemSpec(p, layout.gemmK, bCols));
    spec.packed = PackedInputSpec::from(layout);
    spec.tilesPerWorkgroup = std::max(packed(c).tilesPerWorkgroup, 1u);
    spec.windowWords = packedWindowWords(layout, c);

    PreparedKernel k;
    k.pipeline = pipelineKey(outputModule("conv2d_coopmat_packed_breg_f16", p), spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;
    k.packedWeights = halfBytes(packWeightsForPackedInput(p, layout, weight, bCols));

    k.packInput = pipelineKey("pack_input_f16", PackInputKernelSpec{spec.kernel.problem, spec.packed});
    // pack_input_f16.comp: one thread per 16-byte word, 256 a workgroup.
    const uint64_t imageWords = layout.imageHalves() / 8;
    k.packWorkgroups = [imageWords](uint64_t images) { return (images * imageWords + 255) / 256; };
    return k;
}

}  // namespace vkconv::detail
