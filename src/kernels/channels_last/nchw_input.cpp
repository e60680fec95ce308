#include "kernels/common/tensor_io.hpp"
#include "kernels/channels_last/nchw_input.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/channels_last/channels_last_params.hpp"
#include "kernels/channels_last/nhwc_input.hpp"
#include "kernels/channels_last/split_k.hpp"  // deepPointwiseNchwSplit, pointwiseTiles64
#include "kernels/common/device_fill.hpp"  // tileGrid, tileWaves
#include "kernels/common/device_rules.hpp"  // the tiles (src/kernels/rules/defaults.json)

namespace vkconv::detail {

namespace {

// The 16-byte input reads need each chunk's first element 16-byte aligned: chunks start at whole
// images (a multiple of 16 bytes where those reads are made) and bound ranges at a multiple of
// minStorageBufferOffsetAlignment, which Vulkan makes a power of two. Empty if the device's is
// one, else why not.
std::string vectorInputAlignmentRule(const DeviceInfo& d) {
    const uint64_t align = d.minStorageBufferOffsetAlignment;
    if (align > 16 && (align & (align - 1)))
        return "the NCHW loader reads 16-byte words of the input, but minStorageBufferOffsetAlignment " +
               std::to_string(align) + " is not a power of two";
    return "";
}

// A 1x1 over K >= 2048 input channels, read with scalar loads, whose tile makes `workgroups`
// from 0.6 of a workgroup a compute unit to one (nchwCost's deep one-wave tiles); over 1024
// output channels or more only where 64x64 tiles would pass three workgroups a unit.
bool deepPointwiseOneWave(const ConvProblem& p, double workgroups, double units) {
    return p.kernelH * p.kernelW == 1 && p.gemmK() >= 2048 && !nchwVectorLoads(p) && workgroups >= 0.6 * units &&
           workgroups <= units && (p.gemmN() < 1024 || pointwiseTiles64(p) > 3 * units);
}

}  // namespace

NchwTile preferredNchwTile(const ConvProblem& p, const DeviceInfo& d) {
    // Measured on the H200 (kernel-lab over ResNet-50's 1x1 layers, docs/performance.md):
    // the best tile, or one within 4% of it, had BN = the output channels rounded up to 64 (at most 256;
    // a wider tile computes padding, a narrower one reads A again), BM 64, 8 subgroups as 2x4,
    // 16x16x16 instructions and BK 16 (where BN is 64 over 128 channels or more, other tiles
    // below). 256-row tiles, which nchwCost's tile term favours, were 10-30% slower on all but
    // one layer.
    // Where the output channels are four times the input channels or more, over 256 input channels
    // or more, BN 128 instead: ResNet-50's 1x1 256->1024 at 14x14 took 0.422-0.440 ms as
    // 64x128x16 against 0.459-0.473 as 128x128x16 4x2 and 0.476-0.486 as 64x256x16 (kernel-lab
    // twice, docs/performance.md; 80 registers a thread against 128, three workgroups an SM).
    const NchwTileRules& r = deviceRules(d).nchwTiles;
    const auto tile = [](const NchwTileChoice& t) { return NchwTile{t.bm, t.bn, t.bk, t.warpsM, t.warpsN}; };
    const bool wideOutput = p.gemmN() >= r.wideOutputRatio * p.inChannels && p.inChannels >= r.wideOutputMinChannels;
    const bool strided = p.strided();
    // Strided over at most 256 input channels (scalar loads), BN 128 on 1x4 subgroups: ResNet-50's
    // 256->512 downsample at 56x56 took 0.0384 ms at batch 16 against 0.0419 on 2x4 and 0.0191
    // against 0.0199 at batch 8 (kernel-lab on the H200, docs/performance.md). At stride 1 (vector
    // loads) 1x4 lost or came level on all nine 1x1 layers timed (512->128 at 28x28, batch 32,
    // 0.0370 against 0.0310; 256->1024 at 14x14 0.0311 against 0.0319), and with BN 256 (batch
    // 32-64 of the same downsample) 2x4 led (0.0674 ms against 0.0699 at batch 32).
    const NchwTileChoice& narrowChoice = strided && p.inChannels <= r.stridedMaxChannels ? r.narrowStrided : r.narrow;
    const NchwTile narrow = tile(narrowChoice), wide = tile(r.wide);
    // Where BN is 64 over 128 input channels or more, 128x64x16 on 2x2 subgroups (kernel-lab on
    // the H200, docs/performance.md): ResNet-50's 1x1 256->64 at 56x56 took 0.160 ms at batch 128
    // against 0.173 for 64x64x32 2x4 (a BK of 32 had led the 64x64 tiles: two multiplies a
    // subgroup between barriers) and 0.184 for 64x64x16 2x4; 0.044 against 0.048 at batch 32,
    // 0.014 against 0.015 at batch 8 (64x64x16 2x4 0.013). Over 64 input channels 64x64x16 2x4
    // and 128x64x16 2x2 came level (64->64 at 56x56, batch 256, 0.145 and 0.147 ms), but by
    // their waves (four 64x64 workgroups an SM at 57 registers, three 128x64 at 160, as below)
    // 128x64 led where it takes fewer (kernel-lab on the H200, docs/performance.md): batch 12-16,
    // one wave against two, 0.0101-0.0104 ms against 0.0117-0.0132; 28 0.0190 against 0.0201;
    // level at 24 and 32. In as many waves 64x64 led (batch 20, 0.0139 against 0.0167); past two
    // waves of 128x64 the two came within 4% either way (batch 40-64 and 256), and 64x64 stays.
    const auto waves = [&](const NchwTileChoice& t) { return std::ceil(tileWaves(t.bm, t.bn, t.perUnit, d, p)); };
    if (p.gemmN() <= r.small.bn)
        return p.inChannels >= r.smallDeepMinChannels || (waves(r.smallDeep) < waves(r.small) && waves(r.smallDeep) <= 2)
                   ? tile(r.smallDeep)
                   : tile(r.small);
    if (p.gemmN() <= narrow.bn) return narrow;
    // Over 128 output channels BN 128 or 256 by the waves each grid takes: three workgroups an SM
    // of 64x128 (80 registers at 2x4, 160 at 1x4), two of 64x256 (128 registers). A last wave,
    // however empty, cost half a full one or more, so where the wide tiles end in fewer waves
    // they led, by 4-35%, at every batch timed (kernel-lab on the H200, docs/performance.md):
    // 512->256 at 28x28, batch 17-21 and 33-41, 0.0289-0.0335 and 0.0599-0.0622 ms against
    // 0.0384-0.0456 and 0.0636-0.0700; 1024->512 at 14x14, batch 34-43 and 80, 0.0514-0.0568 and
    // 0.1049 against 0.0681-0.0794 and 0.1206; 1024->256 at 14x14, batch 80 and 160, 0.0585 and
    // 0.1136 against 0.0806 and 0.1284; 256->1024 at 14x14, batch 17-21 and 33-41, 0.0204-0.0217
    // and 0.0361-0.0411 against 0.0270-0.0288 and 0.0378-0.0455; 128->512 at 28x28, batch 9-20,
    // 64->256 at 56x56, batch 5-10; the strided 256->512 at 56x56, batch 9-10, 17-20 and 26-28,
    // 0.0206-0.0659 against 0.0316-0.0700 on 1x4. In as many waves the narrow tile led or came
    // level at every batch timed (the same layers at batch 16, 22, 32, 44-46; 1024->256 at 32-48;
    // 128->512 at 8 and 11; 64->256 at 4 and 6; the downsample at 16 and 22-24, 0.0546 ms
    // against 0.0605-0.0637).
    const bool fewerWaves = waves(r.wide) < waves(r.narrow);
    if (narrow.warpsM == 1) return fewerWaves ? wide : narrow;
    // Past the slots the wave count matters less than the tiles' own speed: BN 256 there, its
    // 64-row tiles' full wave of the slots (kernel-lab on the H200, docs/performance.md): 512->256
    // at 28x28 took 0.051 ms as 64x128x16 against 0.060 as 64x256x16 at batch 32 (392 workgroups
    // of 64x256), 0.095 against 0.092 at batch 64 (784); 1024->512 at 14x14 0.087 against 0.102
    // at batch 64 (392), 0.171 against 0.158 at batch 128 (784). Where the output channels are
    // wide, BN 128 past the slots (above), BN 256 by the waves only under them.
    const bool fullWave = !tileGrid(wide.bm, wide.bn, d, p).underfilled();
    return (wideOutput ? fewerWaves && !fullWave : fewerWaves || fullWave) ? wide : narrow;
}

double preferredNchwWorkgroups(const ConvProblem& p, const DeviceInfo& d) {
    const NchwTile tile = preferredNchwTile(p, d);
    return std::ceil(double(p.gemmM()) / tile.bm) * std::ceil(double(p.gemmN()) / tile.bn);
}

std::string nchwProblemSupport(const ConvProblem& p) {
    if (p.padH != 0 || p.padW != 0 || p.groups != 1) return "the NCHW loader serves padding 0 and groups 1 only";
    return "";
}

bool nchwWindowsOverlap(const ConvProblem& p) {
    return p.dilationH * (p.kernelH - 1) + 1 > p.strideH || p.dilationW * (p.kernelW - 1) + 1 > p.strideW;
}

bool nchwVectorLoads(const ConvProblem& p) {
    return p.kernelH == 1 && p.kernelW == 1 && p.strideH == 1 && p.strideW == 1 &&
           p.outHeight() * p.outWidth() % 4 == 0;
}

std::string nchwCanImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (std::string why = nchwProblemSupport(p); !why.empty()) return why;
    // The channels past C are masked loads, but still matrix work (the family's padding rule).
    if (std::string why = channelsLastKernelRules(c, p, "the NCHW loader"); !why.empty()) return why;
    if (c.bm % 4) return "the NCHW loader needs BM a multiple of 4 (runs of 4 pixels)";
    if (nchwVectorLoads(p)) return vectorInputAlignmentRule(d);
    return "";
}

