#include "test_problems.hpp"

#include <algorithm>

namespace vkconv::test {

uint64_t Rng::next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t Rng::uniformInt(int64_t lo, int64_t hi) {
    // In unsigned arithmetic: hi - lo + 1 overflows int64 for wide ranges (the fuzzers' 2^63).
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + (span ? next() % span : next()));
}

float Rng::uniformFloat() {
    // 24 random bits -> [0, 1] -> [-1, 1]; exact in float.
    return static_cast<float>(next() >> 40) / static_cast<float>((1u << 24) - 1) * 2.0f - 1.0f;
}

std::vector<float> randomValues(uint64_t seed, size_t count) {
    Rng rng(seed);
    std::vector<float> v(count);
    for (auto& x : v) x = rng.uniformFloat();
    return v;
}

namespace {

// One problem from its fields, in ConvProblem::str()'s order.
struct Dims {
    int64_t n, c, h, w, k, r, s;
    int64_t strideH = 1, strideW = 1, padH = 0, padW = 0, dilH = 1, dilW = 1, groups = 1;
    bool bias = true;
};

ConvProblem make(const Dims& d) {
    ConvProblem p;
    p.batch = d.n, p.inChannels = d.c, p.height = d.h, p.width = d.w, p.outChannels = d.k;
    p.kernelH = d.r, p.kernelW = d.s;
    p.strideH = d.strideH, p.strideW = d.strideW, p.padH = d.padH, p.padW = d.padW;
    p.dilationH = d.dilH, p.dilationW = d.dilW, p.groups = d.groups, p.bias = d.bias;
    return p;
}

// Fields after the sizes, named so that each case reads as what it tests.
Dims stride(Dims d, int64_t h, int64_t w) { d.strideH = h, d.strideW = w; return d; }
Dims pad(Dims d, int64_t h, int64_t w) { d.padH = h, d.padW = w; return d; }
Dims dilation(Dims d, int64_t h, int64_t w) { d.dilH = h, d.dilW = w; return d; }
Dims groups(Dims d, int64_t g) { d.groups = g; return d; }
Dims noBias(Dims d) { d.bias = false; return d; }

}  // namespace

