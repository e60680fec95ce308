#include "config_select.hpp"

#include <algorithm>
#include <cmath>

#include "grouped_direct.hpp"
#include "nchw_input.hpp"
#include "nhwc_input.hpp"
#include "packed_input.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

std::vector<KernelConfig> fp32Candidates() {
    // (BM, BN, BK, TM, TN): square-ish tiles for wide layers, thin BN for few output channels
    // per group (depthwise), all with threads a multiple of BM.
    const uint32_t shapes[][5] = {
        {128, 64, 8, 8, 4}, {64, 64, 8, 4, 4},  {64, 32, 16, 4, 2}, {32, 32, 8, 2, 2},
        {128, 32, 8, 4, 4}, {128, 16, 8, 4, 2}, {64, 16, 8, 2, 2},  {64, 8, 16, 2, 2},
        {64, 4, 16, 1, 4},  {128, 4, 16, 2, 4}, {32, 16, 8, 1, 2}, {64, 128, 8, 4, 8},
        // 128 threads, for devices at the spec minimum of invocations per workgroup.
        {64, 32, 8, 4, 4},  {32, 32, 8, 4, 2},  {32, 16, 16, 2, 2},
    };
    std::vector<KernelConfig> out;
    for (const auto& s : shapes) {
        KernelConfig c;
        c.path = Path::Fp32;
        c.bm = s[0], c.bn = s[1], c.bk = s[2], c.tm = s[3], c.tn = s[4];
        out.push_back(c);
    }
    return out;
}

