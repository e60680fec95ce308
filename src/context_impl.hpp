// What a Context holds: the Vulkan instance/device (owned or borrowed), the queue, the device's
// effective capabilities, and the one-shot command submission everything else uses.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "device_features.hpp"
#include "vk_util.hpp"
#include "vkconv/context.hpp"

namespace vkconv::detail {

class PipelineCache;

// Creates (or borrows) a VkInstance; destroys it only if owned.
struct Instance {
    VkInstance handle = VK_NULL_HANDLE;
    bool owned = false;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;

    Instance() = default;
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;
    ~Instance();
};

// Collects validation messages; the tests fail on any.
struct ValidationLog {
    std::mutex mutex;
    size_t count = 0;
    std::string last;
};

// Makes an owned instance, with the validation layer and a messenger writing to log if asked.
void createInstance(Instance& instance, bool validation, ValidationLog* log);

// Queries the capabilities of one physical device (used by listDevices and Context).
DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice physicalDevice, uint32_t index);

struct ContextImpl {
    Instance instance;
    ValidationLog validationLog;
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    bool ownsDevice = false;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queueFamily = 0;
    DeviceInfo hardware;  // what the device reports
    DeviceInfo info;      // after the profile: what vkconv may use
    VkPhysicalDeviceMemoryProperties memoryProperties{};

    UniqueCommandPool commandPool;
    VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
    UniqueFence fence;
    std::mutex submitMutex;  // one submission at a time through the shared command buffer

    std::string cacheDir;               // tuning cache and pipeline cache folder ("" = none)
    bool persistPipelineCache = false;  // load/save the pipeline cache in cacheDir
    bool captureStatistics = false;     // pipelines are built with CAPTURE_STATISTICS
    std::unique_ptr<PipelineCache> pipelineCache;  // made on first use
    std::mutex pipelineCacheMutex;
    std::atomic<uint64_t> nextTensorId{1};

    ContextImpl() = default;
    ContextImpl(const ContextImpl&) = delete;
    ContextImpl& operator=(const ContextImpl&) = delete;
    ~ContextImpl();

    // Creates the command pool etc. once device and queue are set.
    void initCommands();
    // Records with `record`, submits, and waits for completion.
    void submitAndWait(const std::function<void(VkCommandBuffer)>& record);
    PipelineCache& pipelines();
};

}  // namespace vkconv::detail
