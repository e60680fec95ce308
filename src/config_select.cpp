#include "config_select.hpp"

#include <algorithm>
#include <cmath>

#include "grouped_direct.hpp"
#include "nchw_input.hpp"
#include "nhwc_input.hpp"
#include "packed_input.hpp"
#include "split_k.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

// The H200, where the cost models were fitted: 132 SMs.
constexpr double kCalibrationUnits = 132.0;

}  // namespace

double workgroupSlots(const DeviceInfo& d) {
    if (d.isCpu()) return 16.0;
    // Fitted on the H200: 512 slots there (about 4 a compute unit) put the lines of the small-
    // and mid-grid rules where kernel-lab's timings put them (bench/RESULTS.md).
    constexpr double kCalibrationSlots = 512.0;
    return d.computeUnits ? kCalibrationSlots * double(d.computeUnits) / kCalibrationUnits : kCalibrationSlots;
}

double computeUnitCount(const DeviceInfo& d) { return d.computeUnits ? double(d.computeUnits) : kCalibrationUnits; }

TileGrid tileGrid(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    TileGrid g;
    g.mTiles = std::ceil(double(p.gemmM()) / c.bm);
    g.nTiles = std::ceil(double(p.gemmN()) / c.bn);
    g.workgroups = g.mTiles * g.nTiles * double(p.groups) * double(std::max(c.splitK, 1u));
    g.slots = workgroupSlots(d);
    return g;
}

TileGrid tileGrid(uint32_t bm, uint32_t bn, const DeviceInfo& d, const ConvProblem& p) {
    KernelConfig tile;
    tile.bm = bm, tile.bn = bn;
    return tileGrid(tile, d, p);
}

double tileWaves(uint32_t bm, uint32_t bn, double perUnit, const DeviceInfo& d, const ConvProblem& p) {
    return tileGrid(bm, bn, d, p).workgroups / (perUnit * computeUnitCount(d));
}

bool smallGridWarpsFavoured(const KernelConfig& c, const TileGrid& grid) {
    return c.splitK == 1 && grid.workgroups <= grid.units() && c.bm == 32 && c.bn == 64 && c.warpsM == 2 &&
           c.warpsN == 4 && c.mmaM == 16 && c.mmaN == 8 && c.mmaK == 16;
}

double heuristicCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (c.groupedDirect()) return groupedDirectCost(c, d, p);
    const TileGrid grid = tileGrid(c, d, p);
    const double mTiles = grid.mTiles, nTiles = grid.nTiles, workgroups = grid.workgroups, slots = grid.slots;
    const bool underfilled = grid.underfilled();
    // Work actually done, edge tiles included. Except a grouped problem's K on a grid that leaves
    // the device idle: there each workgroup's time is its slices' latency, and a 16-deep slice
    // takes about a 32-deep one's, so K counts to 32-deep slices at least. ResNeXt-50's grouped
    // 3x3 at batch 1 (kernel-lab on the H200, bench/RESULTS.md): 16 channels a group (K 144) 0.0074
    // ms on 32x16x32 against 0.0084 on the 32x16x16 that full padding had picked (32x16x64 0.0072);
    // with 32 a group (K 288) BK 16 took 0.0116 against 0.0085 on BK 32. Deeper slices still pay
    // their padding: at batch 4 32x16x32 led 32x16x64 by 4-5% and 64x16x64 by 8-20%.
    const uint32_t kSlice = p.groups > 1 && underfilled ? std::max(c.bk, 32u) : c.bk;
    const double kPadded = std::ceil(double(p.gemmK()) / kSlice) * kSlice;
    double work = mTiles * c.bm * nTiles * c.bn * kPadded * double(p.groups);
    // Shape factors, calibrated on the H200 (bench/history/gather-kernel.md, 2026-11-21: alexnet1 over 2,500
    // configurations, then the benchmark's 30 layers): the A gather and its latency dominate,
    // not the matrix units, so small warp tiles, one stage and the gather loader win.
    double factor;
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Packed) {
        // Work on the packed problem: M runs over padded rows of the packed image, K over the
        // stride-1 kernel's padded rows.
        const PackedInputLayout l = packedInputLayout(p, c.bm, c.bk, c.mmaK);
        work = double(p.batch) * l.tilesPerImage * c.bm * nTiles * c.bn * l.gemmK;
        // Calibrated on the H200 (bench/history/packed-input-kernel.md, 2026-11-21, alexnet1): 2
        // fragment rows a subgroup and 8+ tiles a workgroup won (0.66 ms); 16x8 instruction
        // shapes were 1.3x slower.
        const uint32_t fragM = c.bm / c.warpsM / c.mmaM;
        factor = fragM == 2 ? 1.0 : fragM == 1 ? 1.05 : 1.0 + 0.4 * (fragM - 2);
        // B in registers leaves little room: NVIDIA's compiler capped these kernels at 168
        // registers, and every one with 3+ fragment rows a subgroup spilled and took 2.9 ms
        // (pipeline statistics, bench/history/packed-input-kernel.md).
        if (fragM > 2) factor *= 4.0;
        // The workgroups take the M tiles in turn, tilesPerWorkgroup each. Measured on the H200
        // (bench/history/packed-input-kernel.md, tiles taken in turn): best at about 780
        // workgroups, whatever the batch (alexnet1 N=256: 32 tiles a workgroup, 0.535 ms; N=64: 8
        // tiles, 0.153 ms); 2x, 4x, 8x as many: +3%, +8%, +20%; half as many: +20-25%.
        const double packedWorkgroups = std::ceil(double(p.batch) * l.tilesPerImage / c.tilesPerWorkgroup) * nTiles;
        const double ratio = packedWorkgroups / (1.5 * slots);
        factor *= ratio >= 1.0 ? 1.0 + 0.03 * (ratio - 1.0) : 1.0 + 0.25 * (1.0 / ratio - 1.0);
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
        // unmeasured, so the gather loader keeps its place and the sweep decides. Windows that
        // do not overlap (a kernel no larger than its stride, 1x1 included) share no input: the
        // packing pass is pure overhead against loaders that read the input where it lies.
        // MobileNet's pointwise 32->64 at 112x112, batch 32: packed 0.095-0.107 ms, the NCHW
        // loader's 64x64x16 2x4 0.0525; ConvNeXt-T's 4x4 stride-4 stem at batch 32: packed
        // 0.0352 ms, the gather kernel's 64x96x16 0.0304 (H200 sweeps, bench/history/network-suites.md).
        const bool overlappingWindows = p.kernelH > p.strideH || p.kernelW > p.strideW;
        const bool firstLayer = overlappingWindows && l.channels <= 64 && l.gemmK <= 640 &&
                                l.gemmK <= 1.5 * double(p.gemmK());
        factor *= firstLayer ? 0.3 : 3.0;
        return work * factor * (underfilled ? slots / workgroups : 1.0);
    }
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Nchw) return nchwCost(c, d, p) * splitKCostFactor(c, p);
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Nhwc) return nhwcCost(c, d, p) * splitKCostFactor(c, p);
    if (c.path == Path::Fp32) {
        factor = 1.0 + 1.0 / c.tm + 1.0 / c.tn;
    } else {
        auto pick = [](uint32_t v, std::initializer_list<std::pair<uint32_t, double>> table, double other) {
            for (auto [key, f] : table)
                if (v == key) return f;
            return other;
        };
        // A group's K that 16 divides and 32 does not (16 channels a group over 3x3 taps: 144) is
        // padded by 32-deep slices, and no other group's channels fill the pad: there BK 16 led on
        // 128-row tiles, ResNeXt-50's grouped 3x3/512 with 16-channel groups at 14x14, batch 32,
        // 128x16x16 8x1 0.0423 ms against 0.0470 for 128x16x32, its stride-2 twin 0.0462 against
        // 0.0489 (the resnext50_batch32 sweep on the H200, bench/RESULTS.md); at batch 16 and 64 by
        // 7-10% (kernel-lab). On the 64x16 4x2 tiles of batch 8 BK 32 kept its lead, 0.0174 ms
        // against 0.0189 at either stride.
        const bool groupPaddedBy32 = p.groups > 1 && p.gemmK() % 16 == 0 && p.gemmK() % 32 != 0 && c.bm >= 128;
        // BK: 32 for short K; 16 once K is long (3x3 over 128+ channels, 1x1 over 1024), unless
        // the grid cannot fill the device: then each workgroup's latency is the time, and fewer,
        // longer K slices win.
        factor = p.gemmK() >= 1024 && !underfilled ? pick(c.bk, {{16, 1.0}, {32, 1.15}}, 1.35)
                 : underfilled ? pick(c.bk, {{64, 1.0}, {32, 1.05}}, 1.15)
                 : c.bn >= 128 ? pick(c.bk, {{16, 0.98}, {32, 1.0}}, 1.3)
                               : pick(c.bk, {{32, 1.0}, {16, groupPaddedBy32 ? 1.0 : 1.12}}, 1.3);
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
        // with 4x4 subgroups. ConvNeXt-T's 4x4 stem (96 filters, K 48) at batch 32: three 16x16
        // columns on 4x2 subgroups 0.0278-0.0283 ms against two on 4x3 0.0308-0.0312 (two runs).
        const uint32_t fragM = c.bm / c.warpsM / c.mmaM, fragN = c.bn / c.warpsN / c.mmaN;
        factor *= fragM == 1 ? 1.0 : fragM == 2 ? 1.25 : 1.5;
        factor *= firstLayer && p.gemmK() <= c.bk && fragN == 4 && c.mmaN == 8 ? 0.97
                  : fragN == 2 || (firstLayer && fragN == 3) ? 1.0
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
    // Depthwise and other thin groups: a matrix-unit tile would be mostly padding along N. On the
    // H200 the fp32 kernel ran MobileNet's depthwise layers 1.6x faster. With 8 output channels a
    // group the grouped direct kernel still led: ResNeXt-50's grouped 3x3 at 28x28, batch 32,
    // 0.054 ms against the matrix tiles' 0.084, 0.076 against 0.086 at stride 2; with 16 the tiles
    // led, 0.041 against 0.051 (H100 sweep, bench/RESULTS.md). Only where it has a tile for the
    // problem: without one (kernels past its weight budget, 13x13 and up) fp32 would mean the
    // GEMM kernel, which the tiles beat.
    const bool groupedDirectLeads =
        p.gemmN() < 16 && groupedDirectServes(p) && !groupedDirectCandidates(d, p).empty();
    if (p.gemmN() < 8 || groupedDirectLeads) {
        choice.path = Path::Fp32;
        choice.why = "fast requested, but each group has only " + std::to_string(p.gemmN()) + " output channel(s), " +
                     (p.gemmN() < 8 ? std::string("too few for matrix-unit tiles")
                                    : std::string("which the grouped direct kernel runs faster than matrix-unit tiles")) +
                     "; using fp32";
        return choice;
    }
    for (Path path : {Path::CoopMatF16, Path::CoopMatBF16})
        if (anyCandidateFits(path, d, p)) {
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
    for (Path path : {Path::CoopMatF16, Path::CoopMatBF16})
        if (refused.empty()) refused = firstCandidateRefusal(path, d, p);
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
