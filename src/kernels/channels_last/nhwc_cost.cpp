// The channels-last loader's cost model (nhwcCost, nhwc_input.hpp): the heuristic's estimate of a
// configuration's time, calibrated on the H200 tile by tile, with the measured rules for subgroup
// layouts, fragment prefetch, K order, instruction shapes, split-K and grids of a few waves. Each
// rule names the kernel-lab timings behind it (docs/performance.md, and the lab notes in git: git show 5c2b4c3:bench/history/).
#include <algorithm>
#include <cmath>

#include "kernels/channels_last/channels_last_params.hpp"
#include "kernels/common/device_fill.hpp"  // tileGrid, tileWaves, computeUnitCount
#include "kernels/common/device_rules.hpp"  // the measured layouts
#include "kernels/channels_last/nchw_input.hpp"     // nchwVectorLoads, preferredNchwTile (the 1x1 rules weigh the NCHW loader), nchwWindowsOverlap
#include "kernels/channels_last/nhwc_input.hpp"
#include "kernels/channels_last/split_k.hpp"        // deepPointwiseMidGrid, deepPointwiseNchwSplit, deepPointwiseTwoSplits

namespace vkconv::detail {

double channelsLastTileFactor(const KernelConfig& c) {
    // 0.42x the gather kernel's time on ResNet-50's 3x3/256 (kernel-lab,
    // docs/performance.md); 64x128 took 1.38x 128x128's time there.
    return 0.31 * (1.0 + 32.0 / c.bm + 32.0 / c.bn);
}

namespace {
// Whether 128x128 tiles, two workgroups a compute unit, make more than one wave and their last
// wave a fifth full or more, while 64x128 tiles, three a unit, end in as many waves.
bool squareTileTailFilled(const DeviceInfo& d, const ConvProblem& p) {
    const double squareWaves = tileWaves(128, 128, 2, d, p);
    const double narrowWaves = tileWaves(64, 128, 3, d, p);
    return squareWaves > 1.0 && squareWaves - std::floor(squareWaves) >= 0.2 &&
           std::ceil(narrowWaves) == std::ceil(squareWaves);
}

// Whether 128x128 tiles, two a compute unit, fill half of one wave to all but the last of it,
// while 64x128 tiles, three a unit, fit in that one wave.
bool squareTileSubWave(const DeviceInfo& d, const ConvProblem& p) {
    const double squareWaves = tileWaves(128, 128, 2, d, p);
    return squareWaves >= 0.5 && squareWaves < 1.0 && tileWaves(64, 128, 3, d, p) <= 1.0;
}
}  // namespace

double nhwcCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    const ChannelsLastTiling& cl = channelsLast(c);
    const TileGrid grid = tileGrid(c, d, p);
    // Work on the padded K (C rounded up to BK per tap).
    const double kNhwc = double(p.kernelH * p.kernelW) * nhwcChannels(p, c.bk);
    const double work = grid.mTiles * c.bm * grid.nTiles * c.bn * kNhwc;
    const double fragM = c.bm / tiling(c).warpsM / tiling(c).mmaM, fragN = c.bn / tiling(c).warpsN / tiling(c).mmaN;
    if (d.isCpu()) {
        // On a CPU device the matrix units are emulated and the pipeline compile dominates:
        // the fewest fragments a subgroup.
        return work * (1.0 + fragM * fragN / 4.0) * grid.underfill();
    }
    // Calibrated on the H200 (docs/performance.md, kernel-lab over the channels-last
    // configurations of four layers): 128x128x32 with 4 subgroups (255 registers) or
    // 128x256x16 with 16 led, 1.30 ms on ResNet-50's 3x3/256 (the gather kernel 3.06) and
    // 2.36 on 3x3/512 (6.11), with every 128x128 and 128x256 tile within 10%; on VGG's
    // 3x3/64 64x64x32 with 8 subgroups, 1.21 (gather 1.65). On a 1x1 over 256 channels it
    // lost, 0.27 against 0.22 ms: the packing pass reads the input once more.
    double factor = channelsLastTileFactor(c);
    // Subgroup layouts, relative to the best of their tile: fewer than 4 subgroups leave a
    // compute unit idle, and layouts not measured rank behind the measured ones. The device
    // class's table (src/kernels/rules/, channels_last_tiles) holds the measured layouts and the
    // condition each was measured under; the first that matches counts. On the H200 and H100
    // 128x128x16 leads on the 3x3 layers of 128+ output channels (2x4 subgroups at stride 1, 4x2
    // strided and on the 1x1 layers it serves), 128x128x32 behind it, 256x64x16 4x4 with 64
    // output channels at stride 1, and 2x4 on wide 1x1 layers whose grid makes from a workgroup a
    // unit to the slots.
    const bool deep = p.inChannels >= 256, strided = p.strided();
    const bool taps = p.kernelH * p.kernelW > 1;
    using When = ChannelsLastTile::When;
    auto holds = [&](When when) {
        switch (when) {
            case When::Any: return true;
            case When::Shallow: return !deep;
            case When::DeepStride1: return deep && !strided;
            case When::Stride1Taps: return !strided && taps;
            case When::StridedOrPointwise: return strided || !taps;
            case When::NarrowStride1Taps: return p.gemmN() <= 64 && !strided && taps;
            case When::WideMidGrid:
                return p.gemmN() >= 2048 && !strided && !taps && grid.workgroups >= grid.units() &&
                       grid.workgroups < grid.slots;
        }
        return false;
    };
    double layout = tiling(c).warpsM * tiling(c).warpsN < 4 ? 1.6 : 1.15;
    for (const ChannelsLastTile& l : deviceRules(d).channelsLastTiles)
        if (l.bm == c.bm && l.bn == c.bn && l.bk == c.bk && l.warpsM == tiling(c).warpsM && l.warpsN == tiling(c).warpsN && holds(l.when)) {
            layout = l.factor;
            break;
        }
    // Fragment prefetch (kernel-lab on the H200, docs/performance.md): with 2x2 subgroups and
    // 16x16x16 fragments (64x64 warp tiles, 233-254 registers, two workgroups an SM) it
    // led on every 3x3 layer timed, by 4-18% against the best tile without it: 128x128x16 on
    // ResNet-50's 3x3/256 0.885 ms against 0.977 (2x4), 3x3/512 1.664 against 1.864, 3x3/256
    // s2 0.632 against 0.702 (4x2, 16x8x16), 3x3/512 s2 1.031 against 1.188, 3x3/128 0.520
    // against 0.558, 3x3/128 s2 0.413 against 0.449, VGG's conv2_1 0.305 against 0.317;
    // 128x64x16 where there are 64 output channels: VGG's conv1_2 0.891 against 1.081
    // (256x64x16 4x4), ResNet-50's 3x3/64 0.449 against 0.533. On the 1x1 layers over
    // 1024+ channels: 2048->512 0.625 against 0.671 (4x2), the 1024->2048 downsample 0.306
    // against 0.319; over 512 it lost (512->2048 0.706 against 0.645). 1x4 subgroups came
    // within 1-3% of 2x2. On 8-subgroup tiles, held at 128 registers, it lost 10-30%
    // (3x3/256 2x4 1.154 against 0.977). Elsewhere it ranks behind the same tile without it.
    if (cl.fragmentPrefetch) {
        const bool quad = tiling(c).warpsM == 2 && tiling(c).warpsN == 2 && c.bk == 16 && tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096;
        const bool square = quad && c.bm == 128 && c.bn == 128 && (taps || p.gemmK() >= 1024);
        const bool narrow = quad && c.bm == 128 && c.bn == 64 && holds(When::NarrowStride1Taps);
        layout = square ? 0.75 : narrow ? 0.85 : layout * 1.2;
        // Where 64x64 tiles make a quarter of the slots to all of them (batch 16-32), 64x64x16
        // 2x2 with prefetch led on the H200 (kernel-lab, docs/performance.md): 3x3/512 at 7x7,
        // batch 32, 0.069 ms against 0.079 for 64x64x32 2x4 (200 workgroups); 3x3/256 at 28x28
        // stride 2 0.067 against 0.077 for 128x128x16 2x2 (392); at batch 16 3x3/128 at 28x28
        // 0.030 against 0.032, 3x3/256 at 14x14 0.039 against 0.045; 1x1 512->2048 at 7x7 0.023
        // against 0.026. Not on strided layers over 512 channels: 3x3/512 at 14x14 stride 2
        // took 0.080 against 0.067 for 32x64x32 1x4 and 0.074 for 64x64x32 2x4.
        // Split 2 ways on the deep 1x1 layers of deepPointwiseTwoSplits (split_k.hpp), where it
        // led the unsplit tile by 9-15% (2048->512 at 7x7, batch 22-28: 0.0346 ms against 0.0406
        // at batch 24, and the 128x128x16 tiles in 4 splits this model ranks next, within 4% of
        // the unsplit one); a quarter off on top of the split's own charge (about 9% here).
        // Not on stride-1 3x3 layers of 128+ output channels whose 128x128 tiles alone make nine
        // tenths of a unit or more: there the square tile led unsplit (H200, docs/performance.md:
        // 3x3/256 at 14x14, batch 40, 124 tiles, 0.049 ms against 0.064 for 64x64x16; 3x3/128 at
        // 28x28, batch 20, 123 tiles, 0.0320 against 0.0369). Its stride-2 twin kept 64x64x16
        // (0.0477 against 0.0524). All of the slots included: 512->2048 at 7x7, batch 20 (512
        // workgroups), 0.0235-0.0237 ms against 0.0255-0.0257 for 128x128x16 2x4 (H200, twice).
        // On 1x1 layers the NCHW loader reads with vectors, only up to three workgroups an SM:
        // past them the second wave cost it 14-20% and the NCHW loader's preferred tile, one
        // wave, led (1024->512 at 14x14, batch 17-20, 417-496 workgroups: 0.0314-0.0318 ms against
        // 0.0359-0.0371; at 16, 392, 0.0300 against 0.0314).
        // So do the 1x1 layers over 2048+ channels into 1024+: from just past three 64x64 workgroups
        // an SM the square prefetch tile led (2048->1024 at 7x7 on the H200, docs/performance.md: batch
        // 32, 400 workgroups, 0.0562 ms against 0.0608; batch 36 0.0562 against 0.0618, batch 40
        // 0.0597 against 0.0623); below, the 64x64 tile (batch 24-28, 304-352: 0.0482 against 0.0549,
        // 0.0488 against 0.0548). Into 512 channels the 64x64 tile still led past them (2048->512,
        // batch 72-80, 448-496 workgroups: 0.0684 against 0.0766, 0.0711 against 0.0790).
        const bool deepWidePointwise = !taps && !strided && p.gemmK() >= 2048 && p.gemmN() >= 1024;
        const double squareTiles = tileGrid(128, 128, d, p).workgroups;
        const double midGridEnd =
            !taps && (nchwVectorLoads(p) || deepWidePointwise) ? 3 * computeUnitCount(d) : grid.slots;
        const bool midGrid = grid.workgroups >= grid.units() && grid.workgroups <= midGridEnd &&
                             !(taps && !strided && p.gemmN() >= 128 && squareTiles >= 0.9 * grid.units());
        const bool twoSplitDeepPointwise = cl.splitK == 2 && deepPointwiseTwoSplits(p, d, grid.units());
        if (quad && c.bm == 64 && c.bn == 64 && midGrid && (cl.splitK == 1 || twoSplitDeepPointwise) &&
            !(strided && p.inChannels >= 512)) {
            layout = twoSplitDeepPointwise ? 0.375 : 0.5;
            // In their channel-major K order: 3-7% ahead of taps-inner on the same four layers.
            if (cl.tapsInner) layout *= 1.1;
        }
        // Where the square tiles' grid ends in a last wave a fifth full or more (two
        // workgroups an SM, 255 registers) and 64x128x16 on 2x2 subgroups (150 registers, three
        // an SM) ends in as many waves, the smaller tile led, channel-major, on every 3x3 layer
        // timed (kernel-lab on the H200, docs/performance.md): ResNet-50's 3x3/128 at 28x28, batch
        // 56-64 (1.30-1.48 waves of the square tile) 0.0821-0.0837 ms against 0.0856-0.0876,
        // batch 96 (2.23) 0.1217 against 0.1270; 3x3/256 at 14x14, batch 112-128, 0.1442-0.1488
        // against 0.1509-0.1534; 3x3/512 at 7x7, batch 224-256, 0.2619-0.2638 against 0.2757-0.2774;
        // the strided 3x3/256 and 3x3/128 at 1.48 waves 0.1788 against 0.1887 and 0.1147 against
        // 0.1228; its taps-inner order 1-3% behind. With a nearly empty last wave the square tile
        // led (3x3/128 at batch 44-48, 1.02-1.11 waves: 0.0725 against 0.0791) or came level, and
        // where the smaller tile takes a wave more it lost 16-27% (batch 72-80, 112-128).
        // The same on strided 3x3 layers whose square tiles make half a wave to nearly one and the
        // 64x128 tiles one wave (squareTileSubWave): there too the smaller tile led channel-major,
        // by 3-6% (kernel-lab on the H200, docs/performance.md): 3x3/512 s2 at batch 96-128 0.1479-
        // 0.1534 ms against 0.1545-0.1602 for the square tile (taps-inner, the pick before), 3x3/256
        // s2 at batch 48 and 64 0.0836 and 0.0923 against 0.0885 and 0.0964, 3x3/128 s2 at batch 24
        // and 32 0.0556 and 0.0613 against 0.0584 and 0.0652. Where the 64x128 tiles take a second
        // wave the square tile led (batch 144, 80, 40), and at stride 1 the two came level (3x3/512
        // at batch 112, 0.1286 against 0.1283) or the square tile led (batch 128, 0.1316 against
        // 0.1283); below half a wave the split square tile leads (3x3/512 s2 at batch 80, 0.103).
        // Not timed on patch kernels (ConvNeXt's 2x2 stride-2 downsamples), whose windows do not
        // overlap.
        if (quad && c.bm == 64 && c.bn == 128 && cl.splitK == 1 && taps &&
            (squareTileTailFilled(d, p) || (strided && nchwWindowsOverlap(p) && squareTileSubWave(d, p)))) {
            layout = 0.6;
            if (cl.tapsInner) layout *= 1.1;
        }
        // Split into one or two workgroups an SM (the registers of these tiles let two run on
        // each, so the grid is one wave) over a deep K, the 128x128 tiles lead the 64x64 ones
        // (kernel-lab on the H200, docs/performance.md): at batch 32 3x3/512 at 7x7 in 4 splits (208
        // workgroups) 0.052 ms against 0.069, 3x3/256 at 14x14 in 2 (196) 0.048 against 0.050,
        // its stride-2 twin 0.060 against 0.067; at batch 16 3x3/512 in 8 (224) 0.037 against
        // 0.055 for 64x64x32 2x4, 3x3/256 in 4 (200) 0.033 against 0.038. With twice the splits,
        // a second wave, each lost (0.067, 0.061, 0.076, -, 0.044). Over K 1152 the split's fixed
        // costs (partials, reduce, each workgroup's start and epilogue) weigh more: 3x3/128 at
        // 28x28, batch 16, in 2 (196) 0.035 against 0.030 for 64x64.
        const bool deepK = p.gemmK() >= 2048;
        // A split that makes just a unit's worth over a K share of 1024+ ranks behind one that
        // makes two workgroups a unit (3x3/512 at 7x7, H200, docs/performance.md: batch 38 in 4
        // splits, 240 workgroups, 0.0526 ms against 0.0615 in 2; batch 20 in 8 0.0379 against 0.0417
        // in 4); over shorter shares it came level (3x3/256 at 14x14, batch 10, in 4 splits 0.0276
        // against 0.0279 in 8).
        if (square && deepK && cl.splitK > 1 && grid.workgroups >= grid.units() && grid.workgroups <= 2 * grid.units())
            layout = grid.workgroups <= grid.units() && p.gemmK() / cl.splitK >= 1024 ? 0.6 : 0.5;
    }
    // Split to one workgroup on every unit over a 3x3 of 512+ channels (K >= 4096), 128x128x32 on
    // 2x4 subgroups of 16x8x16 fragments led the 128x128x16 2x2 prefetch tiles: 181 registers, one
    // workgroup an SM, whose 8 subgroups hide more latency in a grid of one full wave (kernel-lab
    // on the H200, docs/performance.md): batch 8 in 8 splits (128 workgroups), 3x3/512 at 7x7 0.0280
    // ms against 0.0318 (128x128x16 2x4 0.0296), 3x3/512 at 14x14 stride 2 0.0274 against 0.0325.
    // With a unit in ten or more idle it came level or lost: in 4 splits at batch 16 (112) 0.0395
    // against 0.0372 and 0.0378 against 0.0396, in 2 at batch 32 (104) 0.0630 against 0.0519 and
    // 0.0602 against 0.0597, in 8 at batch 4 (64) 0.0279 against 64x64x32's 0.0244 and 0.0260
    // against 0.0249; with more workgroups too: in 8 at batch 16 (224) 0.0461 against 0.0372, and
    // over 256 channels at batch 8 (208) 0.0313 against 0.0259.
    // At stride 1 only in 8 splits: with fewer the prefetch tiles in twice the splits (two
    // workgroups a unit) led, 3x3/512 at 7x7 at batch 20 in 8 0.0379 ms against 0.0404 in 4, at
    // batch 38 in 4 0.0526 against 0.0643 in 2; at stride 2 in 4 splits still 0.0382 against 0.0416
    // (batch 20), in 2 no longer (batch 40: 0.0708 against 0.0640; H200, docs/performance.md).
    const bool oneWaveDeep = taps && p.gemmK() >= 4096 && cl.splitK >= (strided ? 4u : 8u) &&
                             grid.workgroups >= 0.9 * grid.units() && grid.workgroups <= grid.units();
    const bool eightWarpsDeep = c.bm == 128 && c.bn == 128 && c.bk == 32 && tiling(c).warpsM == 2 && tiling(c).warpsN == 4 &&
                                tiling(c).mmaM == 16 && tiling(c).mmaN == 8 && tiling(c).mmaK == 16;
    if (oneWaveDeep && eightWarpsDeep && !cl.fragmentPrefetch) layout = 0.4;
    // The same tile with fragment prefetch (181 registers, one workgroup an SM) on the strided 1x1
    // downsamples over 512+ channels where its grid, unsplit, makes 0.6 to 1 workgroup a unit: 8-13%
    // faster than the two-an-SM 128x128x16 tiles and 22-25% than 128x64x32, whose workgroups run
    // one an SM with 4 subgroups there (kernel-lab on the H200, docs/performance.md). 512->1024 at
    // 28x28: batch 6 (80 workgroups) 0.0208 ms against 0.0236 (4x2) and 0.0267 (128x64x32, the
    // pick then), batch 8 (104) 0.0218 against 0.0243, batch 10 (128) 0.0225 against 0.0251;
    // 1024->2048 at 14x14: batch 12 (80) 0.0324 against 0.0357 (2x2 with prefetch), batch 16-20
    // (112-128) 0.0330-0.0332 against 0.0367-0.0371. Past a unit each it lost 15-24% (a second
    // wave: 512->1024 at batch 12, 152 workgroups, 0.0349 against 0.0303), and with fewer than 0.6
    // 128x64x32 led (1024->2048 at batch 8, 56: 0.0319 against 0.0260). At stride 1 (512->2048 at
    // 7x7) it came within 5% of 64x64x16 with prefetch either way. Over 512 channels it also led
    // where its grid makes a third wave of one workgroup a unit (2 to 3 a unit), against 4x2's one
    // and a half of two: 512->1024 at batch 24 (296 workgroups) 0.0583 ms against 0.0652, batch 28
    // (344) 0.0617 against 0.0689, batch 32 (392) 0.0644 against 0.0718; with a fourth wave it lost
    // (batch 36, 448: 0.0787 against 0.0749). Over 1024 channels, against 2x2 with prefetch, it came
    // level or lost there (1024->2048 at batch 44-60, 272-368 workgroups: 0.0927 against 0.0848 to
    // 0.0990 against 0.0997).
    // Waves of one workgroup an SM: the device's own units (the grid's units() are the slots'
    // calibration, 128 for the H200's 132).
    const double waves = grid.workgroups / computeUnitCount(d);
    const bool downsampleWaves = !taps && strided && p.gemmK() >= 512 && cl.splitK == 1 &&
                                 ((waves >= 0.6 && waves <= 1.0) || (p.gemmK() <= 512 && waves > 2.0 && waves <= 3.0));
    if (downsampleWaves && eightWarpsDeep && cl.fragmentPrefetch) layout = 0.4;
    factor *= layout;
    // The taps-inner K order: on the strided 3x3 layers 2-9% faster than the same tile
    // (ResNet-50's 3x3/512 s2 1.323 against 1.448 ms as 128x128x16 4x2); at stride 1 over
    // 256 channels or more 1-7% faster since the grid takes its N tile fastest (3x3/512 over
    // 7x7 images 2.107 against 2.254 ms in the sweep of eab2b95, 2.120 against 2.206 in
    // kernel-lab; 3x3/256 0.7-1.9%; with the input in channel slices, 2x4 subgroups 3x3/256
    // 0.988 against 1.094 ms, 3x3/512 1.908 against 2.222); over fewer channels within 1%
    // either way, 5% slower on 3x3/64 (kernel-lab; docs/performance.md,
    // docs/performance.md).
    if (cl.tapsInner) factor *= strided || deep ? 0.97 : 1.01;
    // 32 fragments a subgroup (256 accumulator registers) spill.
    if (fragM * fragN > 16) factor *= 4.0;
    // Fragments: 16x16x16 led at stride 1; on the strided layers 16x8x16 led by 1-3%
    // (kernel-lab on the H200, 128x128x16 4x2: ResNet-50's 3x3/512 s2 1.225 ms against
    // 1.267, 3x3/256 s2 0.712 against 0.721, the 1x1 downsamples 1024->2048 0.370 against
    // 0.380 and 512->1024 0.224 against 0.230; docs/performance.md).
    const bool mma16x8x16 = tiling(c).mmaM == 16 && tiling(c).mmaN == 8 && tiling(c).mmaK == 16;
    factor *= tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096 ? 1.0 : strided && mma16x8x16 ? 0.98 : tiling(c).mmaK >= 16 ? 1.15 : 1.5;
    // 1x1: the packing pass is a second read of the input, and the NCHW loader reads it
    // directly. Except where the pass keeps only the pixels a strided 1x1 reads (a quarter at
    // stride 2), or where the NCHW loader reads pixels one at a time (planes not a whole
    // number of 4-pixel words) and the output is wide (its fp32 A read again for each of 8+ N
    // tiles) or the input deep (2048 channels read a scalar at a time): there 128x128x16 4x2
    // here led (kernel-lab, H200: ResNet-50's 1x1 512->2048 at 7x7 0.955 ms against 1.027,
    // its 2048->512 0.702 against 0.730 with the input in channel slices; the stride-2
    // downsamples 1024->2048 0.437 against 0.538, 512->1024 0.251 against 0.290, 256->512
    // 0.153 against 0.153).
    // And at mid-size grids over 512+ channels in and out, where the NCHW loader's preferred tile
    // makes one to two workgroups a unit (kernel-lab, H200, docs/performance.md): 1x1 1024->512 at
    // 14x14, batch 16 (196 of 64x128), 0.030 ms (64x64x16 2x2 prefetch) against 0.037 for the NCHW
    // loader's best then timed (32x64x32). With more workgroups the NCHW loader's preferred tile
    // led: at batch 32 (392 of 64x128) 64x128x16 0.0410 ms against 128x128x16 2x2 prefetch's 0.0503
    // (the resnet50_batch32 sweep of 9e4a0f5, docs/performance.md; before it only
    // 64x64x32 had been timed, 0.066), at batch 64 0.087 against 0.102, at batch 128 64x256x16
    // 0.158 against 0.170; 512->1024 at 14x14, batch 32 (784 of 64x128), 0.055 both. (512->512 at
    // 14x14, batch 32, 392 of 64x128, which this kernel's 0.030 ms had led against the NCHW
    // loader's 0.037 then, now takes the NCHW loader's 64x128x16 untimed.) With vector loads
    // only up to three 64x64 workgroups an SM, where the 64x64 prefetch tile's mid-grid rule ends
    // (above): past it the NCHW loader's tile led 128x128x16 2x2 prefetch, 1024->512 at batch
    // 17-20 0.0314-0.0318 ms against 0.0337-0.0342, at batch 34-42 (64x256) 0.0514-0.0565
    // against 0.0526-0.0600.
    // None of these where the whole GEMM is at most 2M multiply-adds a unit over K < 2048 (1M over
    // a deeper K), batch 1-4 of ResNet-50's deep and strided 1x1 layers: the layer's time is then a
    // few workgroups' latency, and the packing pass's dispatch adds to it (kernel-lab on the H100,
    // docs/performance.md). The NCHW loader against this kernel's former picks:
    // 512->2048 at 7x7, batch 1 (51M), 0.0093 ms against 0.0111, batch 2 0.0103 against 0.0116,
    // batch 4 (205M) 0.0131 against 0.0160; 2048->512 at 7x7 in 8 splits 0.0111 against 0.0140,
    // batch 2 (103M) 0.0129 against 0.0157; the strided downsamples 256->512 at 56x56 0.0092
    // against 0.0112, batch 2 (205M) 0.0113 against 0.0128, 512->1024 at 28x28, batch 2, 0.0134
    // against 0.0140. Over K 2048 at 205M (2048->512, batch 4) this kernel led, 0.0217 against
    // 0.0236, and with 411M: 1024->2048 at 14x14, batch 4, 0.020 against 0.025; 2048->512 at batch
    // 8 0.022 against 0.024.
    // Nor where a strided 1x1 reads at most 256 input channels and the NCHW loader's preferred
    // tile makes from two workgroups a unit to four times the slots: there the input is large
    // against the GEMM (at stride 2 over 256 channels twice the bytes a multiply-add of 512->1024)
    // and the NCHW loader reads it once (kernel-lab on the H200, docs/performance.md): 256->512 at
    // 56x56, batch 8 (392 workgroups), 0.0198 ms against 0.0226 here; batch 16 (784) 0.0428
    // against 0.0463; batch 32 (784 of 64x256) 0.0674 against 0.0720; batch 64 (1568) 0.1304
    // against 0.1340. Outside it this kernel led or came level: batch 4 (196) 0.0147 against
    // 0.0153, batch 128 (3136) 0.2546 against 0.2560, batch 256 (6272) 0.4937 against 0.5075. Over
    // 512 channels it led: 512->1024 at 28x28, batch 32, 0.0721 against the NCHW loader's 0.0779,
    // 1024->2048 at 14x14 0.051 against 0.105. The lower line counts 64x128 tiles, whichever the
    // preferred one: at batch 9-10 that tile is 64x256 (222-246 workgroups, one wave), which took
    // 0.0206-0.0214 ms against 0.0230-0.0242 here (H200, docs/performance.md).
    if (p.kernelH * p.kernelW == 1) {
        const double nchwGrid = preferredNchwWorkgroups(p, d);
        const bool tiny = tinyPointwise(p, grid.units());
        const bool deepMidGrid = p.gemmN() >= 512 && p.gemmK() >= 512 && nchwGrid >= grid.units() && nchwGrid < 2 * grid.units() &&
                                 (!nchwVectorLoads(p) || tileWaves(64, 64, 3, d, p) <= 1.0);
        const bool scalarWide = !nchwVectorLoads(p) && (p.gemmN() >= 2048 || p.gemmK() >= 2048);
        const bool shallowSubsample = p.gemmK() <= 256 && tileGrid(64, 128, d, p).workgroups >= 2 * grid.units() &&
                                      nchwGrid <= 4 * grid.slots;
        const bool subsample = nhwcSubsamples(p) && !shallowSubsample;
        factor *= !tiny && (subsample || scalarWide || deepMidGrid) ? 0.8 : 3.0;
    } else if (tinyPatchKernel(p, grid.units())) {
        // The same packing dispatch ahead of a patch kernel's few workgroups, up to 1M
        // multiply-adds a unit (nchwCost): ConvNeXt-T's 2x2 downsample 96->192 at 56x56, batch 1,
        // 0.0136-0.0140 ms here against the NCHW loader's 0.0112 (kernel-lab on the H200,
        // docs/performance.md).
        factor *= 3.0;
    }
    // Where the grid cannot fill the GPU (small batches), 32x64 tiles with 64-deep slices led:
    // on ResNet-50's 3x3/256 at batch 1 (K 2304, 28 workgroups) 0.023 ms against 0.030-0.031 for
    // the gather kernel's best and 0.027 for 32x64x32 or 64x32x64 (kernel-lab on the H200, every
    // subgroup layout and K order within 0.001 ms; docs/performance.md); against the gather
    // kernel's former picks on six more 3x3 layers at batch 1-8 (56x56 to 7x7, 64 to 512
    // channels, stride 1 and 2) 20-42% faster (3x3/512 at batch 4 0.067 -> 0.037 ms).
    // Those made at most 98 workgroups; with 200 (3x3/512 at 7x7, batch 16) 64x64x32 2x4 with
    // fragment prefetch led, 0.047 ms against 0.068: the factor stops at a quarter of the slots,
    // which it includes: split 8 ways, 3x3/512 at 7x7, batch 1, makes exactly that many (128 on
    // the H200), and 32x64x64 took 0.015 ms there against 0.021 for 32x64x16.
    // Split 4-8 ways over 3x3 taps, 64x64x32 tiles on 8 subgroups of 16x16x16 fragments led the
    // 32x64x64 ones by 1-13% on all ten of ResNet-50's 3x3 layers timed at batch 1-4 (kernel-lab on
    // the H100, docs/performance.md): 3x3/512 at 7x7, batch 4, in 4 splits (128
    // workgroups) 0.0234 ms against 0.0270 for 32x64x64 in 2, batch 2 in 8 0.0180 against 0.0196;
    // 3x3/256 at 14x14 0.0148 against 0.0155 (batch 1, in 8), 0.0179 against 0.0195 (batch 2, in
    // 4); 3x3/128 at 28x28, batch 1, in 4 0.0149 against 0.0154. In 2 splits they lost to unsplit
    // 32x64x64 tiles (3x3/64 at batch 1 0.0148 against 0.0116) and to 128x128 tiles in 8 (3x3/256
    // at 28x28 stride 2, batch 4, 0.0256 against 0.0231).
    const bool splitTaps = taps && cl.splitK >= 4 && c.bm == 64 && c.bn == 64 && c.bk == 32 && tiling(c).warpsM * tiling(c).warpsN == 8 &&
                           tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096;
    if (grid.workgroups <= grid.units() && ((c.bm == 32 && c.bn == 64 && c.bk == 64) || splitTaps)) factor *= 0.7;
    // Deep 1x1 layers whose 64x64 tiles make half a workgroup a unit to one (deepPointwiseMidGrid):
    // 64x64x16 on 2x2 subgroups of 16x16x16 in 4 splits (kernel-lab on the H200,
    // docs/performance.md). ResNet-50's 2048->512 at 7x7 took 0.0256 ms at batch 12 against the
    // pick's 0.0472 (32x64x16 1x4), 0.0286 at batch 16 against 0.0335 (64x64x32 2x4), 0.0287 at
    // batch 20 against 0.0379 (64x64x16 2x2 with prefetch); 64x64x32 2x2 in 2 splits 0.0283-0.0295,
    // 128x128x16 2x2 with prefetch in 8 0.0299-0.0322. At batch 24 (152 tiles) and 32 128x128
    // tiles in 4 splits led, within 4% of the pick. From three quarters of a workgroup a unit the
    // NCHW loader's split tile leads instead (deepPointwiseNchwSplit, nchwCost).
    const bool deepPointwiseSplit = cl.splitK == 4 && c.bm == 64 && c.bn == 64 && c.bk == 16 && tiling(c).warpsM == 2 &&
                                    tiling(c).warpsN == 2 && tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096 && !cl.fragmentPrefetch;
    if (deepPointwiseSplit && deepPointwiseMidGrid(p, d, grid.units()) && !deepPointwiseNchwSplit(p, d, grid.units()))
        factor *= 0.3;
    // First layers (fewer than 8 input channels, padded here to a whole slice): the gather
    // loader, which reads them unpadded, leads even where this kernel's grid fills the GPU and
    // its own underfills: ResNet-50's conv1 at batch 1 took 0.0092 ms as the gather kernel's
    // 32x64x32 2x4 against 0.0203 as 64x64x16 2x2 with prefetch here (the sweep on the H200,
    // docs/performance.md).
    if (p.inChannels < 8) factor *= 2.0;
    if (smallGridWarpsFavoured(c, grid)) factor *= 0.8;
    // The charge for a grid that leaves the GPU idle: a quarter of the slots, about one
    // workgroup an SM, not all of them. At batch 16-32 the large fragment-prefetch tiles led with
    // 100-200 workgroups (kernel-lab on the H200, docs/performance.md): 3x3/256 at 14x14, batch 32,
    // 128x128x16 2x2 (98 workgroups) 0.048 ms against 0.109 for 32x64x16 (784), which the full
    // charge (the slots / workgroups of the other kernels) had picked; 3x3/128 at 28x28 0.043
    // against 0.068, at batch 16 0.031 against 0.059; 3x3/256 at 28x28 stride 2, 128x64x16 2x2,
    // 0.068 against 0.138; 3x3/512 at 7x7, batch 16, 64x64x32 2x4 0.047 against 0.068.
    return work * factor * grid.idleUnits();
}

}  // namespace vkconv::detail
