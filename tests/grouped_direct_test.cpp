// The grouped direct kernel (depthwise, channel multipliers, small groups): each case runs on
// every device, either as the heuristic's choice under both precisions (and the case asserts
// that the grouped direct kernel is what ran) or with a forced tile that reaches one of the
// kernel's own paths (several tiles and channel blocks, 16-byte loads and stores or scalar ones,
// two shared buffers, a partial channel block, tiles that overhang the output). Random inputs, a NaN-filled output, the
// double-precision reference, fp32's bound. Plus the pure rules: where the heuristic picks it,
// and that its candidates fit every shipped profile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "select/config_select.hpp"   // src/: the heuristic and the candidates
#include "kernels/grouped_direct/grouped_direct.hpp"  // src/: groupedDirectServes
#include "kernels/kernel_family.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A forced tile: threads along W x H, outputs a thread computes down x along, channels a
// workgroup computes, groups side by side and one after another, windows read from memory.
struct Tile {
    uint32_t threadsW, threadsH, rows, vecW, channels, groups = 1, groupSteps = 1;
    bool fromMemory = false;
};

struct DirectCase {
    std::string name;
    ConvProblem problem;
    std::optional<Tile> tile;  // none: the heuristic's choice, under fp32 and fast precision
    // Under narrowProfile() (1 MiB buffers, 4 x 65535 x 2 workgroups): several chunks, and the
    // grid's blocks of groups split along Z (ChunkParams::groupBase counts blocks).
    bool narrowLimits = false;
};

ConvProblem problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s, int64_t groups,
                    int64_t stride = 1, int64_t pad = 0, int64_t dilation = 1, bool bias = true) {
    ConvProblem p;
    p.batch = n, p.inChannels = c, p.height = h, p.width = w, p.outChannels = k;
    p.kernelH = r, p.kernelW = s, p.groups = groups;
    p.strideH = p.strideW = stride, p.padH = p.padW = pad, p.dilationH = p.dilationW = dilation;
    p.bias = bias;
    return p;
}

