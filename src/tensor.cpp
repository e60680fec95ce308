#include <cstring>
#include <numeric>

#include "tensor_impl.hpp"

namespace vkconv {

Tensor::Tensor(const Context& context, std::vector<int64_t> shape)
    : impl_(std::make_shared<detail::TensorImpl>()) {
    if (shape.empty()) throw invalidArgument("shape", "[]", "a tensor needs at least one dimension");
    uint64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0)
            throw invalidArgument("shape[" + std::to_string(i) + "]", shape[i], "must be >= 1");
        if (n > (1ull << 62) / static_cast<uint64_t>(shape[i]))
            throw invalidArgument("shape", "...", "tensor too large");
        n *= static_cast<uint64_t>(shape[i]);
    }
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