std::vector<NamedProblem> edgeCaseProblems() {
    const std::vector<std::pair<const char*, Dims>> cases = {
        // Smallest sizes.
        {"batch1_3x3", pad({1, 3, 8, 8, 4, 3, 3}, 1, 1)},
        {"c1_k1_n1", {1, 1, 5, 5, 1, 3, 3}},
        {"c1_k8", pad({2, 1, 9, 9, 8, 3, 3}, 1, 1)},
        {"k1_c6", {2, 6, 7, 7, 1, 3, 3}},
        {"k1_c1_1x1", {3, 1, 4, 4, 1, 1, 1}},
        {"input_1x1_kernel_1x1", {4, 3, 1, 1, 5, 1, 1}},
        {"input_1x1_kernel_3x3_pad1", pad({2, 3, 1, 1, 4, 3, 3}, 1, 1)},
        {"input_1xW", pad({1, 2, 1, 17, 3, 1, 3}, 0, 1)},
        {"input_Hx1", {1, 2, 19, 1, 3, 3, 1}},
        {"output_1x1_by_stride", stride({1, 3, 8, 8, 4, 3, 3}, 8, 8)},
        {"kernel_equals_input", {2, 4, 5, 5, 6, 5, 5}},
        // 1x1 kernels.
        {"k1x1_c16_k32", {2, 16, 8, 8, 32, 1, 1}},
        {"k1x1_stride2", stride({1, 8, 9, 9, 16, 1, 1}, 2, 2)},
        {"k1x1_pad1", pad({1, 4, 5, 5, 4, 1, 1}, 1, 1)},
        {"k1x1_c256_k64", {1, 256, 7, 7, 64, 1, 1}},
        // Kernels no larger than their stride, no padding (patch embeddings, 2x2 downsamples): each
        // input read once; rows and columns past the last window left out.
        {"patchify_2x2_s2", stride({2, 24, 14, 10, 40, 2, 2}, 2, 2)},
        {"patchify_4x4_s4_c3_ragged", stride({2, 3, 18, 22, 20, 4, 4}, 4, 4)},
        {"patchify_3x2_s3x2_no_bias", noBias(stride({1, 20, 13, 9, 24, 3, 2}, 3, 2))},
        // 11x11 kernels.
        {"k11x11_s4_p2", pad(stride({1, 3, 47, 47, 16, 11, 11}, 4, 4), 2, 2)},
        {"k11x11_s1", {1, 2, 15, 13, 5, 11, 11}},
        {"k11x11_pad11", pad({1, 1, 3, 3, 2, 11, 11}, 11, 11)},
        {"k11x11_no_bias", noBias(pad({2, 3, 20, 18, 7, 11, 11}, 3, 2))},
        // Stride larger than the kernel.
        {"stride3_kernel2", stride({1, 3, 17, 17, 4, 2, 2}, 3, 3)},
        {"stride5_kernel1", stride({1, 4, 20, 20, 4, 1, 1}, 5, 5)},
        {"stride5x4_kernel3", pad(stride({2, 3, 19, 23, 5, 3, 3}, 5, 4), 1, 0)},
        // Padding as large as (or larger than) the kernel.
        {"pad3_kernel3", pad({1, 3, 6, 6, 4, 3, 3}, 3, 3)},
        {"pad2_kernel2", pad({1, 2, 5, 7, 3, 2, 2}, 2, 2)},
        {"pad5_kernel5_tiny_input", pad({1, 2, 4, 4, 3, 5, 5}, 5, 5)},
        {"pad_larger_than_kernel", pad({2, 3, 5, 6, 4, 3, 3}, 4, 5)},
        // Dilation.
        {"dilation2", pad(dilation({1, 4, 16, 16, 8, 3, 3}, 2, 2), 2, 2)},
        {"dilation3_no_pad", dilation({1, 3, 20, 20, 4, 3, 3}, 3, 3)},
        {"dilation_2x3_nonsquare", pad(dilation(stride({2, 3, 15, 17, 6, 3, 2}, 2, 1), 2, 3), 1, 2)},
        {"dilation2_stride2", pad(stride(dilation({1, 3, 21, 21, 4, 3, 3}, 2, 2), 2, 2), 2, 2)},
        {"dilated_kernel_fills_input", dilation({1, 2, 5, 5, 3, 3, 3}, 2, 2)},
        {"dilation4_5x5", pad(dilation({1, 2, 24, 24, 5, 5, 5}, 4, 4), 4, 4)},
        // Groups.
        {"groups2", groups({2, 8, 10, 10, 8, 3, 3}, 2)},
        {"groups4_pad1", groups(pad({1, 16, 8, 8, 32, 3, 3}, 1, 1), 4)},
        {"depthwise_c8", groups(pad({1, 8, 12, 12, 8, 3, 3}, 1, 1), 8)},
        {"depthwise_c32_stride2", groups(pad(stride({2, 32, 15, 15, 32, 3, 3}, 2, 2), 1, 1), 32)},
        {"depthwise_5x5", groups(pad({1, 16, 11, 11, 16, 5, 5}, 2, 2), 16)},
        {"depthwise_no_bias", noBias(groups(pad({2, 12, 9, 9, 12, 3, 3}, 1, 1), 12))},
        {"depthwise_c1", {1, 1, 6, 6, 1, 3, 3}},
        {"depthwise_multiplier2", groups({1, 6, 9, 9, 12, 3, 3}, 6)},
        {"grouped_kg2_cg4", groups({1, 12, 9, 9, 6, 3, 3}, 3)},
        {"grouped_kg5_cg2", groups(pad({2, 6, 8, 8, 15, 3, 3}, 1, 1), 3)},
        {"grouped_prime_g5", groups({1, 10, 7, 7, 15, 3, 3}, 5)},
        {"grouped_g3_kg33", groups(pad({1, 9, 6, 6, 99, 3, 3}, 1, 1), 3)},
        // Odd and prime sizes.
        {"prime_7x13_c5", pad({1, 5, 7, 13, 7, 3, 3}, 1, 1)},
        {"prime_13x7_c5_k11", pad(stride({3, 5, 13, 7, 11, 5, 3}, 2, 1), 2, 1)},
        {"prime_11x17_c7_k13", pad({1, 7, 11, 17, 13, 3, 5}, 1, 2)},
        {"prime_batch7", pad({7, 3, 5, 5, 3, 3, 3}, 1, 1)},
        {"prime_c31_k29", pad({1, 31, 9, 9, 29, 3, 3}, 1, 1)},
        // Non-square kernels, strides, padding.
        {"kernel_1x7", pad({1, 4, 9, 15, 6, 1, 7}, 0, 3)},
        {"kernel_7x1", pad({1, 4, 15, 9, 6, 7, 1}, 3, 0)},
        {"kernel_2x5_stride_1x3", pad(stride({2, 3, 12, 20, 5, 2, 5}, 1, 3), 2, 0)},
        {"stride_3x1_pad_0x2", pad(stride({1, 5, 16, 10, 8, 3, 3}, 3, 1), 0, 2)},
        // No bias.
        {"no_bias_3x3", noBias(pad({2, 4, 10, 10, 8, 3, 3}, 1, 1))},
        {"no_bias_1x1", noBias({1, 32, 6, 6, 16, 1, 1})},
        {"no_bias_grouped", noBias(groups({1, 8, 7, 9, 12, 3, 1}, 4))},
        // GEMM sizes just off whole tiles (M = N*OH*OW, N = K/groups, K = C/groups*R*S).
        {"gemm_m35_n13_k27", {1, 3, 7, 9, 13, 3, 3}},
        {"gemm_m129_n65_k17", {1, 17, 3, 43, 65, 1, 1}},
        {"gemm_m127_n63_k15", pad({1, 15, 1, 127, 63, 1, 1}, 0, 0)},
        {"gemm_m64_n64_k64", {1, 64, 8, 8, 64, 1, 1}},
        {"gemm_m257_n129_k33", {1, 33, 1, 257, 129, 1, 1}},
        {"gemm_n97_k99", pad({2, 11, 6, 6, 97, 3, 3}, 1, 1)},
        {"gemm_m_crosses_images", pad({17, 3, 4, 4, 5, 3, 3}, 1, 1)},
        {"gemm_k1", {3, 1, 9, 11, 9, 1, 1}},
        // Moderate real-network layers.
        {"resnet_like_3x3_c64", pad({1, 64, 14, 14, 64, 3, 3}, 1, 1)},
        {"resnet_like_downsample", stride({2, 32, 14, 14, 64, 1, 1}, 2, 2)},
        {"mobilenet_like_depthwise", groups(pad(stride({1, 64, 28, 28, 64, 3, 3}, 2, 2), 1, 1), 64)},
        // AlexNet's first layer at small batch, with and without its padding.
        {"alexnet1_n2", pad(stride({2, 3, 224, 224, 96, 11, 11}, 4, 4), 2, 2)},
        {"alexnet1_227_n1_no_pad", stride({1, 3, 227, 227, 96, 11, 11}, 4, 4)},
        // Several channel slices under strides, dilations and padding that differ by axis: the
        // channels-last kernel's taps-inner K order walks taps and slices in both directions.
        {"c40_strided_dilated_3x3", pad(dilation(stride({2, 40, 13, 11, 24, 3, 3}, 2, 1), 1, 2), 2, 1)},
    };
    std::vector<NamedProblem> out;
    uint64_t seed = 1000;
    for (const auto& [name, dims] : cases) out.push_back({name, make(dims), seed++});
    return out;
}