std::vector<KernelConfig> coopMatCandidates(Path path, const DeviceInfo& d, const ConvProblem& p) {
    const ScalarType operand = path == Path::CoopMatF16 ? ScalarType::F16 : ScalarType::BF16;
    std::vector<uint32_t> subgroupSizes{d.subgroupSize};
    if (d.subgroupSizeControl)
        for (uint32_t s = d.minSubgroupSize; s <= d.maxSubgroupSize; s *= 2)
            if (s != d.subgroupSize) subgroupSizes.push_back(s);
    // Gather lanes per pixel for strided convolutions: the stride, as a power of two up to 8.
    uint32_t lanes = 1;
    while (lanes * 2 <= std::min<int64_t>(p.strideW, 8)) lanes *= 2;
    std::vector<KernelConfig> out;
    auto add = [&](KernelConfig c) {
        // Bound the accumulator fragments a subgroup holds.
        const uint32_t frags = (c.bm / c.warpsM / c.mmaM) * (c.bn / c.warpsN / c.mmaN);
        if (c.bm % (c.warpsM * c.mmaM) || c.bn % (c.warpsN * c.mmaN) || frags == 0 || frags > 32) return;
        out.push_back(c);
    };
    const bool packable = packedInputSupport(p).empty();
    for (const auto& shape : d.coopMatShapes) {
        if (shape.a != operand || shape.b != operand || shape.c != ScalarType::F32 ||
            shape.result != ScalarType::F32)
            continue;
        // The channels-last loader: the general kernel, two stages, warp tiles of 2 to 32
        // fragments; for 1x1 convolutions also the same kernel reading the NCHW input directly.
        std::vector<ALoader> channelLoaders;
        if (p.groups == 1) channelLoaders.push_back(ALoader::Nhwc);
        if (nchwProblemSupport(p).empty()) channelLoaders.push_back(ALoader::Nchw);
        for (ALoader loader : channelLoaders)
            for (uint32_t sg : subgroupSizes)
                for (auto [bm, bn] : std::initializer_list<std::pair<uint32_t, uint32_t>>{
                         {32, 64}, {64, 32}, {64, 64}, {64, 128}, {128, 64}, {128, 128}, {32, 128},
                         {128, 32}, {64, 256}, {256, 64}, {128, 256}, {256, 128}})
                    for (uint32_t bk : {16u, 32u, 64u})
                        for (uint32_t wm : {1u, 2u, 4u, 8u})
                            for (uint32_t wn : {1u, 2u, 4u, 8u}) {
                                const uint32_t warps = wm * wn;
                                if (warps < 2 || warps > 16 || bk % shape.k) continue;
                                KernelConfig c;
                                c.path = path;
                                c.aLoader = loader;
                                c.bm = bm, c.bn = bn, c.bk = bk;
                                c.warpsM = wm, c.warpsN = wn;
                                c.mmaM = shape.m, c.mmaN = shape.n, c.mmaK = shape.k;
                                c.stages = 2;
                                c.subgroupSize = sg;
                                const uint32_t fragM = bm / wm / shape.m, fragN = bn / wn / shape.n;
                                if (fragM * fragN < 2) continue;
                                // Each channels-last tile with and without fragment prefetch.
                                for (bool prefetch : {false, true}) {
                                    if (prefetch && loader != ALoader::Nhwc) continue;
                                    c.fragmentPrefetch = prefetch;
                                    c.tapsInner = false;
                                    add(c);
                                    // The taps inside each channel slice, where there are taps.
                                    if (loader == ALoader::Nhwc && p.kernelH * p.kernelW > 1 && nhwcChannels(p, bk) > bk) {
                                        c.tapsInner = true;
                                        add(c);
                                    }
                                }
                            }
        // The packed loader with B in registers: one subgroup per MMA_N columns, workgroups
        // persistent over several M tiles.
        for (uint32_t sg : subgroupSizes)
            for (uint32_t bn : {16u, 32u, 48u, 64u, 96u, 128u})
                for (uint32_t bm : {16u, 32u, 48u, 64u, 96u, 128u})
                    for (uint32_t tiles : kTilesPerWorkgroupChoices) {
                        if (!packable || bn % shape.n) continue;
                        KernelConfig c;
                        c.path = path;
                        c.aLoader = ALoader::Packed;
                        c.bRegisters = true;
                        c.tilesPerWorkgroup = tiles;
                        c.bm = bm, c.bn = bn, c.bk = shape.k;
                        c.warpsM = 1, c.warpsN = bn / shape.n;
                        c.mmaM = shape.m, c.mmaN = shape.n, c.mmaK = shape.k;
                        c.stages = 1;
                        c.subgroupSize = sg;
                        add(c);
                    }
        // The packed loader with B staged slice by slice (BK rows of the tap-major K).
        for (uint32_t sg : subgroupSizes)
            for (uint32_t bn : {16u, 32u, 48u, 64u, 96u, 128u})
                for (uint32_t bk : {16u, 32u, 48u})
                    for (uint32_t wm : {1u, 2u, 4u, 6u, 8u})
                        for (uint32_t wn : {1u, 2u, 3u, 4u})
                            for (uint32_t bm : {32u, 64u, 96u, 128u, 192u, 256u})
                                for (uint32_t stages : {1u, 2u}) {
                                    if (!packable || bk % shape.k) continue;
                                    KernelConfig c;
                                    c.path = path;
                                    c.aLoader = ALoader::Packed;
                                    c.bm = bm, c.bn = bn, c.bk = bk;
                                    c.warpsM = wm, c.warpsN = wn;
                                    c.mmaM = shape.m, c.mmaN = shape.n, c.mmaK = shape.k;
                                    c.stages = stages;
                                    c.subgroupSize = sg;
                                    add(c);
                                }
        for (uint32_t sg : subgroupSizes)
            for (uint32_t bn : {16u, 32u, 48u, 64u, 96u, 128u})
                for (uint32_t bk : {16u, 32u, 64u})
                    for (uint32_t wm : {1u, 2u, 4u, 8u})
                        for (uint32_t wn : {1u, 2u, 3u, 4u})
                            for (uint32_t stages : {1u, 2u}) {
                                KernelConfig c;
                                c.path = path;
                                c.bn = bn, c.bk = std::max(bk, shape.k);
                                c.warpsM = wm, c.warpsN = wn;
                                c.mmaM = shape.m, c.mmaN = shape.n, c.mmaK = shape.k;
                                c.stages = stages;
                                c.subgroupSize = sg;
                                for (uint32_t bm : {32u, 64u, 128u, 256u}) {
                                    c.bm = bm;
                                    add(c);
                                    c.bGlobal = true;
                                    add(c);
                                    c.bGlobal = false;
                                    if (lanes > 1) {
                                        c.sLanes = lanes;
                                        add(c);
                                        c.sLanes = 1;
                                    }
                                }
                            }
    }
    return out;
}

}  // namespace

std::vector<KernelConfig> candidateConfigs(Path path, const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> all = path == Path::Fp32 ? fp32Candidates() : coopMatCandidates(path, d, p);
    std::vector<KernelConfig> out;
    for (const auto& c : all)
        if (canImplement(c, d, p).empty()) out.push_back(c);
    if (path == Path::Fp32)  // already checked by can_implement
        for (auto& c : groupedDirectCandidates(d, p)) out.push_back(std::move(c));
    return out;
}

