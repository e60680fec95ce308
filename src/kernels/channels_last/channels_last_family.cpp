// The channels-last cooperative-matrix kernel (conv2d_channels_last.comp), one kernel with two A
// loaders, each a family: NHWC, where a pre-pass packs the input as fp16 channels-last (any
// problem of one group), and NCHW, which reads the fp32 NCHW input directly (convolutions
// without padding). Both split K over workgroups where the grid is too small (split_k.hpp).
#include "kernels/families.hpp"

#include <cstdio>

#include "kernels/channels_last/channels_last_params.hpp"
#include "kernels/channels_last/nchw_input.hpp"
#include "kernels/channels_last/nhwc_input.hpp"
#include "kernels/channels_last/split_k.hpp"
#include "kernels/common/coopmat_common.hpp"
#include "kernels/common/device_fill.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

// The kernel's rules and tiling; each loader adds what it reads and how.
class ChannelsLastFamily : public KernelFamily {
public:
    void addCandidates(Path path, const DeviceInfo& d, const ConvProblem& p,
                       std::vector<KernelConfig>& out) const override {
        if (!isCoopMatPath(path) || !serves(p)) return;
        const size_t first = out.size();
        // Two stages, warp tiles of 2 to 32 fragments; each tile with and without fragment prefetch
        // (NHWC), and with the taps inside each channel slice where there are taps.
        for (const CoopMatShape& shape : operandShapes(path, d))
            for (uint32_t sg : candidateSubgroupSizes(d))
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
                                c.params = blankParams();
                                c.bm = bm, c.bn = bn, c.bk = bk;
                                tiling(c).warpsM = wm, tiling(c).warpsN = wn;
                                tiling(c).mmaM = shape.m, tiling(c).mmaN = shape.n, tiling(c).mmaK = shape.k;
                                tiling(c).stages = 2;
                                c.subgroupSize = sg;
                                if ((bm / wm / shape.m) * (bn / wn / shape.n) < 2) continue;
                                for (bool prefetch : {false, true}) {
                                    if (prefetch && !prefetches()) continue;
                                    channelsLast(c).fragmentPrefetch = prefetch;
                                    channelsLast(c).tapsInner = false;
                                    if (warpTilesBounded(c)) out.push_back(c);
                                    if (p.kernelH * p.kernelW > 1 && nhwcChannels(p, bk) > bk) {
                                        channelsLast(c).tapsInner = true;
                                        if (warpTilesBounded(c)) out.push_back(c);
                                    }
                                }
                            }
        // Split-K where a tile's grid leaves compute units without a workgroup (small batches, 7x7
        // outputs): 2, 4 or 8 splits, up to the workgroups the device runs at once. Not on a CPU
        // device, whose few slots the tiles fill. On 1x1 kernels only where the output makes at most
        // a quarter of the units' worth of 32x64 tiles, over K >= 1024 (H200, kernel-lab; workgroups
        // of 32x64 tiles): at batch 1 2048->512 at 7x7 (16 workgroups) 0.021 -> 0.013 ms in 8 splits,
        // 1024->256 at 14x14 (28) 0.011 -> 0.010 in 4; with more workgroups or a shorter K the split
        // was level or slower: 1024->512 at 14x14 (56) 0.011 against 0.012 in 2, 512->2048 at 7x7 (64)
        // 0.011 against 0.013, and at batch 32 2048->512 at 7x7 0.041 either way (128x128 tiles in
        // 4); canImplement still takes them. Besides, the deep 1x1 layers of deepPointwiseMidGrid and
        // deepPointwiseTwoSplits (split_k.hpp).
        if (d.isCpu()) return;
        const TileGrid smallTiles = tileGrid(32, 64, d, p);  // the 32x64 tiles the 1x1 rule counts in
        const bool splitPointwise = smallTiles.workgroups <= smallTiles.units() / 4.0 && p.gemmK() >= 1024;
        const bool deepPointwiseSplits =
            deepPointwiseMidGrid(p, d, smallTiles.units()) || deepPointwiseTwoSplits(p, d, smallTiles.units());
        const bool pointwise = p.kernelH * p.kernelW == 1;
        const size_t unsplit = out.size();
        for (size_t i = first; i < unsplit; ++i) {
            const KernelConfig c = out[i];
            const TileGrid grid = tileGrid(c, d, p);
            if (grid.workgroups >= grid.units() && !deepPointwiseSplits) continue;
            if (pointwise && !splitPointwise && !deepPointwiseSplits) continue;
            for (uint32_t split : {2u, 4u, 8u})
                if (grid.workgroups * split <= grid.slots) {
                    KernelConfig v = c;
                    channelsLast(v).splitK = split;
                    out.push_back(v);
                }
        }
    }

    std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        if (std::string why = coopMatFieldRules(c); !why.empty()) return why;
        if (!isPowerOfTwo(c.bk)) return "BK must be a power of two";
        if (c.bn == 0 || c.bn % 4) return "BN must be a multiple of 4";
        if (std::string why = coopMatDeviceSupport(c, d); !why.empty()) return why;
        if (std::string why = loaderRules(c, d, p); !why.empty()) return why;
        if (std::string why = splitKCanImplement(c, d, p); !why.empty()) return why;
        if (std::string why = coopMatTileRules(c); !why.empty()) return why;
        return workgroupLimits(*this, c, d, p);
    }

    uint32_t threads(const KernelConfig& c) const override { return coopMatThreads(c); }

    TileShape tileShape(const KernelConfig& c, const ConvProblem& p) const override {
        TileShape t;
        t.tileM = c.bm, t.tileN = c.bn;
        t.workspacePerImage = workspacePerImage(c, p);
        t.splits = channelsLast(c).splitK;
        t.partialsPerImage = splitKWorkspaceBytes(c, p, 1);
        return t;
    }

    std::string tileKey(const KernelConfig& c) const override {
        char key[96];
        std::snprintf(key, sizeof key, "%s %ux%ux%u split %u", name(), c.bm, c.bn, c.bk, channelsLast(c).splitK);
        return key;
    }

    NeighbourKinds neighbours(const KernelConfig& c, const DeviceInfo& d) const override {
        // Its alternative: the gather loader with the same tile, where the configuration has
        // neither of the channels-last kernel's K orders and prefetch that the gather lacks.
        std::vector<KernelConfig> alternative;
        if (!channelsLast(c).tapsInner && !channelsLast(c).fragmentPrefetch) {
            KernelConfig gather = c;
            gather.params = CoopMatGatherKernel{tiling(c)};
            tiling(gather).stages = 1;
            alternative.push_back(gather);
        }
        std::vector<KernelConfig> prefetch;  // fragments held across the barrier (NHWC)
        if (prefetches()) {
            KernelConfig v = c;
            channelsLast(v).fragmentPrefetch = !channelsLast(c).fragmentPrefetch;
            prefetch.push_back(v);
        }
        std::vector<KernelConfig> splits;  // half and twice the splits (canImplement weeds out)
        for (uint32_t s : {channelsLast(c).splitK / 2, channelsLast(c).splitK * 2})
            if (s >= 1 && s != channelsLast(c).splitK) {
                KernelConfig v = c;
                channelsLast(v).splitK = s;
                splits.push_back(v);
            }
        OwnNeighbours own;
        own.splits = std::move(splits);
        own.alternative = std::move(alternative);
        own.prefetch = std::move(prefetch);
        return coopMatNeighbours(c, d, /*bRegisters=*/false, std::move(own));
    }

