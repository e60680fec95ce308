// What the cooperative-matrix families share: the device support every one of them needs (the
// extension, the operand type, a listed instruction shape, a guaranteed subgroup size), the rules
// of a warp-tiled workgroup, the limits every tile meets, and the neighbours the sweep tries.
#pragma once

#include <string>
#include <vector>

#include "kernels/common/workgroup_limits.hpp"
#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

bool isCoopMatPath(Path path);
ScalarType operandType(Path path);

// The cooperative-matrix part of a configuration; throws vkconv::Error for an fp32 kernel's.
const CoopMatTiling& tiling(const KernelConfig& config);
CoopMatTiling& tiling(KernelConfig& config);

// The device's instruction shapes for `path`'s operands with fp32 accumulation.
std::vector<CoopMatShape> operandShapes(Path path, const DeviceInfo& device);
// The subgroup sizes a candidate list tries: the device's default, then (with subgroup size
// control) every other size it can give.
std::vector<uint32_t> candidateSubgroupSizes(const DeviceInfo& device);
// Whether a warp tiling is whole and each subgroup holds 1..32 accumulator fragments.
bool warpTilesBounded(const KernelConfig& config);

// "" if the sizes the tile rules divide by are nonzero (BM, BK, the instruction shape, the
// subgroup counts).
std::string coopMatFieldRules(const KernelConfig& config);
// "" if the device runs `config`'s instruction shape, operand type and subgroup size.
std::string coopMatDeviceSupport(const KernelConfig& config, const DeviceInfo& device);
// "" if the workgroup tile is a whole number of subgroup tiles of the instruction, BK of its K.
std::string coopMatTileRules(const KernelConfig& config);
// Warps x subgroup size.
uint32_t coopMatThreads(const KernelConfig& config);

// The common part of a cooperative-matrix configuration's name: "coopmat-f16 128x96x32 warps 4x2
// mma 16x16x16 stages 2"; the family appends its own words, then coopMatNameTail.
std::string coopMatNameHead(const KernelConfig& config);
std::string coopMatNameTail(const KernelConfig& config);  // " split-k S", " sgN"

// The neighbours a cooperative-matrix family has of its own, beside those every one has.
struct OwnNeighbours {
    std::vector<KernelConfig> tiles;        // M tiles a workgroup (the packed loader)
    std::vector<KernelConfig> splits;       // split-K (the channels-last kernel)
    std::vector<KernelConfig> alternative;  // the other loader, or where B lives, with the same tile
    std::vector<KernelConfig> prefetch;     // fragment prefetch (NHWC)
    std::vector<KernelConfig> lanes;        // taps per pixel (the gather loader)
};

// The sweep's neighbourhood of a cooperative-matrix configuration, kinds most wanted first, each
// with how many of it are taken: one stage more and less (2), other warp layouts of the tile (2),
// tiles a workgroup (2), splits (1), other instruction shapes (1), the alternative (1), prefetch
// (1), lanes and subgroup sizes (only on cost). `bRegisters`: one subgroup per instruction column
// (the packed family), kept so under another instruction shape.
NeighbourKinds coopMatNeighbours(const KernelConfig& config, const DeviceInfo& device, bool bRegisters,
                                 OwnNeighbours own);

}  // namespace vkconv::detail
