// A DeviceProfile narrows what a device offers, so that one real device can show that vkconv
// stays correct and within limits under another vendor's (smaller) limits. A profile only ever
// narrows: effective limits are the smaller of the profile's and the device's, shapes their
// intersection. Unset fields leave the device's value.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vkconv/device_info.hpp"

namespace vkconv {

struct DeviceProfile {
    std::string name;
    std::string description;
    std::optional<uint32_t> minSubgroupSize, maxSubgroupSize;
    std::optional<uint32_t> maxSharedMemoryBytes;
    std::optional<uint64_t> maxStorageBufferRange;
    std::optional<uint64_t> maxUniformBufferRange;
    std::optional<std::array<uint32_t, 3>> maxWorkGroupCount;
    std::optional<uint32_t> maxWorkGroupInvocations;
    std::optional<bool> shaderFloat16, shaderBFloat16, coopMatKhr, coopMat2Nv;
    // Cooperative-matrix shapes (m, n, k and types) the profiled device lists; the effective list
    // is the intersection with the real device's.
    std::optional<std::vector<CoopMatShape>> coopMatShapes;

    // The profiles vkconv ships: rtx4090, rdna3, intel-arc, mobile, moltenvk, vulkan-minimum.
    static const std::vector<DeviceProfile>& builtin();
    static const DeviceProfile& byName(const std::string& name);  // throws for unknown names
};

// The device as seen through the profile; notes (if given) receives one line per thing the
// profile asked for that the device could not narrow to (e.g. a subgroup size it cannot run).
DeviceInfo applyProfile(const DeviceInfo& device, const DeviceProfile& profile,
                        std::vector<std::string>* notes = nullptr);

}  // namespace vkconv
