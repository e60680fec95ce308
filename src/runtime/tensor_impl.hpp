#pragma once

#include <vector>

#include "runtime/buffer.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::detail {

struct TensorImpl {
    std::shared_ptr<ContextImpl> context;  // keeps the device alive while the tensor lives
    std::vector<int64_t> shape;
    TensorFormat format;
    uint64_t elements = 0;
    uint64_t id = 0;  // unique per context: tells Conv2d when its bound tensors changed
    // The memory: `bytes` of `buffer` from `offset` (elements x element size). `owned` is the
    // buffer vkconv allocated (shared with views of it; its size rounded up to 4 bytes, which
    // fills write whole words of); null for the caller's buffer (Tensor::wrap).
    VkBuffer buffer = VK_NULL_HANDLE;
    uint64_t offset = 0, bytes = 0;
    std::shared_ptr<Buffer> owned;

    // Whether the two tensors' bytes overlap.
    bool overlaps(const TensorImpl& o) const {
        return buffer == o.buffer && offset < o.offset + o.bytes && o.offset < offset + bytes;
    }
};

}  // namespace vkconv::detail
