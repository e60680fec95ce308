// Reading a physical device's capabilities into DeviceInfo.
#include <vector>

#include "runtime/component_type.hpp"
#include "runtime/context_impl.hpp"

namespace vkconv {

const char* toString(ScalarType t) {
    switch (t) {
        case ScalarType::F16: return "f16";
        case ScalarType::F32: return "f32";
        case ScalarType::BF16: return "bf16";
        case ScalarType::U8: return "u8";
        case ScalarType::S8: return "s8";
        case ScalarType::U32: return "u32";
        case ScalarType::S32: return "s32";
        default: return "other";
    }
}

std::string apiVersionString(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

std::string CoopMatShape::str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
           toString(a) + "*" + toString(b) + "+" + toString(c) + "->" + toString(result);
}

std::string FlexibleCoopMatShape::str() const {
    return std::to_string(mGranularity) + "x" + std::to_string(nGranularity) + "x" +
           std::to_string(kGranularity) + " " + toString(a) + "*" + toString(b) + "+" + toString(c) +
           "->" + toString(result) +
           (workgroupScope ? " workgroup " + std::to_string(workgroupInvocations) : " subgroup");
}

namespace detail {

ScalarType scalarType(VkComponentTypeKHR t) {
    switch (t) {
        case VK_COMPONENT_TYPE_FLOAT16_KHR: return ScalarType::F16;
        case VK_COMPONENT_TYPE_FLOAT32_KHR: return ScalarType::F32;
        case VK_COMPONENT_TYPE_UINT8_KHR: return ScalarType::U8;
        case VK_COMPONENT_TYPE_SINT8_KHR: return ScalarType::S8;
        case VK_COMPONENT_TYPE_UINT32_KHR: return ScalarType::U32;
        case VK_COMPONENT_TYPE_SINT32_KHR: return ScalarType::S32;
        default: break;
    }
    // Compared outside the switch: the enum of older headers has no such enumerator.
    if (t == kComponentTypeBfloat16) return ScalarType::BF16;
    return ScalarType::Other;
}

namespace {

std::string vendorName(uint32_t id) {
    switch (id) {
        case 0x10DE: return "NVIDIA";
        case 0x1002: return "AMD";
        case 0x8086: return "Intel";
        case 0x13B5: return "ARM";
        case 0x5143: return "Qualcomm";
        case 0x106B: return "Apple";
        case 0x10005: return "Mesa";
        default: return "vendor 0x" + [&] {
            char buf[16];
            snprintf(buf, sizeof buf, "%X", id);
            return std::string(buf);
        }();
    }
}

std::string deviceTypeName(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

// A/B/C/result component types of a cooperative-matrix property entry (KHR or flexible).
template <class Properties, class Shape>
void copyComponentTypes(const Properties& s, Shape& shape) {
    shape.a = scalarType(s.AType);
    shape.b = scalarType(s.BType);
    shape.c = scalarType(s.CType);
    shape.result = scalarType(s.ResultType);
}

// VK_NV_cooperative_matrix2's flexible shapes and limits, where the device has flexible dimensions
// and per-element operations; workgroup scope on top of them. vkconv has no kernel on them: the
// channels-last kernel's multiply on cm2 matrices, at subgroup and workgroup scope, ran within 3%
// of its fragments on the H200 (bench/RESULTS.md, "Tried and dropped"). `vkconv devices` lists them.
void queryFlexibleShapes(VkInstance instance, VkPhysicalDevice pd, const DeviceFeatures& features,
                         DeviceInfo& info) {
    const auto& f = features.coopMat2;
    if (!f.cooperativeMatrixFlexibleDimensions || !f.cooperativeMatrixPerElementOperations) return;
    VkPhysicalDeviceCooperativeMatrix2PropertiesNV limits{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &limits;
    vkGetPhysicalDeviceProperties2(pd, &props);
    info.coopMat2MaxWorkgroupSize = limits.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
    info.coopMat2MaxDimension = limits.cooperativeMatrixFlexibleDimensionsMaxDimension;
    info.coopMat2ReservedSharedMemory = limits.cooperativeMatrixWorkgroupScopeReservedSharedMemory;
    auto getProps = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
    if (!getProps) return;
    uint32_t n = 0;
    if (getProps(pd, &n, nullptr) != VK_SUCCESS) return;
    std::vector<VkCooperativeMatrixFlexibleDimensionsPropertiesNV> shapes(
        n, VkCooperativeMatrixFlexibleDimensionsPropertiesNV{
               VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV});
    if (getProps(pd, &n, shapes.data()) != VK_SUCCESS) return;
    for (const auto& s : shapes) {
        if (s.saturatingAccumulation) continue;
        FlexibleCoopMatShape shape;
        shape.mGranularity = s.MGranularity;
        shape.nGranularity = s.NGranularity;
        shape.kGranularity = s.KGranularity;
        copyComponentTypes(s, shape);
        shape.workgroupScope = s.scope == VK_SCOPE_WORKGROUP_KHR;
        shape.workgroupInvocations = shape.workgroupScope ? s.workgroupInvocations : 0;
        if (shape.workgroupScope && !f.cooperativeMatrixWorkgroupScope) continue;
        info.coopMat2Shapes.push_back(shape);
    }
    info.coopMat2Flexible = true;
    info.coopMat2Workgroup = f.cooperativeMatrixWorkgroupScope;
}

// The compute units, where the driver tells them (DeviceInfo::computeUnits). A properties
// structure may be chained only where the device has its extension.
uint32_t queryComputeUnits(VkPhysicalDevice pd) {
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    if (hasExtension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
        VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
        props.pNext = &sm;
        vkGetPhysicalDeviceProperties2(pd, &props);
        return sm.shaderSMCount;
    }
    // AMD: the compute units enabled on this part where the driver says (a harvested part has
    // fewer than its layout), else the layout's count.
    if (hasExtension(pd, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME)) {
        VkPhysicalDeviceShaderCoreProperties2AMD core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
        props.pNext = &core;
        vkGetPhysicalDeviceProperties2(pd, &props);
        if (core.activeComputeUnitCount) return core.activeComputeUnitCount;
    }
    if (hasExtension(pd, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) {
        VkPhysicalDeviceShaderCorePropertiesAMD core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
        props.pNext = &core;
        vkGetPhysicalDeviceProperties2(pd, &props);
        return core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray;
    }
    return 0;
}

}  // namespace

DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice pd, uint32_t index) {
    DeviceInfo info;
    info.index = index;

    VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    driver.pNext = &subgroup;
    subgroup.pNext = &sizeControl;
    vkGetPhysicalDeviceProperties2(pd, &props);
    const auto& p = props.properties;
    const auto& lim = p.limits;

    info.name = p.deviceName;
    info.vendorId = p.vendorID;
    info.deviceId = p.deviceID;
    info.vendorName = vendorName(p.vendorID);
    info.deviceType = deviceTypeName(p.deviceType);
    info.driverName = driver.driverName;
    info.driverInfo = driver.driverInfo;
    info.driverVersion = p.driverVersion;
    info.apiVersion = p.apiVersion;
    std::copy(std::begin(p.pipelineCacheUUID), std::end(p.pipelineCacheUUID),
              info.pipelineCacheUUID.begin());

    info.subgroupSize = subgroup.subgroupSize;
    info.minSubgroupSize = sizeControl.minSubgroupSize ? sizeControl.minSubgroupSize : subgroup.subgroupSize;
    info.maxSubgroupSize = sizeControl.maxSubgroupSize ? sizeControl.maxSubgroupSize : subgroup.subgroupSize;
    info.maxSharedMemoryBytes = lim.maxComputeSharedMemorySize;
    info.maxStorageBufferRange = lim.maxStorageBufferRange;
    info.maxUniformBufferRange = lim.maxUniformBufferRange;
    info.minStorageBufferOffsetAlignment = lim.minStorageBufferOffsetAlignment;
    for (int i = 0; i < 3; ++i) info.maxWorkGroupCount[i] = lim.maxComputeWorkGroupCount[i];
    info.maxWorkGroupInvocations = lim.maxComputeWorkGroupInvocations;

    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &m3;
    vkGetPhysicalDeviceProperties2(pd, &props2);
    info.maxMemoryAllocationSize = m3.maxMemoryAllocationSize;
    info.computeUnits = queryComputeUnits(pd);

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info.deviceLocalBytes = std::max<uint64_t>(info.deviceLocalBytes, mem.memoryHeaps[i].size);

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, families.data());
    for (const auto& f : families)
        if (f.queueFlags & VK_QUEUE_COMPUTE_BIT) {
            info.timestampValidBits = f.timestampValidBits;
            break;
        }
    info.timestampPeriodNs = info.timestampValidBits ? lim.timestampPeriod : 0.0f;

    DeviceFeatures features;
    features.query(pd, p.apiVersion);
    const bool v13 = p.apiVersion >= VK_API_VERSION_1_3;
    info.subgroupSizeControl = v13 && features.v13.subgroupSizeControl &&
                               (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
    info.computeFullSubgroups = v13 && features.v13.computeFullSubgroups;
    info.shaderFloat16 = features.v12.shaderFloat16;
    info.storageBuffer16Bit = features.v11.storageBuffer16BitAccess;
    info.vulkanMemoryModel = features.v12.vulkanMemoryModel;
#ifdef VK_KHR_shader_bfloat16
    info.shaderBFloat16 = features.hasBf16 && features.bf16.shaderBFloat16Type &&
                          features.bf16.shaderBFloat16CooperativeMatrix;
#endif
    info.coopMatKhr = features.hasCoopMat && features.coopMat.cooperativeMatrix;
    info.coopMat2Nv = features.hasCoopMat2;

    if (info.coopMatKhr) {
        auto getProps = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
            vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
        if (getProps) {
            uint32_t n = 0;
            getProps(pd, &n, nullptr);
            std::vector<VkCooperativeMatrixPropertiesKHR> shapes(
                n, VkCooperativeMatrixPropertiesKHR{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
            getProps(pd, &n, shapes.data());
            for (const auto& s : shapes) {
                if (s.scope != VK_SCOPE_SUBGROUP_KHR || s.saturatingAccumulation) continue;
                CoopMatShape shape;
                shape.m = s.MSize;
                shape.n = s.NSize;
                shape.k = s.KSize;
                copyComponentTypes(s, shape);
                info.coopMatShapes.push_back(shape);
            }
        } else {
            info.coopMatKhr = false;
        }
    }
    if (info.coopMat2Nv && info.coopMatKhr) queryFlexibleShapes(instance, pd, features, info);
    return info;
}

}  // namespace detail
}  // namespace vkconv
