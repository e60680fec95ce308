#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "runtime/tensor_impl.hpp"

namespace vkconv {

namespace {

void checkCount(const char* what, uint64_t count, uint64_t elements) {
    if (count != elements)
        throw invalidArgument(what, count, "tensor has " + std::to_string(elements) + " elements");
}

void requireHalf(const detail::TensorImpl& t, const char* what) {
    if (t.format.type == DataType::F32)
        throw invalidArgument(what, toString(t.format.type), "the tensor holds no 16-bit values; use upload/download (fp32 values)");
}

}  // namespace

namespace {

// The element count of a shape in a format, checked (naming the field) for the kernels' needs:
// at least one dimension, each >= 1, NHWC only for 4-D shapes, at most 2^50 elements.
uint64_t checkedElements(const std::vector<int64_t>& shape, const TensorFormat& format, std::string& text) {
    if (shape.empty()) throw invalidArgument("shape", "[]", "a tensor needs at least one dimension");
    if (format.type != DataType::F32 && format.type != DataType::F16 && format.type != DataType::BF16)
        throw invalidArgument("format.type", int(format.type), "not a DataType");
    if (format.layout != Layout::NCHW && format.layout != Layout::NHWC)
        throw invalidArgument("format.layout", int(format.layout), "not a Layout");
    if (format.layout == Layout::NHWC && shape.size() != 4)
        throw invalidArgument("format.layout", "nhwc",
                              "needs a 4-D shape (N, C, H, W); this one has " + std::to_string(shape.size()) +
                                  " dimension(s)");
    // Elements and bytes both checked: 2^62 elements would be a 0-byte buffer after x4.
    constexpr uint64_t kMaxElements = 1ull << 50;
    uint64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0)
            throw invalidArgument("shape[" + std::to_string(i) + "]", shape[i], "must be >= 1");
        text += (i ? "x" : "") + std::to_string(shape[i]);
        if (__builtin_mul_overflow(n, static_cast<uint64_t>(shape[i]), &n) || n > kMaxElements)
            throw invalidArgument("shape", text + (i + 1 < shape.size() ? "x..." : ""), "more than 2^50 elements");
    }
    return n;
}

void requireHalfStorage(const DeviceInfo& device, const TensorFormat& format) {
    if (format.type != DataType::F32 && !device.storageBuffer16Bit)
        throw Error(Error::Kind::Unsupported,
                    std::string("format.type = ") + toString(format.type) +
                        ": the device has no storageBuffer16BitAccess, which the kernels need to read and write "
                        "16-bit tensors");
}

}  // namespace

Tensor::Tensor(const Context& context, std::vector<int64_t> shape, TensorFormat format)
    : impl_(std::make_shared<detail::TensorImpl>()) {
    std::string text;
    const uint64_t n = checkedElements(shape, format, text);
    const DeviceInfo& device = context.device();
    requireHalfStorage(device, format);
    const uint64_t bytes = (n * elementBytes(format.type) + 3) / 4 * 4;
    if (device.maxMemoryAllocationSize && bytes > device.maxMemoryAllocationSize)
        throw Error(Error::Kind::Unsupported, "tensor of shape " + text + " (" + format.str() + ") needs " +
                                                  std::to_string(bytes) +
                                                  " bytes, more than the device's maxMemoryAllocationSize (" +
                                                  std::to_string(device.maxMemoryAllocationSize) + ")");
    impl_->context = context.impl();
    impl_->shape = std::move(shape);
    impl_->format = format;
    impl_->elements = n;
    impl_->id = impl_->context->nextTensorId++;
    impl_->owned = std::make_shared<detail::Buffer>(*impl_->context, bytes, detail::Buffer::Kind::DeviceLocal);
    impl_->buffer = impl_->owned->handle();
    impl_->bytes = n * elementBytes(format.type);
}

