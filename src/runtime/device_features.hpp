// The feature structures vkconv queries and enables, kept in one chain so that listing a
// device's capabilities and creating the device read the same fields.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <vector>

namespace vkconv::detail {

struct DeviceFeatures {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMat{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopMat2{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
#ifdef VK_KHR_shader_bfloat16
    VkPhysicalDeviceShaderBfloat16FeaturesKHR bf16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
#endif
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableProperties{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    bool hasExecutableProperties = false;  // linked only when statistics were asked for
    bool hasCoopMat = false, hasCoopMat2 = false, hasBf16 = false, hasPortabilitySubset = false;
    std::vector<const char*> extensions;  // the device extensions to enable

    DeviceFeatures() = default;
    DeviceFeatures(const DeviceFeatures&) = delete;  // the chain points into this object
    DeviceFeatures& operator=(const DeviceFeatures&) = delete;

    // Links the chain for the extensions the device has and asks the driver to fill it.
    // pipelineStatistics: also VK_KHR_pipeline_executable_properties, where the device has it.
    void query(VkPhysicalDevice physicalDevice, uint32_t apiVersion, bool pipelineStatistics = false);
    // Clears the features vkconv never uses, so that device creation enables only what it needs.
    void keepOnlyUsed();
};

bool hasExtension(VkPhysicalDevice physicalDevice, const char* name);

}  // namespace vkconv::detail
