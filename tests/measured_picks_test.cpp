// The heuristic's picks on the H200 for suite layers where kernel-lab there timed the candidates
// (bench/RESULTS.md): each pick here was the fastest timed, or within 1.3% of it, unless its
// comment names a faster one. They hold on the H200's own description (bench/devices/) and on the
// made-up NVIDIA-like device (fakeCoopMatDevice: f16 16x16x16 and 16x8x16, subgroup 32, 48 KB of
// shared memory) with and without its compute units. A change to the cost model that moves one
// of them needs a measurement that says so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "select/config_select.hpp"  // src/: selectConfig
#include "tuning_fakes.hpp"

namespace vkconv {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ConvProblem layer(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t r, int64_t stride, int64_t pad) {
    ConvProblem p;
    p.batch = n, p.inChannels = c, p.height = p.width = hw, p.outChannels = k;
    p.kernelH = p.kernelW = r, p.strideH = p.strideW = stride, p.padH = p.padW = pad;
    return p;
}

// The devices the picks below hold for: the H200 as it describes itself, and the made-up device
// with the H200's and H100's 132 SMs (VK_NV_shader_sm_builtins) and with none reported (the cost
// models then count the H200's slots).
std::vector<std::pair<std::string, DeviceInfo>> measuredDevices() {
    std::vector<std::pair<std::string, DeviceInfo>> devices = {{"the described H200", describedH200()}};
    for (uint32_t units : {0u, 132u}) {
        DeviceInfo fake = fakeCoopMatDevice(/*mesaLike=*/false);
        fake.computeUnits = units;
        devices.push_back({"the fake device with " + std::to_string(units) + " compute units", fake});
    }
    return devices;
}

struct MeasuredPick {
    const char* layer;
    ConvProblem problem;
    const char* config;  // a substring of the pick's name
};

TEST(MeasuredPicks, HeuristicTakesTheFastestTimedOnAnNvidiaLikeDevice) {
    const MeasuredPick picks[] = {
        // 0.187 ms; 4x4 subgroups 0.205, 16x16 fragments 0.204 (K 27: one slice).
        {"vgg16_conv1_1", layer(32, 3, 224, 64, 3, 1, 1), "64x64x32 warps 4x2 mma 16x8x16 stages 1"},
        // ConvNeXt-T's 4x4 stride-4 stem at batch 32 (two H200 runs): 0.0278-0.0283 ms; warps 4x3
        // 0.0303-0.0312, 4x4 with 16x8 fragments 0.0310; the packed loader's tiles 0.0326-0.042
        // (windows that do not overlap: nothing to share).
        {"convnext stem 4x4 s4, batch 32", layer(32, 3, 224, 96, 4, 4, 0), "64x96x16 warps 4x2 mma 16x16x16 stages 1 sg32"},
        // At batch 1: 0.0092 ms; the channels-last kernel's 64x64x16 2x2 with prefetch (C 3
        // padded to 16) 0.0203.
        {"resnet50_conv1, batch 1", layer(1, 3, 224, 64, 7, 2, 3), "32x64x32 warps 2x4 mma 16x8x16 stages 1"},
        // 0.527 ms; 16x8 fragments 0.576, 4x4 subgroups 0.549.
        {"resnet50_conv1", layer(128, 3, 224, 64, 7, 2, 3), "64x64x32 warps 4x2 mma 16x16x16 stages 1"},
        // Fragment prefetch on 4 subgroups: 1.664 ms; 1x4 1.663; without prefetch 2x4 1.864.
        {"resnet50_l4_3x3_512", layer(2048, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch"},
        // 0.886-0.896 ms; 1x4 0.903; without prefetch 2x4 0.977.
        {"resnet50_l3_3x3_256", layer(1024, 256, 14, 256, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch"},
        // 0.632 ms; 1x4 0.625; 16x8x16 fragments 0.698; without prefetch 4x2 16x8x16 0.702.
        {"resnet50_l3_3x3_256_s2", layer(512, 256, 28, 256, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch"},
        // 1.031 ms; 1x4 1.046; without prefetch 4x2 1.188, 16x8x16 fragments 1.216.
        {"resnet50_l4_3x3_512_s2", layer(1024, 512, 14, 512, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch"},
        // Fragment prefetch: 0.306 ms; 4x2 16x8x16 with it 0.304, without 0.319.
        {"resnet50_l4_down_1024_2048_s2", layer(256, 1024, 14, 2048, 1, 2, 0),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // 0.224 ms; 16x16x16 fragments 0.230.
        {"resnet50_l3_down_512_1024_s2", layer(128, 512, 28, 1024, 1, 2, 0), "128x128x16 warps 4x2 mma 16x8x16 stages 2 nhwc"},
        // Fragment prefetch: 0.625 ms; 1x4 0.631; without it 4x2 0.671; the NCHW loader's best 0.722.
        {"resnet50_l4_1x1_2048_512", layer(1024, 2048, 7, 512, 1, 1, 0),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // 0.645 ms; 2x2 with fragment prefetch 0.706.
        {"resnet50_l4_1x1_512_2048", layer(1024, 512, 7, 2048, 1, 1, 0), "128x128x16 warps 4x2 mma 16x16x16 stages 2 nhwc sg32"},
        // Fragment prefetch: 0.449 ms; without it 0.483, 256x64x16 4x4 0.533.
        {"resnet50_l1_3x3_64", layer(256, 64, 56, 64, 3, 1, 1), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        // Fragment prefetch: 0.891 ms; without it 0.954, 256x64x16 4x4 1.081.
        {"vgg16_conv1_2", layer(32, 64, 224, 64, 3, 1, 1), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        // Fragment prefetch: 0.520 ms; taps-inner 0.515; without it 2x4 0.558.
        {"resnet50_l2_3x3_128", layer(512, 128, 28, 128, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // Fragment prefetch: 0.305 ms; taps-inner 0.304; without it 2x4 0.317.
        {"vgg16_conv2_1", layer(32, 64, 112, 128, 3, 1, 1), "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // Fragment prefetch: 0.413 ms; without it 4x2 16x8x16 0.449.
        {"resnet50_l2_3x3_128_s2", layer(256, 128, 56, 128, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch"},
        // 128x64x16 2x2: 0.160 ms; 64x64x32 2x4 0.173, 64x64x16 2x4 0.184. At batch 32 0.044
        // against 0.048.
        {"resnet50_l1_1x1_256_64", layer(128, 256, 56, 64, 1, 1, 0), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->64 at 56x56, batch 32", layer(32, 256, 56, 64, 1, 1, 0), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        // MobileNet's pointwise 32->64 at 112x112, batch 32 (the sweep of mobilenet_batch32):
        // 0.0535 ms; 16x8 fragments 0.0525, the packed loader's tiles 0.095-0.107.
        {"1x1 32->64 at 112x112, batch 32", layer(32, 32, 112, 64, 1, 1, 0), "64x64x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // 0.430 ms; 0.426 with 16x8 fragments.
        {"resnet50_l3_1x1_256_1024", layer(512, 256, 14, 1024, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // Batch 1 (28 tiles): 64x64x32 split 8 ways 0.014 ms, the fastest timed (H100 0.0148);
        // 32x64x64 split 4 ways 0.015 (H100 0.0155); unsplit 0.023, every 32x64x64 layout and K
        // order alike; the gather kernel's 0.030.
        {"resnet50_3x3_256_batch1", layer(1, 256, 14, 256, 3, 1, 1), "64x64x32 warps 2x4 mma 16x16x16 stages 2 nhwc taps-inner split-k 8"},
        // Small batches beyond the suite. 3x3/512 at 7x7, batch 1, in 8 splits (128 workgroups):
        // 0.015 ms; 32x64x16 in 8 0.021.
        {"3x3/512 at 7x7, batch 1", layer(1, 512, 7, 512, 3, 1, 1), "32x64x64 warps 1x4 mma 16x16x16 stages 2 nhwc taps-inner split-k 8"},
        // 3x3/512 at batch 4: 0.037-0.039 ms unsplit, 32x64x64 in 2 splits 0.027 (H100 0.0270),
        // 64x64x32 in 4 or 8 0.022-0.024 (H100 in 4 0.0234); the gather kernel's 32x16x64 0.067.
        {"3x3/512 at 7x7, batch 4", layer(4, 512, 7, 512, 3, 1, 1), "64x64x32 warps 2x4 mma 16x16x16 stages 2 nhwc taps-inner split-k 4"},
        // Its stride-2 twin at batch 4: 0.0249 ms; 128x128x32 2x4 in 8 splits (64 workgroups) 0.0260.
        {"3x3/512 at 14x14 stride 2, batch 4", layer(4, 512, 14, 512, 3, 2, 1),
         "64x64x32 warps 2x4 mma 16x16x16 stages 2 nhwc taps-inner split-k 4"},
        // Batch 8, in 8 splits (128 workgroups, one on every unit): 128x128x32 on 2x4 subgroups of
        // 16x8x16 0.0280 ms (the stride-2 twin 0.0274); 128x128x16 2x4 0.0296 (0.0307), 2x2 with
        // prefetch 0.0318 (0.0325).
        {"3x3/512 at 7x7, batch 8", layer(8, 512, 7, 512, 3, 1, 1),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc taps-inner split-k 8"},
        {"3x3/512 at 14x14 stride 2, batch 8", layer(8, 512, 14, 512, 3, 2, 1),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc taps-inner split-k 8"},
        // 1x1 1024->256 at 14x14, batch 1 (28 workgroups): in 8 splits 0.010 ms (32x64x64 2x4 of
        // 16x8x16 in 4 0.010); unsplit 32x64x64 2x4 0.011 (the resnet50_batch1 sweep: 0.0111, 1x4
        // of 16x16x16 0.0121), 32x64x16 0.023, 32x64x32 0.014. On the H100 32x64x32 in 8 splits
        // 0.0101 on 2x4 subgroups of 16x8x16, 0.0106 on 1x4 of 16x16x16; on the H200 32x64x64 2x4
        // in 4 0.0101, 32x64x32 2x4 in 8 0.0102.
        {"1x1 1024->256 at 14x14, batch 1", layer(1, 1024, 14, 256, 1, 1, 0),
         "32x64x64 warps 2x4 mma 16x8x16 stages 2 nchw split-k 4"},
        // The strided downsample 512->1024 at 28x28, batch 1 (H200): the NCHW loader 0.0103 ms
        // (the resnet50_batch1 sweep 0.0100), the channels-last kernel 0.0114.
        {"1x1 512->1024 at 28x28 stride 2, batch 1", layer(1, 512, 28, 1024, 1, 2, 0),
         "32x64x64 warps 2x4 mma 16x8x16 stages 2 nchw sg32"},
        // Where its 128x128 tiles make 0.6 to 1 workgroup a unit, 128x128x32 on 2x4 subgroups of
        // 16x8x16 with prefetch, one workgroup an SM (H200): batch 6 (80) 0.0208 ms against 0.0267
        // for 128x64x32 4x2; batch 8 (104) 0.0218 against 0.0243 for 128x128x16 4x2; at batch 12
        // (152) 0.0349 against 0.0303 for 4x2. 1024->2048 at 14x14: batch 16 (112) 0.0330 against
        // 0.0367 (2x2 with prefetch); batch 8 (56) 128x64x32 0.0260 against 0.0319.
        {"1x1 512->1024 at 28x28 stride 2, batch 6", layer(6, 512, 28, 1024, 1, 2, 0),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc frag-prefetch"},
        {"1x1 512->1024 at 28x28 stride 2, batch 8", layer(8, 512, 28, 1024, 1, 2, 0),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc frag-prefetch"},
        {"1x1 512->1024 at 28x28 stride 2, batch 12", layer(12, 512, 28, 1024, 1, 2, 0),
         "128x128x16 warps 4x2 mma 16x8x16 stages 2 nhwc"},
        // And where it makes a third wave (2 to 3 workgroups a unit): batch 24 (296) 0.0583 ms
        // against 0.0652 for 4x2, batch 32 (392) 0.0644 against 0.0718; with a fourth, batch 36
        // (448), 4x2 0.0749 against 0.0787.
        {"1x1 512->1024 at 28x28 stride 2, batch 24", layer(24, 512, 28, 1024, 1, 2, 0),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc frag-prefetch"},
        {"1x1 512->1024 at 28x28 stride 2, batch 32", layer(32, 512, 28, 1024, 1, 2, 0),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc frag-prefetch"},
        {"1x1 512->1024 at 28x28 stride 2, batch 36", layer(36, 512, 28, 1024, 1, 2, 0),
         "128x128x16 warps 4x2 mma 16x8x16 stages 2 nhwc"},
        {"1x1 1024->2048 at 14x14 stride 2, batch 16", layer(16, 1024, 14, 2048, 1, 2, 0),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc frag-prefetch"},
        {"1x1 1024->2048 at 14x14 stride 2, batch 8", layer(8, 1024, 14, 2048, 1, 2, 0),
         "128x64x32 warps 4x2 mma 16x8x16 stages 2 nhwc"},
        // Strided 3x3 layers whose 128x128 tiles make half a wave to nearly one while 64x128 ones
        // fit in one (H200, ms): 3x3/128 s2 at batch 32 64x128x16 0.0613 against 0.0652 for the
        // square taps-inner tile; 3x3/256 s2 at batch 64 0.0923 against 0.0964; 3x3/512 s2 at batch
        // 128 0.1534 against 0.1602. A second wave of 64x128 tiles (3x3/512 s2 at batch 144):
        // the square tile, 0.1641; below half a wave (batch 80) the square tile in 2 splits, 0.103.
        {"3x3/128 at 56x56 stride 2, batch 32", layer(32, 128, 56, 128, 3, 2, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        {"3x3/256 at 28x28 stride 2, batch 64", layer(64, 256, 28, 256, 3, 2, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        {"3x3/512 at 14x14 stride 2, batch 128", layer(128, 512, 14, 512, 3, 2, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        {"3x3/512 at 14x14 stride 2, batch 144", layer(144, 512, 14, 512, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch sg32"},
        {"3x3/512 at 14x14 stride 2, batch 80", layer(80, 512, 14, 512, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 2 sg32"},
        // At stride 1 the square tile (3x3/512 at 7x7, batch 128: 0.1283 against 0.1316).
        {"3x3/512 at 7x7, batch 128", layer(128, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch sg32"},
        // 512->2048 at 7x7, batch 32 (208 workgroups of 128x128, H200): 2x4 subgroups 0.0293 ms
        // (16x8x16 fragments 0.0286), 4x2 0.0311; at batch 256 4x2 0.1673, 2x4 0.2002.
        {"1x1 512->2048 at 7x7, batch 32", layer(32, 512, 7, 2048, 1, 1, 0), "128x128x16 warps 2x4 mma 16x16x16 stages 2 nhwc sg32"},
        {"1x1 512->2048 at 7x7, batch 256", layer(256, 512, 7, 2048, 1, 1, 0), "128x128x16 warps 4x2 mma 16x16x16 stages 2 nhwc sg32"},
        // 1x1 2048->512 at 7x7, batch 1 (16 workgroups): in 8 splits 0.014 ms on 1x4 subgroups of
        // 16x16x16, 0.013 on 2x4 of 16x8x16; unsplit 0.021. On the H100 the NCHW loader in 8
        // splits 0.0111, the channels-last kernel 0.0140; at batch 4 (56 workgroups, no split)
        // the channels-last kernel led, 0.0217 against 0.0236. 512->2048 at 7x7 (64 workgroups,
        // K 512): on the H100 the NCHW loader 0.0093, the channels-last kernel 0.0111; batch 4
        // 0.0131 (32x64x32 2x4) against 0.0160.
        {"1x1 2048->512 at 7x7, batch 1", layer(1, 2048, 7, 512, 1, 1, 0),
         "32x64x64 warps 2x4 mma 16x8x16 stages 2 nchw split-k 8"},
        {"1x1 2048->512 at 7x7, batch 4", layer(4, 2048, 7, 512, 1, 1, 0), "32x64x64 warps 2x4 mma 16x8x16 stages 2 nhwc sg32"},
        // At batch 12-20 (80-128 of its 64x64 tiles) split 4 ways: batch 12 64x64x16 0.0256 ms
        // against 0.0472 unsplit and the NCHW loader's 64x128x16 split's 0.0266; from batch 16
        // (104 tiles) that split: 0.0263 ms against 0.0284 for 64x64x16 (0.0335 for 64x64x32 2x4
        // unsplit), batch 18 0.0277 against 0.0294 (H200).
        {"1x1 2048->512 at 7x7, batch 12", layer(12, 2048, 7, 512, 1, 1, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc split-k 4"},
        {"1x1 2048->512 at 7x7, batch 16", layer(16, 2048, 7, 512, 1, 1, 0),
         "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw split-k 4"},
        {"1x1 2048->512 at 7x7, batch 18", layer(18, 2048, 7, 512, 1, 1, 0),
         "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw split-k 4"},
        // Past the window, up to 1.5 units of 64x64 tiles (136-176 at batch 22-28), 64x64x16 2x2
        // with prefetch in 2 splits: batch 24 0.0346 ms against 0.0406 unsplit, 0.0417 in 4 splits
        // and 0.0385 for 128x128x16 in 4; batch 28 0.0355 against 0.0404. At batch 32 (200 tiles)
        // the NCHW loader's 64x128x32 2x4 in one wave of 100 workgroups: 0.0387 ms against 0.0414
        // for 64x64x16 2x2 with prefetch and 0.0422 for it in 2 splits (H200, every candidate).
        {"1x1 2048->512 at 7x7, batch 24", layer(24, 2048, 7, 512, 1, 1, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch split-k 2 sg32"},
        {"1x1 2048->512 at 7x7, batch 28", layer(28, 2048, 7, 512, 1, 1, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch split-k 2 sg32"},
        {"1x1 2048->512 at 7x7, batch 32", layer(32, 2048, 7, 512, 1, 1, 0),
         "64x128x32 warps 2x4 mma 16x16x16 stages 2 nchw sg32"},
        // At batch 64, 64x256x32 (98 workgroups): 0.0545 ms against 0.0620 for 64x64x16 with prefetch.
        {"1x1 2048->512 at 7x7, batch 64", layer(64, 2048, 7, 512, 1, 1, 0),
         "64x256x32 warps 2x4 mma 16x16x16 stages 2 nchw sg32"},
        // ResNeXt-50's 2048->1024 at 7x7, batch 32: 64x256x32 2x4 (100 workgroups) 0.0537 ms against
        // 0.0558 for 128x128x16 2x2 with prefetch, 0.0736 for 64x128x32 (200; H200, every candidate).
        // At batch 28, where 64x64 tiles make under three workgroups a unit, those with prefetch:
        // 0.0488 ms against 0.0538 for 64x256x32.
        {"1x1 2048->1024 at 7x7, batch 32", layer(32, 2048, 7, 1024, 1, 1, 0),
         "64x256x32 warps 2x4 mma 16x16x16 stages 2 nchw sg32"},
        {"1x1 2048->1024 at 7x7, batch 28", layer(28, 2048, 7, 1024, 1, 1, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        {"1x1 512->2048 at 7x7, batch 1", layer(1, 512, 7, 2048, 1, 1, 0), "32x64x64 warps 2x4 mma 16x8x16 stages 2 nchw sg32"},
        {"1x1 512->2048 at 7x7, batch 4", layer(4, 512, 7, 2048, 1, 1, 0), "32x64x32 warps 2x4 mma 16x8x16 stages 2 nchw sg32"},
        // The strided downsample 256->512 at 56x56, batch 1 (H100): the NCHW loader's 32x64x32
        // 0.0092 ms, the channels-last kernel's 64x64x32 0.0112.
        {"1x1 256->512 at 56x56 stride 2, batch 1", layer(1, 256, 56, 512, 1, 2, 0),
         "32x64x32 warps 2x4 mma 16x8x16 stages 2 nchw sg32"},
        // At batch 8-64 the NCHW loader's preferred tiles (H200): at batch 8 and 16 64x128x16 on
        // 1x4 subgroups, 0.0191 and 0.0384 ms against 0.0199 and 0.0419 on 2x4 and the
        // channels-last kernel's 0.0226 and 0.0463; 0.0674 at batch 32 against 0.0720, 0.1304 at
        // batch 64 against 0.1340. At batch 4 and 128 the channels-last kernel: 0.0147 against
        // 0.0153, 0.2546 against 0.2560.
        {"1x1 256->512 at 56x56 stride 2, batch 4", layer(4, 256, 56, 512, 1, 2, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        {"1x1 256->512 at 56x56 stride 2, batch 8", layer(8, 256, 56, 512, 1, 2, 0),
         "64x128x16 warps 1x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->512 at 56x56 stride 2, batch 128", layer(128, 256, 56, 512, 1, 2, 0),
         "128x128x16 warps 4x2 mma 16x8x16 stages 2 nhwc"},
        {"1x1 256->512 at 56x56 stride 2, batch 16", layer(16, 256, 56, 512, 1, 2, 0),
         "64x128x16 warps 1x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->512 at 56x56 stride 2, batch 32", layer(32, 256, 56, 512, 1, 2, 0),
         "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"resnet50_l2_down_256_512_s2", layer(64, 256, 56, 512, 1, 2, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // ConvNeXt-T's 2x2 stride-2 downsample 96->192 at 56x56 (H200): at batch 1 the NCHW
        // loader in 4 splits 0.0112-0.0118 ms, the channels-last kernel 0.0136-0.0140 (its
        // packing pass a dispatch ahead); at batch 32 the channels-last kernel 0.0507, the NCHW
        // loader's best 0.0518.
        {"convnext 2x2 down 96->192, batch 1", layer(1, 96, 56, 192, 2, 2, 0), "taps-inner nchw split-k 4"},
        {"convnext 2x2 down 96->192, batch 32", layer(32, 96, 56, 192, 2, 2, 0), "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc"},
        // 1x1 512->128 at 28x28, batch 8 (392 workgroups): 0.012 ms; 16-deep 0.015, 64-deep 0.017.
        {"1x1 512->128 at 28x28, batch 8", layer(8, 512, 28, 128, 1, 1, 0), "32x64x32 warps 1x4 mma 16x16x16 stages 2 nchw"},
        // Mid-size batches. 3x3/256 at 14x14, batch 32: split-K, 2 ways (98 tiles, 196
        // workgroups) 0.048 ms; 64x64x16 2x2 with prefetch (392) 0.050-0.051, 128x128x16 2x2
        // unsplit 0.048-0.052, in 4 splits 0.061; the 32x64x16 tile the full idle charge had
        // picked 0.109.
        {"3x3/256 at 14x14, batch 32", layer(32, 256, 14, 256, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 2"},
        // Its stride-2 twin (3x3/256 at 28x28): in 2 splits 0.060 ms; 64x64x16 2x2 0.067,
        // unsplit 0.078, in 4 splits 0.076.
        {"3x3/256 at 28x28 stride 2, batch 32", layer(32, 256, 28, 256, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 2"},
        // 3x3/512 at 7x7, batch 32: split-K, 4 ways (52 tiles, 208 workgroups) 0.051-0.052 ms; 2
        // ways 0.061, 8 ways 0.067, unsplit 0.094; 64x64x16 2x2 with prefetch 0.068-0.069,
        // 64x64x32 2x4 0.079.
        {"3x3/512 at 7x7, batch 32", layer(32, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 4"},
        // Past a wave of the square prefetch tile (two workgroups an SM), a last wave a fifth full
        // or more: 64x128x16 2x2 with prefetch (three an SM) where it ends in as many waves.
        // 3x3/128 at 28x28, batch 56: 0.0821 ms against 0.0856; batch 48 (a last wave a tenth
        // full) 0.0791 against 0.0725, batch 72 (a wave more) 0.1161 against 0.0888. 3x3/256 at
        // 14x14, batch 112: 0.1442 against 0.1509; 3x3/512 at 7x7, batch 224: 0.2619 against 0.2757.
        {"3x3/128 at 28x28, batch 56", layer(56, 128, 28, 128, 3, 1, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        {"3x3/128 at 28x28, batch 48", layer(48, 128, 28, 128, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        {"3x3/128 at 28x28, batch 72", layer(72, 128, 28, 128, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        {"3x3/256 at 14x14, batch 112", layer(112, 256, 14, 256, 3, 1, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        {"3x3/512 at 7x7, batch 224", layer(224, 512, 7, 512, 3, 1, 1),
         "64x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // Batch 20 and 40 (H200): 3x3/512 at 7x7 in 8 splits at batch 20 (256 workgroups) 0.0379
        // ms, 128x128x32 2x4 in 4 0.0404; at batch 40 in 4 (256) 0.053, in 2 0.062, 128x128x32 2x4
        // in 2 0.064; the stride-2 twin at batch 40 in 4 0.0640, 128x128x32 2x4 in 2 0.0708, while at
        // batch 20 128x128x32 2x4 in 4 led, 0.0382 against 0.0416. 3x3/128 at 28x28, batch 20 (123
        // tiles of 128x128): 0.0320 ms against 0.0369 for 64x64x16.
        {"3x3/512 at 7x7, batch 20", layer(20, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 8"},
        {"3x3/512 at 7x7, batch 40", layer(40, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 4"},
        {"3x3/512 at 14x14 stride 2, batch 40", layer(40, 512, 14, 512, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 4"},
        {"3x3/512 at 14x14 stride 2, batch 20", layer(20, 512, 14, 512, 3, 2, 1),
         "128x128x32 warps 2x4 mma 16x8x16 stages 2 nhwc taps-inner split-k 4"},
        {"3x3/128 at 28x28, batch 20", layer(20, 128, 28, 128, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch sg32"},
        // Batch 16. 3x3/512 at 7x7: in 8 splits (28 tiles, 224 workgroups) 0.037 ms; in 4
        // 0.041, in 2 0.060; 64x64x32 2x4 0.055, 64x64x16 2x2 with prefetch 0.061.
        {"3x3/512 at 7x7, batch 16", layer(16, 512, 7, 512, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 8"},
        // 3x3/256 at 14x14: in 4 splits (50 tiles, 200 workgroups) 0.033 ms; in 2 0.037, in 8
        // 0.044, unsplit 0.050; 64x64x16 2x2 with prefetch 0.038.
        {"3x3/256 at 14x14, batch 16", layer(16, 256, 14, 256, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 4"},
        // 3x3/128 at 28x28 (K 1152): 0.030 ms; 128x128x16 2x2 with prefetch 0.031-0.032, in 2
        // splits 0.035; 32x64x16 0.059.
        {"3x3/128 at 28x28, batch 16", layer(16, 128, 28, 128, 3, 1, 1),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // 3x3/512 at 14x14 stride 2, batch 32: split-K, 4 ways (52 tiles, 208 workgroups) 0.060
        // ms, 128x128x32 4x2 taps-inner split in 2 0.060; unsplit 64x64x32 2x4 0.070-0.074,
        // 64x64x16 2x2 with prefetch 0.080.
        {"3x3/512 at 14x14 stride 2, batch 32", layer(32, 512, 14, 512, 3, 2, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 4"},
        // 3x3/256 at 14x14, batch 8: split-K, 8 ways (26 tiles, 208 workgroups) 0.026 ms, the
        // fastest timed; unsplit 64x64x32 2x4 0.031, 32x64x64 0.039-0.040, the gather kernel's 0.051.
        {"3x3/256 at 14x14, batch 8", layer(8, 256, 14, 256, 3, 1, 1),
         "128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc taps-inner frag-prefetch split-k 8"},
        // Deep 1x1 layers where the NCHW loader's tiles make one to two workgroups a unit take the
        // channels-last kernel. 1024->512 at 14x14, batch 16: 64x64x16 2x2 with prefetch 0.030 ms,
        // 128x128x16 0.034; the NCHW loader's 32x64x32 0.037. Batch 32: the NCHW loader's 64x128x16
        // 0.0410 ms (the resnet50_batch32 sweep), 64x64x32 2x4 0.065-0.066; 128x128x16 2x2 with
        // prefetch 0.050-0.051, 64x64x16 2x2 with prefetch 0.070.
        {"1x1 1024->512 at 14x14, batch 32", layer(32, 1024, 14, 512, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 16", layer(16, 1024, 14, 512, 1, 1, 0),
         "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // At batch 64 (392 workgroups of 64x256) the NCHW loader's 64x128x16 0.087 ms, its
        // 64x256x16 and the channels-last 128x128x16 0.102; at batch 128 64x256x16 0.158,
        // 64x128x16 0.171, 128x128x16 0.170.
        {"1x1 1024->512 at 14x14, batch 64", layer(64, 1024, 14, 512, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 128", layer(128, 1024, 14, 512, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // 1x1 512->256 at 28x28: BN 128 where 64x256 tiles make less than a wave of the slots.
        // Batch 16: 64x128x16 0.024 ms, 64x256x16 0.029, 64x64x16 0.046; batch 32 0.051, 0.060,
        // 0.083; batch 64 (784 workgroups of 64x256) 0.095, 0.092, 0.159.
        {"1x1 512->256 at 28x28, batch 16", layer(16, 512, 28, 256, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 32", layer(32, 512, 28, 256, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 64", layer(64, 512, 28, 256, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // Where the preferred 64x128x16 has a workgroup on every unit and 64x64x16 2x2 tiles make at
        // most three an SM, the latter (H200): 1024->256 at 14x14, batch 20 and 32, 0.0247 and 0.0282
        // ms against 0.0257 and 0.0311; 1024->512, batch 10, 0.0248 against 0.0254; 512->128 at
        // 28x28, batch 16, 0.0170 against 0.0183; 512->256, batch 5 and 8, 0.0152 and 0.0170 against
        // 0.0157 and 0.0182. The figures below compare 64x128x16 with the tiles it led.
        // 1x1 1024->256 at 14x14, batch 32: 64x128x16 (196 workgroups) 0.031 ms; 64x256x16 0.035,
        // 32x64x32 (784) 0.038, 16-deep 0.057; the channels-last kernel's 64x64x16 with prefetch
        // 0.039, 128x128x16 0.045. At batch 16 (98 workgroups of 64x128) 32x64x32 0.021 against
        // 0.025; 512->256 at 28x28, batch 8, 64x128x16 0.018 against 0.021; at batch 4 0.016
        // against 0.013.
        {"1x1 1024->256 at 14x14, batch 32", layer(32, 1024, 14, 256, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->256 at 14x14, batch 16", layer(16, 1024, 14, 256, 1, 1, 0), "32x64x32 warps 1x4 mma 16x16x16 stages 2 nchw"},
        // From 0.85 of a unit of 64x128 tiles, where 32x64x32 passes three workgroups an SM:
        // 1024->256 at batch 20 (124) 0.0258 ms against 0.0361; 1024->512 at batch 10 0.0257
        // against 0.0360; 512->256 at 28x28, batch 5, 0.0155 against 0.0204 (H200).
        {"1x1 1024->256 at 14x14, batch 20", layer(20, 1024, 14, 256, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 10", layer(10, 1024, 14, 512, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 5", layer(5, 512, 28, 256, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 8", layer(8, 512, 28, 256, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 4", layer(4, 512, 28, 256, 1, 1, 0), "32x64x32 warps 1x4 mma 16x16x16 stages 2 nchw"},
        // Over 128 output channels, BN 256 where its grid (two workgroups an SM) ends in fewer
        // waves than BN 128's (three an SM), BN 128 in as many (H200): 512->256 at 28x28, batch
        // 17-21, 64x256x16 0.0289-0.0335 ms against 0.0384-0.0456, batch 22 0.0522 against 0.0469;
        // 1024->512 at 14x14, batch 34-43, 0.0514-0.0568 against 0.0681-0.0794, batch 44-46
        // 0.0907-0.0934 against 0.0800-0.0821; 128->512 at 28x28, batch 9-20; 64->256 at 56x56,
        // batch 5 and 9-10; 1024->256 at 14x14, batch 80 and 160 (0.0585 and 0.1136 against
        // 0.0806 and 0.1284), with 32-48 on 64x128 (0.0310-0.0443 against 0.0347-0.0530);
        // 256->1024 at 14x14, batch 17-21 and 33-41 (0.0204-0.0411 against 0.0270-0.0455).
        {"1x1 512->256 at 28x28, batch 19", layer(19, 512, 28, 256, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 22", layer(22, 512, 28, 256, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 512->256 at 28x28, batch 37", layer(37, 512, 28, 256, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 40", layer(40, 1024, 14, 512, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 44", layer(44, 1024, 14, 512, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->512 at 14x14, batch 80", layer(80, 1024, 14, 512, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 128->512 at 28x28, batch 9", layer(9, 128, 28, 512, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 128->512 at 28x28, batch 11", layer(11, 128, 28, 512, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->256 at 56x56, batch 5", layer(5, 64, 56, 256, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->256 at 56x56, batch 6", layer(6, 64, 56, 256, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->256 at 14x14, batch 40", layer(40, 1024, 14, 256, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 1024->256 at 14x14, batch 80", layer(80, 1024, 14, 256, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->1024 at 14x14, batch 20", layer(20, 256, 14, 1024, 1, 1, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->1024 at 14x14, batch 24", layer(24, 256, 14, 1024, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // The strided downsample on 1x4 subgroups the same way (H200): batch 9-10 64x256x16 0.0206-
        // 0.0214 ms against 0.0316-0.0338 on 1x4 and the channels-last 128x128x16 4x2's
        // 0.0230-0.0242; batch 17-20 0.0445-0.0454 against 0.0511-0.0529; batch 22-24 on 1x4 0.0546
        // against 0.0605-0.0637.
        {"1x1 256->512 at 56x56 stride 2, batch 10", layer(10, 256, 56, 512, 1, 2, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->512 at 56x56 stride 2, batch 20", layer(20, 256, 56, 512, 1, 2, 0), "64x256x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 256->512 at 56x56 stride 2, batch 24", layer(24, 256, 56, 512, 1, 2, 0), "64x128x16 warps 1x4 mma 16x16x16 stages 2 nchw"},
        // 512->2048 at 7x7, batch 20 (64x64 tiles filling the slots): 64x64x16 2x2 with prefetch
        // 0.0235-0.0237 ms against 0.0255-0.0257 for 128x128x16 2x4 (H200).
        {"1x1 512->2048 at 7x7, batch 20", layer(20, 512, 7, 2048, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc frag-prefetch"},
        // 1024->512 at 14x14 past three 64x64 workgroups an SM (batch 17-20): the NCHW loader's
        // 64x128x16 0.0314-0.0318 ms, 64x64x16 2x2 with prefetch 0.0359-0.0371, 128x128x16 2x2
        // with prefetch 0.0337-0.0342.
        {"1x1 1024->512 at 14x14, batch 18", layer(18, 1024, 14, 512, 1, 1, 0), "64x128x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // 64->64 at 56x56: batch 8 (392 workgroups of 64x64) 64x64x16 0.0081 ms, 32x64x32 0.0092;
        // batch 4 (196) 0.0071 against 0.0062.
        {"1x1 64->64 at 56x56, batch 8", layer(8, 64, 56, 64, 1, 1, 0), "64x64x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->64 at 56x56, batch 4", layer(4, 64, 56, 64, 1, 1, 0), "32x64x32 warps 1x4 mma 16x16x16 stages 2 nchw"},
        // By the waves (four 64x64 workgroups an SM, three 128x64): batch 12 and 16 128x64x16 2x2
        // 0.0101 and 0.0104 ms against 0.0117 and 0.0132, 28 0.0190 against 0.0201; batch 20 (two
        // waves each) 64x64x16 0.0139 against 0.0167; batch 40 0.0280 against 0.0292.
        {"1x1 64->64 at 56x56, batch 12", layer(12, 64, 56, 64, 1, 1, 0), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->64 at 56x56, batch 16", layer(16, 64, 56, 64, 1, 1, 0), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->64 at 56x56, batch 28", layer(28, 64, 56, 64, 1, 1, 0), "128x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->64 at 56x56, batch 20", layer(20, 64, 56, 64, 1, 1, 0), "64x64x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        {"1x1 64->64 at 56x56, batch 40", layer(40, 64, 56, 64, 1, 1, 0), "64x64x16 warps 2x4 mma 16x16x16 stages 2 nchw"},
        // 512->128 at 28x28, batch 16 (196 workgroups): 64x128x16 0.018 ms, 32x64x32 0.022.
        {"1x1 512->128 at 28x28, batch 16", layer(16, 512, 28, 128, 1, 1, 0), "64x64x16 warps 2x2 mma 16x16x16 stages 2 nchw"},
    };
    const auto devices = measuredDevices();
    for (const MeasuredPick& m : picks)
        for (const auto& [name, device] : devices) {
            const KernelConfig c = detail::selectConfig(Path::CoopMatF16, device, m.problem).config;
            EXPECT_THAT(c.str(), HasSubstr(m.config)) << m.layer << " on " << name;
        }
}

// The grouped direct kernel's picks for the suite's five depthwise and small-group layers: each the
// fastest of kernel-lab's timings with the candidate cap lifted (every from-memory tile of dw
// 512/14, 20-40 tiles of the others).
TEST(MeasuredPicks, GroupedDirectTakesTheFastestTimedOnAnNvidiaLikeDevice) {
    auto grouped = [](ConvProblem p, int64_t groups) {
        p.groups = groups;
        return p;
    };
    auto depthwise = [&](ConvProblem p) { return grouped(p, p.inChannels); };
    const MeasuredPick picks[] = {
        // 0.135 ms (and with 8 planes); 7 threads a plane 0.144, 7 rows over 2 threads 0.149.
        {"mobilenet_dw_512_14", depthwise(layer(512, 512, 14, 512, 3, 1, 1)),
         "14x16 thread 14x2 k1 threads 8x1 groups 4 from-memory"},
        // 0.131 ms; 8x32 0.132, 14 rows a thread 0.43.
        {"mobilenet_dw_64_112_s2", depthwise(layer(128, 64, 112, 64, 3, 2, 1)), "8x56 thread 8x1 k1 threads 56x1 from-memory"},
        // 0.119 ms; 16x112 0.125, 8x128 0.131.
        {"mobilenet_dw_32_112", depthwise(layer(128, 32, 112, 32, 3, 1, 1)), "8x112 thread 2x4 k1 threads 28x4"},
        // 0.165 ms (staged; 0.157 with the weights as uniforms); 8x56 threads 14x4 0.170 (0.161).
        {"convnext_dw_96_56_7x7", depthwise(layer(128, 96, 56, 96, 7, 1, 3)), "8x64 thread 2x4 k1 threads 16x4"},
        // 0.168 ms with the weights as uniforms (0.185 before them); 8x64 threads 16x4 0.175 (0.178).
        {"resnext_3x3_128_g32_56", grouped(layer(128, 128, 56, 128, 3, 1, 1), 32), "8x56 thread 2x4 k4 threads 14x4 from-memory"},
        // ResNeXt-50's grouped 3x3 of 8 channels a group at 28x28, batch 32 (H200, all 74
        // candidates twice): 0.0482-0.0485 ms; its k4 twin 0.0543, the former pick 28x28 thread 7x2
        // k4 0.0524-0.0527, 14 rows a thread (the sweep of resnext50_batch32) 0.154. At batch 8 and
        // 64 also the fastest (0.0153 and 0.0898 ms against 0.0173 and 0.0934 for 7x2 k4); at 16
        // 0.0286 against 0.0269 for 32x28 thread 2x4 k8 and 0.0272 for 7x2 k4.
        {"resnext 3x3 g32 of 8 at 28x28, batch 32", grouped(layer(32, 256, 28, 256, 3, 1, 1), 32),
         "16x28 thread 2x4 k8 threads 7x8 from-memory"},
        // The same at stride 2 from 56x56: 0.0757 ms; 8x28 thread 4x1 k8 0.0756, 16x28 0.0762.
        {"resnext 3x3 g32 of 8 at 56x56 stride 2, batch 32", grouped(layer(32, 256, 56, 256, 3, 2, 1), 32),
         "4x32 thread 4x1 k8 threads 32x1 from-memory"},
        // MobileNet's dw 128/56 at batch 32 (the sweep of mobilenet_batch32): 0.0350 ms; 8x56
        // threads 14x4 0.0341, every whole-plane tile from memory 0.040-0.066.
        {"depthwise 128 at 56x56, batch 32", depthwise(layer(32, 128, 56, 128, 3, 1, 1)), "8x64 thread 2x4 k1 threads 16x4"},
        // MobileNet's small-plane depthwise layers at batch 32 (H200, two sweeps of
        // mobilenet_batch32 and kernel-lab). dw 256/28: 0.0217 ms; threads of 7 rows of 1-2
        // outputs 0.0207-0.0218, 7 rows of 4 0.0230-0.0265, the strips of 2 rows 0.0254-0.0259.
        {"depthwise 256 at 28x28, batch 32", depthwise(layer(32, 256, 28, 256, 3, 1, 1)),
         "28x28 thread 7x1 k1 threads 28x4 groups 2 from-memory"},
        // dw 256/28 s2: 0.0106-0.0112 ms on rows of 16 lanes; 14 lanes 0.0119-0.0132.
        {"depthwise 256 at 28x28 stride 2, batch 32", depthwise(layer(32, 256, 28, 256, 3, 2, 1)),
         "16x16 thread 8x1 k1 threads 16x2 from-memory"},
        // dw 1024/7: 0.0100-0.0102 ms on two threads a plane, 32 planes a workgroup 0.0096-0.0100;
        // four threads a plane 0.0117-0.0121.
        {"depthwise 1024 at 7x7, batch 32", depthwise(layer(32, 1024, 7, 1024, 3, 1, 1)),
         "7x8 thread 7x4 k1 threads 2x1 groups 16 from-memory"},
        // dw 512/14 s2: 0.0086-0.0088 ms on rows of 8 lanes; 7 lanes 0.0116-0.0117.
        {"depthwise 512 at 14x14 stride 2, batch 32", depthwise(layer(32, 512, 14, 512, 3, 2, 1)),
         "8x8 thread 8x1 k1 threads 8x1 groups 4 from-memory"},
        // ConvNeXt-T's 7x7 depthwise at batch 32 (three H200 sweeps of convnext_t_batch32), at
        // 28x28: 0.0253-0.0255 ms; 16x32 threads 8x8 0.0240-0.0244 (the pick 5% behind), 32x28
        // thread 4x4 0.0244-0.0246, 16x28 threads 7x8 0.0264-0.0268, 28x28 thread 7x2 0.0315, 14
        // rows a thread 0.119-0.132.
        {"convnext dw 192 7x7 at 28x28, batch 32", depthwise(layer(32, 192, 28, 192, 7, 1, 3)), "8x32 thread 2x4 k1 threads 8x4"},
        // At 14x14, from memory: 0.0186 ms; 14x16 threads 8x2 0.0182, thread 4x4 0.0187-0.0190;
        // staged: thread 4x4 0.0211-0.0215, 2x8 0.0196, 7x1 and 7x2 0.0233-0.0239, 7x4 0.043, 14
        // rows 0.082-0.121.
        {"convnext dw 384 7x7 at 14x14, batch 32", depthwise(layer(32, 384, 14, 384, 7, 1, 3)),
         "14x14 thread 7x2 k1 threads 7x2 groups 4 from-memory"},
        // At 7x7, from memory: 0.0097 ms; thread 2x8 0.0092 (the pick 5% behind), 4x4 0.0115-0.0120,
        // 7x1 0.0133; staged: thread 4x4, 7x1 and 7x2 0.0165-0.0172, 28 or 32 outputs a thread
        // 0.031-0.047.
        {"convnext dw 768 7x7 at 7x7, batch 32", depthwise(layer(32, 768, 7, 768, 7, 1, 3)),
         "7x8 thread 7x2 k1 threads 4x1 groups 8 from-memory"},
    };
    const auto devices = measuredDevices();
    for (const MeasuredPick& m : picks)
        for (const auto& [name, device] : devices) {
            const KernelConfig c = detail::selectConfig(Path::Fp32, device, m.problem).config;
            EXPECT_STREQ(c.kernel(), "grouped-direct") << m.layer << " on " << name << ": " << c.str();
            EXPECT_THAT(c.str(), HasSubstr(m.config)) << m.layer << " on " << name;
            // A staged pick's name is the start of its from-memory twin's.
            EXPECT_EQ(c.as<GroupedDirectKernel>().fromMemory, std::string(m.config).find("from-memory") != std::string::npos)
                << m.layer << " on " << name << ": " << c.str();
        }
}

// The cost models count a device's workgroup slots by its compute units, in proportion to the
// H200's 132 SMs, where their small-grid lines were measured: 512 there and where the driver
// reports none, 16 on a CPU device. A GPU with fewer units is full with fewer workgroups: on
// 24 SMs, ResNet-50's 3x3/256 at 14x14 and batch 32 takes the large tiles whole (98
// workgroups), not split in two as on the H200, whose 132 SMs they would leave a third idle.
TEST(MeasuredPicks, WorkgroupSlotsFollowTheComputeUnits) {
    DeviceInfo gpu = fakeCoopMatDevice(/*mesaLike=*/false);
    EXPECT_EQ(detail::workgroupSlots(gpu), 512.0);
    gpu.computeUnits = 132;
    EXPECT_EQ(detail::workgroupSlots(gpu), 512.0);
    gpu.computeUnits = 24;
    EXPECT_NEAR(detail::workgroupSlots(gpu), 512.0 * 24 / 132, 1e-9);
    DeviceInfo cpu = gpu;
    cpu.deviceType = "CPU";
    EXPECT_EQ(detail::workgroupSlots(cpu), 16.0);

    const ConvProblem p = layer(32, 256, 14, 256, 3, 1, 1);
    gpu.computeUnits = 132;
    EXPECT_THAT(detail::selectConfig(Path::CoopMatF16, gpu, p).config.str(), HasSubstr("128x128x16 warps 2x2"));
    EXPECT_THAT(detail::selectConfig(Path::CoopMatF16, gpu, p).config.str(), HasSubstr("split-k 2"));
    gpu.computeUnits = 24;
    EXPECT_THAT(detail::selectConfig(Path::CoopMatF16, gpu, p).config.str(), HasSubstr("128x128x16 warps 2x2"));
    EXPECT_THAT(detail::selectConfig(Path::CoopMatF16, gpu, p).config.str(), Not(HasSubstr("split-k")));
}

}  // namespace
}  // namespace vkconv
