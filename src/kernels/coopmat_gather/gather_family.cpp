// The cooperative-matrix GEMM whose A loader gathers each im2col element from the NCHW input
// (conv2d_coopmat_gather.comp): any problem; B staged in shared memory or read from global.
#include "kernels/families.hpp"

#include <cstdio>

#include "kernels/common/coopmat_common.hpp"
#include "kernels/common/device_fill.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

class CoopMatGatherFamily final : public KernelFamily {
public:
    const char* name() const override { return CoopMatGatherKernel::kName; }

    bool owns(const KernelConfig& c) const override {
        return c.is<CoopMatGatherKernel>();
    }

    void addCandidates(Path path, const DeviceInfo& d, const ConvProblem&,
                       std::vector<KernelConfig>& out) const override {
        if (!isCoopMatPath(path)) return;
        // B staged in shared memory, one tap per thread. B read from global memory (bGlobal) and taps
        // of one pixel across lanes (sLanes) are left to the sweep's neighbourhood: measured on the
        // H200 they lost (alexnet1: B from global 1.26 ms at best against 0.91 staged; lanes 1.77 ms),
        // the cost model ranks them 1.4x and 1.9x behind, so that no pick on any described device
        // was one (tests/cli/heuristic_picks.txt), and they doubled to tripled this family's list.
        for (const CoopMatShape& shape : operandShapes(path, d))
            for (uint32_t sg : candidateSubgroupSizes(d))
                for (uint32_t bn : {16u, 32u, 48u, 64u, 96u, 128u})
                    for (uint32_t bk : {16u, 32u, 64u})
                        for (uint32_t wm : {1u, 2u, 4u, 8u})
                            for (uint32_t wn : {1u, 2u, 3u, 4u})
                                for (uint32_t stages : {1u, 2u}) {
                                    CoopMatGatherKernel k;
                                    k.warpsM = wm, k.warpsN = wn;
                                    k.mmaM = shape.m, k.mmaN = shape.n, k.mmaK = shape.k;
                                    k.stages = stages;
                                    KernelConfig c;
                                    c.path = path;
                                    c.params = k;
                                    c.bn = bn, c.bk = std::max(bk, shape.k);
                                    c.subgroupSize = sg;
                                    for (uint32_t bm : {32u, 64u, 128u, 256u}) {
                                        c.bm = bm;
                                        if (warpTilesBounded(c)) out.push_back(c);
                                    }
                                }
    }