std::vector<DirectCase> directCases() {
    ConvProblem nonSquare = problem(2, 5, 13, 17, 5, 3, 5, 5);
    nonSquare.strideH = 3, nonSquare.strideW = 2, nonSquare.padH = 1, nonSquare.padW = 2;
    nonSquare.dilationH = 2, nonSquare.dilationW = 1;
    // Output rows of 12 floats: 16-byte aligned, so the vector stores run.
    ConvProblem alignedRows = problem(3, 4, 9, 12, 4, 3, 3, 4, 1, 1);
    return {
        // The heuristic's choice, which must be the grouped direct kernel.
        {"depthwise_3x3_s1", problem(2, 6, 11, 13, 6, 3, 3, 6, 1, 1), {}},
        {"depthwise_3x3_s2_odd", problem(1, 5, 15, 9, 5, 3, 3, 5, 2, 1), {}},
        {"depthwise_7x7_convnext_like", problem(2, 8, 14, 14, 8, 7, 7, 8, 1, 3), {}},
        {"depthwise_5x5_dilation2", problem(1, 3, 12, 12, 3, 5, 5, 3, 1, 4, 2), {}},
        {"depthwise_stride_dilation_nonsquare", nonSquare, {}},
        {"depthwise_pad_larger_than_kernel", problem(1, 2, 4, 5, 2, 3, 3, 2, 1, 4), {}},
        {"depthwise_1xW_no_bias", problem(3, 4, 1, 23, 4, 1, 3, 4, 1, 1, 1, false), {}},
        {"depthwise_output_1x1", problem(2, 4, 3, 3, 4, 3, 3, 4), {}},
        {"depthwise_output_2x3_stride2", problem(1, 3, 4, 6, 3, 3, 3, 3, 2, 1), {}},
        {"multiplier2", problem(1, 4, 10, 10, 8, 3, 3, 4, 1, 1), {}},
        {"multiplier3_stride2_no_bias", problem(2, 3, 9, 11, 9, 3, 3, 3, 2, 0, 1, false), {}},
        {"groups_cg4_kg4_resnext_like", problem(2, 16, 10, 10, 16, 3, 3, 4, 1, 1), {}},
        {"groups_cg2_kg6", problem(1, 6, 7, 9, 18, 3, 3, 3, 1, 1), {}},
        {"groups_cg3_kg5_prime", problem(1, 9, 11, 7, 15, 3, 3, 3, 2, 1), {}},
        {"groups_cg16_kg16", problem(1, 32, 6, 6, 32, 3, 3, 2, 1, 1), {}},
        {"depthwise_width16_vector_loads", problem(2, 3, 9, 16, 3, 3, 3, 3, 1, 1), {}},
        // Forced tiles: several tiles along both axes with 16-byte stores; a tile wider and taller
        // than the output; rows past the output; a partial channel block; channel blocks with
        // several input channels (the barrier between channels).
        {"tile_vec4_several_tiles", alignedRows, Tile{2, 4, 2, 4, 1}},
        {"tile_vec2_odd_width", problem(1, 3, 9, 11, 3, 3, 3, 3, 1, 1), Tile{4, 2, 3, 2, 1}},
        {"tile_width3_scalar_loads", problem(1, 2, 7, 12, 2, 3, 3, 2, 1, 2), Tile{3, 4, 2, 1, 1}},
        {"tile_overhangs_output", problem(1, 2, 5, 5, 2, 3, 3, 2, 1, 1), Tile{16, 4, 4, 1, 1}},
        {"tile_partial_channel_block", problem(2, 6, 8, 8, 15, 3, 3, 3, 1, 1), Tile{8, 4, 2, 1, 4}},
        {"tile_vec4_stride2_channels", problem(1, 8, 16, 16, 8, 3, 3, 2, 2, 1), Tile{2, 8, 1, 4, 2}},
        // Groups side by side and one after another. Whole planes loaded word by word (rows of 7,
        // planes of 35 words) for 3 groups a workgroup of 7; as 16-byte vectors (planes of 196
        // words) with stride 2 leaving the last input row and column unused, 16-byte window reads
        // (2 outputs x stride 2); several input channels (steps) a group with a partial channel
        // block and a partial last set of groups; 8 outputs a thread with dilation, 16-byte
        // stores, row loads for 2 groups side by side over 2 tiles; plane vectors with groups
        // both ways and 2 input channels, no bias; a ResNeXt-like block with 16-byte reads.
        {"tile_groups3_planes_scalar", problem(2, 7, 5, 7, 7, 3, 3, 7, 1, 1), Tile{7, 5, 1, 1, 1, 3, 1}},
        {"tile_groups4_planes_vec4_stride2", problem(2, 6, 14, 14, 6, 3, 3, 6, 2, 0), Tile{3, 3, 2, 2, 1, 4, 1}},
        {"tile_serial2_multiplier_channels", problem(1, 6, 9, 10, 12, 3, 3, 3, 1, 1), Tile{4, 3, 3, 2, 3, 1, 2}},
        {"tile_vec8_dilation_groups2_serial2", problem(1, 4, 12, 20, 4, 3, 3, 4, 1, 2, 2), Tile{2, 6, 2, 8, 1, 2, 2}},
        {"tile_groups2_serial2_planes_no_bias", problem(2, 8, 6, 6, 8, 3, 3, 4, 1, 1, 1, false), Tile{6, 6, 1, 1, 2, 2, 2}},
        {"tile_vec4_reads_kb4_serial2", problem(1, 16, 8, 16, 16, 3, 3, 4, 1, 1), Tile{4, 4, 2, 4, 4, 1, 2}},
        // 230 images of 4704 bytes: 2 chunks; 24 groups in 3 blocks of 4 x 2, split 2 + 1 along Z.
        {"tile_groups4_serial2_chunks_split_z", problem(230, 24, 7, 7, 24, 3, 3, 24, 1, 1),
         Tile{7, 7, 1, 1, 1, 4, 2}, true},
        // Windows and weights read from memory: whole planes, groups side by side, the image's
        // edges as padding; a ResNeXt-like block (several input channels, 16-byte stores) whose
        // tile overhangs the output; stride, dilation and uneven padding; a partial channel
        // block with a channel multiplier; groups one after another, no bias; a 7x7 with
        // padding 3 and 16-byte stores; several chunks and groups split along Z (whole planes,
        // which leave through shared memory as one run).
        {"memory_planes_groups4", problem(2, 8, 14, 14, 8, 3, 3, 8, 1, 1), Tile{14, 2, 7, 1, 1, 4, 1, true}},
        {"memory_cg4_kb4_overhang", problem(2, 16, 10, 12, 16, 3, 3, 4, 1, 1), Tile{4, 4, 2, 4, 4, 1, 1, true}},
        {"memory_stride_dilation_nonsquare", nonSquare, Tile{4, 2, 2, 2, 1, 1, 1, true}},
        {"memory_partial_channel_block", problem(2, 6, 8, 8, 15, 3, 3, 3, 1, 1), Tile{8, 4, 2, 1, 4, 1, 1, true}},
        {"memory_serial2_groups2_no_bias", problem(2, 8, 6, 6, 8, 3, 3, 4, 1, 1, 1, false),
         Tile{6, 6, 1, 1, 2, 2, 2, true}},
        {"memory_7x7_vec4_stores", problem(1, 4, 12, 16, 4, 7, 7, 4, 1, 3), Tile{4, 4, 1, 4, 1, 1, 1, true}},
        {"memory_chunks_split_z", problem(230, 24, 7, 7, 24, 3, 3, 24, 1, 1), Tile{7, 7, 1, 1, 1, 4, 1, true}, true},
        // Whole planes of odd size (35 words: scalar stores of the staged planes), a partial last
        // set of groups (6 in sets of 4), stride 2.
        {"memory_planes_odd_partial_set", problem(2, 6, 9, 13, 6, 3, 3, 6, 2, 1), Tile{7, 5, 1, 1, 1, 4, 1, true}},
        // More than 8 rows a thread and rows that are not a power of two: one thread a column
        // strip down a whole 14x14 plane, its tile 2 columns wider than the plane (MobileNet's dw
        // 512/14 pick); 7 rows a thread staged; 12 rows a thread at stride 2 from memory.
        {"memory_planes_rows14_overhang", problem(2, 8, 14, 14, 8, 3, 3, 8, 1, 1), Tile{8, 1, 14, 2, 1, 4, 1, true}},
        {"tile_rows7_staged", problem(1, 3, 14, 10, 3, 3, 3, 3, 1, 1), Tile{5, 2, 7, 2, 1}},
        {"memory_rows12_stride2", problem(1, 4, 23, 9, 4, 3, 3, 4, 2, 1), Tile{5, 1, 12, 1, 1, 1, 1, true}},
        // ConvNeXt's small planes with 7x7 taps, from memory, whole planes out through shared
        // memory: 7x7 planes in 8x8 tiles of 4x4 a thread, 8 groups a workgroup (2 sets of 8), and
        // in 7x8 tiles of 7x2 (the pick); 14x14 planes in 16x16 tiles, 2 groups a workgroup (3
        // sets), and in 14x14 tiles of 7x2, 4 groups (the pick; a partial last set).
        {"memory_7x7_planes_out_groups8", problem(2, 16, 7, 7, 16, 7, 7, 16, 1, 3), Tile{2, 2, 4, 4, 1, 8, 1, true}},
        {"memory_7x7_planes_out_rows7", problem(2, 16, 7, 7, 16, 7, 7, 16, 1, 3), Tile{4, 1, 7, 2, 1, 8, 1, true}},
        {"memory_7x7_planes14_out_groups2", problem(2, 6, 14, 14, 6, 7, 7, 6, 1, 3), Tile{4, 4, 4, 4, 1, 2, 1, true}},
        {"memory_7x7_planes14_out_rows7", problem(2, 6, 14, 14, 6, 7, 7, 6, 1, 3), Tile{7, 2, 7, 2, 1, 4, 1, true}},
    };
}

