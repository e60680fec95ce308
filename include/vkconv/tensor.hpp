// A dense tensor in device memory: a shape, an element type and (for 4-D tensors) a layout
// (tensor_format.hpp). A 4-D tensor's shape is its logical (N, C, H, W) whatever the layout; its
// elements lie in memory, and upload and download take them, in the layout's order: (N, H, W, C)
// for NHWC. Upload and download go through a staging buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vkconv/context.hpp"
#include "vkconv/tensor_format.hpp"

namespace vkconv {

namespace detail {
struct TensorImpl;
}

class Tensor {
public:
    // An NHWC layout needs a 4-D shape; an f16 tensor needs a device with 16-bit storage buffer
    // access (DeviceInfo::storageBuffer16Bit). Otherwise vkconv::Error naming the field.
    Tensor(const Context& context, std::vector<int64_t> shape, TensorFormat format = {});

    // A tensor in the caller's memory, not owned: the bytes of `shape` in `format` from `offset`
    // of `buffer` (a VkBuffer of the context's device, `bufferBytes` long, made with
    // STORAGE_BUFFER usage, and TRANSFER_SRC / TRANSFER_DST for download / upload and fill). The
    // offset must be a multiple of minStorageBufferOffsetAlignment (and of 4); the buffer must
    // outlive the tensor and every command buffer it is recorded into. An engine's arena: one
    // buffer, many tensors at offsets.
    static Tensor wrap(const Context& context, VkBuffer buffer, uint64_t bufferBytes, uint64_t offset,
                       std::vector<int64_t> shape, TensorFormat format = {});
    // A tensor over this one's bytes from `offset` (the same rules), keeping its memory alive.
    Tensor view(uint64_t offset, std::vector<int64_t> shape, TensorFormat format = {}) const;

    const std::vector<int64_t>& shape() const;
    const TensorFormat& format() const;
    uint64_t elements() const;
    uint64_t bytes() const { return elements() * elementBytes(format().type); }
    VkBuffer buffer() const;  // the memory: bytes() from offset()
    uint64_t offset() const;

    // fp32 values in the layout's order, converted to the tensor's type (f16: round to nearest
    // even; beyond +-65504 they become +-inf).
    void upload(const float* data, uint64_t count);
    void upload(const std::vector<float>& data) { upload(data.data(), data.size()); }
    // 16-bit patterns, copied as they are: an f16 or bf16 tensor's (bf16 has no NumPy type: its
    // raw patterns are how files and arrays carry it).
    void uploadHalf(const uint16_t* data, uint64_t count);
    // The elements as fp32 (exact from f16).
    void download(float* data, uint64_t count) const;
    std::vector<float> download() const;
    // Elements [first, first + count) in memory order only, e.g. one image of a batch.
    void downloadRange(uint64_t first, float* data, uint64_t count) const;
    // The 16-bit patterns of an f16 or bf16 tensor.
    void downloadHalf(uint16_t* data, uint64_t count) const;
    void fill(float value);  // e.g. NaN, to catch outputs a kernel never writes

    // 4-D tensors: fp32 values in logical (N, C, H, W) order whatever the layout (relayout()
    // between them and the layout's order), converted like upload() and download(). A range is
    // whole images: elements [image * C*H*W, ...) in NCHW order.
    void uploadNchw(const float* data, uint64_t count);
    void uploadNchw(const std::vector<float>& data) { uploadNchw(data.data(), data.size()); }
    std::vector<float> downloadNchw() const;
    std::vector<float> downloadNchwImages(int64_t firstImage, int64_t images) const;

    detail::TensorImpl& impl() const { return *impl_; }
    const std::shared_ptr<detail::TensorImpl>& sharedImpl() const { return impl_; }

private:
    explicit Tensor(std::shared_ptr<detail::TensorImpl> impl);
    std::shared_ptr<detail::TensorImpl> impl_;
};

}  // namespace vkconv