    std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        const auto& g = c.as<CoopMatGatherKernel>();
        if (std::string why = coopMatFieldRules(c); !why.empty()) return why;
        // With B not staged BK may be any multiple of the instruction's K.
        if (!g.bGlobal && !isPowerOfTwo(c.bk)) return "BK must be a power of two";
        if (g.bGlobal && c.bn % 8) return "bglobal needs BN a multiple of 8 (16-byte rows)";
        if (!isPowerOfTwo(c.bm)) return "BM must be a power of two";
        if (c.bn == 0 || c.bn % 4) return "BN must be a multiple of 4";
        if (std::string why = coopMatDeviceSupport(c, d); !why.empty()) return why;
        if (g.sLanes == 0 || c.bk % g.sLanes) return "BK must be a multiple of the gather lanes";
        if (coopMatThreads(c) % (c.bm * g.sLanes)) return "threads must be a multiple of BM x lanes (each thread gathers one row)";
        if (std::string why = coopMatTileRules(c); !why.empty()) return why;
        return workgroupLimits(*this, c, d, p);
    }

    uint32_t threads(const KernelConfig& c) const override { return coopMatThreads(c); }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem&) const override {
        // conv2d_coopmat_gather.comp: A ([k][m]) and B ([k][n]) stages in 16-bit, rows padded by 8
        // elements, plus the epilogue's fragment position table (coopmat_store_direct.glsl). Every
        // term is at most a product of four 32-bit fields: 128-bit sums cannot wrap.
        using u128 = unsigned __int128;
        const auto& g = c.as<CoopMatGatherKernel>();
        const u128 operands = u128(g.stages) * c.bk * ((u128(c.bm) + 8) + (g.bGlobal ? 0 : u128(c.bn) + 8)) * 2;
        const u128 bytes = operands + u128(g.mmaM) * g.mmaN * 4;
        return fitU32("shared memory bytes", bytes > u128(~0ull) ? std::nullopt : std::optional<uint64_t>(uint64_t(bytes)),
                      describe(c));
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        const auto& g = c.as<CoopMatGatherKernel>();
        const TileGrid grid = tileGrid(c, d, p);
        const bool underfilled = grid.underfilled();
        const double work = paddedGemmWork(c, grid, p);
        // Shape factors, calibrated on the H200 (alexnet1 over 2,500 configurations, then the
        // benchmark's 30 layers; docs/performance.md): the A gather and its latency dominate, not the
        // matrix units, so small warp tiles, one stage and the gather loader win.
        auto pick = [](uint32_t v, std::initializer_list<std::pair<uint32_t, double>> table, double other) {
            for (auto [key, f] : table)
                if (v == key) return f;
            return other;
        };
        // A group's K that 16 divides and 32 does not (16 channels a group over 3x3 taps: 144) is
        // padded by 32-deep slices, and no other group's channels fill the pad: there BK 16 led on
        // 128-row tiles (ResNeXt-50's grouped 3x3/512 with 16-channel groups at 14x14, batch 32,
        // 128x16x16 8x1 0.0423 ms against 0.0470 for 128x16x32, its stride-2 twin 0.0462 against
        // 0.0489; at batch 16 and 64 by 7-10%). On the 64x16 4x2 tiles of batch 8 BK 32 kept its
        // lead, 0.0174 ms against 0.0189 at either stride.
        const bool groupPaddedBy32 = p.groups > 1 && p.gemmK() % 16 == 0 && p.gemmK() % 32 != 0 && c.bm >= 128;
        // BK: 32 for short K; 16 once K is long (3x3 over 128+ channels, 1x1 over 1024), unless the
        // grid cannot fill the device: then each workgroup's latency is the time, and fewer, longer K
        // slices win.
        double factor = p.gemmK() >= 1024 && !underfilled ? pick(c.bk, {{16, 1.0}, {32, 1.15}}, 1.35)
                        : underfilled ? pick(c.bk, {{64, 1.0}, {32, 1.05}}, 1.15)
                        : c.bn >= 128 ? pick(c.bk, {{16, 0.98}, {32, 1.0}}, 1.3)
                                      : pick(c.bk, {{32, 1.0}, {16, groupPaddedBy32 ? 1.0 : 1.12}}, 1.3);
        factor *= g.stages == 1 ? 1.0 : 1.15;
        const uint32_t threads = this->threads(c);
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
        // First layers led with 4x2 subgroups on the H200: ResNet-50's conv1 (K 147) 64x64x32 0.527
        // ms with 16x16 fragments against 0.549 with 4x4 subgroups and 0.576 with 16x8 fragments;
        // VGG's conv1_1, whose K (27) is one slice, 0.187 with four 16x8 fragment columns a subgroup
        // against 0.204 with 16x16 and 0.205 with 4x4 subgroups. ConvNeXt-T's 4x4 stem (96 filters,
        // K 48) at batch 32: three 16x16 columns on 4x2 subgroups 0.0278-0.0283 ms against two on 4x3
        // 0.0308-0.0312 (two runs).
        const uint32_t fragM = c.bm / g.warpsM / g.mmaM, fragN = c.bn / g.warpsN / g.mmaN;
        factor *= fragM == 1 ? 1.0 : fragM == 2 ? 1.25 : 1.5;
        factor *= firstLayer && p.gemmK() <= c.bk && fragN == 4 && g.mmaN == 8 ? 0.97
                  : fragN == 2 || (firstLayer && fragN == 3) ? 1.0
                  : fragN == 1                               ? 1.15
                  : fragN <= 4                               ? 1.05
                                                             : 1.2;
        factor *= c.bm <= 32 ? (wide ? 1.05 : 1.0) : c.bm == 64 ? (wide ? 1.0 : 1.02) : c.bm <= 128 ? 1.1 : 1.3;
        factor *= 1.0 + 24.0 / c.bn;  // A is gathered once per N tile
        factor *= g.bGlobal ? 1.4 : 1.0;  // H200: B from global 1.26 ms at best, staged 0.91 ms
        // H200: contiguous loads made A's gather nearly free but the kernel 2x slower (1.77 ms).
        factor *= g.sLanes > 1 ? 1.9 : 1.0;
        return work * factor * (underfilled ? grid.slots / grid.workgroups : 1.0);
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo&, const ConvProblem& p,
                           const float* weight) const override {
        return prepareCoopMatKernel(p, c, weight);
    }

    std::vector<std::string> shaders(const KernelConfig&) const override { return {"conv2d_coopmat_f16"}; }

    std::string describe(const KernelConfig& c) const override {
        const auto& g = c.as<CoopMatGatherKernel>();
        std::string s = coopMatNameHead(c);
        if (g.sLanes > 1) s += " lanes " + std::to_string(g.sLanes);
        if (g.bGlobal) s += " bglobal";
        return s + coopMatNameTail(c);
    }

    std::string tileKey(const KernelConfig& c) const override {
        char key[96];
        std::snprintf(key, sizeof key, "%s %ux%ux%u", name(), c.bm, c.bn, c.bk);
        return key;
    }

    NeighbourKinds neighbours(const KernelConfig& c, const DeviceInfo& d) const override {
        const auto& g = c.as<CoopMatGatherKernel>();
        KernelConfig otherB = c;  // where B lives: staged or global
        otherB.as<CoopMatGatherKernel>().bGlobal = !g.bGlobal;
        std::vector<KernelConfig> lanes;  // taps per pixel
        for (uint32_t l : {1u, 2u, 4u, 8u})
            if (l != g.sLanes) {
                KernelConfig v = c;
                v.as<CoopMatGatherKernel>().sLanes = l;
                lanes.push_back(v);
            }
        OwnNeighbours own;
        own.alternative = {otherB};
        own.lanes = std::move(lanes);
        return coopMatNeighbours(c, d, /*bRegisters=*/false, std::move(own));
    }
};

}  // namespace

const KernelFamily& coopMatGatherFamily() {
    static const CoopMatGatherFamily family;
    return family;
}

}  // namespace vkconv::detail
