// Split-K's rules (src/split_k.hpp) on made-up devices: which configurations may split, the
// reasons the others are refused, the splits the candidates and the tuner's neighbourhood try,
// and the configuration's name. Its results are checked against the reference on lavapipe by
// tests/channel_slices_test.cpp (both loaders, prefetch, taps-inner, chunks).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "select/config_select.hpp"  // src/
#include "kernels/channels_last/split_k.hpp"        // src/
#include "tuning_fakes.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {
namespace {

using ::testing::HasSubstr;

// ResNet-50's 3x3/256 at 14x14, batch 1: 196 x 256 outputs, 36 K slices of 64 channels.
ConvProblem smallGrid() {
    ConvProblem p;
    p.batch = 1, p.inChannels = 256, p.height = p.width = 14, p.outChannels = 256;
    p.kernelH = p.kernelW = 3, p.padH = p.padW = 1;
    return p;
}

KernelConfig channelsLast(uint32_t split) {
    KernelConfig c;
    c.path = Path::CoopMatF16;
    ChannelsLastNhwcKernel k;
    k.warpsM = 1, k.warpsN = 4;
    k.mmaM = k.mmaN = k.mmaK = 16, k.stages = 2;
    k.splitK = split;
    c.params = k;
    c.bm = 32, c.bn = 64, c.bk = 64, c.subgroupSize = 32;
    return c;
}

TEST(SplitK, SplitsThatDivideTheKSlices) {
    const DeviceInfo d = fakeCoopMatDevice(/*mesaLike=*/false);
    const ConvProblem p = smallGrid();
    EXPECT_EQ(detail::channelsLastSlices(channelsLast(4), p), 36u);
    for (uint32_t split : {1u, 2u, 3u, 4u, 6u, 9u, 12u, 18u, 36u})
        EXPECT_EQ(canImplement(channelsLast(split), d, p), "") << split;
    EXPECT_THAT(canImplement(channelsLast(8), d, p), HasSubstr("splitK 8 does not divide the 36 K slices"));
    EXPECT_THAT(canImplement(channelsLast(0), d, p), HasSubstr("splitK must be >= 1"));
    EXPECT_THAT(canImplement(channelsLast(72), d, p), HasSubstr("splitK = 72 is out of range"));
    EXPECT_EQ(channelsLast(4).str(), "coopmat-f16 32x64x64 warps 1x4 mma 16x16x16 stages 2 nhwc split-k 4 sg32");
    EXPECT_EQ(channelsLast(1).str().find("split"), std::string::npos);
}

// Split-K is a field of the channels-last kernel's parameters only: another kernel's configuration
// cannot hold it, and one read from JSON with it is refused by name.
TEST(SplitK, OnlyTheChannelsLastFamily) {
    KernelConfig gather = channelsLast(2);
    gather.params = CoopMatGatherKernel{};
    EXPECT_EQ(gather.splits(), 1u);
    std::string text = configToJson(gather);
    text.insert(text.size() - 1, ",\"splitK\":2");
    try {
        (void)configFromJson(text);
        ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("config.splitK"));
        EXPECT_THAT(e.what(), HasSubstr("is not a field of the coopmat-gather kernel"));
    }
    EXPECT_EQ(KernelConfig{}.splits(), 1u);
}

TEST(SplitK, RefusedBeyondTheGridOrTheBufferRange) {
    DeviceInfo d = fakeCoopMatDevice(false);
    const ConvProblem p = smallGrid();
    d.maxWorkGroupCount[2] = 2;
    EXPECT_EQ(canImplement(channelsLast(2), d, p), "");
    EXPECT_THAT(canImplement(channelsLast(4), d, p), HasSubstr("exceeds maxComputeWorkGroupCount[2] 2"));
    d = fakeCoopMatDevice(false);
    // Partials of 4 splits x 256 x 196 floats: 802,816 bytes.
    EXPECT_EQ(detail::splitKWorkspaceBytes(channelsLast(4), p, 1), 802816u);
    d.maxStorageBufferRange = 802816;
    EXPECT_EQ(canImplement(channelsLast(4), d, p), "");
    d.maxStorageBufferRange = 802815;
    EXPECT_THAT(canImplement(channelsLast(4), d, p), HasSubstr("the partial sums (802816 bytes) exceed maxStorageBufferRange"));
}

TEST(SplitK, CandidatesSplitOnlyWhereTheGridLeavesComputeUnitsIdle) {
    const DeviceInfo gpu = fakeCoopMatDevice(false);
    auto splits = [&](const ConvProblem& p) {
        const auto all = detail::candidateConfigs(Path::CoopMatF16, gpu, p);
        return std::count_if(all.begin(), all.end(), [](const KernelConfig& c) { return c.splits() > 1; });
    };
    EXPECT_GT(splits(smallGrid()), 0);
    ConvProblem large = smallGrid();
    large.batch = 256;  // 196 x 256 rows: every tile fills the device
    EXPECT_EQ(splits(large), 0);
    DeviceInfo cpu = gpu;
    cpu.deviceType = "CPU";
    const auto onCpu = detail::candidateConfigs(Path::CoopMatF16, cpu, smallGrid());
    EXPECT_TRUE(std::none_of(onCpu.begin(), onCpu.end(), [](const KernelConfig& c) { return c.splits() > 1; }));
    ConvProblem pointwise = smallGrid();
    pointwise.kernelH = pointwise.kernelW = 1, pointwise.padH = pointwise.padW = 0;
    EXPECT_EQ(splits(pointwise), 0);
}

TEST(SplitK, NeighbourhoodTriesHalfAndTwiceTheSplits) {
    const DeviceInfo d = fakeCoopMatDevice(false);
    const auto near = nearbyConfigs(channelsLast(4), d, smallGrid());
    ASSERT_FALSE(near.empty());
    EXPECT_EQ(near.front(), channelsLast(4));
    // Twice the splits (8) does not divide the 36 K slices; half of them is tried.
    KernelConfig half = channelsLast(2);
    EXPECT_NE(std::find(near.begin(), near.end(), half), near.end());
    for (const KernelConfig& c : near) EXPECT_EQ(canImplement(c, d, smallGrid()), "") << c.str();
}

}  // namespace
}  // namespace vkconv
