// Context creation: choose a physical device, create the VkDevice with the features vkconv's
// paths use, or wrap the caller's handles.
#include <algorithm>
#include <vector>

#include "runtime/cache_files.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/pipeline.hpp"

namespace vkconv {
namespace detail {

ContextImpl::~ContextImpl() {
    if (device != VK_NULL_HANDLE) vkDeviceWaitIdle(device);
    pipelineCache.reset();
    fence.reset();
    commandPool.reset();
    if (ownsDevice && device != VK_NULL_HANDLE) vkDestroyDevice(device, nullptr);
}

void ContextImpl::initCommands() {
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = queueFamily;
    VkCommandPool pool;
    VKCONV_CHECK(vkCreateCommandPool(device, &poolInfo, nullptr, &pool));
    commandPool = UniqueCommandPool(device, pool);

    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VKCONV_CHECK(vkAllocateCommandBuffers(device, &alloc, &commandBuffer));

    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f;
    VKCONV_CHECK(vkCreateFence(device, &fenceInfo, nullptr, &f));
    fence = UniqueFence(device, f);
    vkGetPhysicalDeviceMemoryProperties(physicalDevice, &memoryProperties);
}

PipelineCache& ContextImpl::pipelines() {
    std::lock_guard<std::mutex> lock(pipelineCacheMutex);
    if (!pipelineCache) pipelineCache = std::make_unique<PipelineCache>(*this);
    return *pipelineCache;
}

void ContextImpl::submitAndWait(const std::function<void(VkCommandBuffer)>& record) {
    std::lock_guard<std::mutex> lock(submitMutex);
    VKCONV_CHECK(vkResetCommandBuffer(commandBuffer, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VKCONV_CHECK(vkBeginCommandBuffer(commandBuffer, &begin));
    record(commandBuffer);
    VKCONV_CHECK(vkEndCommandBuffer(commandBuffer));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commandBuffer;
    VkFence f = fence.get();
    VKCONV_CHECK(vkResetFences(device, 1, &f));
    VKCONV_CHECK(vkQueueSubmit(queue, 1, &submit, f));
    // A generous bound: a conv that takes minutes is a hang, not a workload.
    const uint64_t timeoutNs = 600ull * 1000 * 1000 * 1000;
    VkResult r = vkWaitForFences(device, 1, &f, VK_TRUE, timeoutNs);
    if (r == VK_TIMEOUT)
        throw Error(Error::Kind::Vulkan, "GPU work did not finish within 600 s (device hang?)");
    check(r, "vkWaitForFences");
}

uint32_t findComputeQueueFamily(VkPhysicalDevice pd) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    for (uint32_t i = 0; i < n; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
    throw Error(Error::Kind::Unsupported, "device has no compute queue");
}

}  // namespace detail

namespace {

void applyProfileTo(detail::ContextImpl& impl, const std::optional<DeviceProfile>& profile) {
    impl.info = profile ? applyProfile(impl.hardware, *profile) : impl.hardware;
}

void requireVulkan13(const DeviceInfo& info) {
    if (info.apiVersion < VK_API_VERSION_1_3)
        throw Error(Error::Kind::Unsupported,
                    "device '" + info.name + "' supports Vulkan " +
                        std::to_string(VK_API_VERSION_MAJOR(info.apiVersion)) + "." +
                        std::to_string(VK_API_VERSION_MINOR(info.apiVersion)) +
                        "; vkconv needs Vulkan 1.3");
}

}  // namespace

Context::Context(const ContextOptions& options) : impl_(std::make_shared<detail::ContextImpl>()) {
    auto& impl = *impl_;
    detail::createInstance(impl.instance, options.validation, &impl.validationLog);

    uint32_t n = 0;
    vkEnumeratePhysicalDevices(impl.instance.handle, &n, nullptr);
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(impl.instance.handle, &n, devices.data());
    if (n == 0) throw Error(Error::Kind::Unsupported, "no Vulkan device found");

    uint32_t chosen = 0;
    if (options.deviceIndex >= 0) {
        if (static_cast<uint32_t>(options.deviceIndex) >= n)
            throw invalidArgument("device", options.deviceIndex,
                                  "no such device (" + std::to_string(n) + " present)");
        chosen = static_cast<uint32_t>(options.deviceIndex);
    } else {
        int best = 1 << 30;
        for (uint32_t i = 0; i < n; ++i) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            int rank = static_cast<int>(p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 0
                                        : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 1
                                        : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU    ? 2
                                        : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU            ? 3
                                                                                                 : 4);
            if (rank < best) best = rank, chosen = i;
        }
    }
    impl.physicalDevice = devices[chosen];
    impl.hardware = detail::queryDeviceInfo(impl.instance.handle, impl.physicalDevice, chosen);
    requireVulkan13(impl.hardware);
    applyProfileTo(impl, options.profile);
    impl.cacheDir = detail::cacheDirFor(options.cacheDir);
    impl.persistPipelineCache = options.persistentPipelineCache && !detail::envFlag("VKCONV_NO_PIPELINE_CACHE");

    impl.queueFamily = detail::findComputeQueueFamily(impl.physicalDevice);
    detail::DeviceFeatures features;
    features.query(impl.physicalDevice, impl.hardware.apiVersion, options.pipelineStatistics);
    features.keepOnlyUsed();
    impl.captureStatistics = features.hasExecutableProperties && features.executableProperties.pipelineExecutableInfo;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = impl.queueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    createInfo.pNext = &features.core;
    createInfo.queueCreateInfoCount = 1;
    createInfo.pQueueCreateInfos = &queueInfo;
    createInfo.enabledExtensionCount = static_cast<uint32_t>(features.extensions.size());
    createInfo.ppEnabledExtensionNames = features.extensions.data();
    VKCONV_CHECK(vkCreateDevice(impl.physicalDevice, &createInfo, nullptr, &impl.device));
    impl.ownsDevice = true;
    vkGetDeviceQueue(impl.device, impl.queueFamily, 0, &impl.queue);
    impl.initCommands();
}

Context Context::wrap(VkInstance instance, VkPhysicalDevice physicalDevice, VkDevice device,
                      VkQueue queue, uint32_t queueFamilyIndex,
                      const std::optional<DeviceProfile>& profile) {
    if (instance == VK_NULL_HANDLE) throw invalidArgument("instance", "VK_NULL_HANDLE", "required");
    if (physicalDevice == VK_NULL_HANDLE)
        throw invalidArgument("physicalDevice", "VK_NULL_HANDLE", "required");
    if (device == VK_NULL_HANDLE) throw invalidArgument("device", "VK_NULL_HANDLE", "required");
    if (queue == VK_NULL_HANDLE) throw invalidArgument("queue", "VK_NULL_HANDLE", "required");
    auto impl = std::make_shared<detail::ContextImpl>();
    impl->instance.handle = instance;
    impl->instance.owned = false;
    impl->physicalDevice = physicalDevice;
    impl->device = device;
    impl->ownsDevice = false;
    impl->queue = queue;
    impl->queueFamily = queueFamilyIndex;
    impl->hardware = detail::queryDeviceInfo(instance, physicalDevice, 0);
    requireVulkan13(impl->hardware);
    // We cannot know which features the caller enabled beyond what the device offers; the
    // documented contract (context.hpp) is that the fast path's features are enabled if present.
    applyProfileTo(*impl, profile);
    impl->cacheDir = detail::cacheDirFor("");
    impl->persistPipelineCache = !detail::envFlag("VKCONV_NO_PIPELINE_CACHE");
    impl->initCommands();
    return Context(std::move(impl));
}

const DeviceInfo& Context::device() const { return impl_->info; }

size_t Context::validationMessageCount() const {
    std::lock_guard<std::mutex> lock(impl_->validationLog.mutex);
    return impl_->validationLog.count;
}

std::string Context::lastValidationMessage() const {
    std::lock_guard<std::mutex> lock(impl_->validationLog.mutex);
    return impl_->validationLog.last;
}

}  // namespace vkconv