namespace {

// Whether any configuration of the path fits: without building the whole list, whose
// enumeration is the bulk of a Conv2d's planning time on devices with many shapes.
bool anyCandidate(Path path, const DeviceInfo& d, const ConvProblem& p) {
    if (path != Path::Fp32 && !d.coopMatKhr) return false;
    for (const auto& c : path == Path::Fp32 ? fp32Candidates() : coopMatCandidates(path, d, p))
        if (canImplement(c, d, p).empty()) return true;
    return false;
}

}  // namespace

double heuristicCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (c.groupedDirect()) return groupedDirectCost(c, d, p);
    const double m = double(p.gemmM()), n = double(p.gemmN()), k = double(p.gemmK());
    const double mTiles = std::ceil(m / c.bm), nTiles = std::ceil(n / c.bn);
    const double kPadded = std::ceil(k / c.bk) * c.bk;
    // Work actually done, edge tiles included.
    double work = mTiles * c.bm * nTiles * c.bn * kPadded * double(p.groups);
    // Too few workgroups leave compute units idle.
    const double workgroups = mTiles * nTiles * double(p.groups);
    const double slots = d.isCpu() ? 16.0 : 512.0;
    const bool underfilled = workgroups < slots;
    // Shape factors, calibrated on the H200 (bench/history/gather-kernel.md, 2026-11-21: alexnet1 over 2,500
    // configurations, then the benchmark's 30 layers): the A gather and its latency dominate,
    // not the matrix units, so small warp tiles, one stage and the gather loader win.
    double factor;
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Packed) {
        // Work on the packed problem: M runs over padded rows of the packed image, K over the
        // stride-1 kernel's padded rows.
        const PackedInputLayout l = packedInputLayout(p, c.bm, c.bk, c.mmaK);
        work = double(p.batch) * l.tilesPerImage * c.bm * nTiles * c.bn * l.gemmK;
        // Calibrated on the H200 (bench/history/packed-input-kernel.md, 2026-11-21, alexnet1): B in registers with
        // 2 fragment rows a subgroup and 8+ tiles a workgroup won (0.66 ms); staged B trailed
        // (1.47 ms; 0.73 when its epilogue shared the window); 16x8 instruction shapes were
        // 1.3x slower.
        const uint32_t fragM = c.bm / c.warpsM / c.mmaM;
        factor = c.bRegisters ? 1.0 : 2.2;
        factor *= fragM == 2 ? 1.0 : fragM == 1 ? 1.05 : 1.0 + 0.4 * (fragM - 2);
        // B in registers leaves little room: NVIDIA's compiler capped these kernels at 168
        // registers, and every one with 3+ fragment rows a subgroup spilled and took 2.9 ms
        // (pipeline statistics, bench/history/packed-input-kernel.md).
        if (c.bRegisters && fragM > 2) factor *= 4.0;
        if (c.bRegisters) {
            // The workgroups take the M tiles in turn, tilesPerWorkgroup each. Measured on the
            // H200 (bench/history/packed-input-kernel.md, tiles taken in turn): best at about 780 workgroups,
            // whatever the batch (alexnet1 N=256: 32 tiles a workgroup, 0.535 ms; N=64: 8
            // tiles, 0.153 ms);
            // 2x, 4x, 8x as many: +3%, +8%, +20%; half as many: +20-25%.
            const double workgroups = std::ceil(double(p.batch) * l.tilesPerImage / c.tilesPerWorkgroup) * nTiles;
            const double ratio = workgroups / (1.5 * slots);
            factor *= ratio >= 1.0 ? 1.0 + 0.03 * (ratio - 1.0) : 1.0 + 0.25 * (1.0 / ratio - 1.0);
        }
        factor *= c.mmaN >= 16 ? 1.0 : 1.3;
        factor *= 1.0 + 24.0 / c.bn;  // the window is loaded once per N tile
        // NVIDIA's compiler sizes its register budget by how many workgroups fit
        // maxComputeSharedMemorySize: the B-in-registers kernel at 24,248 bytes got 166
        // registers (two workgroups an SM), the same kernel with 6 KB of unused shared memory
        // more 237 (one), 0.59 -> 0.87 ms (H200, bench/history/packed-input-kernel.md; the gather kernel lost as
        // much past half the limit).
        if (2ull * c.sharedMemoryBytes(p) > d.maxSharedMemoryBytes) factor *= 1.45;
        // Where the packed loader wins: first layers (few channels, short K) whose packing pads
        // K by at most 1.5x. Measured on the H200 (per-tap K runs, b3f77a8): alexnet1 (K 363 ->
        // 432) packed 0.59 ms against the gather's 0.92; but ResNet-50's conv1 (147 -> 256) 0.745
        // against 0.717 and VGG's conv1_1 (27 -> 144) 1.16 against 0.30. Elsewhere it is
        // unmeasured, so the gather loader keeps its place and the sweep decides.
        const bool firstLayer = l.channels <= 64 && l.gemmK <= 640 && l.gemmK <= 1.5 * double(p.gemmK());
        factor *= firstLayer ? 0.3 : 3.0;
        return work * factor * (underfilled ? slots / workgroups : 1.0);
    }
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Nchw) return nchwCost(c, d, p);
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Nhwc) {
        // Work on the padded K (C rounded up to BK per tap).
        const double kNhwc = double(p.kernelH * p.kernelW) * nhwcChannels(p, c.bk);
        work = mTiles * c.bm * nTiles * c.bn * kNhwc;
        const double fragM = c.bm / c.warpsM / c.mmaM, fragN = c.bn / c.warpsN / c.mmaN;
        if (d.isCpu()) {
            // On a CPU device the matrix units are emulated and the pipeline compile dominates:
            // the fewest fragments a subgroup.
            return work * (1.0 + fragM * fragN / 4.0) * (underfilled ? slots / workgroups : 1.0);
        }
        // Calibrated on the H200 (bench/history/general-path.md, kernel-lab over the channels-last
        // configurations of four layers): 128x128x32 with 4 subgroups (255 registers) or
        // 128x256x16 with 16 led, 1.30 ms on ResNet-50's 3x3/256 (the gather kernel 3.06) and
        // 2.36 on 3x3/512 (6.11), with every 128x128 and 128x256 tile within 10%; on VGG's
        // 3x3/64 64x64x32 with 8 subgroups, 1.21 (gather 1.65). On a 1x1 over 256 channels it
        // lost, 0.27 against 0.22 ms: the packing pass reads the input once more.
        factor = channelsLastTileFactor(c);
        // Subgroup layouts, relative to the best of their tile (kernel-lab, the same layers):
        // fewer than 4 subgroups left the SM idle (128x64 with 2: 2.53 ms on VGG's conv1_2,
        // 64x64 with 8: 1.21); layouts not measured rank behind the measured ones. 128x128x16
        // leads on every 3x3 layer of the suite with at least 128 output channels (kernel-lab on
        // the H200's nine 3x3 layers; bench/history/general-path.md, bench/RESULTS.md): 2x4
        // subgroups at stride 1 (with the input in channel slices, ResNet-50's 3x3/256 0.988 ms
        // against 1.036 as 4x2, 3x3/512 1.908 against 1.942; 3x3/128 0.630 against 0.707 as
        // 128x128x32), 4x2 on strided layers (ResNet-50's 3x3/512 s2 1.323 ms against 1.523 for
        // the 128x256x16 tile) and on the 1x1 layers it serves (1x1 512->2048 at 7x7). Behind it,
        // 128x128x32: 2x4 over fewer than 256 channels, 1x4 over more at stride 1. With 64
        // output channels, 256x64x16 with 4x4 subgroups led at stride 1 (kernel-lab, the
        // heuristic's eight on every suite layer: ResNet-50's 3x3/64 0.540 ms against 0.587 for
        // 128x64x32 4x2, VGG's conv1_2 1.091 against 1.154). The first entry that matches
        // counts; When: C < 256 or C >= 256, the stride, the kernel's taps, K <= 64.
        enum class When { Any, Shallow, DeepStride1, Stride1Taps, StridedOrPointwise, NarrowStride1Taps };
        struct Layout {
            uint32_t bm, bn, bk, wm, wn;
            double factor;
            When when;
        };
        static constexpr Layout kMeasured[] = {
            {256, 64, 16, 4, 4, 1.0, When::NarrowStride1Taps},
            {128, 128, 16, 2, 4, 0.85, When::Stride1Taps},        {128, 128, 16, 4, 2, 0.85, When::StridedOrPointwise},
            {128, 128, 16, 2, 4, 0.88, When::Any},                {128, 128, 16, 4, 2, 0.88, When::Any},
            {128, 128, 16, 4, 1, 0.9, When::Any},                 {128, 128, 16, 2, 2, 0.9, When::Any},
            {128, 128, 32, 2, 4, 1.0, When::Shallow},             {128, 128, 32, 1, 4, 1.02, When::Shallow},
            {128, 128, 32, 1, 4, 0.9, When::DeepStride1},         {128, 128, 32, 1, 4, 1.0, When::Any},
            {128, 128, 32, 2, 4, 1.02, When::Any},                {128, 128, 32, 4, 2, 1.025, When::Any},
            {128, 128, 32, 2, 2, 1.045, When::Any},               {128, 128, 32, 4, 4, 1.06, When::Any},
            {128, 256, 16, 2, 8, 1.0, When::Any},                 {128, 256, 16, 4, 4, 1.01, When::Any},
            {128, 256, 16, 2, 4, 1.045, When::Any},               {64, 64, 32, 2, 4, 1.0, When::Any},
            {64, 64, 32, 4, 2, 1.0, When::Any},                   {64, 64, 32, 2, 2, 1.03, When::Any},
            {128, 64, 32, 4, 2, 1.0, When::Any},
        };
        const bool deep = p.inChannels >= 256, strided = p.strideH > 1 || p.strideW > 1;
        const bool taps = p.kernelH * p.kernelW > 1;
        auto holds = [&](When when) {
            switch (when) {
                case When::Any: return true;
                case When::Shallow: return !deep;
                case When::DeepStride1: return deep && !strided;
                case When::Stride1Taps: return !strided && taps;
                case When::StridedOrPointwise: return strided || !taps;
                case When::NarrowStride1Taps: return p.gemmN() <= 64 && !strided && taps;
            }
            return false;
        };
        double layout = c.warpsM * c.warpsN < 4 ? 1.6 : 1.15;
        for (const Layout& l : kMeasured)
            if (l.bm == c.bm && l.bn == c.bn && l.bk == c.bk && l.wm == c.warpsM && l.wn == c.warpsN && holds(l.when)) {
                layout = l.factor;
                break;
            }
        // Fragment prefetch (kernel-lab on the H200, bench/RESULTS.md): with 2x2 subgroups and
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
        if (c.fragmentPrefetch) {
            const bool quad = c.warpsM == 2 && c.warpsN == 2 && c.bk == 16 && c.mmaM * c.mmaN * c.mmaK >= 4096;
            const bool square = quad && c.bm == 128 && c.bn == 128 && (taps || p.gemmK() >= 1024);
            const bool narrow = quad && c.bm == 128 && c.bn == 64 && holds(When::NarrowStride1Taps);
            layout = square ? 0.75 : narrow ? 0.85 : layout * 1.2;
        }
        factor *= layout;
        // The taps-inner K order: on the strided 3x3 layers 2-9% faster than the same tile
        // (ResNet-50's 3x3/512 s2 1.323 against 1.448 ms as 128x128x16 4x2); at stride 1 over
        // 256 channels or more 1-7% faster since the grid takes its N tile fastest (3x3/512 over
        // 7x7 images 2.107 against 2.254 ms in the sweep of eab2b95, 2.120 against 2.206 in
        // kernel-lab; 3x3/256 0.7-1.9%; with the input in channel slices, 2x4 subgroups 3x3/256
        // 0.988 against 1.094 ms, 3x3/512 1.908 against 2.222); over fewer channels within 1%
        // either way, 5% slower on 3x3/64 (kernel-lab; bench/RESULTS.md,
        // bench/history/general-path.md).
        if (c.tapsInner) factor *= p.strideH > 1 || p.strideW > 1 || p.inChannels >= 256 ? 0.97 : 1.01;
        // 32 fragments a subgroup (256 accumulator registers) spill.
        if (fragM * fragN > 16) factor *= 4.0;
        // Fragments: 16x16x16 led at stride 1; on the strided layers 16x8x16 led by 1-3%
        // (kernel-lab on the H200, 128x128x16 4x2: ResNet-50's 3x3/512 s2 1.225 ms against
        // 1.267, 3x3/256 s2 0.712 against 0.721, the 1x1 downsamples 1024->2048 0.370 against
        // 0.380 and 512->1024 0.224 against 0.230; bench/RESULTS.md).
        const bool mma16x8x16 = c.mmaM == 16 && c.mmaN == 8 && c.mmaK == 16;
        factor *= c.mmaM * c.mmaN * c.mmaK >= 4096 ? 1.0 : strided && mma16x8x16 ? 0.98 : c.mmaK >= 16 ? 1.15 : 1.5;
        // 1x1: the packing pass is a second read of the input, and the NCHW loader reads it
        // directly. Except where the pass keeps only the pixels a strided 1x1 reads (a quarter at
        // stride 2), or where the NCHW loader reads pixels one at a time (planes not a whole
        // number of 4-pixel words) and the output is wide (its fp32 A read again for each of 8+ N
        // tiles) or the input deep (2048 channels read a scalar at a time): there 128x128x16 4x2
        // here led (kernel-lab, H200: ResNet-50's 1x1 512->2048 at 7x7 0.955 ms against 1.027,
        // its 2048->512 0.702 against 0.730 with the input in channel slices; the stride-2
        // downsamples 1024->2048 0.437 against 0.538, 512->1024 0.251 against 0.290, 256->512
        // 0.153 against 0.153).
        if (p.kernelH * p.kernelW == 1)
            factor *= nhwcSubsamples(p) || (!nchwVectorLoads(p) && (p.gemmN() >= 2048 || p.gemmK() >= 2048)) ? 0.8
                                                                                                              : 3.0;
        // Unmeasured where the grid cannot fill the GPU (batch 1): the gather kernel keeps it.
        if (underfilled) factor *= 2.0;
        return work * factor * (underfilled ? slots / workgroups : 1.0);
    }
    if (c.path == Path::Fp32) {
        factor = 1.0 + 1.0 / c.tm + 1.0 / c.tn;
    } else {
        auto pick = [](uint32_t v, std::initializer_list<std::pair<uint32_t, double>> table, double other) {
            for (auto [key, f] : table)
                if (v == key) return f;
            return other;
        };
        // BK: 32 for short K; 16 once K is long (3x3 over 128+ channels, 1x1 over 1024), unless
        // the grid cannot fill the device: then each workgroup's latency is the time, and fewer,
        // longer K slices win.
        factor = p.gemmK() >= 1024 && !underfilled ? pick(c.bk, {{16, 1.0}, {32, 1.15}}, 1.35)
                 : underfilled ? pick(c.bk, {{64, 1.0}, {32, 1.05}}, 1.15)
                 : c.bn >= 128 ? pick(c.bk, {{16, 0.98}, {32, 1.0}}, 1.3)
                               : pick(c.bk, {{32, 1.0}, {16, 1.12}}, 1.3);
        factor *= c.stages == 1 ? 1.0 : 1.15;
        factor *= c.aLoader == ALoader::Gather ? 1.0 : 1.4;
        const uint32_t threads = c.threads();
        // First layers (3 input channels: alexnet1, VGG's conv1_1) favour BM 64; everything else
        // measured favours 256 threads and BM 32.
        const bool firstLayer = p.inChannels / p.groups <= 4 && p.gemmK() < 512;
        // Wide N tiles with BK 16 (64x128x16, 4x4 subgroups) want 512 threads.
        const bool wide = firstLayer || (c.bn >= 128 && c.bk == 16);
        const bool wideThreads = wide && !firstLayer;
        factor *= threads == 256 ? (wideThreads ? 1.08 : 1.0)
                  : threads >= 384 && threads <= 512 ? (wideThreads ? 1.0 : 1.03)
                  : threads >= 128 ? 1.25 : 1.5;
        // Warp tiles: one fragment row (16 pixels) and two fragment columns won nearly everywhere.
        // First layers led with 4x2 subgroups on the H200 (kernel-lab, bench/RESULTS.md):
        // ResNet-50's conv1 (K 147) 64x64x32 0.527 ms with 16x16 fragments against 0.549 with
        // 4x4 subgroups and 0.576 with 16x8 fragments; VGG's conv1_1, whose K (27) is one slice,
        // 0.187 with four 16x8 fragment columns a subgroup against 0.204 with 16x16 and 0.205
        // with 4x4 subgroups.
        const uint32_t fragM = c.bm / c.warpsM / c.mmaM, fragN = c.bn / c.warpsN / c.mmaN;
        factor *= fragM == 1 ? 1.0 : fragM == 2 ? 1.25 : 1.5;
        factor *= firstLayer && p.gemmK() <= c.bk && fragN == 4 && c.mmaN == 8 ? 0.97
                  : fragN == 2                           ? 1.0
                  : fragN == 1                           ? 1.15
                  : fragN <= 4                           ? 1.05
                                                         : 1.2;
        factor *= c.bm <= 32 ? (wide ? 1.05 : 1.0) : c.bm == 64 ? (wide ? 1.0 : 1.02) : c.bm <= 128 ? 1.1 : 1.3;
        factor *= 1.0 + 24.0 / c.bn;  // A is gathered once per N tile
        factor *= c.bGlobal ? 1.4 : 1.0;  // H200: B from global 1.26 ms at best, staged 0.91 ms
        // H200: contiguous loads made A's gather nearly free but the kernel 2x slower (1.77 ms).
        factor *= c.aLoader == ALoader::Gather && c.sLanes > 1 ? 1.9 : 1.0;
    }
    return work * factor * (underfilled ? slots / workgroups : 1.0);
}