struct Case {
    int device;
    DirectCase c;
    uint64_t seed;  // of the inputs
};

std::vector<Case> allCases() {
    std::vector<Case> out;
    for (int d : testDeviceIndices())
        for (const auto& c : directCases()) out.push_back({d, c, 5000 + out.size() % directCases().size()});
    return out;
}

std::string caseName(const Case& c) {
    return (c.device < 0 ? std::string("nodevice") : "dev" + std::to_string(c.device)) + "_" + c.c.name;
}

// gtest prints a case (in failure messages) by its name and problem.
void PrintTo(const Case& c, std::ostream* os) { *os << caseName(c) << " (" << c.c.problem.str() << ")"; }

// Runs the problem with `options` on fresh random inputs into a NaN-filled output: the relative
// error against the reference, and what ran (describe()).
std::pair<double, std::string> runAndCompare(const Context& ctx, const ConvProblem& p, const ConvOptions& options,
                                             uint64_t seed, std::string* configName) {
    const std::vector<float> x = randomValues(seed * 3, size_t(p.inputElements()));
    const std::vector<float> w = randomValues(seed * 3 + 1, size_t(p.weightElements()));
    const std::vector<float> b = p.bias ? randomValues(seed * 3 + 2, size_t(p.outChannels)) : std::vector<float>{};
    Conv2d conv(ctx, p, w, b, options);
    *configName = conv.config().str();
    Tensor in(ctx, {p.batch, p.inChannels, p.height, p.width});
    const auto s = p.outputShape();
    Tensor out(ctx, {s[0], s[1], s[2], s[3]});
    in.upload(x);
    out.fill(std::nanf(""));
    conv.run(in, out);
    const std::vector<float> got = out.download();
    return {relativeError(got.data(), referenceConv2d(p, x.data(), w.data(), p.bias ? b.data() : nullptr)),
            conv.describe()};
}