namespace {

// One random problem: every parameter varied, sizes kept small so the suite stays fast.
ConvProblem randomProblem(Rng& rng) {
    ConvProblem p;
    const int64_t kind = rng.uniformInt(0, 9);
    if (kind < 6) {
        p.groups = 1;
    } else if (kind < 8) {
        p.groups = rng.uniformInt(2, 4);
    } else {
        p.groups = rng.uniformInt(1, 16);  // depthwise (or channel multiplier) below
    }
    const int64_t cg = kind >= 8 ? 1 : rng.uniformInt(1, rng.uniformInt(0, 3) ? 8 : 24);
    const int64_t kg = kind >= 8 ? rng.uniformInt(1, 2) : rng.uniformInt(1, rng.uniformInt(0, 3) ? 24 : 70);
    p.inChannels = cg * p.groups;
    p.outChannels = kg * p.groups;
    p.kernelH = rng.uniformInt(1, rng.uniformInt(0, 9) ? 5 : 7);
    p.kernelW = rng.uniformInt(0, 2) ? p.kernelH : rng.uniformInt(1, 5);
    p.dilationH = rng.uniformInt(0, 3) ? 1 : rng.uniformInt(2, 3);
    p.dilationW = rng.uniformInt(0, 3) ? 1 : rng.uniformInt(2, 3);
    p.strideH = rng.uniformInt(1, rng.uniformInt(0, 4) ? 2 : 4);
    p.strideW = rng.uniformInt(0, 2) ? p.strideH : rng.uniformInt(1, 3);
    p.padH = rng.uniformInt(0, p.kernelH);
    p.padW = rng.uniformInt(0, 2) ? std::min(p.padH, p.kernelW) : rng.uniformInt(0, p.kernelW);
    // The dilated kernel must fit the padded input.
    const int64_t minH = std::max<int64_t>(1, p.dilationH * (p.kernelH - 1) + 1 - 2 * p.padH);
    const int64_t minW = std::max<int64_t>(1, p.dilationW * (p.kernelW - 1) + 1 - 2 * p.padW);
    p.height = rng.uniformInt(minH, minH + 18);
    p.width = rng.uniformInt(0, 2) ? std::max(minW, p.height) : rng.uniformInt(minW, minW + 18);
    p.batch = rng.uniformInt(1, 4);
    p.bias = rng.uniformInt(0, 3) != 0;
    return p;
}

}  // namespace