namespace {

// A tensor of `shape` and `format` over `bytesAvailable` bytes of `buffer` from `offset`.
std::shared_ptr<detail::TensorImpl> viewOf(const std::shared_ptr<detail::ContextImpl>& context, const DeviceInfo& device,
                                           VkBuffer buffer, uint64_t offset, uint64_t bytesAvailable,
                                           std::vector<int64_t> shape, TensorFormat format) {
    std::string text;
    const uint64_t n = checkedElements(shape, format, text);
    requireHalfStorage(device, format);
    const uint64_t bytes = n * elementBytes(format.type);
    // The kernels bind tensors at offsets the device aligns (and fills write whole words).
    const uint64_t align = std::max<uint64_t>(device.minStorageBufferOffsetAlignment, 4);
    if (offset % align)
        throw invalidArgument("offset", offset,
                              "must be a multiple of the device's minStorageBufferOffsetAlignment (" +
                                  std::to_string(align) + " bytes; 4 at least)");
    if (offset > bytesAvailable || bytes > bytesAvailable - offset)
        throw invalidArgument("shape", text + " (" + format.str() + ", " + std::to_string(bytes) + " bytes)",
                              "does not fit the " + std::to_string(bytesAvailable) + " bytes from offset " +
                                  std::to_string(offset) + " to the buffer's end");
    auto impl = std::make_shared<detail::TensorImpl>();
    impl->context = context;
    impl->shape = std::move(shape);
    impl->format = format;
    impl->elements = n;
    impl->id = context->nextTensorId++;
    impl->buffer = buffer;
    impl->offset = offset;
    impl->bytes = bytes;
    return impl;
}

}  // namespace

Tensor::Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

Tensor Tensor::wrap(const Context& context, VkBuffer buffer, uint64_t bufferBytes, uint64_t offset,
                    std::vector<int64_t> shape, TensorFormat format) {
    if (buffer == VK_NULL_HANDLE) throw invalidArgument("buffer", "VK_NULL_HANDLE", "a VkBuffer of the context's device is needed");
    return Tensor(viewOf(context.impl(), context.device(), buffer, offset, bufferBytes, std::move(shape), format));
}

Tensor Tensor::view(uint64_t offset, std::vector<int64_t> shape, TensorFormat format) const {
    auto v = viewOf(impl_->context, impl_->context->info, impl_->buffer, impl_->offset + offset,
                    impl_->offset + impl_->bytes, std::move(shape), format);
    v->owned = impl_->owned;  // keeps the memory alive
    return Tensor(std::move(v));
}

const std::vector<int64_t>& Tensor::shape() const { return impl_->shape; }
const TensorFormat& Tensor::format() const { return impl_->format; }
uint64_t Tensor::elements() const { return impl_->elements; }
VkBuffer Tensor::buffer() const { return impl_->buffer; }
uint64_t Tensor::offset() const { return impl_->offset; }

void Tensor::upload(const float* data, uint64_t count) {
    checkCount("upload count", count, impl_->elements);
    if (impl_->format.type == DataType::F32) {
        detail::uploadToBuffer(*impl_->context, impl_->buffer, impl_->offset, data, count * sizeof(float));
        return;
    }
    std::vector<uint16_t> half(count);
    const bool bf16 = impl_->format.type == DataType::BF16;
    for (uint64_t i = 0; i < count; ++i) half[i] = bf16 ? bfloat16FromFloat(data[i]) : halfFromFloat(data[i]);
    detail::uploadToBuffer(*impl_->context, impl_->buffer, impl_->offset, half.data(), count * 2);
}

void Tensor::uploadHalf(const uint16_t* data, uint64_t count) {
    requireHalf(*impl_, "uploadHalf: format.type");
    checkCount("upload count", count, impl_->elements);
    detail::uploadToBuffer(*impl_->context, impl_->buffer, impl_->offset, data, count * 2);
}

void Tensor::download(float* data, uint64_t count) const {
    checkCount("download count", count, impl_->elements);
    downloadRange(0, data, count);
}

