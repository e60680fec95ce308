// The cooperative-matrix GEMM with the packed-input loader (conv2d_coopmat_packed_breg.comp): a
// pre-pass packs the input as fp16 with the stride folded into the channels; B stays in registers.
#include "kernels/families.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/common/coopmat_common.hpp"
#include "kernels/common/device_fill.hpp"
#include "kernels/coopmat_packed/packed_input.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

// The M tiles per workgroup that the candidates and the sweep's neighbourhood try (the best on
// the H200 went from 8 to 32 once the workgroups took the tiles in turn).
constexpr uint32_t kTilesPerWorkgroupChoices[] = {1, 2, 4, 8, 16, 32, 64, 128};

}  // namespace

namespace {

class CoopMatPackedFamily final : public KernelFamily {
public:
    const char* name() const override { return CoopMatPackedKernel::kName; }

    bool owns(const KernelConfig& c) const override {
        return c.is<CoopMatPackedKernel>();
    }

    void addCandidates(Path path, const DeviceInfo& d, const ConvProblem& p,
                       std::vector<KernelConfig>& out) const override {
        if (!isCoopMatPath(path) || !packedInputSupport(p).empty()) return;
        // B in registers: one subgroup per MMA_N columns, workgroups persistent over several M tiles.
        for (const CoopMatShape& shape : operandShapes(path, d))
            for (uint32_t sg : candidateSubgroupSizes(d))
                for (uint32_t bn : {16u, 32u, 48u, 64u, 96u, 128u})
                    for (uint32_t bm : {16u, 32u, 48u, 64u, 96u, 128u})
                        for (uint32_t tiles : kTilesPerWorkgroupChoices) {
                            if (bn % shape.n) continue;
                            CoopMatPackedKernel k;
                            k.tilesPerWorkgroup = tiles;
                            k.warpsM = 1, k.warpsN = bn / shape.n;
                            k.mmaM = shape.m, k.mmaN = shape.n, k.mmaK = shape.k;
                            k.stages = 1;
                            KernelConfig c;
                            c.path = path;
                            c.params = k;
                            c.bm = bm, c.bn = bn, c.bk = shape.k;
                            c.subgroupSize = sg;
                            if (warpTilesBounded(c)) out.push_back(c);
                        }
    }