protected:
    // The loader's parameters, defaults (the variant says which loader a configuration has).
    virtual KernelParams blankParams() const = 0;
    // Whether the loader can hold fragments across the barrier (fragmentPrefetch).
    virtual bool prefetches() const { return false; }
    // Whether the loader serves the problem at all (before any configuration).
    virtual bool serves(const ConvProblem& problem) const = 0;
    // The loader's own rules, checked after the device's support.
    virtual std::string loaderRules(const KernelConfig& config, const DeviceInfo& device,
                                    const ConvProblem& problem) const = 0;
    virtual uint64_t workspacePerImage(const KernelConfig& config, const ConvProblem& problem) const = 0;

    PreparedKernel withReducePass(PreparedKernel kernel, const KernelConfig& c, const DeviceInfo& d,
                                  const ConvProblem& p) const {
        if (channelsLast(c).splitK > 1) {
            kernel.reduce = splitKReducePipeline(c, p);
            kernel.reduceWorkgroups = [d](uint64_t values) { return splitKReduceWorkgroups(values, d); };
        }
        return kernel;
    }
};

// The NHWC loader: a pre-pass packs the input as fp16 channels-last; groups 1, any problem.
class ChannelsLastNhwcFamily final : public ChannelsLastFamily {
public:
    const char* name() const override { return ChannelsLastNhwcKernel::kName; }

