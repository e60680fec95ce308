// Choosing a path and a kernel configuration for a problem on a device: the candidate set
// (every configuration can_implement accepts), and a heuristic that ranks them without running
// anything. The tuning cache (issue 5) overrides the heuristic where it has measured better.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The B-in-registers kernel's M tiles per workgroup that the candidates and the tuner's
// neighbourhood try (its best on the H200 went from 8 to 32 once the workgroups took the tiles
// in turn: bench/history/packed-input-kernel.md, tiles taken in turn).
inline constexpr uint32_t kTilesPerWorkgroupChoices[] = {1, 2, 4, 8, 16, 32, 64, 128};

// All configurations of `path` that fit the device and the problem (config_candidates.cpp).
std::vector<KernelConfig> candidateConfigs(Path path, const DeviceInfo& device,
                                           const ConvProblem& problem);
// Whether any configuration of `path` fits, without building the whole list, whose enumeration
// is the bulk of a Conv2d's planning time on devices with many shapes.
bool anyCandidateFits(Path path, const DeviceInfo& device, const ConvProblem& problem);
// The path's first configuration before can_implement's filter and why it refuses it ("config:
// reason"), to name what removed a path where none fits; "" where the path lists none.
std::string firstCandidateRefusal(Path path, const DeviceInfo& device, const ConvProblem& problem);

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

// Estimated relative cost of running the problem with a configuration (lower is better).
double heuristicCost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

struct PathChoice {
    Path path = Path::Fp32;
    std::string why;  // e.g. "fast: device has no cooperative-matrix f16 or bf16 shapes; using fp32"
};
PathChoice choosePath(Precision precision, const DeviceInfo& device, const ConvProblem& problem);

struct ConfigChoice {
    KernelConfig config;
    std::vector<std::pair<KernelConfig, double>> weighed;  // candidates by heuristic cost
};
// Throws Unsupported when no configuration of the path fits.
ConfigChoice selectConfig(Path path, const DeviceInfo& device, const ConvProblem& problem);

}  // namespace vkconv::detail
