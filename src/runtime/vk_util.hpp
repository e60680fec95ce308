// Small Vulkan helpers shared by the library's sources: result checking and RAII handles.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <utility>

#include "vkconv/error.hpp"

namespace vkconv::detail {

const char* resultName(VkResult r);

// Throws vkconv::Error(Vulkan) naming the call that failed.
inline void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS)
        throw Error(Error::Kind::Vulkan, std::string(what) + " failed: " + resultName(r));
}
#define VKCONV_CHECK(call) ::vkconv::detail::check((call), #call)

// Global memory barriers between vkconv's own commands. Every buffer is written by either a
// shader or a transfer; these make those writes visible to what comes next.
inline void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         dstStages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}
// Before a dispatch: earlier writes (also a previous dispatch's, write after write) are visible.
inline void barrierBeforeCompute(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}
// Before a copy or fill: earlier shader writes are visible to it.
inline void barrierBeforeTransfer(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Owns one handle made from a VkDevice and destroys it with the matching vkDestroy*.
template <typename Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class DeviceHandle {
public:
    DeviceHandle() = default;
    DeviceHandle(VkDevice device, Handle handle) : device_(device), handle_(handle) {}
    DeviceHandle(DeviceHandle&& o) noexcept
        : device_(o.device_), handle_(std::exchange(o.handle_, VK_NULL_HANDLE)) {}
    DeviceHandle& operator=(DeviceHandle&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            handle_ = std::exchange(o.handle_, VK_NULL_HANDLE);
        }
        return *this;
    }
    DeviceHandle(const DeviceHandle&) = delete;
    DeviceHandle& operator=(const DeviceHandle&) = delete;
    ~DeviceHandle() { reset(); }

    void reset() {
        if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
        handle_ = VK_NULL_HANDLE;
    }
    Handle get() const { return handle_; }
    explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    Handle handle_ = VK_NULL_HANDLE;
};

using UniqueBuffer = DeviceHandle<VkBuffer, vkDestroyBuffer>;
using UniqueMemory = DeviceHandle<VkDeviceMemory, vkFreeMemory>;
using UniqueShaderModule = DeviceHandle<VkShaderModule, vkDestroyShaderModule>;
using UniquePipeline = DeviceHandle<VkPipeline, vkDestroyPipeline>;
using UniquePipelineLayout = DeviceHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using UniqueDescriptorSetLayout = DeviceHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using UniqueDescriptorPool = DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool>;
using UniqueCommandPool = DeviceHandle<VkCommandPool, vkDestroyCommandPool>;
using UniqueFence = DeviceHandle<VkFence, vkDestroyFence>;
using UniqueQueryPool = DeviceHandle<VkQueryPool, vkDestroyQueryPool>;
using UniquePipelineCache = DeviceHandle<VkPipelineCache, vkDestroyPipelineCache>;

}  // namespace vkconv::detail
