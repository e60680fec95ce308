// The candidate set: every configuration of a path that can_implement accepts for a problem on a
// device (the fp32 tiles, the cooperative-matrix loaders' tiles, warp tiles, instruction shapes,
// K orders and split-K, and the grouped direct kernel's tiles). `vkconv sweep` times from it and
// the heuristic (config_select.cpp) ranks it.
#include "config_select.hpp"

#include <algorithm>

#include "grouped_direct.hpp"
#include "nchw_input.hpp"
#include "nhwc_input.hpp"
#include "packed_input.hpp"
#include "split_k.hpp"

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
        // fragments; for convolutions without padding also the same kernel reading the NCHW
        // input directly.
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
                                    if (p.kernelH * p.kernelW > 1 && nhwcChannels(p, bk) > bk) {
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
                        c.tilesPerWorkgroup = tiles;
                        c.bm = bm, c.bn = bn, c.bk = shape.k;
                        c.warpsM = 1, c.warpsN = bn / shape.n;
                        c.mmaM = shape.m, c.mmaN = shape.n, c.mmaK = shape.k;
                        c.stages = 1;
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
    // Split-K where a channels-last tile's grid leaves compute units without a workgroup (small
    // batches, 7x7 outputs): 2, 4 or 8 splits, up to the workgroups the device runs at once. Not
    // on a CPU device, whose few slots the tiles fill. On 1x1 kernels only where the output makes
    // at most a quarter of the units' worth of 32x64 tiles, over K >= 1024 (H200, kernel-lab,
    // bench/RESULTS.md; workgroups of 32x64 tiles): at batch 1 2048->512 at 7x7 (16 workgroups)
    // 0.021 -> 0.013 ms in 8 splits, 1024->256 at 14x14 (28) 0.011 -> 0.010 in 4; with more
    // workgroups or a shorter K the split was level or slower: 1024->512 at 14x14 (56) 0.011
    // against 0.012 in 2, 512->2048 at 7x7 (64) 0.011 against 0.013, and at batch 32 2048->512
    // at 7x7 0.041 either way (128x128 tiles in 4); canImplement still takes them. Besides, the
    // deep 1x1 layers of deepPointwiseMidGrid and deepPointwiseTwoSplits (split_k.hpp).
    if (!d.isCpu()) {
        const TileGrid smallTiles = tileGrid(32, 64, d, p);  // the 32x64 tiles the 1x1 rule counts in
        const bool splitPointwise = smallTiles.workgroups <= smallTiles.units() / 4.0 && p.gemmK() >= 1024;
        const bool deepPointwiseSplits =
            deepPointwiseMidGrid(p, smallTiles.units()) || deepPointwiseTwoSplits(p, smallTiles.units());
        const bool pointwise = p.kernelH * p.kernelW == 1;
        const size_t unsplit = out.size();
        for (size_t i = 0; i < unsplit; ++i) {
            const KernelConfig c = out[i];
            if (c.aLoader != ALoader::Nhwc && c.aLoader != ALoader::Nchw) continue;
            const TileGrid grid = tileGrid(c, d, p);
            if (grid.workgroups >= grid.units() && !deepPointwiseSplits) continue;
            if (pointwise && !splitPointwise && !deepPointwiseSplits) continue;
            for (uint32_t split : {2u, 4u, 8u})
                if (grid.workgroups * split <= grid.slots) {
                    KernelConfig v = c;
                    v.splitK = split;
                    out.push_back(v);
                }
        }
    }
    return out;
}

// Every configuration the path enumerates for the problem, before can_implement's filter.
std::vector<KernelConfig> unfilteredCandidates(Path path, const DeviceInfo& d, const ConvProblem& p) {
    return path == Path::Fp32 ? fp32Candidates() : coopMatCandidates(path, d, p);
}

}  // namespace

std::vector<KernelConfig> candidateConfigs(Path path, const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> out;
    for (const auto& c : unfilteredCandidates(path, d, p))
        if (canImplement(c, d, p).empty()) out.push_back(c);
    if (path == Path::Fp32)  // already checked by can_implement
        for (auto& c : groupedDirectCandidates(d, p)) out.push_back(std::move(c));
    return out;
}

bool anyCandidateFits(Path path, const DeviceInfo& d, const ConvProblem& p) {
    if (path != Path::Fp32 && !d.coopMatKhr) return false;
    for (const auto& c : unfilteredCandidates(path, d, p))
        if (canImplement(c, d, p).empty()) return true;
    return false;
}

std::string firstCandidateRefusal(Path path, const DeviceInfo& d, const ConvProblem& p) {
    const auto all = unfilteredCandidates(path, d, p);
    return all.empty() ? std::string() : all.front().str() + ": " + canImplement(all.front(), d, p);
}

}  // namespace vkconv::detail