PathChoice choosePath(Precision precision, const DeviceInfo& d, const ConvProblem& p) {
    PathChoice choice;
    if (precision == Precision::Fp32) {
        choice.path = Path::Fp32;
        choice.why = "precision fp32 requested";
        return choice;
    }
    if (p.gemmN() < 8) {
        // Depthwise and other thin groups: a matrix-unit tile would be mostly padding along N.
        // On the H200 the fp32 kernel ran MobileNet's depthwise layers 1.6x faster.
        choice.path = Path::Fp32;
        choice.why = "fast requested, but each group has only " + std::to_string(p.gemmN()) +
                     " output channel(s), too few for matrix-unit tiles; using fp32";
        return choice;
    }
    for (Path path : {Path::CoopMatF16, Path::CoopMatBF16})
        if (anyCandidate(path, d, p)) {
            choice.path = path;
            choice.why = std::string("fast: ") + toString(path) + " is the best path the device has";
            return choice;
        }
    choice.path = Path::Fp32;
    // Say why in terms of the (possibly profiled) device, so that a profile or a driver quirk that
    // removed the fast path is named: the device, and the first reason a configuration was refused.
    const std::string device = "'" + d.name + "'";
    if (!d.coopMatKhr) {
        choice.why = "fast requested, but " + device + " has no VK_KHR_cooperative_matrix; using fp32";
        return choice;
    }
    std::string refused;
    for (Path path : {Path::CoopMatF16, Path::CoopMatBF16}) {
        const auto all = coopMatCandidates(path, d, p);
        if (!all.empty() && refused.empty()) refused = all.front().str() + ": " + canImplement(all.front(), d, p);
    }
    choice.why = "fast requested, but no cooperative-matrix configuration fits " + device + " (" +
                 (refused.empty() ? "it lists no f16 or bf16 shape with f32 accumulation" : "e.g. " + refused) +
                 "); using fp32";
    return choice;
}

ConfigChoice selectConfig(Path path, const DeviceInfo& d, const ConvProblem& p) {
    ConfigChoice choice;
    for (const auto& c : candidateConfigs(path, d, p)) choice.weighed.push_back({c, heuristicCost(c, d, p)});
    if (choice.weighed.empty())
        throw Error(Error::Kind::Unsupported, std::string("no ") + toString(path) +
                                                  " configuration fits device '" + d.name +
                                                  "' for " + p.str());
    // The grouped direct kernel leads for the problems it serves: on every grouped layer
    // measured it took 0.2-0.6x the GEMM tile's time, while the two cost models, made for
    // different kernels, cross on tiny problems (N=1, 6x6) where launch and underfill dominate
    // both. The GEMM tiles stay in the list, for the sweep.
    const bool directFirst = path == Path::Fp32 && groupedDirectServes(p);
    std::stable_sort(choice.weighed.begin(), choice.weighed.end(), [directFirst](const auto& a, const auto& b) {
        const bool aLate = directFirst && !a.first.groupedDirect(), bLate = directFirst && !b.first.groupedDirect();
        return aLate != bLate ? bLate : a.second < b.second;
    });
    choice.config = choice.weighed.front().first;
    return choice;
}

}  // namespace vkconv::detail
