#include "kernels/common/tensor_io.hpp"
#include "kernels/channels_last/nhwc_input.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/channels_last/channels_last_params.hpp"

namespace vkconv::detail {

uint32_t nhwcChannels(const ConvProblem& p, uint32_t bk) {
    return roundUp(uint64_t(p.inChannels), std::max(bk, 8u));
}

bool nhwcSubsamples(const ConvProblem& p) {
    return p.kernelH == 1 && p.kernelW == 1 && p.padH == 0 && p.padW == 0 && p.strided();
}

bool nhwcReadsInPlace(const ConvProblem& p) {
    return p.inputFormat == TensorFormat{DataType::F16, Layout::NHWC} && p.inChannels % 8 == 0 && !nhwcSubsamples(p);
}

ConvProblem nhwcPackedProblem(const ConvProblem& p) {
    if (!nhwcSubsamples(p)) return p;
    ConvProblem q = p;
    q.height = p.outHeight(), q.width = p.outWidth();
    q.strideH = q.strideW = 1;
    return q;
}

uint32_t nhwcPackParts(const ConvProblem& p) {
    const ConvProblem q = nhwcPackedProblem(p);
    return uint32_t((uint64_t(q.height) * uint64_t(q.width) + 255) / 256);
}

uint32_t nhwcPackChannels(const ConvProblem& p) {
    const ConvProblem q = nhwcPackedProblem(p);
    const uint64_t parts = nhwcPackParts(p);
    const uint64_t partPixels = (uint64_t(q.height) * uint64_t(q.width) + parts - 1) / parts;
    return partPixels <= 64 ? 64 : partPixels <= 128 ? 32 : 16;
}

uint64_t nhwcImageBytes(const ConvProblem& p, uint32_t bk) {
    if (nhwcReadsInPlace(p)) return 0;
    const ConvProblem q = nhwcPackedProblem(p);
    return uint64_t(q.height) * uint64_t(q.width) * nhwcChannels(p, bk) * 2;
}

std::string channelsLastKernelRules(const KernelConfig& c, const ConvProblem& p, const std::string& loader) {
    if (c.bk % 8 || c.bn % 8) return loader + " needs BK and BN multiples of 8 (16-byte words)";
    if (tiling(c).stages != 2) return loader + " takes two stages";
    // Padding C to BK multiplies the GEMM K: refuse more than 2x (3-channel first layers belong
    // to the packed loader, which folds the stride into the channels).
    if (nhwcChannels(p, c.bk) > 2 * std::max<int64_t>(p.inChannels, 8))
        return "C = " + std::to_string(p.inChannels) + " padded to BK " + std::to_string(c.bk) +
               " would more than double the GEMM K";
    const uint64_t bRows = uint64_t(p.kernelH) * p.kernelW * nhwcChannels(p, c.bk);
    if (bRows * roundUp(uint64_t(p.outChannels), c.bn) * 2 > (1ull << 31)) return "the packed weights exceed 2 GiB";
    return "";
}

std::string nhwcCanImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (p.groups != 1) return "the channels-last loader serves groups = 1 only";
    if (std::string why = channelsLastKernelRules(c, p, "the channels-last loader"); !why.empty()) return why;
    // The packed input of one image is bound as (part of) one buffer range, and word indices
    // are 32-bit in the shader.
    const uint64_t image = nhwcImageBytes(p, c.bk);
    if (image > std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31))
        return "one image's channels-last input (" + std::to_string(image) + " bytes) exceeds maxStorageBufferRange " +
               std::to_string(d.maxStorageBufferRange);
    return "";
}

uint32_t nhwcSharedMemoryBytes(const KernelConfig& c) {
    const CoopMatTiling& t = tiling(c);
    // conv2d_channels_last.comp: sA[2][BM][BK/8 + 1], sB[2][BK][BN/8 + 1] 16-byte words,
    // sBias[BN] floats, sFragmentPositions[MMA_M * MMA_N] floats.
    const uint64_t words = 2ull * c.bm * (c.bk / 8 + 1) + 2ull * c.bk * (c.bn / 8 + 1);
    return static_cast<uint32_t>(std::min<uint64_t>(words * 16 + uint64_t(c.bn) * 4 + t.mmaM * t.mmaN * 4, 1u << 30));
}

std::vector<VkSpecializationMapEntry> CoopMatNhwcKernelSpec::entries() {
    std::vector<VkSpecializationMapEntry> e = CoopMatKernelSpec::entries();
    for (auto& entry : e) entry.offset += offsetof(CoopMatNhwcKernelSpec, kernel);
    e.push_back({60, offsetof(CoopMatNhwcKernelSpec, channels), 4});
    e.push_back({62, offsetof(CoopMatNhwcKernelSpec, tapsInner), sizeof(VkBool32)});
    e.push_back({64, offsetof(CoopMatNhwcKernelSpec, slice), 4});
    e.push_back({65, offsetof(CoopMatNhwcKernelSpec, fragmentPrefetch), sizeof(VkBool32)});
    e.push_back({66, offsetof(CoopMatNhwcKernelSpec, splitK), 4});
    e.push_back({74, offsetof(CoopMatNhwcKernelSpec, inPlace), sizeof(VkBool32)});
    return e;
}

