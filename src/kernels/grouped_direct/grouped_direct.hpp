// The grouped direct kernel's configurations (KernelConfig holding a GroupedDirectKernel):
// resource use, can_implement, candidates, heuristic cost and tuning neighbours. Every size
// derives from the device's limits and the problem. The kernel itself:
// conv2d_grouped_direct.comp; its host side: prepareGroupedDirectKernel (kernels.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The problems the kernel is chosen for: grouped convolutions (groups > 1) with at most 16 input
// and 16 output channels a group. There each output takes at most 16 x R x S multiply-adds from
// values that are read once, so the layer is bound by memory, or nearly, and a GEMM tile would be
// mostly padding. Ungrouped convolutions stay on the GEMM kernels, whose choices were measured.
bool groupedDirectServes(const ConvProblem& problem);

// The kernel's own parameters of a configuration that is the grouped direct kernel's.
inline const GroupedDirectKernel& direct(const KernelConfig& c) { return c.as<GroupedDirectKernel>(); }
inline GroupedDirectKernel& direct(KernelConfig& c) { return c.as<GroupedDirectKernel>(); }

// The output tile (rows, columns), the input tile it reads, halo included (rows, columns), and
// how shared memory holds it: rows of rowWords floats (the tile starting `shift` columns in,
// so that it can be loaded as 16-byte vectors), one tile per group side by side, in one buffer,
// or two when a workgroup has several steps (input channels, groups one after another). How a
// step is loaded (grouped_direct_tile.glsl): by rows, as 16-byte vectors where rows are
// whole vectors (rowVectors), else by whole planes where one tile covers the output
// (planeLoads); stepLoads: the scalar loads of one step.
struct GroupedDirectTile {
    uint64_t outH, outW, inH, inW;
    uint64_t shift, rowWords, buffers;
    uint64_t tilesPerImage, steps;
    bool rowVectors, planeLoads;
    uint64_t stepLoads;
};
GroupedDirectTile groupedDirectTile(const KernelConfig& config, const ConvProblem& problem);

// From memory, where each group's tile is its whole output plane of one output channel (one step,
// one channel a workgroup): the workgroup's planes are one contiguous run of the output, which
// the shader stages in shared memory and stores as that run (PLANES_OUT).
bool groupedDirectPlanesOut(const KernelConfig& config, const ConvProblem& problem);

uint32_t groupedDirectSharedBytes(const KernelConfig& config, const ConvProblem& problem);
uint32_t groupedDirectTilesPerImage(const KernelConfig& config, const ConvProblem& problem);

std::string canImplementGroupedDirect(const KernelConfig& config, const DeviceInfo& device,
                                      const ConvProblem& problem);

// Every grouped direct configuration that fits, for the problems it serves (elsewhere none: a
// caller may still force one, and can_implement says whether it fits).
std::vector<KernelConfig> groupedDirectCandidates(const DeviceInfo& device, const ConvProblem& problem);

// Relative cost in heuristicCost's units (multiply-adds done, times shape factors;
// grouped_direct_cost.cpp).
double groupedDirectCost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// The tuner's neighbours: each tile field halved or doubled.
std::vector<KernelConfig> groupedDirectNeighbours(const KernelConfig& config);

// What describe() adds: why this kernel, and why fp32 costs these problems nothing.
std::string groupedDirectNote(const ConvProblem& problem);

}  // namespace vkconv::detail
