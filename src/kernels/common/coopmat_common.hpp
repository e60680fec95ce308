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

// The device's instruction shapes for `path`'s operands with fp32 accumulation.
std::vector<CoopMatShape> operandShapes(Path path, const DeviceInfo& device);
// The subgroup sizes a candidate list tries: the device's default, then (with subgroup size
// control) every other size it can give.
std::vector<uint32_t> candidateSubgroupSizes(const DeviceInfo& device);
// Whether a warp tiling is whole and each subgroup holds 1..32 accumulator fragments.
bool warpTilesBounded(const KernelConfig& config);

// "" if the sizes the tile rules divide by are nonzero (BM, BK, the instruction shape, the
// subgroup counts), and, unless the kernel splits K, splitK is 1.
std::string coopMatFieldRules(const KernelConfig& config, bool splitsK);
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

// Neighbours every cooperative-matrix family offers: one stage more and less, other warp layouts
// of the same tile, other instruction shapes, other subgroup sizes. `bRegisters`: one subgroup
// per instruction column (the packed family), kept so under another instruction shape.
std::vector<KernelConfig> stageNeighbours(const KernelConfig& config);
std::vector<KernelConfig> warpLayoutNeighbours(const KernelConfig& config);
std::vector<KernelConfig> shapeNeighbours(const KernelConfig& config, const DeviceInfo& device, bool bRegisters);
std::vector<KernelConfig> subgroupNeighbours(const KernelConfig& config, const DeviceInfo& device);

}  // namespace vkconv::detail