class GroupedDirect : public ::testing::TestWithParam<Case> {};

TEST_P(GroupedDirect, MatchesReference) {
    const Case& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const Context& ctx = *(c.c.narrowLimits ? sharedContext(c.device, false, narrowProfile()) : sharedContext(c.device)).context;
    const ConvProblem& p = c.c.problem;
    const uint64_t seed = c.seed;

    std::vector<ConvOptions> runs;
    if (c.c.tile) {
        KernelConfig k;
        k.params = GroupedDirectKernel{};
        detail::direct(k).threadsW = c.c.tile->threadsW, detail::direct(k).threadsH = c.c.tile->threadsH;
        detail::direct(k).rows = c.c.tile->rows, detail::direct(k).vecW = c.c.tile->vecW, detail::direct(k).channels = c.c.tile->channels;
        detail::direct(k).groups = c.c.tile->groups, detail::direct(k).groupSteps = c.c.tile->groupSteps;
        detail::direct(k).fromMemory = c.c.tile->fromMemory;
        ASSERT_EQ(canImplement(k, ctx.device(), p), "") << k.str();
        ConvOptions o;
        o.config = k;
        runs.push_back(o);
    } else {
        ASSERT_TRUE(detail::groupedDirectServes(p)) << p.str();
        for (Precision precision : {Precision::Fp32, Precision::Fast}) {
            // Under fast, groups of 8+ output channels keep the matrix units where the device
            // has them (the correctness suite runs that path); thinner ones come here.
            if (precision == Precision::Fast && detail::choosePath(precision, ctx.device(), p).path != Path::Fp32)
                continue;
            ConvOptions o;
            o.precision = precision;
            o.useTuningCache = false;  // the heuristic's own choice
            runs.push_back(o);
        }
    }
    for (const ConvOptions& o : runs) {
        std::string config;
        const auto [error, describe] = runAndCompare(ctx, p, o, seed, &config);
        const std::string label = p.str() + "\n  " + describe;
        // Wherever the fp32 path runs these problems, under either precision, it is the
        // grouped direct kernel.
        EXPECT_THAT(config, HasSubstr("grouped-direct")) << label;
        if (c.c.tile) {
            EXPECT_EQ(config, o.config->str()) << label;  // the forced tile is what ran
        }
        EXPECT_THAT(describe, HasSubstr("grouped direct kernel")) << label;
        EXPECT_LE(error, errorBound(Path::Fp32)) << label;  // NaN fails this too
        if (c.c.narrowLimits) {
            EXPECT_THAT(describe, Not(HasSubstr(" 1 chunk(s)"))) << label;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Problems, GroupedDirect, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

// Where the groups are wide, or there is one group (even of few channels), the GEMM kernel keeps
// its place under fp32: the grouped direct kernel is neither the heuristic's choice nor a
// candidate there.
TEST(GroupedDirectRules, HeuristicKeepsWideGroupsOnTheGemmKernel) {
    for (int d : testDeviceIndices()) {
        ASSERT_GE(d, 0) << listDevicesError();
        const DeviceInfo& device = testDevices()[size_t(d)];
        for (const ConvProblem& p : {problem(8, 64, 28, 28, 64, 3, 3, 1, 1, 1), problem(8, 64, 28, 28, 256, 3, 3, 4, 1, 1),
                                     problem(8, 128, 28, 28, 128, 3, 3, 2, 1, 1), problem(2, 8, 20, 20, 8, 3, 3, 1, 1, 1),
                                     problem(2, 3, 20, 20, 1, 3, 3, 1)}) {
            const auto choice = detail::selectConfig(Path::Fp32, device, p);
            EXPECT_STRNE(choice.config.kernel(), "grouped-direct") << p.str() << ": " << choice.config.str();
            EXPECT_TRUE(detail::groupedDirectCandidates(device, p).empty()) << p.str();
        }
    }
}

// Precision::Fast leaves the matrix units to the grouped direct kernel below 16 output channels a
// group where that kernel serves (ResNeXt-50's grouped 3x3 of 8 a group: 0.054 ms against the
// tiles' 0.084 on the H100), and keeps them from 16 (0.041 against 0.051), for one group of few
// channels, which the grouped direct kernel does not serve, and where it has no tile (a 13x13
// kernel): fp32 would mean the GEMM kernel there.
TEST(GroupedDirectRules, FastTakesTheGroupedDirectKernelBelowSixteenChannelsAGroup) {
    const DeviceInfo gpu = fakeCoopMatDevice(false);
    const std::vector<std::pair<ConvProblem, bool>> layers = {
        {problem(32, 256, 28, 28, 256, 3, 3, 32, 1, 1), true},    // 8 channels a group
        {problem(32, 256, 56, 56, 256, 3, 3, 32, 2, 1), true},    // the same at stride 2
        {problem(32, 120, 28, 28, 120, 3, 3, 8, 1, 1), true},     // 15 a group
        {problem(32, 512, 14, 14, 512, 3, 3, 32, 1, 1), false},   // 16 a group
        {problem(32, 64, 28, 28, 256, 3, 3, 8, 1, 1), false},     // 8 in, 32 out a group: not served
        {problem(2, 8, 20, 20, 8, 3, 3, 1, 1, 1), false},         // one group of 8
        {problem(8, 32, 40, 40, 16, 13, 13, 2, 1, 6), false},     // 8 a group, past its weight budget
    };
    for (const auto& [p, fp32] : layers) {
        const auto choice = detail::choosePath(Precision::Fast, gpu, p);
        EXPECT_EQ(choice.path == Path::Fp32, fp32) << p.str() << ": " << choice.why;
        if (fp32) {
            EXPECT_THAT(choice.why, ::testing::HasSubstr("output channel(s)")) << p.str();
        }
    }
}

// On an NVIDIA-like GPU the GEMM tile's cost model undercuts the grouped direct one on tiny
// problems (one 6x6 image, 2 groups of 16): the grouped direct kernel still leads there, as on the
// H200's suite run, where the GEMM tile's model had picked it.
TEST(GroupedDirectRules, HeuristicLeadsWithGroupedDirectWhereItServesOnAGpu) {
    DeviceInfo gpu = fakeCoopMatDevice(false);
    const ConvProblem p = problem(1, 32, 6, 6, 32, 3, 3, 2, 1, 1);
    ASSERT_TRUE(detail::groupedDirectServes(p));
    const auto choice = detail::selectConfig(Path::Fp32, gpu, p);
    EXPECT_STREQ(choice.config.kernel(), "grouped-direct") << choice.config.str();
    EXPECT_TRUE(std::any_of(choice.weighed.begin(), choice.weighed.end(),
                            [](const auto& w) { return std::string(w.first.kernel()) != "grouped-direct"; }))
        << "the GEMM tiles stay in the list, for the sweep";
}

// On an NVIDIA-like GPU, windows read from memory lead where the H200 measured them faster
// (the small-plane depthwise layer, the ResNeXt-like block of 4 channels a group, the strided
// depthwise layer with 4x2 outputs a thread, 7x7 taps on whole 7x7 planes), and the staged tiles
// elsewhere (large planes at stride 1, 7x7 on 56x56): fromMemoryFactor's measurements.
TEST(GroupedDirectRules, FromMemoryLeadsWhereMeasuredFaster) {
    const DeviceInfo gpu = fakeCoopMatDevice(false);
    const std::vector<std::pair<ConvProblem, bool>> layers = {
        {problem(512, 512, 14, 14, 512, 3, 3, 512, 1, 1), true},   // MobileNet's late depthwise
        {problem(128, 128, 56, 56, 128, 3, 3, 32, 1, 1), true},    // ResNeXt-like, 4 channels a group
        {problem(128, 32, 112, 112, 32, 3, 3, 32, 1, 1), false},   // MobileNet's first depthwise
        {problem(128, 64, 112, 112, 64, 3, 3, 64, 2, 1), true},    // MobileNet's strided depthwise
        {problem(128, 96, 56, 56, 96, 7, 7, 96, 1, 3), false},     // ConvNeXt's 7x7 depthwise
        {problem(32, 768, 7, 7, 768, 7, 7, 768, 1, 3), true},      // ... on whole 7x7 planes
    };
    for (const auto& [p, fromMemory] : layers) {
        const KernelConfig c = detail::selectConfig(Path::Fp32, gpu, p).config;
        EXPECT_STREQ(c.kernel(), "grouped-direct") << p.str() << ": " << c.str();
        EXPECT_EQ(detail::direct(c).fromMemory, fromMemory) << p.str() << ": " << c.str();
        const auto candidates = detail::groupedDirectCandidates(gpu, p);
        EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(),
                                [](const KernelConfig& k) { return detail::direct(k).fromMemory; }))
            << p.str() << ": the sweep times both ways";
        EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(),
                                [](const KernelConfig& k) { return !detail::direct(k).fromMemory; }))
            << p.str();
    }
}

