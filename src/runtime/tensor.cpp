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
    if (t.format.type != DataType::F16)
        throw invalidArgument(what, toString(t.format.type), "the tensor is not f16; use upload/download (fp32 values)");
}

}  // namespace

Tensor::Tensor(const Context& context, std::vector<int64_t> shape, TensorFormat format)
    : impl_(std::make_shared<detail::TensorImpl>()) {
    if (shape.empty()) throw invalidArgument("shape", "[]", "a tensor needs at least one dimension");
    if (format.type != DataType::F32 && format.type != DataType::F16)
        throw invalidArgument("format.type", int(format.type), "not a DataType");
    if (format.layout != Layout::NCHW && format.layout != Layout::NHWC)
        throw invalidArgument("format.layout", int(format.layout), "not a Layout");
    if (format.layout == Layout::NHWC && shape.size() != 4)
        throw invalidArgument("format.layout", "nhwc",
                              "needs a 4-D shape (N, C, H, W); this one has " + std::to_string(shape.size()) +
                                  " dimension(s)");
    const DeviceInfo& device = context.device();
    if (format.type == DataType::F16 && !device.storageBuffer16Bit)
        throw Error(Error::Kind::Unsupported,
                    "format.type = f16: the device has no storageBuffer16BitAccess, which the kernels "
                    "need to read and write fp16 tensors");
    // Elements and bytes both checked: 2^62 elements would be a 0-byte buffer after x4.
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
    impl_->buffer = detail::Buffer(*impl_->context, bytes, detail::Buffer::Kind::DeviceLocal);
}

const std::vector<int64_t>& Tensor::shape() const { return impl_->shape; }
const TensorFormat& Tensor::format() const { return impl_->format; }
uint64_t Tensor::elements() const { return impl_->elements; }

void Tensor::upload(const float* data, uint64_t count) {
    checkCount("upload count", count, impl_->elements);
    if (impl_->format.type == DataType::F32) {
        detail::uploadToBuffer(*impl_->context, impl_->buffer, 0, data, count * sizeof(float));
        return;
    }
    std::vector<uint16_t> half(count);
    for (uint64_t i = 0; i < count; ++i) half[i] = halfFromFloat(data[i]);
    detail::uploadToBuffer(*impl_->context, impl_->buffer, 0, half.data(), count * 2);
}

void Tensor::uploadHalf(const uint16_t* data, uint64_t count) {
    requireHalf(*impl_, "uploadHalf: format.type");
    checkCount("upload count", count, impl_->elements);
    detail::uploadToBuffer(*impl_->context, impl_->buffer, 0, data, count * 2);
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
        detail::downloadFromBuffer(*impl_->context, impl_->buffer, first * sizeof(float), data, count * sizeof(float));
        return;
    }
    std::vector<uint16_t> half(count);
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, first * 2, half.data(), count * 2);
    for (uint64_t i = 0; i < count; ++i) data[i] = floatFromHalf(half[i]);
}

std::vector<float> Tensor::download() const {
    std::vector<float> out(impl_->elements);
    download(out.data(), out.size());
    return out;
}

void Tensor::downloadHalf(uint16_t* data, uint64_t count) const {
    requireHalf(*impl_, "downloadHalf: format.type");
    checkCount("download count", count, impl_->elements);
    detail::downloadFromBuffer(*impl_->context, impl_->buffer, 0, data, count * 2);
}

void Tensor::fill(float value) {
    uint32_t word;
    if (impl_->format.type == DataType::F16) {
        const uint32_t half = halfFromFloat(value);
        word = half | half << 16;
    } else {
        std::memcpy(&word, &value, sizeof word);
    }
    detail::fillBuffer(*impl_->context, impl_->buffer, word);
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
