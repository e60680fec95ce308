// The device-fill model the kernel families' cost estimates share: how many workgroups a device
// runs at once, and how a grid of tiles fills them. The constants that calibrate it to a device
// (the calibration device's compute units and workgroup slots) are data of the device rules.
#pragma once

#include <cstdint>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The workgroups a device runs at once, as the cost models count them: 512 on the H200 and H100
// (132 SMs each), where the small-grid rules were measured, and in proportion to
// DeviceInfo::computeUnits elsewhere (a 24-SM GPU: 93); 512 where the driver does not say how many
// compute units it has; 16 on a CPU device.
double workgroupSlots(const DeviceInfo& device);

// The compute units (SMs) a grid's waves of one workgroup a unit fill: DeviceInfo::computeUnits,
// or the H200's 132 where the driver does not say (as workgroupSlots assumes).
double computeUnitCount(const DeviceInfo& device);

// The grid of BM x BN tiles a cooperative-matrix or fp32 GEMM configuration launches over a
// problem (each group its own), against the workgroups the device runs at once: a grid smaller
// than that leaves compute units idle, and the cost models charge it the idle slots.
struct TileGrid {
    double mTiles = 0, nTiles = 0, workgroups = 0, slots = 0;
    bool underfilled() const { return workgroups < slots; }
    double underfill() const { return underfilled() ? slots / workgroups : 1.0; }
    // About one workgroup a compute unit (an SM): a quarter of the slots. The channels-last
    // kernel charges only the units a grid leaves idle (nhwcCost), and the small-grid tile rules
    // of it and the NCHW loader draw their lines here.
    double units() const { return slots / 4.0; }
    double idleUnits() const { return workgroups < units() ? units() / workgroups : 1.0; }
};
TileGrid tileGrid(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);
// The same for unsplit BM x BN tiles, whatever else the configuration: the grids the rules compare
// a configuration's against.
TileGrid tileGrid(uint32_t bm, uint32_t bn, const DeviceInfo& device, const ConvProblem& problem);
// The waves that grid of unsplit BM x BN tiles takes at `perUnit` workgroups a compute unit
// (computeUnitCount), unrounded: 1.25 is a full wave and a quarter of another.
double tileWaves(uint32_t bm, uint32_t bn, double perUnit, const DeviceInfo& device, const ConvProblem& problem);

// Where the grid makes at most a workgroup a compute unit (batch 1), the unsplit 32x64 tiles of
// the channels-last and NCHW loaders ran 3-12% faster on 8 subgroups (2x4) of 16x8x16 fragments
// than on 4 of 16x16x16, on all 11 of ResNet-50's shapes timed so at batch 1 (the
// resnet50_batch1 sweep on the H200, bench/RESULTS.md): twice the warps to hide a workgroup's
// latency, which is all of its time there. Split-K tiles, whose grids are larger, came within
// 3% either way, and keep their 4 subgroups.
bool smallGridWarpsFavoured(const KernelConfig& config, const TileGrid& grid);


// The multiply-adds a GEMM tiling does, edge tiles included (each group its own GEMM). Except a
// grouped problem's K on a grid that leaves the device idle: there each workgroup's time is its
// slices' latency, and a 16-deep slice takes about a 32-deep one's, so K counts to 32-deep slices
// at least. ResNeXt-50's grouped 3x3 at batch 1 (kernel-lab on the H200, docs/performance.md):
// 16 channels a group (K 144) 0.0074 ms on 32x16x32 against 0.0084 on the 32x16x16 that full
// padding had picked (32x16x64 0.0072); with 32 a group (K 288) BK 16 took 0.0116 against 0.0085
// on BK 32. Deeper slices still pay their padding: at batch 4 32x16x32 led 32x16x64 by 4-5% and
// 64x16x64 by 8-20%.
double paddedGemmWork(const KernelConfig& config, const TileGrid& grid, const ConvProblem& problem);

}  // namespace vkconv::detail