std::vector<VkSpecializationMapEntry> PackNhwcKernelSpec::entries() {
    std::vector<VkSpecializationMapEntry> e;
    appendProblemEntries(e, offsetof(PackNhwcKernelSpec, problem));
    e.push_back({60, offsetof(PackNhwcKernelSpec, channels), 4});
    e.push_back({63, offsetof(PackNhwcKernelSpec, subsample), sizeof(VkBool32)});
    e.push_back({64, offsetof(PackNhwcKernelSpec, slice), 4});
    e.push_back({72, offsetof(PackNhwcKernelSpec, inF16), sizeof(VkBool32)});
    e.push_back({73, offsetof(PackNhwcKernelSpec, inNhwc), sizeof(VkBool32)});
    e.push_back({74, offsetof(PackNhwcKernelSpec, inputPart), 4});
    return e;
}

std::vector<float> packWeightsChannelsLast(const ConvProblem& p, const float* weight, uint32_t channels,
                                           uint32_t bCols, uint32_t bk, bool tapsInner) {
    const int64_t R = p.kernelH, S = p.kernelW, C = p.inChannels;
    std::vector<float> b(size_t(R * S * channels) * bCols, 0.0f);
    for (int64_t n = 0; n < p.outChannels; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < R; ++r)
                for (int64_t s = 0; s < S; ++s) {
                    const int64_t k = tapsInner ? ((c / bk) * R * S + r * S + s) * bk + c % bk : (r * S + s) * channels + c;
                    b[size_t(k) * bCols + size_t(n)] = weight[((n * C + c) * R + r) * S + s];
                }
    return b;
}

PreparedKernel prepareNhwcCoopMatKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    const ChannelsLastTiling& cl = channelsLast(c);
    const uint32_t channels = nhwcChannels(p, c.bk);
    const uint32_t bRows = uint32_t(p.kernelH * p.kernelW) * channels;
    const uint32_t bCols = roundUp(p.gemmN(), c.bn);
    // The conv runs on the packed image: the problem as given, or (a strided 1x1) subsampled.
    const ConvProblem packed = nhwcPackedProblem(p);
    const bool inPlace = nhwcReadsInPlace(p);
    CoopMatNhwcKernelSpec spec{};
    spec.kernel = coopMatKernelSpec(c, makeProblemSpec(packed, bRows, bCols));
    spec.inPlace = inPlace ? VK_TRUE : VK_FALSE;
    spec.channels = channels;
    spec.tapsInner = cl.tapsInner ? VK_TRUE : VK_FALSE;
    spec.slice = c.bk;  // the packed input's channel slices are the kernel's K slices
    spec.fragmentPrefetch = cl.fragmentPrefetch ? VK_TRUE : VK_FALSE;
    spec.splitK = cl.splitK;
    PreparedKernel k;
    // Reading the input in place is the "_io" module's, as are outputs of other formats.
    k.pipeline = pipelineKey(inPlace ? "conv2d_coopmat_nhwc_f16_io" : outputModule("conv2d_coopmat_nhwc_f16", p), spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;
    k.packedWeights = halfBytes(packWeightsChannelsLast(p, weight, channels, bCols, c.bk, cl.tapsInner));
    const VkBool32 subsample = nhwcSubsamples(p) ? VK_TRUE : VK_FALSE;
    if (inPlace) return k;
    // The packing pass reads the input in its own type and layout (its "_io" build where that is
    // not fp32 NCHW).
    const PackNhwcKernelSpec pack{makeProblemSpec(p, bRows, bCols), channels, subsample, c.bk,
                                  p.inputFormat.type == DataType::F16 ? VK_TRUE : VK_FALSE,
                                  p.inputFormat.layout == Layout::NHWC ? VK_TRUE : VK_FALSE, 0};
    k.packInput = pipelineKey(p.inputFormat.isDefault() ? "pack_input_nhwc_f16" : "pack_input_nhwc_f16_io", pack);
    // pack_input_nhwc_f16.comp: one workgroup per image, part of a plane and
    // nhwcPackChannels channels.
    const uint64_t workgroups = uint64_t(nhwcPackParts(p)) * ((channels + nhwcPackChannels(p) - 1) / nhwcPackChannels(p));
    k.packWorkgroups = [workgroups](uint64_t images) { return images * workgroups; };
    return k;
}

}  // namespace vkconv::detail
