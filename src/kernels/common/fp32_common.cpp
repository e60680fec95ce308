#include "kernels/common/fp32_common.hpp"

namespace vkconv::detail {

// Both fp32 kernels run at any subgroup size the device can give.
std::string fp32SubgroupRule(const KernelConfig& c, const DeviceInfo& d) {
    if (c.subgroupSize != 0 && c.subgroupSize != d.subgroupSize &&
        !(d.subgroupSizeControl && c.subgroupSize >= d.minSubgroupSize && c.subgroupSize <= d.maxSubgroupSize))
        return "subgroup size " + std::to_string(c.subgroupSize) + " not available";
    return "";
}

}  // namespace vkconv::detail
