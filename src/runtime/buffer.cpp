#include "runtime/buffer.hpp"

#include <algorithm>
#include <cstring>

namespace vkconv::detail {

namespace {

uint32_t findMemoryType(const ContextImpl& ctx, uint32_t typeBits, VkMemoryPropertyFlags want,
                        VkMemoryPropertyFlags avoid) {
    const auto& mp = ctx.memoryProperties;
    for (uint32_t pass = 0; pass < 2; ++pass)
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
            VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
            if (!(typeBits & (1u << i)) || (f & want) != want) continue;
            if (pass == 0 && (f & avoid)) continue;  // first try without the unwanted flags
            return i;
        }
    throw Error(Error::Kind::Unsupported, "no suitable Vulkan memory type");
}

constexpr uint64_t kStagingChunk = 64ull << 20;

}  // namespace

Buffer::Buffer(ContextImpl& ctx, uint64_t bytes, Kind kind)
    : bytes_(bytes), device_(ctx.device), live_(ctx.live.buffers) {
    if (bytes == 0) bytes = 4;  // Vulkan forbids empty buffers; a zero-size tensor still binds
    if (bytes > ctx.info.maxMemoryAllocationSize && ctx.info.maxMemoryAllocationSize)
        throw Error(Error::Kind::Unsupported,
                    "buffer of " + std::to_string(bytes) + " bytes exceeds the device's "
                    "maxMemoryAllocationSize (" + std::to_string(ctx.info.maxMemoryAllocationSize) + ")");
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 (kind == Kind::DeviceLocal ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT : 0);
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer b;
    VKCONV_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
    buffer_ = UniqueBuffer(ctx.device, b);

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx.device, b, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex =
        kind == Kind::DeviceLocal
            ? findMemoryType(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)
            : findMemoryType(ctx, req.memoryTypeBits,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory m;
    VkResult r = vkAllocateMemory(ctx.device, &alloc, nullptr, &m);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw Error(Error::Kind::Unsupported,
                    "out of memory allocating " + std::to_string(req.size) + " bytes");
    check(r, "vkAllocateMemory");
    memory_ = UniqueMemory(ctx.device, m);
    VKCONV_CHECK(vkBindBufferMemory(ctx.device, b, m, 0));
    if (kind == Kind::Staging) VKCONV_CHECK(vkMapMemory(ctx.device, m, 0, VK_WHOLE_SIZE, 0, &mapped_));
}

Buffer::~Buffer() {
    if (mapped_ && memory_) vkUnmapMemory(device_, memory_.get());
}

void uploadToBuffer(ContextImpl& ctx, VkBuffer dst, uint64_t dstOffset, const void* src, uint64_t bytes) {
    if (bytes == 0) return;
    Buffer staging(ctx, std::min(bytes, kStagingChunk), Buffer::Kind::Staging);
    for (uint64_t done = 0; done < bytes;) {
        uint64_t n = std::min(bytes - done, kStagingChunk);
        std::memcpy(staging.mapped(), static_cast<const char*>(src) + done, n);
        ctx.submitAndWait([&](VkCommandBuffer cmd) {
            barrierBeforeTransfer(cmd);
            VkBufferCopy region{0, dstOffset + done, n};
            vkCmdCopyBuffer(cmd, staging.handle(), dst, 1, &region);
        });
        done += n;
    }
}

void downloadFromBuffer(ContextImpl& ctx, VkBuffer src, uint64_t srcOffset, void* dst, uint64_t bytes) {
    if (bytes == 0) return;
    Buffer staging(ctx, std::min(bytes, kStagingChunk), Buffer::Kind::Staging);
    for (uint64_t done = 0; done < bytes;) {
        uint64_t n = std::min(bytes - done, kStagingChunk);
        ctx.submitAndWait([&](VkCommandBuffer cmd) {
            barrierBeforeTransfer(cmd);
            VkBufferCopy region{srcOffset + done, 0, n};
            vkCmdCopyBuffer(cmd, src, staging.handle(), 1, &region);
        });
        std::memcpy(static_cast<char*>(dst) + done, staging.mapped(), n);
        done += n;
    }
}

void fillBuffer(ContextImpl& ctx, VkBuffer dst, uint64_t offset, uint64_t bytes, uint32_t word) {
    ctx.submitAndWait([&](VkCommandBuffer cmd) {
        barrierBeforeTransfer(cmd);
        vkCmdFillBuffer(cmd, dst, offset, bytes, word);
    });
}

}  // namespace vkconv::detail
