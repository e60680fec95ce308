// The NCHW loader's rules (src/nchw_input.cpp) on made-up devices: which problems and
// configurations it serves, when it loads 16-byte vectors, and that the heuristic prefers it for
// ResNet-50's 1x1 layers on a GPU. Its results are checked against the reference by the
// correctness, chunking and validation suites (the "nchw" variant, tests/conv_check.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "select/config_select.hpp"  // src/
#include "kernels/channels_last/nchw_input.hpp"     // src/
#include "tuning_fakes.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv {
namespace {

ConvProblem pointwise(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t stride) {
    ConvProblem p;
    p.batch = n, p.inChannels = c, p.height = p.width = hw, p.outChannels = k;
    p.kernelH = p.kernelW = 1, p.strideH = p.strideW = stride;
    return p;
}

KernelConfig nchwConfig() {
    KernelConfig c;
    c.path = Path::CoopMatF16;
    ChannelsLastNchwKernel k;
    k.warpsM = 2, k.warpsN = 4;
    k.mmaM = k.mmaN = k.mmaK = 16, k.stages = 2;
    c.params = k;
    c.bm = 128, c.bn = 128, c.bk = 32, c.subgroupSize = 32;
    return c;
}

TEST(NchwLoader, ServesKernelsWithoutPaddingOrGroups) {
    const DeviceInfo d = fakeCoopMatDevice(/*mesaLike=*/false);
    const KernelConfig c = nchwConfig();
    ConvProblem p = pointwise(2, 64, 14, 64, 1);
    EXPECT_EQ(canImplement(c, d, p), "");
    p.dilationH = p.dilationW = 3;  // irrelevant to a 1x1 kernel
    EXPECT_EQ(canImplement(c, d, p), "");
    p.strideH = 2;
    EXPECT_EQ(canImplement(c, d, p), "");
    ConvProblem padded = pointwise(2, 64, 14, 64, 1);
    padded.padW = 1;
    EXPECT_NE(canImplement(c, d, padded), "");
    ConvProblem grouped = pointwise(2, 64, 14, 64, 1);
    grouped.groups = 2;
    EXPECT_NE(canImplement(c, d, grouped), "");
    // Any kernel without padding: every tap lies inside the image.
    ConvProblem patch = pointwise(2, 64, 14, 64, 2);
    patch.kernelH = patch.kernelW = 2;
    EXPECT_EQ(canImplement(c, d, patch), "");
    EXPECT_TRUE(detail::nchwPatchKernel(patch));
    EXPECT_FALSE(detail::nchwVectorLoads(patch));
    ConvProblem wide = pointwise(2, 64, 14, 64, 1);
    wide.kernelW = 3;
    EXPECT_EQ(canImplement(c, d, wide), "");
    EXPECT_TRUE(detail::nchwWindowsOverlap(wide));
    EXPECT_FALSE(detail::nchwPatchKernel(wide));
    wide.padW = 1;
    EXPECT_NE(canImplement(c, d, wide), "");
    // C = 8 padded to BK 32 would quadruple the GEMM K.
    EXPECT_NE(canImplement(c, d, pointwise(2, 8, 14, 64, 1)), "");
    KernelConfig threeStages = c;
    threeStages.as<ChannelsLastNchwKernel>().stages = 3;
    EXPECT_NE(canImplement(threeStages, d, p), "");
    EXPECT_EQ(nchwConfig().str(), "coopmat-f16 128x128x32 warps 2x4 mma 16x16x16 stages 2 nchw sg32");
}

TEST(NchwLoader, VectorLoadsOnlyWhereRunsOfFourStayInOnePlane) {
    EXPECT_TRUE(detail::nchwVectorLoads(pointwise(8, 256, 56, 128, 1)));    // 3136 pixels
    EXPECT_TRUE(detail::nchwVectorLoads(pointwise(8, 1024, 14, 256, 1)));   // 196
    EXPECT_FALSE(detail::nchwVectorLoads(pointwise(8, 512, 7, 2048, 1)));   // 49
    EXPECT_FALSE(detail::nchwVectorLoads(pointwise(8, 512, 28, 1024, 2)));  // stride 2
    // The vector loads' alignment argument needs a power-of-two offset alignment.
    DeviceInfo odd = fakeCoopMatDevice(false);
    odd.minStorageBufferOffsetAlignment = 48;
    EXPECT_NE(canImplement(nchwConfig(), odd, pointwise(2, 64, 14, 64, 1)), "");
    EXPECT_EQ(canImplement(nchwConfig(), odd, pointwise(2, 64, 7, 64, 1)), "");  // scalar loads
}

TEST(NchwLoader, HeuristicPrefersItForResNet50PointwiseLayersOnAGpu) {
    const DeviceInfo d = fakeCoopMatDevice(/*mesaLike=*/false);
    for (const ConvProblem& p : {pointwise(64, 256, 56, 128, 1), pointwise(512, 1024, 14, 256, 1),
                                 pointwise(256, 1024, 14, 512, 1)}) {
        const KernelConfig c = detail::selectConfig(Path::CoopMatF16, d, p).config;
        EXPECT_STREQ(c.kernel(), "channels-last-nchw") << p.str() << ": " << c.str();
        // Its fp32 registers leave the compiler room (NVIDIA: 255 a thread, 64K a workgroup).
        EXPECT_LE(detail::nchwRegisterEstimate(c, p) + 48, std::min(255u, 65536u / c.threads())) << c.str();
    }
    // Except where it reads pixels one at a time and the output is wide or the input deep, and
    // the strided downsamples, whose packing pass keeps a quarter of the pixels: the
    // channels-last kernel measured faster there (H200, bench/RESULTS.md).
    for (const ConvProblem& p : {pointwise(1024, 512, 7, 2048, 1), pointwise(1024, 2048, 7, 512, 1),
                                 pointwise(256, 1024, 14, 2048, 2), pointwise(128, 512, 28, 1024, 2)})
        EXPECT_STREQ(detail::selectConfig(Path::CoopMatF16, d, p).config.kernel(), "channels-last-nhwc") << p.str();
}

}  // namespace
}  // namespace vkconv