    std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        if (std::string why = coopMatFieldRules(c); !why.empty()) return why;
        // Its K slices are whole kernel-row pieces: BK may be any multiple of the instruction's K.
        if (std::string why = packedInputSupport(p); !why.empty()) return why;
        // The packed input of one image (and the tail) is bound as one buffer range.
        const auto layout = packedInputLayout(p, c.bm, c.bk, packed(c).mmaK);
        const uint64_t imageBytes = (layout.imageHalves() + layout.tailHalves(c.bm)) * 2;
        if (imageBytes > std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31))
            return "one image's packed input (" + std::to_string(imageBytes) + " bytes) exceeds maxStorageBufferRange " +
                   std::to_string(d.maxStorageBufferRange);
        // Each subgroup holds K / mmaK B fragments (on NVIDIA, 27 16x16 fragments are 108 registers a
        // thread); beyond 64 the kernel would spill.
        const uint64_t fragments = layout.gemmK / packed(c).mmaK;
        if (fragments > 64) return "B in registers would take " + std::to_string(fragments) + " fragments a subgroup (at most 64)";
        if (c.bn == 0 || c.bn % 4) return "BN must be a multiple of 4";
        if (std::string why = coopMatDeviceSupport(c, d); !why.empty()) return why;
        if (packed(c).stages > 2) return "the packed loader takes one or two stages";
        if (packed(c).tilesPerWorkgroup == 0) return "tilesPerWorkgroup must be >= 1";
        if (packed(c).warpsM != 1 || c.bn != packed(c).warpsN * packed(c).mmaN)
            return "B in registers needs warpsM = 1 and BN = warpsN x the instruction's N";
        if (std::string why = coopMatTileRules(c); !why.empty()) return why;
        return workgroupLimits(*this, c, d, p);
    }

    uint32_t threads(const KernelConfig& c) const override { return coopMatThreads(c); }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem& p) const override {
        // The layouts below divide by these.
        if (c.bm == 0) throw invalidArgument("config.bm", c.bm, "must be >= 1");
        if (c.bk == 0) throw invalidArgument("config.bk", c.bk, "must be >= 1");
        // packed_window.glsl: the window (which the epilogue reuses) and the bias row.
        using u128 = unsigned __int128;
        const PackedInputLayout layout = packedInputLayout(p, c.bm, c.bk, packed(c).mmaK);
        const u128 bytes = u128(packedWindowWords(layout, c)) * 16 + u128(c.bn) * 4;
        return fitU32("shared memory bytes", bytes > u128(~0ull) ? std::nullopt : std::optional<uint64_t>(uint64_t(bytes)),
                      describe(c));
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        const TileGrid grid = tileGrid(c, d, p);
        const double nTiles = grid.nTiles, workgroups = grid.workgroups, slots = grid.slots;
        // Work on the packed problem: M runs over padded rows of the packed image, K over the
        // stride-1 kernel's padded rows.
        const PackedInputLayout l = packedInputLayout(p, c.bm, c.bk, packed(c).mmaK);
        const double work = double(p.batch) * l.tilesPerImage * c.bm * nTiles * c.bn * l.gemmK;
        // Calibrated on the H200 (alexnet1): 2 fragment rows a subgroup and 8+ tiles a workgroup won
        // (0.66 ms); 16x8 instruction shapes were 1.3x slower.
        const uint32_t fragM = c.bm / packed(c).warpsM / packed(c).mmaM;
        double factor = fragM == 2 ? 1.0 : fragM == 1 ? 1.05 : 1.0 + 0.4 * (fragM - 2);
        // B in registers leaves little room: NVIDIA's compiler capped these kernels at 168 registers,
        // and every one with 3+ fragment rows a subgroup spilled and took 2.9 ms (pipeline statistics).
        if (fragM > 2) factor *= 4.0;
        // The workgroups take the M tiles in turn, tilesPerWorkgroup each. Measured on the H200: best
        // at about 780 workgroups, whatever the batch (alexnet1 N=256: 32 tiles a workgroup, 0.535 ms;
        // N=64: 8 tiles, 0.153 ms); 2x, 4x, 8x as many: +3%, +8%, +20%; half as many: +20-25%.
        const double packedWorkgroups = std::ceil(double(p.batch) * l.tilesPerImage / packed(c).tilesPerWorkgroup) * nTiles;
        const double ratio = packedWorkgroups / (1.5 * slots);
        factor *= ratio >= 1.0 ? 1.0 + 0.03 * (ratio - 1.0) : 1.0 + 0.25 * (1.0 / ratio - 1.0);
        factor *= packed(c).mmaN >= 16 ? 1.0 : 1.3;
        factor *= 1.0 + 24.0 / c.bn;  // the window is loaded once per N tile
        // NVIDIA's compiler sizes its register budget by how many workgroups fit
        // maxComputeSharedMemorySize: this kernel at 24,248 bytes got 166 registers (two workgroups an
        // SM), the same kernel with 6 KB of unused shared memory more 237 (one), 0.59 -> 0.87 ms
        // (H200; the gather kernel lost as much past half the limit).
        if (2ull * sharedMemoryBytes(c, p) > d.maxSharedMemoryBytes) factor *= 1.45;
        // Where the packed loader wins: first layers (few channels, short K) whose packing pads K by
        // at most 1.5x. Measured on the H200: alexnet1 (K 363 -> 432) packed 0.59 ms against the
        // gather's 0.92; but ResNet-50's conv1 (147 -> 256) 0.745 against 0.717 and VGG's conv1_1
        // (27 -> 144) 1.16 against 0.30. Elsewhere it is unmeasured, so the gather loader keeps its
        // place and the sweep decides. Windows that do not overlap (a kernel no larger than its
        // stride, 1x1 included) share no input: the packing pass is pure overhead against loaders
        // that read the input where it lies. MobileNet's pointwise 32->64 at 112x112, batch 32:
        // packed 0.095-0.107 ms, the NCHW loader's 64x64x16 2x4 0.0525; ConvNeXt-T's 4x4 stride-4 stem
        // at batch 32: packed 0.0352 ms, the gather kernel's 64x96x16 0.0304.
        const bool overlappingWindows = p.kernelH > p.strideH || p.kernelW > p.strideW;
        const bool firstLayer =
            overlappingWindows && l.channels <= 64 && l.gemmK <= 640 && l.gemmK <= 1.5 * double(p.gemmK());
        factor *= firstLayer ? 0.3 : 3.0;
        return work * factor * (grid.underfilled() ? slots / workgroups : 1.0);
    }

    TileShape tileShape(const KernelConfig& c, const ConvProblem& p) const override {
        // Tiles never span images; the packing pass writes each image's packed input (and a tail
        // past the last) to the workspace.
        const PackedInputLayout layout = packedInputLayout(p, c.bm, c.bk, packed(c).mmaK);
        TileShape t;
        t.tileM = c.bm, t.tileN = c.bn;
        t.tilesPerImage = layout.tilesPerImage;
        t.tilesPerWorkgroup = packed(c).tilesPerWorkgroup;
        t.workspacePerImage = layout.imageHalves() * 2;
        t.workspaceTail = layout.tailHalves(c.bm) * 2;
        return t;
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo&, const ConvProblem& p,
                           const float* weight) const override {
        return preparePackedCoopMatKernel(p, c, weight);
    }

    std::vector<std::string> shaders(const KernelConfig&) const override {
        return {"pack_input_f16", "conv2d_coopmat_packed_breg_f16"};
    }

    std::string describe(const KernelConfig& c) const override {
        std::string s = coopMatNameHead(c) + " packed breg";
        if (packed(c).tilesPerWorkgroup > 1) s += " tiles " + std::to_string(packed(c).tilesPerWorkgroup);
        return s + coopMatNameTail(c);
    }

    std::string tileKey(const KernelConfig& c) const override {
        char key[96];
        std::snprintf(key, sizeof key, "%s %ux%ux%u tiles %u", name(), c.bm, c.bn, c.bk, packed(c).tilesPerWorkgroup);
        return key;
    }

    NeighbourKinds neighbours(const KernelConfig& c, const DeviceInfo& d) const override {
        // Its alternative: the gather loader with the same tile, B staged.
        KernelConfig gather = c;
        gather.params = CoopMatGatherKernel{tiling(c)};
        std::vector<KernelConfig> tiles;  // M tiles per workgroup
        for (uint32_t t : kTilesPerWorkgroupChoices)
            if (t != packed(c).tilesPerWorkgroup) {
                KernelConfig v = c;
                packed(v).tilesPerWorkgroup = t;
                tiles.push_back(v);
            }
        OwnNeighbours own;
        own.tiles = std::move(tiles);
        own.alternative = {gather};
        return coopMatNeighbours(c, d, /*bRegisters=*/true, std::move(own));
    }
};

}  // namespace

const KernelFamily& coopMatPackedFamily() {
    static const CoopMatPackedFamily family;
    return family;
}

}  // namespace vkconv::detail