uint32_t nchwSharedMemoryBytes(const KernelConfig& c) {
    const CoopMatTiling& t = tiling(c);
    // nchw_input.glsl: sA[2][BK][BM/4 + 2] f16vec4 (8 bytes); conv2d_channels_last.comp:
    // sB[2][BK][BN/8 + 1] 16-byte words, sBias[BN] floats, sFragmentPositions[MMA_M * MMA_N] floats.
    const uint64_t bytes = 2ull * c.bk * (c.bm / 4 + 2) * 8 + 2ull * c.bk * (c.bn / 8 + 1) * 16 +
                           uint64_t(c.bn) * 4 + uint64_t(t.mmaM) * t.mmaN * 4;
    return static_cast<uint32_t>(std::min<uint64_t>(bytes, 1u << 30));
}

uint32_t nchwRegisterEstimate(const KernelConfig& c, const ConvProblem& p) {
    const uint32_t threads = std::max(c.threads(), 1u);
    const uint32_t accumulators = c.bm * c.bn / threads;
    const uint32_t aUnits = (c.bk * (c.bm / 4) + threads - 1) / threads;  // 4 pixels of one channel
    const uint32_t bWords = (c.bk * (c.bn / 8) + threads - 1) / threads;  // 8 halves
    return accumulators + aUnits * (2 * 4 + (nchwVectorLoads(p) ? 1 : 4)) + bWords * 2 * 4;
}

