#include "runtime/device_features.hpp"

#include <cstring>

namespace vkconv::detail {

namespace {

// Zeroes a Vulkan feature struct's members from `first` to its end. sType and pNext, which come
// before every feature, stay; the struct's own type sizes the range, so it cannot be mistaken.
template <typename Features>
void clearFeaturesFrom(Features& features, VkBool32* first) {
    std::memset(first, 0, reinterpret_cast<char*>(&features + 1) - reinterpret_cast<char*>(first));
}

}  // namespace

bool hasExtension(VkPhysicalDevice physicalDevice, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> props(n);
    vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &n, props.data());
    for (const auto& p : props)
        if (std::strcmp(p.extensionName, name) == 0) return true;
    return false;
}

void DeviceFeatures::query(VkPhysicalDevice physicalDevice, uint32_t apiVersion, bool pipelineStatistics) {
    extensions.clear();
    core.pNext = &v11;
    v11.pNext = &v12;
    v12.pNext = nullptr;
    void** tail = &v12.pNext;
    if (apiVersion >= VK_API_VERSION_1_3) {
        *tail = &v13;
        tail = &v13.pNext;
    }
    hasCoopMat = hasExtension(physicalDevice, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    if (hasCoopMat) {
        *tail = &coopMat;
        tail = &coopMat.pNext;
        extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    }
    hasCoopMat2 = hasExtension(physicalDevice, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
    if (hasCoopMat2) {
        *tail = &coopMat2;
        tail = &coopMat2.pNext;
        extensions.push_back(VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
    }
#ifdef VK_KHR_shader_bfloat16
    hasBf16 = hasExtension(physicalDevice, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    if (hasBf16) {
        *tail = &bf16;
        tail = &bf16.pNext;
        extensions.push_back(VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    }
#endif
    hasExecutableProperties =
        pipelineStatistics && hasExtension(physicalDevice, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (hasExecutableProperties) {
        *tail = &executableProperties;
        tail = &executableProperties.pNext;
        extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    }
    // MoltenVK and other non-conformant layers require this extension to be enabled.
    hasPortabilitySubset = hasExtension(physicalDevice, "VK_KHR_portability_subset");
    if (hasPortabilitySubset) extensions.push_back("VK_KHR_portability_subset");
    *tail = nullptr;
    vkGetPhysicalDeviceFeatures2(physicalDevice, &core);
}

void DeviceFeatures::keepOnlyUsed() {
    VkPhysicalDeviceFeatures2 all = core;
    core.features = VkPhysicalDeviceFeatures{};
    core.features.shaderInt64 = all.features.shaderInt64;

    const VkPhysicalDeviceVulkan11Features v11All = v11;
    clearFeaturesFrom(v11, &v11.storageBuffer16BitAccess);
    v11.storageBuffer16BitAccess = v11All.storageBuffer16BitAccess;

    const VkPhysicalDeviceVulkan12Features v12All = v12;
    clearFeaturesFrom(v12, &v12.samplerMirrorClampToEdge);
    v12.shaderFloat16 = v12All.shaderFloat16;
    v12.vulkanMemoryModel = v12All.vulkanMemoryModel;
    v12.vulkanMemoryModelDeviceScope = v12All.vulkanMemoryModelDeviceScope;
    v12.storageBuffer8BitAccess = v12All.storageBuffer8BitAccess;

    const VkPhysicalDeviceVulkan13Features v13All = v13;
    clearFeaturesFrom(v13, &v13.robustImageAccess);
    v13.subgroupSizeControl = v13All.subgroupSizeControl;
    v13.computeFullSubgroups = v13All.computeFullSubgroups;
    v13.synchronization2 = v13All.synchronization2;
    v13.maintenance4 = v13All.maintenance4;

    coopMat.cooperativeMatrixRobustBufferAccess = VK_FALSE;  // never relied on
    executableProperties.pipelineExecutableInfo &= hasExecutableProperties ? VK_TRUE : VK_FALSE;
}

}  // namespace vkconv::detail
