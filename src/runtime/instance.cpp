// Instance creation, the validation layer's messenger, and listing devices.
#include <cstring>
#include <vector>

#include "runtime/context_impl.hpp"

namespace vkconv::detail {

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    auto* log = static_cast<ValidationLog*>(user);
    std::lock_guard<std::mutex> lock(log->mutex);
    ++log->count;
    log->last = data && data->pMessage ? data->pMessage : "(no message)";
    return VK_FALSE;
}

bool instanceHas(const char* name, bool layer) {
    uint32_t n = 0;
    if (layer) {
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> props(n);
        vkEnumerateInstanceLayerProperties(&n, props.data());
        for (auto& p : props)
            if (std::strcmp(p.layerName, name) == 0) return true;
    } else {
        vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
        std::vector<VkExtensionProperties> props(n);
        vkEnumerateInstanceExtensionProperties(nullptr, &n, props.data());
        for (auto& p : props)
            if (std::strcmp(p.extensionName, name) == 0) return true;
    }
    return false;
}

}  // namespace

Instance::~Instance() {
    if (!owned || handle == VK_NULL_HANDLE) return;
    if (messenger != VK_NULL_HANDLE) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(handle, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(handle, messenger, nullptr);
    }
    vkDestroyInstance(handle, nullptr);
}

void createInstance(Instance& instance, bool validation, ValidationLog* log) {
    uint32_t loaderVersion = 0;
    if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS || loaderVersion < VK_API_VERSION_1_3)
        throw Error(Error::Kind::Unsupported,
                    "the Vulkan loader supports only Vulkan " +
                        std::to_string(VK_API_VERSION_MAJOR(loaderVersion)) + "." +
                        std::to_string(VK_API_VERSION_MINOR(loaderVersion)) +
                        "; vkconv needs 1.3 (install a newer libvulkan1)");

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkconv";
    app.pEngineName = "vkconv";
    app.apiVersion = VK_API_VERSION_1_3;

    std::vector<const char*> layers, extensions;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    // MoltenVK shows up only when portability enumeration is asked for.
    if (instanceHas("VK_KHR_portability_enumeration", false)) {
        extensions.push_back("VK_KHR_portability_enumeration");
        info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    if (validation) {
        if (!instanceHas("VK_LAYER_KHRONOS_validation", true))
            throw Error(Error::Kind::Unsupported,
                        "validation requested but VK_LAYER_KHRONOS_validation is not installed "
                        "(Debian: vulkan-validationlayers)");
        layers.push_back("VK_LAYER_KHRONOS_validation");
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                    VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
        messengerInfo.pfnUserCallback = onValidationMessage;
        messengerInfo.pUserData = log;
        features.pNext = &messengerInfo;
        info.pNext = &features;
    }
    info.pApplicationInfo = &app;
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateInstance(&info, nullptr, &instance.handle);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        throw Error(Error::Kind::Unsupported,
                    "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); on a "
                    "machine without a GPU install Mesa's lavapipe (mesa-vulkan-drivers)");
    check(r, "vkCreateInstance");
    instance.owned = true;
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance.handle, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) throw Error(Error::Kind::Vulkan, "vkCreateDebugUtilsMessengerEXT missing");
        VKCONV_CHECK(create(instance.handle, &messengerInfo, nullptr, &instance.messenger));
    }
}

}  // namespace vkconv::detail

namespace vkconv {

std::vector<DeviceInfo> listDevices() {
    detail::Instance instance;
    detail::createInstance(instance, false, nullptr);
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance.handle, &n, nullptr);
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(instance.handle, &n, devices.data());
    std::vector<DeviceInfo> result;
    for (uint32_t i = 0; i < n; ++i)
        result.push_back(detail::queryDeviceInfo(instance.handle, devices[i], i));
    return result;
}

}  // namespace vkconv