// Every shipped profile (vulkan-minimum: 16 KB, 128 invocations; mobile: 16 KB) leaves grouped
// direct candidates for the suite's depthwise and small-group layers, each within the profile's
// limits, and the heuristic picks one of them.
TEST(GroupedDirectRules, CandidatesFitEveryProfile) {
    const std::vector<ConvProblem> layers = {
        problem(64, 96, 56, 56, 96, 7, 7, 96, 1, 3),      // ConvNeXt's 7x7 depthwise
        problem(32, 128, 56, 56, 128, 3, 3, 32, 1, 1),    // ResNeXt-like, 4 channels a group
        problem(128, 64, 112, 112, 64, 3, 3, 64, 2, 1),   // MobileNet's strided depthwise
        problem(512, 512, 14, 14, 512, 3, 3, 512, 1, 1),  // MobileNet's late depthwise
    };
    for (int d : testDeviceIndices()) {
        ASSERT_GE(d, 0) << listDevicesError();
        std::vector<std::optional<DeviceProfile>> profiles{std::nullopt};
        for (const auto& prof : DeviceProfile::builtin()) profiles.push_back(prof);
        for (const auto& prof : profiles) {
            const DeviceInfo device = prof ? applyProfile(testDevices()[size_t(d)], *prof) : testDevices()[size_t(d)];
            for (const ConvProblem& p : layers) {
                const std::string label = p.str() + " under " + (prof ? prof->name : "no profile");
                const auto candidates = detail::groupedDirectCandidates(device, p);
                ASSERT_FALSE(candidates.empty()) << label;
                for (const auto& c : candidates) {
                    EXPECT_LE(c.threads(), device.maxWorkGroupInvocations) << label << ": " << c.str();
                    EXPECT_LE(c.sharedMemoryBytes(p), device.maxSharedMemoryBytes) << label << ": " << c.str();
                }
                EXPECT_STREQ(detail::selectConfig(Path::Fp32, device, p).config.kernel(), "grouped-direct") << label;
            }
        }
    }
}

