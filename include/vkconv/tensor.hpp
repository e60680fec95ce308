// A dense fp32 tensor in device memory. Upload and download go through a staging buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vkconv/context.hpp"

namespace vkconv {

namespace detail {
struct TensorImpl;
}

class Tensor {
public:
    Tensor(const Context& context, std::vector<int64_t> shape);

    const std::vector<int64_t>& shape() const;
    uint64_t elements() const;
    uint64_t bytes() const { return elements() * sizeof(float); }

    void upload(const float* data, uint64_t count);
    void upload(const std::vector<float>& data) { upload(data.data(), data.size()); }
    void download(float* data, uint64_t count) const;
    std::vector<float> download() const;
    // Elements [first, first + count) only, e.g. one image of a batch.
    void downloadRange(uint64_t first, float* data, uint64_t count) const;
    void fill(float value);  // e.g. NaN, to catch outputs a kernel never writes

    detail::TensorImpl& impl() const { return *impl_; }

private:
    std::shared_ptr<detail::TensorImpl> impl_;
};

}  // namespace vkconv
