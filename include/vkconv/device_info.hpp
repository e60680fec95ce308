// What a Vulkan device offers vkconv: the limits that decide tile sizes and chunking, and the
// cooperative-matrix shapes its matrix units support.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vkconv {

enum class ScalarType { F16, F32, BF16, U8, S8, U32, S32, Other };
const char* toString(ScalarType t);

// One VkCooperativeMatrixPropertiesKHR entry at subgroup scope: C[MxN] += A[MxK] * B[KxN].
struct CoopMatShape {
    uint32_t m = 0, n = 0, k = 0;
    ScalarType a = ScalarType::Other, b = ScalarType::Other, c = ScalarType::Other,
               result = ScalarType::Other;
    std::string str() const;  // "16x16x16 f16*f16+f32->f32"
};

// One VkCooperativeMatrixFlexibleDimensionsPropertiesNV entry (VK_NV_cooperative_matrix2): any
// M, N, K that are multiples of the granularities, at subgroup scope or, for workgroup scope,
// in a workgroup of exactly `workgroupInvocations` invocations.
struct FlexibleCoopMatShape {
    uint32_t mGranularity = 0, nGranularity = 0, kGranularity = 0;
    ScalarType a = ScalarType::Other, b = ScalarType::Other, c = ScalarType::Other,
               result = ScalarType::Other;
    bool workgroupScope = false;
    uint32_t workgroupInvocations = 0;  // workgroup scope only
    std::string str() const;            // "16x16x16 f16*f16+f32->f32 workgroup 256"
};

// A Vulkan API version (DeviceInfo::apiVersion) as "MAJOR.MINOR.PATCH", e.g. "1.4.312".
std::string apiVersionString(uint32_t apiVersion);

struct DeviceInfo {
    uint32_t index = 0;  // position in vkEnumeratePhysicalDevices order
    std::string name;
    uint32_t vendorId = 0, deviceId = 0;
    std::string vendorName;  // "NVIDIA", "AMD", "Intel", "Mesa (CPU)", ...
    std::string deviceType;  // "discrete GPU", "integrated GPU", "CPU", ...
    std::string driverName, driverInfo;
    uint32_t driverVersion = 0, apiVersion = 0;
    std::array<uint8_t, 16> pipelineCacheUUID{};
    // The DeviceProfile this view of the device is narrowed by (applyProfile), "" for the device
    // as it is; part of the tuning cache's device key.
    std::string profile;

    uint32_t subgroupSize = 0, minSubgroupSize = 0, maxSubgroupSize = 0;
    bool subgroupSizeControl = false;   // VK_EXT_subgroup_size_control / Vulkan 1.3 usable
    bool computeFullSubgroups = false;  // full subgroups can be required in compute
    uint32_t maxSharedMemoryBytes = 0;  // maxComputeSharedMemorySize
    uint64_t maxStorageBufferRange = 0;
    uint64_t maxUniformBufferRange = 0;
    uint64_t minStorageBufferOffsetAlignment = 0;
    uint64_t maxMemoryAllocationSize = 0;
    uint64_t deviceLocalBytes = 0;
    std::array<uint32_t, 3> maxWorkGroupCount{};
    uint32_t maxWorkGroupInvocations = 0;
    // The compute units that run workgroups side by side: NVIDIA's streaming multiprocessors
    // (VK_NV_shader_sm_builtins) or AMD's compute units (VK_AMD_shader_core_properties); 0 where
    // the driver does not say. The heuristic sizes "a grid that fills the GPU" by it.
    uint32_t computeUnits = 0;
    float timestampPeriodNs = 0;  // 0: no compute-queue timestamps
    uint32_t timestampValidBits = 0;

    bool shaderFloat16 = false, storageBuffer16Bit = false, shaderBFloat16 = false;
    bool vulkanMemoryModel = false;
    bool coopMatKhr = false;  // VK_KHR_cooperative_matrix usable
    std::vector<CoopMatShape> coopMatShapes;  // subgroup-scope shapes only
    bool coopMat2Nv = false;                  // VK_NV_cooperative_matrix2 present
    // VK_NV_cooperative_matrix2's flexible dimensions with per-element operations, and its workgroup
    // scope; then its flexible shapes and limits. Reported only: vkconv has no kernel on them.
    bool coopMat2Flexible = false;
    bool coopMat2Workgroup = false;
    std::vector<FlexibleCoopMatShape> coopMat2Shapes;
    uint32_t coopMat2MaxWorkgroupSize = 0;       // cooperativeMatrixWorkgroupScopeMaxWorkgroupSize
    uint32_t coopMat2MaxDimension = 0;           // cooperativeMatrixFlexibleDimensionsMaxDimension
    uint32_t coopMat2ReservedSharedMemory = 0;   // shared memory the driver keeps for staging

    bool isCpu() const { return deviceType == "CPU"; }
};

// A device as a JSON object (what `vkconv devices --json` prints for each device) and back, so
// that the configuration choice can be examined for a device that is not present (kernel-lab
// --device-file). Reading takes one device object, or the whole `vkconv devices --json` output
// ({"devices": [...]}) and its device `index`; it throws vkconv::Error(InvalidArgument) naming
// the field and its value; every field written is needed.
std::string deviceInfoToJson(const DeviceInfo& device);
DeviceInfo deviceInfoFromJson(const std::string& json, size_t index = 0);

// Every Vulkan device the loader sees, with its capabilities. Throws vkconv::Error when no
// Vulkan loader or driver is usable.
std::vector<DeviceInfo> listDevices();

}  // namespace vkconv
