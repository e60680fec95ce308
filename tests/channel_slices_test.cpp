// The channels-last kernel's packed input is laid out in slices of BK channels
// (nhwc_input.glsl): the packing pass and the kernel must agree on that layout for every
// BK the candidates take, in both K orders, with padding channels in the last slice. The
// correctness suite forces the heuristic's channels-last configuration, which has one BK a
// problem; these cases run each BK on problems whose channels fill no slice evenly: a strided,
// dilated, padded 3x3, a strided 3x3 with wider outputs (its packed columns in phases), 3x3s
// whose planes the packing pass takes with 64, 32 and 16 channels a workgroup, whole or in parts,
// and a strided 1x1 (whose packing pass keeps one pixel in four). Checked against the double-precision reference on fresh random inputs into a
// NaN-filled output with its guard (checkConvWith). Each is also run with fragment prefetch,
// whose pipeline (fragments held across the barrier, the next slice's loaded during the
// multiply) has its own start and end for one, two and several K slices and several k steps a
// slice. And with split-K (src/split_k.hpp): the K slices shared among 3 and 9 workgroups (three
// slices each, one), with and without prefetch and taps-inner, the bias in split 0 only, the
// reduce pass adding the partials; a 1x1 on both loaders (the NCHW one reading fp32 input); and
// on batches split into chunks (the partials reused, a reduce pass per chunk).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "conv_check.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv::test {
namespace {

struct SliceCase {
    std::string name;
    ConvProblem problem;
    uint32_t bk;
    bool tapsInner;
    bool fragmentPrefetch = false;
    uint32_t splitK = 1;
    std::string kernel = ChannelsLastNhwcKernel::kName;
    bool narrow = false;  // under narrowProfile(): several chunks, several dispatches a chunk, Z at most 2
};

ConvProblem problem(int64_t c, int64_t hw, int64_t k, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
    ConvProblem p;
    p.batch = 3, p.inChannels = c, p.height = hw, p.width = hw + 3, p.outChannels = k;
    p.kernelH = p.kernelW = kernel;
    p.strideH = p.strideW = stride;
    p.padH = pad, p.padW = pad + 1;
    p.dilationH = p.dilationW = dilation;
    return p;
}

std::vector<SliceCase> sliceCases() {
    std::vector<SliceCase> out;
    // 40 channels: three slices of 16 (8 padding channels), two of 32 (24), one of 64 (24; one
    // slice has no taps-inner order). Planes of 11 x 14 pixels: packed whole, 16 channels a
    // workgroup (nhwcPackChannels), part of a slice where slices are 32 or 64 channels.
    const ConvProblem spatial = problem(40, 11, 24, 3, 2, 1, 2);
    for (uint32_t bk : {16u, 32u, 64u})
        for (bool tapsInner : {false, true})
            if (!tapsInner || bk < 64)
                out.push_back({"3x3_bk" + std::to_string(bk) + (tapsInner ? "_taps_inner" : ""), spatial, bk, tapsInner});
    // A strided 3x3 with outputs 12 wide (the one above: 7): each packed row's 21 columns in two
    // phases, read 8 rows to a word (conv2d_channels_last.comp, A_WORD_MAJOR).
    const ConvProblem wide = problem(40, 18, 24, 3, 2, 1, 1);
    out.push_back({"3x3_s2_wide_bk16_taps_inner", wide, 16, true});
    // Planes of 3 x 6 pixels, not whole 16-byte words: packed whole, 64 channels a workgroup,
    // 40 of them here; of 8 x 11, 32 channels a workgroup, half a 64-channel slice; of 17 x 20,
    // in two parts of 170 pixels (nhwcPackParts), at stride 1.
    out.push_back({"3x3_small_planes_bk16", problem(40, 3, 24, 3, 1, 1, 1), 16, false});
    out.push_back({"3x3_planes_8x11_bk64", problem(40, 8, 24, 3, 1, 1, 1), 64, false});
    out.push_back({"3x3_planes_17x20_bk16", problem(40, 17, 24, 3, 1, 1, 1), 16, false});
    // 24 channels: two slices of 16, one of 32; a strided 1x1 packs one pixel in four.
    const ConvProblem pointwise = problem(24, 10, 16, 1, 2, 0, 1);
    for (uint32_t bk : {16u, 32u}) out.push_back({"1x1_s2_bk" + std::to_string(bk), pointwise, bk, false});
    // Fragment prefetch: 3x3 with 3 slices (x 9 taps) of 2 k steps (lavapipe's 8x8x8) or 4,
    // 1x1 with 2 slices and with 1. The strided 3x3's 5x7 output planes take the staged epilogue.
    const size_t plain = out.size();
    for (size_t i = 0; i < plain; ++i)
        if (out[i].bk < 64) {
            SliceCase c = out[i];
            c.name += "_prefetch";
            c.fragmentPrefetch = true;
            out.push_back(c);
        }
    // Split-K. The 3x3 over 40 channels with BK 16 has 27 K slices (9 taps x 3).
    out.push_back({"3x3_bk16_split3", spatial, 16, false, false, 3});
    out.push_back({"3x3_bk16_taps_inner_split9", spatial, 16, true, false, 9});
    out.push_back({"3x3_bk16_split3_prefetch", spatial, 16, false, true, 3});
    out.push_back({"3x3_bk16_split9_prefetch", spatial, 16, true, true, 9});
    // 7x7 output planes (the staged epilogue), and 1x1s with 2 slices on both loaders.
    out.push_back({"3x3_small_planes_bk16_split9", problem(40, 3, 24, 3, 1, 1, 1), 16, false, false, 9});
    out.push_back({"1x1_s2_bk16_split2", pointwise, 16, false, false, 2});
    // The NCHW loader takes 1x1s without padding; with 8x11 planes, a multiple of 4 pixels, it
    // reads 16-byte words, strided, pixels one at a time.
    ConvProblem unpadded = problem(24, 8, 16, 1, 1, 0, 1), unpaddedStrided = problem(24, 10, 16, 1, 2, 0, 1);
    unpadded.padW = unpaddedStrided.padW = 0;
    out.push_back({"1x1_bk16_nchw_split2", unpadded, 16, false, false, 2, ChannelsLastNchwKernel::kName});
    out.push_back({"1x1_s2_bk16_nchw_split2", unpaddedStrided, 16, false, false, 2, ChannelsLastNchwKernel::kName});
    // Batches in chunks of 1 MiB of input, each chunk's grid in several dispatches (4 workgroups
    // along X): the partials of every dispatch of a chunk before its reduce pass, and reused by
    // the next chunk.
    ConvProblem chunked = problem(40, 40, 16, 3, 2, 1, 1);
    chunked.batch = 7;
    out.push_back({"3x3_s2_bk32_split2_chunks", chunked, 32, false, false, 2, ChannelsLastNhwcKernel::kName, true});
    ConvProblem chunked1x1 = problem(64, 40, 16, 1, 2, 0, 1);
    chunked1x1.batch = 7, chunked1x1.padW = 0;
    out.push_back({"1x1_s2_bk32_nchw_split2_chunks", chunked1x1, 32, false, false, 2, ChannelsLastNchwKernel::kName, true});
    return out;
}

struct Case {
    int device;
    SliceCase c;
};

std::vector<Case> allCases() {
    std::vector<Case> out;
    for (int d : testDeviceIndices())
        for (const auto& c : sliceCases()) out.push_back({d, c});
    return out;
}

std::string caseName(const Case& c) {
    return (c.device < 0 ? std::string("nodevice") : "dev" + std::to_string(c.device)) + "_" + c.c.name;
}

void PrintTo(const Case& c, std::ostream* os) { *os << caseName(c) << " (" << c.c.problem.str() << ")"; }

class ChannelSlices : public ::testing::TestWithParam<Case> {};

TEST_P(ChannelSlices, MatchesReference) {
    const Case& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const Context& ctx = *(c.c.narrow ? sharedContext(c.device, false, narrowProfile()) : sharedContext(c.device)).context;
    // The heuristic's best configuration of the loader with this BK and K order, if any, with the
    // case's split (the candidates split only where a GPU's grid would be underfilled).
    std::optional<KernelConfig> config =
        bestCandidate(Path::CoopMatF16, ctx.device(), c.c.problem, [&](const KernelConfig& k) {
            return k.kernel() == c.c.kernel && k.bk == c.c.bk && detail::channelsLast(k).tapsInner == c.c.tapsInner &&
                   detail::channelsLast(k).fragmentPrefetch == c.c.fragmentPrefetch && k.splits() == 1;
        });
    if (config) {
        detail::channelsLast(*config).splitK = c.c.splitK;
        const std::string why = canImplement(*config, ctx.device(), c.c.problem);
        ASSERT_TRUE(why.empty()) << config->str() << ": " << why;
    }
    if (!config) {
        const std::string why = "no channels-last configuration with BK " + std::to_string(c.c.bk) +
                                " on " + ctx.device().name + " (cooperative matrices?)";
        if (requireCoopMat()) FAIL() << why;
        GTEST_SKIP() << why;
    }
    const ConvProblem& p = c.c.problem;
    const uint64_t seed = 7100 + c.c.bk + (c.c.tapsInner ? 1 : 0) + uint64_t(p.kernelH) * 10 + (c.c.fragmentPrefetch ? 3 : 0) +
                          100 * c.c.splitK;
    ConvOptions options;
    options.config = config;
    const CheckResult result = checkConvWith(ctx, {c.c.name, p, seed}, options, "BK " + std::to_string(c.c.bk));
    EXPECT_EQ(result.config, config->str()) << result.report;
    if (c.c.narrow) {
        EXPECT_THAT(result.report, ::testing::Not(::testing::HasSubstr(" 1 chunk(s)"))) << result.report;
    }
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Problems, ChannelSlices, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace vkconv::test
