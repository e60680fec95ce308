// What the two fp32 kernels (the GEMM and the grouped direct kernel) share.
#pragma once

#include <string>

#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// "" if the device can give the configuration's subgroup size (any it can: the fp32 kernels do
// not map subgroups to tiles) and the configuration does not split K; else why not.
std::string fp32SubgroupRule(const KernelConfig& config, const DeviceInfo& device);

}  // namespace vkconv::detail
