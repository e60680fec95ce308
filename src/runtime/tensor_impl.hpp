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
    Buffer buffer;    // elements * elementBytes, rounded up to 4 bytes (fills write words)
};

}  // namespace vkconv::detail