    bool owns(const KernelConfig& c) const override { return c.is<ChannelsLastNhwcKernel>(); }

    bool serves(const ConvProblem& p) const override { return p.groups == 1; }

    std::string loaderRules(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        return nhwcCanImplement(c, d, p);
    }

    uint64_t workspacePerImage(const KernelConfig& c, const ConvProblem& p) const override {
        return nhwcImageBytes(p, c.bk);
    }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem&) const override {
        return nhwcSharedMemoryBytes(c);
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        return nhwcCost(c, d, p) * splitKCostFactor(c, d, p);
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p,
                           const float* weight) const override {
        return withReducePass(prepareNhwcCoopMatKernel(p, c, weight), c, d, p);
    }

    // Its packing pass reads every type and layout (pack_input_nhwc_f16.comp); an fp16 NHWC input
    // of whole 16-byte channel words it reads in place, with no packing pass.
    bool readsInput(const KernelConfig&, const TensorFormat& f) const override { return f.type != DataType::BF16; }

    std::string note(const ConvProblem& p) const override {
        if (nhwcReadsInPlace(p)) return "the fp16 NHWC input read in place (no packing pass)";
        if (!p.inputFormat.isDefault())
            return "the packing pass reads the " + p.inputFormat.str() + " input" +
                   (p.inputFormat == TensorFormat{DataType::F16, Layout::NHWC}
                        ? std::string(" (taken as it is only where C is a multiple of 8 and no 1x1 stride subsamples it)")
                        : std::string());
        return "";
    }

    std::vector<std::string> shaders(const KernelConfig& c) const override {
        std::vector<std::string> s{"pack_input_nhwc_f16", "conv2d_coopmat_nhwc_f16"};
        if (channelsLast(c).splitK > 1) s.push_back("reduce_split_k");
        return s;
    }

    std::string describe(const KernelConfig& c) const override {
        std::string s = coopMatNameHead(c) + " nhwc";
        if (channelsLast(c).tapsInner) s += " taps-inner";
        if (channelsLast(c).fragmentPrefetch) s += " frag-prefetch";
        return s + coopMatNameTail(c);
    }

protected:
    KernelParams blankParams() const override { return ChannelsLastNhwcKernel{}; }
    bool prefetches() const override { return true; }
};

// The NCHW loader: A straight from the fp32 NCHW input, for convolutions without padding.
class ChannelsLastNchwFamily final : public ChannelsLastFamily {
public:
    const char* name() const override { return ChannelsLastNchwKernel::kName; }

    bool owns(const KernelConfig& c) const override { return c.is<ChannelsLastNchwKernel>(); }

    bool serves(const ConvProblem& p) const override { return nchwProblemSupport(p).empty(); }

    std::string loaderRules(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        if (channelsLast(c).fragmentPrefetch) return "fragment prefetch needs the channels-last (nhwc) loader";
        return nchwCanImplement(c, d, p);
    }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem&) const override {
        return nchwSharedMemoryBytes(c);
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        return nchwCost(c, d, p) * splitKCostFactor(c, d, p);
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p,
                           const float* weight) const override {
        return withReducePass(prepareNchwCoopMatKernel(p, c, weight), c, d, p);
    }

    std::vector<std::string> shaders(const KernelConfig& c) const override {
        std::vector<std::string> s{"conv2d_coopmat_nchw_f16"};
        if (channelsLast(c).splitK > 1) s.push_back("reduce_split_k");
        return s;
    }

    std::string describe(const KernelConfig& c) const override {
        std::string s = coopMatNameHead(c);
        if (channelsLast(c).tapsInner) s += " taps-inner";
        return s + " nchw" + coopMatNameTail(c);
    }

protected:
    KernelParams blankParams() const override { return ChannelsLastNchwKernel{}; }
    uint64_t workspacePerImage(const KernelConfig&, const ConvProblem&) const override { return 0; }
};

}  // namespace

const KernelFamily& channelsLastNhwcFamily() {
    static const ChannelsLastNhwcFamily family;
    return family;
}

const KernelFamily& channelsLastNchwFamily() {
    static const ChannelsLastNchwFamily family;
    return family;
}

}  // namespace vkconv::detail
