// Device memory: one VkBuffer with its own allocation. Device-local buffers hold tensors and
// packed weights; host-visible staging buffers carry data to and from them.
#pragma once

#include <cstdint>

#include "runtime/context_impl.hpp"

namespace vkconv::detail {

class Buffer {
public:
    enum class Kind { DeviceLocal, Staging };

    Buffer() = default;
    Buffer(ContextImpl& context, uint64_t bytes, Kind kind);
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;
    ~Buffer();

    VkBuffer handle() const { return buffer_.get(); }
    uint64_t bytes() const { return bytes_; }
    void* mapped() const { return mapped_; }  // staging buffers only

private:
    UniqueBuffer buffer_;
    UniqueMemory memory_;
    uint64_t bytes_ = 0;
    void* mapped_ = nullptr;
    VkDevice device_ = VK_NULL_HANDLE;
    LiveToken live_;
};

// Copies host data into a device buffer (or back) through a staging buffer, in pieces so that
// staging memory stays bounded. The buffer may be the caller's (a wrapped tensor's).
void uploadToBuffer(ContextImpl& context, VkBuffer dst, uint64_t dstOffset, const void* src, uint64_t bytes);
void downloadFromBuffer(ContextImpl& context, VkBuffer src, uint64_t srcOffset, void* dst, uint64_t bytes);
// `bytes` (a multiple of 4, or VK_WHOLE_SIZE) from `offset` (a multiple of 4) set to `word`.
void fillBuffer(ContextImpl& context, VkBuffer dst, uint64_t offset, uint64_t bytes, uint32_t word);
inline void uploadToBuffer(ContextImpl& context, const Buffer& dst, uint64_t dstOffset, const void* src, uint64_t bytes) {
    uploadToBuffer(context, dst.handle(), dstOffset, src, bytes);
}
inline void downloadFromBuffer(ContextImpl& context, const Buffer& src, uint64_t srcOffset, void* dst, uint64_t bytes) {
    downloadFromBuffer(context, src.handle(), srcOffset, dst, bytes);
}
inline void fillBuffer(ContextImpl& context, const Buffer& dst, uint32_t word) {
    fillBuffer(context, dst.handle(), 0, VK_WHOLE_SIZE, word);
}

}  // namespace vkconv::detail