void Tensor::downloadRange(uint64_t first, float* data, uint64_t count) const {
    if (first > impl_->elements || count > impl_->elements - first)
        throw invalidArgument("download range", std::to_string(first) + "+" + std::to_string(count),
                              "tensor has " + std::to_string(impl_->elements) + " elements");
    if (impl_->format.type == DataType::F32) {
        detail::downloadFromBuffer(*impl_->context, impl_->buffer, impl_->offset + first * sizeof(float), data, count * sizeof(float));
        return;
    }
    std::vector<uint16_t> half(count);
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, impl_->offset + first * 2, half.data(), count * 2);
    const bool bf16 = impl_->format.type == DataType::BF16;
    for (uint64_t i = 0; i < count; ++i) data[i] = bf16 ? floatFromBfloat16(half[i]) : floatFromHalf(half[i]);
}

std::vector<float> Tensor::download() const {
    std::vector<float> out(impl_->elements);
    download(out.data(), out.size());
    return out;
}

void Tensor::downloadHalf(uint16_t* data, uint64_t count) const {
    requireHalf(*impl_, "downloadHalf: format.type");
    checkCount("download count", count, impl_->elements);
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, impl_->offset, data, count * 2);
}

void Tensor::fill(float value) {
    uint32_t word;
    if (impl_->format.type != DataType::F32) {
        const uint32_t half = impl_->format.type == DataType::BF16 ? bfloat16FromFloat(value) : halfFromFloat(value);
        word = half | half << 16;
    } else {
        std::memcpy(&word, &value, sizeof word);
    }
    // Whole words: a tensor vkconv allocated is rounded up to them; an odd-sized f16 view of
    // another's memory has its last element written alone.
    const uint64_t whole = impl_->bytes / 4 * 4;
    if (whole) detail::fillBuffer(*impl_->context, impl_->buffer, impl_->offset, whole, word);
    if (whole != impl_->bytes) {
        const uint16_t last = uint16_t(word);
        detail::uploadToBuffer(*impl_->context, impl_->buffer, impl_->offset + whole, &last, 2);
    }
}

namespace {

std::array<int64_t, 4> shape4(const detail::TensorImpl& t, const char* what) {
    if (t.shape.size() != 4)
        throw invalidArgument(what, std::to_string(t.shape.size()) + "-D tensor", "needs a 4-D (N, C, H, W) tensor");
    return {t.shape[0], t.shape[1], t.shape[2], t.shape[3]};
}

}  // namespace

void Tensor::uploadNchw(const float* data, uint64_t count) {
    const auto shape = shape4(*impl_, "uploadNchw");
    checkCount("upload count", count, impl_->elements);
    if (impl_->format.layout == Layout::NCHW) return upload(data, count);
    upload(relayout(data, count, shape, Layout::NCHW, impl_->format.layout));
}

std::vector<float> Tensor::downloadNchw() const {
    return downloadNchwImages(0, shape4(*impl_, "downloadNchw")[0]);
}

std::vector<float> Tensor::downloadNchwImages(int64_t firstImage, int64_t images) const {
    auto shape = shape4(*impl_, "downloadNchwImages");
    if (firstImage < 0 || images < 0 || firstImage > shape[0] || images > shape[0] - firstImage)
        throw invalidArgument("downloadNchwImages range", std::to_string(firstImage) + "+" + std::to_string(images),
                              "tensor has " + std::to_string(shape[0]) + " images");
    const uint64_t perImage = impl_->elements / uint64_t(shape[0]);
    std::vector<float> held(uint64_t(images) * perImage);
    downloadRange(uint64_t(firstImage) * perImage, held.data(), held.size());
    if (impl_->format.layout == Layout::NCHW || held.empty()) return held;
    shape[0] = images;
    return relayout(held.data(), held.size(), shape, impl_->format.layout, Layout::NCHW);
}

}  // namespace vkconv
