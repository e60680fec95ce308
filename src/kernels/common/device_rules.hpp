// What the cost models know of a class of device, as data: the figures measured on it, shipped
// as tables in src/kernels/rules/*.json (embedded at build time, parsed once, immutable), and an
// analytical fallback for every device no table describes. The models keep the why of each rule
// in comments; the tables keep the numbers.
#pragma once

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

struct DeviceRules {
    std::string name;       // the table's name, or "analytical" for the fallback
    std::string matchedBy;  // why this device got it, for `vkconv devices --report`
    // The fill model: workgroupSlots workgroups at once on calibrationUnits compute units, in
    // proportion elsewhere (and calibrationUnits assumed where the driver reports none).
    double calibrationUnits = 0, workgroupSlots = 0;
    // The channels-last kernel's measured layouts, first match counting; none: the layout rule
    // alone (fewer than 4 subgroups leave a compute unit idle).
    std::vector<ChannelsLastTile> channelsLastTiles;
};

// The rules for a device: the first shipped table whose match holds, else the fallback. A device
// seen through a profile (DeviceInfo::profile) is another device class: the fallback.
const DeviceRules& deviceRules(const DeviceInfo& device);

// The shipped tables, in file-name order (for tests and reports).
const std::vector<DeviceRules>& shippedDeviceRules();

}  // namespace vkconv::detail
