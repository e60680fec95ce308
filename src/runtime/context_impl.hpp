// What a Context holds: the Vulkan instance/device (owned or borrowed), the queue, the device's
// effective capabilities, and the one-shot command submission everything else uses.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "runtime/device_features.hpp"
#include "select/tuning_cache.hpp"
#include "runtime/vk_util.hpp"
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

// Live Vulkan objects that vkconv made on a context, by kind. A sweep builds and drops hundreds
// of configurations on one context; the tests check that these counts return to their baseline
// after it, so that nothing a candidate made outlives it.
struct LiveObjects {
    std::atomic<int64_t> buffers{0}, pipelines{0}, descriptorPools{0}, queryPools{0};
};

// One live object of a LiveObjects counter: counted while it exists, moved with its owner.
class LiveToken {
public:
    LiveToken() = default;
    explicit LiveToken(std::atomic<int64_t>& counter) : counter_(&counter) { ++*counter_; }
    LiveToken(LiveToken&& o) noexcept : counter_(std::exchange(o.counter_, nullptr)) {}
    LiveToken& operator=(LiveToken&& o) noexcept {
        if (this != &o) {
            release();
            counter_ = std::exchange(o.counter_, nullptr);
        }
        return *this;
    }
    LiveToken(const LiveToken&) = delete;
    LiveToken& operator=(const LiveToken&) = delete;
    ~LiveToken() { release(); }

private:
    void release() {
        if (counter_) --*counter_;
        counter_ = nullptr;
    }
    std::atomic<int64_t>* counter_ = nullptr;
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
    TuningCacheReader tuningCache;      // the tuning cache as this context's plans read it
    std::unique_ptr<PipelineCache> pipelineCache;  // made on first use
    std::mutex pipelineCacheMutex;
    std::atomic<uint64_t> nextTensorId{1};
    LiveObjects live;

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