// `vkconv sweep --nearby` from a grouped direct configuration tries other tiles of the same
// kernel, each valid on the device.
TEST(GroupedDirectRules, TuningNeighboursAreGroupedDirectTiles) {
    for (int d : testDeviceIndices()) {
        ASSERT_GE(d, 0) << listDevicesError();
        const DeviceInfo& device = testDevices()[size_t(d)];
        const ConvProblem p = problem(32, 128, 56, 56, 128, 3, 3, 32, 1, 1);
        const KernelConfig current = detail::selectConfig(Path::Fp32, device, p).config;
        ASSERT_STREQ(current.kernel(), "grouped-direct") << current.str();
        const auto nearby = nearbyConfigs(current, device, p);
        ASSERT_GT(nearby.size(), 1u);
        EXPECT_EQ(nearby.front(), current);
        for (const auto& c : nearby) {
            EXPECT_STREQ(c.kernel(), "grouped-direct") << c.str();
            EXPECT_EQ(canImplement(c, device, p), "") << c.str();
        }
    }
}

// kernel-lab --skip reaches the grouped direct kernel through the diagnostics' mask: the parts
// its shader can leave out (1 input loads, 2 arithmetic, 4 stores); the fp32 GEMM has none.
TEST(GroupedDirectRules, DiagnosticsLeaveOutItsThreeParts) {
    const DeviceInfo gpu = fakeCoopMatDevice(false);
    const ConvProblem p = problem(2, 32, 14, 14, 32, 3, 3, 32, 1, 1);
    const auto candidates = detail::groupedDirectCandidates(gpu, p);
    ASSERT_FALSE(candidates.empty());
    EXPECT_EQ(detail::familyOf(candidates.front()).diagnosticParts(), 7u);
    KernelConfig gemm;
    gemm.path = Path::Fp32;
    EXPECT_EQ(detail::familyOf(gemm).diagnosticParts(), 0u);
}

// Rows a thread: any count from 1 to 16 (a 14-row plane takes 14 or 7), refused past 16 by name.
TEST(GroupedDirectRules, RowsAThreadRunFrom1To16) {
    const DeviceInfo gpu = fakeCoopMatDevice(false);
    const ConvProblem p = problem(2, 32, 14, 14, 32, 3, 3, 32, 1, 1);
    KernelConfig c;
    c.path = Path::Fp32;
    c.params = GroupedDirectKernel{};
    detail::direct(c).threadsW = 14, detail::direct(c).threadsH = 1, detail::direct(c).vecW = 1, detail::direct(c).channels = 1, detail::direct(c).groups = 2;
    detail::direct(c).fromMemory = true;
    for (uint32_t rows : {1u, 7u, 14u, 16u}) {
        detail::direct(c).rows = rows;
        EXPECT_EQ(canImplement(c, gpu, p), "") << rows;
    }
    for (uint32_t rows : {0u, 17u}) {
        detail::direct(c).rows = rows;
        EXPECT_THAT(canImplement(c, gpu, p), HasSubstr("along H must be 1..16, not " + std::to_string(rows)));
    }
}

}  // namespace
}  // namespace vkconv::test
