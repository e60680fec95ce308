// What the cost models know of a class of device, as data: the figures measured on it, shipped
// as tables in src/kernels/rules/*.json (embedded at build time, parsed once, immutable).
// defaults.json is what every device gets (an analytical fill model, and the kernel rules measured
// on the H100/H200, assumed elsewhere); a device table replaces any of its sections whole. The models keep the why of each rule
// in comments; the tables keep the numbers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vkconv/device_info.hpp"

namespace vkconv::detail {

// A channels-last workgroup layout measured on the device class, and when its factor holds.
struct ChannelsLastTile {
    enum class When { Any, Shallow, DeepStride1, Stride1Taps, StridedOrPointwise, NarrowStride1Taps, WideMidGrid };
    uint32_t bm, bn, bk, warpsM, warpsN;
    double factor;  // relative to the best layout of its tile; lower is cheaper
    When when;
};

// A tile the NCHW loader's 1x1 rule names, and how many of its workgroups a compute unit holds.
struct NchwTileChoice {
    uint32_t bm, bn, bk, warpsM, warpsN;
    double perUnit;
};

// preferredNchwTile's tiles and thresholds (nchw_input.cpp says when each applies and why).
struct NchwTileRules {
    NchwTileChoice narrow, narrowStrided, wide, small, smallDeep;
    double stridedMaxChannels, wideOutputMinChannels, wideOutputRatio, smallDeepMinChannels;
};

// Split-K windows on deep 1x1 layers, in 64x64 tiles a compute unit (split_k.hpp).
struct DeepPointwiseSplitRules {
    double minK;
    double midGridFrom, midGridTo;  // deepPointwiseMidGrid
    double nchwSplitFrom;           // deepPointwiseNchwSplit, within the mid grid
    double twoSplitsFrom, twoSplitsTo;
};

// splitKCostFactor's charge: a fraction of the time a split, and K a workgroup.
struct SplitKCostRules {
    double perSplit, kOverhead;
};

struct DeviceRules {
    std::string name;       // the table's name, or "analytical" for the fallback
    std::string matchedBy;  // why this device got it, for `vkconv devices --report`
    // The fill model: workgroupSlots workgroups at once on calibrationUnits compute units, in
    // proportion elsewhere (and calibrationUnits assumed where the driver reports none).
    double calibrationUnits = 0, workgroupSlots = 0;
    // The channels-last kernel's measured layouts, first match counting; none: the layout rule
    // alone (fewer than 4 subgroups leave a compute unit idle).
    std::vector<ChannelsLastTile> channelsLastTiles;
    NchwTileRules nchwTiles{};
    DeepPointwiseSplitRules deepPointwiseSplits{};
    SplitKCostRules splitKCost{};
    // The grouped direct kernel's measured factors by name (grouped_direct_cost.cpp).
    std::map<std::string, double> groupedDirect;
    // Throws vkconv::Error (Internal) for a name no table holds: a bug, never a silent 1.0.
    double groupedDirectFactor(const std::string& name) const;
};

// The rules for a device: the first shipped table whose match holds, else the fallback. A device
// seen through a profile (DeviceInfo::profile) is another device class: the fallback.
const DeviceRules& deviceRules(const DeviceInfo& device);

// The shipped tables, in file-name order (for tests and reports).
const std::vector<DeviceRules>& shippedDeviceRules();

}  // namespace vkconv::detail