std::vector<NamedProblem> randomProblems() {
    std::vector<NamedProblem> out;
    for (uint64_t seed = 1; seed <= 160; ++seed) {
        Rng rng(seed);
        out.push_back({"random_seed" + std::to_string(seed), randomProblem(rng), seed});
    }
    return out;
}

std::vector<NamedProblem> correctnessProblems() {
    std::vector<NamedProblem> all = edgeCaseProblems();
    for (auto& p : randomProblems()) all.push_back(std::move(p));
    return all;
}

std::vector<NamedProblem> chunkingProblems() {
    const std::vector<std::pair<const char*, Dims>> cases = {
        // 181548-byte input images (not a multiple of any alignment): 2 images per chunk by the
        // output, 3 chunks; ~470 M tiles per chunk split 4 at a time.
        {"unaligned_images_3_chunks", pad({5, 3, 123, 123, 7, 3, 3}, 1, 1)},
        // 5 groups split into 2 + 2 + 1 along Z; 4 images per chunk, 3 chunks.
        {"groups5_split_z", groups(pad({9, 10, 61, 61, 15, 3, 3}, 1, 1), 5)},
        {"depthwise_2_chunks", groups(pad({4, 7, 100, 100, 7, 3, 3}, 1, 1), 7)},
        // One image per chunk, output image just under 1 MiB.
        {"one_image_per_chunk", pad({3, 1, 300, 300, 2, 5, 5}, 2, 2)},
        {"alexnet_like_6_chunks", stride({6, 3, 227, 227, 8, 11, 11}, 4, 4)},
        // 64 KiB images: 15 per chunk once the alignment slack is taken off, 3 chunks.
        {"aligned_images_3_chunks", noBias(pad({33, 4, 64, 64, 4, 3, 3}, 1, 1))},
        {"strided_dilated_chunks", pad(dilation(stride({7, 5, 97, 89, 6, 3, 3}, 2, 2), 2, 2), 2, 2)},
        // 1x1 over 10800-byte input images (an odd multiple of 16 bytes): 36 images per chunk by
        // the output, 3 chunks; the NCHW loader's 16-byte loads from each chunk's offset.
        {"k1x1_chunks", noBias({100, 3, 30, 30, 8, 1, 1})},
        // A strided 1x1 over 48-channel 31x31 images (184512 bytes): 5 images per chunk, 3 chunks;
        // the channels-last packing pass keeps one pixel in 2x2 from each chunk's offset.
        {"k1x1_stride2_chunks", stride({13, 48, 31, 31, 24, 1, 1}, 2, 2)},
    };
    std::vector<NamedProblem> out;
    uint64_t seed = 5000;
    for (const auto& [name, dims] : cases) out.push_back({name, make(dims), seed++});
    return out;
}

std::vector<NamedProblem> validationProblems() {
    std::vector<NamedProblem> out;
    const auto edges = edgeCaseProblems();
    // Every other edge case that is cheap (validation slows every call down), then random ones.
    for (size_t i = 0; i < edges.size(); i += 2)
        if (edges[i].problem.flops() < 4e6) out.push_back(edges[i]);
    for (auto& p : randomProblems()) {
        if (out.size() >= 30) break;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace vkconv::test
