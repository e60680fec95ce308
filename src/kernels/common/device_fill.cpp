#include "kernels/common/device_fill.hpp"

#include "kernels/common/device_rules.hpp"

#include <algorithm>
#include <cmath>

namespace vkconv::detail {

double workgroupSlots(const DeviceInfo& d) {
    if (d.isCpu()) return 16.0;
    // The workgroups the device class's table counts at its calibration, in proportion to the
    // compute units the driver reports (src/kernels/rules/): on the H200 and H100, 512 on 132 SMs
    // (about 4 a unit) put the lines of the small- and mid-grid rules where kernel-lab's timings
    // put them.
    const DeviceRules& rules = deviceRules(d);
    return d.computeUnits ? rules.workgroupSlots * double(d.computeUnits) / rules.calibrationUnits : rules.workgroupSlots;
}

double computeUnitCount(const DeviceInfo& d) {
    return d.computeUnits ? double(d.computeUnits) : deviceRules(d).calibrationUnits;
}

TileGrid tileGrid(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    TileGrid g;
    g.mTiles = std::ceil(double(p.gemmM()) / c.bm);
    g.nTiles = std::ceil(double(p.gemmN()) / c.bn);
    g.workgroups = g.mTiles * g.nTiles * double(p.groups) * double(std::max(c.splits(), 1u));
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
    const CoopMatTiling* t = c.coopMat();
    return t && c.splits() == 1 && grid.workgroups <= grid.units() && c.bm == 32 && c.bn == 64 && t->warpsM == 2 &&
           t->warpsN == 4 && t->mmaM == 16 && t->mmaN == 8 && t->mmaK == 16;
}

double paddedGemmWork(const KernelConfig& c, const TileGrid& grid, const ConvProblem& p) {
    const uint32_t kSlice = p.groups > 1 && grid.underfilled() ? std::max(c.bk, 32u) : c.bk;
    const double kPadded = std::ceil(double(p.gemmK()) / kSlice) * kSlice;
    return grid.mTiles * c.bm * grid.nTiles * c.bn * kPadded * double(p.groups);
}

}  // namespace vkconv::detail