bool tinyGemm(const ConvProblem& p, double units) {
    const double multiplyAdds = double(p.gemmM()) * p.gemmN() * p.gemmK();
    return multiplyAdds <= (p.gemmK() < 2048 ? 2e6 : 1e6) * units;
}

bool tinyPointwise(const ConvProblem& p, double units) { return p.kernelH * p.kernelW == 1 && tinyGemm(p, units); }

bool nchwPatchKernel(const ConvProblem& p) {
    return p.kernelH * p.kernelW > 1 && nchwProblemSupport(p).empty() && !nchwWindowsOverlap(p);
}

bool tinyPatchKernel(const ConvProblem& p, double units) { return nchwPatchKernel(p) && tinyGemm(p, units / 2); }

double nchwCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    const ChannelsLastTiling& cl = channelsLast(c);
    const TileGrid grid = tileGrid(c, d, p);
    double work = grid.mTiles * c.bm * grid.nTiles * c.bn * nhwcChannels(p, c.bk) * double(p.kernelH * p.kernelW);
    // Windows that overlap read each input once per window that holds it, as scalar loads, where
    // the channels-last loader packs it once: unmeasured, so that loader keeps its place there.
    // Where they do not (patch embeddings, 2x2 downsamples), the taps inside each channel slice
    // read the rest of each cache line a slice later, tap-major order a whole tap's channels later.
    // Patch kernels, against the channels-last loader with its packing pass (kernel-lab on the
    // H200, ConvNeXt-T's 2x2 stride-2 downsamples at batch 32, docs/performance.md):
    // level or behind wherever the grid fills the GPU, 96->192 at 56x56 0.0518 ms (64x256x16 2x4
    // taps-inner) against 0.0507, 192->384 0.0403 against 0.0388, 384->768 0.0527 against 0.0395,
    // taps-inner 3-4% ahead of tap-major on the same tiles (0.0570 against 0.0588); ahead where
    // the whole GEMM is a few workgroups' latency, at most 1M multiply-adds a unit (tinyGemm over
    // half the units), 96->192 at batch 1 (0.44M) 0.0112 in 4 splits against 0.0136, whose
    // packing dispatch nhwcCost charges there. At batch 4 and 8 (1.75M and 3.5M) each loader led
    // on some: 96->192 0.0142 against 0.0157 and 0.0235 against 0.0184, 192->384 0.0181 against
    // 0.0209 and 0.0249 against 0.0207, 384->768 0.0181 against 0.0156 and 0.0239 against 0.0279.
    if (nchwWindowsOverlap(p)) work *= 3.0;
    else if (p.kernelH * p.kernelW > 1) work *= (cl.tapsInner ? 1.0 : 1.05) * (tinyPatchKernel(p, grid.units()) ? 1.0 : 1.3);
    // Charged the slots its grid leaves idle, as the gather kernel, except on a GPU in the smallest
    // GEMMs (at most 1M multiply-adds a unit over K < 2048), where the channels-last kernel's
    // charge (the idle units) applies (kernel-lab on the H200, docs/performance.md):
    // 1x1 512->1024 at 28x28 stride 2, batch 1 (103M), 0.0103 ms here against the channels-last
    // kernel's 0.0114; 64->64 at 56x56, batch 4, 32x64x32 0.0063 against 64x64x16 0.0068. Larger,
    // or deeper, the full charge picked better: 1024->2048 at 14x14 stride 2, batch 2 (205M), the
    // channels-last kernel's 0.0156 against 0.0165 here; 2048->512 at 7x7, batch 2 (K 2048), in 8
    // splits 0.0133 against 0.0137 in 4.
    const bool smallest = !d.isCpu() && p.gemmK() < 2048 && tinyPointwise(p, grid.units() / 2);  // 1M a unit
    double underfill = smallest ? grid.idleUnits() : grid.underfill();
    const double fragM = c.bm / tiling(c).warpsM / tiling(c).mmaM, fragN = c.bn / tiling(c).warpsN / tiling(c).mmaN;
    // On a CPU device the matrix units are emulated and the pipeline compile dominates: the
    // fewest fragments a subgroup, as for the channels-last loader, which this one beats by
    // its missing packing pass.
    if (d.isCpu()) return work * (1.0 + fragM * fragN / 4.0) * 0.9 * underfill;
    // The channels-last kernel's H200 calibration without its packing pass.
    double factor = channelsLastTileFactor(c);
    const NchwTile ideal = preferredNchwTile(p, d);
    const bool preferred = c.bm == ideal.bm && c.bn == ideal.bn && c.bk == ideal.bk && tiling(c).warpsM == ideal.warpsM &&
                           tiling(c).warpsN == ideal.warpsN;
    factor *= preferred ? 0.7 : tiling(c).warpsM * tiling(c).warpsN < 4 ? 1.6 : 1.0;
    // The preferred tile is charged no idle slots once its grid has a workgroup on every unit:
    // its three workgroups an SM keep the matrix units busier than more of the smaller tiles
    // below (kernel-lab on the H200, docs/performance.md). 64x128x16 took 0.031 ms on 1024->256 at
    // 14x14, batch 32 (196 workgroups), against 0.038 for 32x64x32 (784); 512->256 at 28x28,
    // batch 8, 0.018 against 0.021; 512->128 at 28x28, batch 16, 0.018 against 0.022. With fewer
    // workgroups than units it lost or came level: 1024->256 at batch 16 (98) 0.025 against 0.021,
    // at batch 8 (49) 0.025 against 0.017; 512->256 at batch 4 (49) 0.016 against 0.013. At
    // stride 1 from 0.85 of a unit, where the smaller tiles' grid passes three workgroups an SM
    // and their second wave costs them 17-41% (H200, docs/performance.md): 1024->256 at batch 18 (112
    // workgroups) 0.0254 against 0.0358 for 32x64x32, batch 20 (124) 0.0258 against 0.0361;
    // 1024->512 at batch 9-10 (112-124) 0.0257-0.0259 against 0.0355-0.0360; 512->128 at 28x28,
    // batch 9-10, 0.0155-0.0157 against 0.0190-0.0204; 512->256 at batch 5 (124) 0.0155 against
    // 0.0204. The strided 1024->2048 at batch 8 kept the channels-last kernel's 128x64x32 (0.0262
    // against 0.0334 here).
    const bool strided = p.strided();
    if (preferred && grid.workgroups >= (strided ? 1.0 : 0.85) * grid.units()) underfill = 1.0;
    // Where that preferred tile is 64x128 at stride 1 and 64x64x16 tiles on 2x2 subgroups (97
    // registers, four an SM) make at most three workgroups an SM, the smaller tile led it on every
    // 1x1 layer timed with vector loads (kernel-lab on the H200, docs/performance.md): 1024->256 at
    // 14x14, batch 18-32, 0.0246-0.0284 ms against 0.0254-0.0311; 1024->512, batch 9-16,
    // 0.0245-0.0293 against 0.0252-0.0311 (the channels-last 64x64 prefetch tile keeps batch
    // 11-16, 0.0293-0.0300); 512->256 at 28x28, batch 5-8, 0.0152-0.0170 against 0.0157-0.0182;
    // 512->128, batch 9-16, 0.0151-0.0170 against 0.0155-0.0185; 256->1024 at 14x14, batch 5-7,
    // 0.0107-0.0124 against 0.0111-0.0133; 128->512 and 256->128 at batch 3-4 by 4-9%. Past it
    // they came level (1024->256, batch 40, 492 workgroups, 0.0377 against 0.0375) or lost by
    // 25-70% (588 and more).
    const bool quadTile = c.bm == 64 && c.bn == 64 && c.bk == 16 && tiling(c).warpsM == 2 && tiling(c).warpsN == 2 && cl.splitK == 1;
    if (quadTile && !smallest && ideal.bm == 64 && ideal.bn == 128 && ideal.warpsM == 2 && nchwVectorLoads(p) &&
        tileGrid(64, 128, d, p).workgroups >= 0.85 * grid.units() && tileWaves(64, 64, 3, d, p) <= 1.0) {
        underfill = 1.0;
        factor *= 0.6;
    }
    factor *= tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096 ? 1.0 : tiling(c).mmaK >= 16 ? 1.15 : 1.5;
    // A's fp32 registers cost twice the channels-last loader's fp16 words. Budget: 255 a thread,
    // or the register file's 64K shared by the workgroup's threads (NVIDIA), less the compiler's
    // own (the channels-last kernel: estimate 192 of 255 used at 128 threads; estimate 80 fit
    // the 128 of 512 threads); past it the kernel spills.
    const uint32_t registers = nchwRegisterEstimate(c, p);
    const uint32_t budget = std::min(255u, 65536u / std::max(c.threads(), 1u));
    factor *= registers + 48 <= budget ? 1.0 : registers + 32 <= budget ? 1.1 : 4.0;
    // Scalar loads (strided, or output planes of no multiple of 4 pixels): 4 loads of 4 bytes
    // instead of one of 16, and for a stride every other word of a cache line unused.
    if (!nchwVectorLoads(p)) factor *= 1.2;
    // Where the grid cannot fill the GPU (small batches), 32x64 tiles with deeper slices than
    // the rule above led (kernel-lab on the H200, docs/performance.md): 64-deep where they make
    // fewer workgroups than a quarter of the slots (ResNet-50's 1x1 1024->256 at 14x14, batch 1:
    // 0.012 ms against 0.023 for 32x64x16; 256->64 at 56x56 0.006-0.007 against 0.009; 512->2048
    // at 7x7 0.010 against the channels-last kernel's 0.011), 32-deep above it, measured up to
    // 784 workgroups (512->128 at 28x28, batch 8, 392: 0.012 against 0.015 for 16-deep and 0.017
    // for 64-deep; 1024->256 at 14x14, batch 32, 784: 0.038 against 0.057 and 0.063, where the
    // preferred tile, once charged no idle slots, leads them all). Not where the preferred tile's
    // own grid makes two workgroups a unit or more: 1x1 64->64 at 56x56, batch 8 (392 of 64x64),
    // took 0.0081 ms as 64x64x16 against 0.0092 for 32x64x32; at batch 4 (196) 0.0071 against
    // 0.0062 (kernel-lab on the H200, docs/performance.md).
    if (grid.workgroups < 2.0 * grid.slots && c.bm == 32 && c.bn == 64 &&
        preferredNchwWorkgroups(p, d) < 2.0 * grid.units())
        factor *= c.bk == (grid.workgroups <= grid.units() ? 64u : 32u) ? 0.5 : 1.0;
    // smallGridWarpsFavoured's 8 subgroups of 16x8x16 fragments, for this loader also split or with
    // scalar loads, up to two workgroups a unit (kernel-lab on the H100,
    // docs/performance.md): 2048->512 at 7x7 in 8 splits, batch 1 (128 workgroups),
    // 0.0111-0.0113 ms against 0.0124-0.0126 on 4 subgroups of 16x16x16, batch 2 (256) 0.0134
    // against 0.0142; 1024->256 at 14x14 in 8 splits, batch 1 (224), 0.0101 against 0.0106;
    // 512->1024 at 28x28 stride 2, batch 2 (208), 0.0132 against 0.0149. Unsplit with vector loads
    // they came within 5% either way (64->64 to 1024->512, batch 1-8, 196-208 workgroups).
    const bool eightWarps = c.bm == 32 && c.bn == 64 && tiling(c).warpsM == 2 && tiling(c).warpsN == 4 && tiling(c).mmaM == 16 &&
                            tiling(c).mmaN == 8 && tiling(c).mmaK == 16;
    const bool eightWarpsLead = eightWarps && grid.workgroups <= 2.0 * grid.units() && (cl.splitK > 1 || !nchwVectorLoads(p));
    if (smallGridWarpsFavoured(c, grid) || eightWarpsLead) factor *= 0.8;
    // Deep 1x1 layers at mid-size grids: 64x128x16 on 2x4 subgroups in 4 splits
    // (deepPointwiseNchwSplit, split_k.hpp): 2048->512 at 7x7 0.0263 ms at batch 16 against 0.0284
    // for the channels-last 64x64x16 split, 0.0277 against 0.0294 at 18, 0.0286 against 0.0294 at 20.
    const bool splitTile = cl.splitK == 4 && c.bm == 64 && c.bn == 128 && c.bk == 16 && tiling(c).warpsM == 2 &&
                           tiling(c).warpsN == 4 && tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096;
    if (splitTile && deepPointwiseNchwSplit(p, d, grid.units())) factor *= 0.3;
    // Deep 1x1 layers read with scalar loads (7x7 planes), where 64-row tiles of 32-deep slices on
    // 2x4 subgroups make one workgroup a unit at most, unsplit: half the barriers of 16-deep
    // slices over K 2048, which these few workgroups wait on one at a time. ResNet-50's 2048->512
    // at 7x7, batch 32, 0.0387 ms as 64x128x32 (100 workgroups) against 0.0471 as 64x128x16 and
    // 0.0414 for the channels-last pick (64x64x16 2x2 with prefetch, packing pass included);
    // ResNeXt-50's 2048->1024 0.0537 as 64x256x32 (100) against 0.0581 as 64x256x16 and 0.0558 for
    // the pick (128x128x16 2x2 with prefetch); the same tiles with twice the workgroups 0.0736
    // (64x128x32 on 2048->1024), with half 0.0535 (64x256x32 on 2048->512). Every candidate of both
    // timed on the H200 (docs/performance.md). Charged no idle slots, as the preferred
    // tile past the units. Across batches (the five leading tiles, split 1, 2 and 4): 2048->512 at
    // batch 36, 40 and 64 0.0393, 0.0394 and 0.0545 (64x256x32) against 0.0418, 0.0426 and 0.0620
    // for 64x64x16 2x2 with prefetch, within 2.4% of the fastest (64x256x32 in 2 splits) at 32-40;
    // 2048->1024 at batch 40 0.0548 against 0.0586 (128x128x16 2x2 with prefetch), level at 16 and
    // 20 (0.039), but at 24 and 28, where 64x64 tiles make at most three workgroups a unit, 0.0540
    // against their 0.0484-0.0488.
    const bool deepOneWaveTile = cl.splitK == 1 && c.bm == 64 && (c.bn == 128 || c.bn == 256) && c.bk == 32 &&
                                 tiling(c).warpsM == 2 && tiling(c).warpsN == 4 && tiling(c).mmaM * tiling(c).mmaN * tiling(c).mmaK >= 4096;
    if (deepOneWaveTile && deepPointwiseOneWave(p, grid.workgroups, grid.units())) {
        underfill = 1.0;
        factor *= 0.35;
    }
    return work * factor * underfill;
}

