#include <cstring>
#include <numeric>

#include "runtime/tensor_impl.hpp"

namespace vkconv {

Tensor::Tensor(const Context& context, std::vector<int64_t> shape)
    : impl_(std::make_shared<detail::TensorImpl>()) {
    if (shape.empty()) throw invalidArgument("shape", "[]", "a tensor needs at least one dimension");
    // Elements and bytes (x4) both checked: 2^62 elements would be a 0-byte buffer after x4.
    constexpr uint64_t kMaxElements = 1ull << 50;
    uint64_t n = 1;
    std::string text;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0)
            throw invalidArgument("shape[" + std::to_string(i) + "]", shape[i], "must be >= 1");
        text += (i ? "x" : "") + std::to_string(shape[i]);
        if (__builtin_mul_overflow(n, static_cast<uint64_t>(shape[i]), &n) || n > kMaxElements)
            throw invalidArgument("shape", text + (i + 1 < shape.size() ? "x..." : ""),
                                  "more than 2^50 elements");
    }
    const DeviceInfo& device = context.device();
    if (device.maxMemoryAllocationSize && n * sizeof(float) > device.maxMemoryAllocationSize)
        throw Error(Error::Kind::Unsupported, "tensor of shape " + text + " needs " +
                                                  std::to_string(n * sizeof(float)) +
                                                  " bytes, more than the device's maxMemoryAllocationSize (" +
                                                  std::to_string(device.maxMemoryAllocationSize) + ")");
    impl_->context = context.impl();
    impl_->shape = std::move(shape);
    impl_->elements = n;
    impl_->id = impl_->context->nextTensorId++;
    impl_->buffer = detail::Buffer(*impl_->context, n * sizeof(float), detail::Buffer::Kind::DeviceLocal);
}

const std::vector<int64_t>& Tensor::shape() const { return impl_->shape; }
uint64_t Tensor::elements() const { return impl_->elements; }

void Tensor::upload(const float* data, uint64_t count) {
    if (count != impl_->elements)
        throw invalidArgument("upload count", count,
                              "tensor has " + std::to_string(impl_->elements) + " elements");
    detail::uploadToBuffer(*impl_->context, impl_->buffer, 0, data, count * sizeof(float));
}

void Tensor::download(float* data, uint64_t count) const {
    if (count != impl_->elements)
        throw invalidArgument("download count", count,
                              "tensor has " + std::to_string(impl_->elements) + " elements");
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, 0, data, count * sizeof(float));
}

void Tensor::downloadRange(uint64_t first, float* data, uint64_t count) const {
    if (first > impl_->elements || count > impl_->elements - first)
        throw invalidArgument("download range", std::to_string(first) + "+" + std::to_string(count),
                              "tensor has " + std::to_string(impl_->elements) + " elements");
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, first * sizeof(float), data, count * sizeof(float));
}

std::vector<float> Tensor::download() const {
    std::vector<float> out(impl_->elements);
    download(out.data(), out.size());
    return out;
}

void Tensor::fill(float value) {
    uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    detail::fillBuffer(*impl_->context, impl_->buffer, word);
}

}  // namespace vkconv