std::vector<VkSpecializationMapEntry> CoopMatNchwKernelSpec::entries() {
    std::vector<VkSpecializationMapEntry> e = CoopMatKernelSpec::entries();
    for (auto& entry : e) entry.offset += offsetof(CoopMatNchwKernelSpec, kernel);
    e.push_back({60, offsetof(CoopMatNchwKernelSpec, channels), 4});
    e.push_back({61, offsetof(CoopMatNchwKernelSpec, vectorLoads), 4});
    e.push_back({62, offsetof(CoopMatNchwKernelSpec, tapsInner), sizeof(VkBool32)});
    e.push_back({66, offsetof(CoopMatNchwKernelSpec, splitK), 4});
    return e;
}

PreparedKernel prepareNchwCoopMatKernel(const ConvProblem& p, const KernelConfig& c, const float* weight) {
    const ChannelsLastTiling& cl = channelsLast(c);
    // The channels-last kernel's K order, each tap's channels padded to BK (for a 1x1 the channel
    // alone: B[c][n]).
    const uint32_t channels = nhwcChannels(p, c.bk);
    const uint32_t bRows = uint32_t(p.kernelH * p.kernelW) * channels;
    const uint32_t bCols = roundUp(p.gemmN(), c.bn);
    CoopMatNchwKernelSpec spec{};
    spec.kernel = coopMatKernelSpec(c, makeProblemSpec(p, bRows, bCols));
    spec.channels = channels;
    spec.vectorLoads = nchwVectorLoads(p) ? VK_TRUE : VK_FALSE;
    spec.tapsInner = cl.tapsInner ? VK_TRUE : VK_FALSE;
    spec.splitK = cl.splitK;
    PreparedKernel k;
    k.pipeline = pipelineKey(outputModule("conv2d_coopmat_nchw_f16", p), spec);
    k.pipeline.requiredSubgroupSize = c.subgroupSize;
    k.pipeline.fullSubgroups = true;
    k.packedWeights = halfBytes(packWeightsChannelsLast(p, weight, channels, bCols, c.bk, cl.tapsInner));
    return k;
}

}  // namespace vkconv::detail
