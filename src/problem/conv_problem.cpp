// Validation and derived sizes of a ConvProblem. Every check names the field and its value.
#include <limits>
#include <sstream>

#include "runtime/checked_math.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/error.hpp"

namespace vkconv {

namespace {

void requireAtLeast(const char* field, int64_t value, int64_t min) {
    if (value < min) throw invalidArgument(field, value, "must be >= " + std::to_string(min));
}

// Sizes beyond this are refused up front: indices in the shaders are 32-bit per chunk, and the
// arithmetic here must not overflow int64.
constexpr int64_t kMaxDim = 1 << 24;

void requireAtMost(const char* field, int64_t value, int64_t max) {
    if (value > max) throw invalidArgument(field, value, "must be <= " + std::to_string(max));
}

// Tensors larger than this many elements are refused: byte offsets (x4, x2 for fp16 copies) and
// the GEMM's row counts then stay far from 2^63 everywhere, and no device holds such a tensor.
constexpr int64_t kMaxElements = int64_t(1) << 50;

// A product of fields that must stay <= max; names the product and its factors when it does not
// (computed without wrapping, so 2^24 * 2^24 * 2^16 is reported, never taken as 0).
void requireProductAtMost(const char* field, std::initializer_list<int64_t> factors, int64_t max,
                          const std::string& what) {
    if (detail::checkedProduct(factors, max)) return;
    std::string value;
    for (int64_t f : factors) value += (value.empty() ? "" : "*") + std::to_string(f);
    throw invalidArgument(field, value, what + " exceeds " + std::to_string(max));
}

}  // namespace

void ConvProblem::validate() const {
    requireAtLeast("batch", batch, 1);
    requireAtLeast("in_channels", inChannels, 1);
    requireAtLeast("height", height, 1);
    requireAtLeast("width", width, 1);
    requireAtLeast("out_channels", outChannels, 1);
    requireAtLeast("kernel_h", kernelH, 1);
    requireAtLeast("kernel_w", kernelW, 1);
    requireAtLeast("stride_h", strideH, 1);
    requireAtLeast("stride_w", strideW, 1);
    requireAtLeast("padding_h", padH, 0);
    requireAtLeast("padding_w", padW, 0);
    requireAtLeast("dilation_h", dilationH, 1);
    requireAtLeast("dilation_w", dilationW, 1);
    requireAtLeast("groups", groups, 1);
    for (auto [field, value] : {std::pair<const char*, int64_t>{"batch", batch},
                                {"in_channels", inChannels}, {"height", height}, {"width", width},
                                {"out_channels", outChannels}, {"kernel_h", kernelH},
                                {"kernel_w", kernelW}, {"stride_h", strideH}, {"stride_w", strideW},
                                {"padding_h", padH}, {"padding_w", padW},
                                {"dilation_h", dilationH}, {"dilation_w", dilationW},
                                {"groups", groups}})
        requireAtMost(field, value, kMaxDim);
    if (inChannels % groups != 0)
        throw invalidArgument("in_channels", inChannels,
                              "must be divisible by groups = " + std::to_string(groups));
    if (outChannels % groups != 0)
        throw invalidArgument("out_channels", outChannels,
                              "must be divisible by groups = " + std::to_string(groups));
    const int64_t extentH = dilationH * (kernelH - 1) + 1, extentW = dilationW * (kernelW - 1) + 1;
    if (extentH > height + 2 * padH)
        throw invalidArgument("kernel_h", kernelH,
                              "dilated kernel height " + std::to_string(extentH) +
                                  " is larger than the padded input height " +
                                  std::to_string(height + 2 * padH));
    if (extentW > width + 2 * padW)
        throw invalidArgument("kernel_w", kernelW,
                              "dilated kernel width " + std::to_string(extentW) +
                                  " is larger than the padded input width " +
                                  std::to_string(width + 2 * padW));
    // Every size product below is checked before any is used: the fields alone pass their caps,
    // but their products can exceed int64 (and would wrap to a small size or to zero).
    const int64_t cPerGroup = inChannels / groups, oh = outHeight(), ow = outWidth();
    requireProductAtMost("batch*in_channels*height*width", {batch, inChannels, height, width},
                         kMaxElements, "the input's element count");
    requireProductAtMost("batch*out_channels*out_height*out_width", {batch, outChannels, oh, ow},
                         kMaxElements, "the output's element count");
    requireProductAtMost("out_channels*(in_channels/groups)*kernel_h*kernel_w",
                         {outChannels, cPerGroup, kernelH, kernelW}, kMaxElements,
                         "the weight's element count");
    // The GEMM's K per group must fit 32-bit indices in the shaders.
    requireProductAtMost("(in_channels/groups)*kernel_h*kernel_w", {cPerGroup, kernelH, kernelW},
                         int64_t(1) << 30, "the GEMM's K per group");
    const auto checkFormat = [](const char* field, const TensorFormat& f) {
        if (f.type != DataType::F32 && f.type != DataType::F16 && f.type != DataType::BF16)
            throw invalidArgument(std::string(field) + ".type", int(f.type), "not a DataType");
        if (f.layout != Layout::NCHW && f.layout != Layout::NHWC)
            throw invalidArgument(std::string(field) + ".layout", int(f.layout), "not a Layout");
    };
    checkFormat("input_format", inputFormat);
    checkFormat("output_format", outputFormat);
    epilogue.validate();
}

namespace {

// (in + 2*pad - dilation*(kernel-1) - 1) / stride + 1 in 128 bits: no field value can overflow
// it; clamped to [0, INT64_MAX] so that an invalid problem gives a size validate() refuses.
int64_t outputSize(int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride) {
    if (stride < 1) return 0;
    const __int128 span = __int128(in) + 2 * __int128(pad) - __int128(dilation) * (__int128(kernel) - 1) - 1;
    if (span < 0) return 0;
    const __int128 size = span / stride + 1;
    return size > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max() : int64_t(size);
}

}  // namespace

int64_t ConvProblem::outHeight() const { return outputSize(height, padH, dilationH, kernelH, strideH); }
int64_t ConvProblem::outWidth() const { return outputSize(width, padW, dilationW, kernelW, strideW); }

int64_t ConvProblem::gemmM() const { return detail::saturatingProduct({batch, outHeight(), outWidth()}); }
int64_t ConvProblem::gemmN() const { return groups > 0 ? outChannels / groups : 0; }
int64_t ConvProblem::gemmK() const {
    return detail::saturatingProduct({groups > 0 ? inChannels / groups : 0, kernelH, kernelW});
}

// Saturating, so that on a problem validate() would refuse they never wrap to a small size (a
// weight vector of that size then never matches); exact on every valid problem.
int64_t ConvProblem::inputElements() const {
    return detail::saturatingProduct({batch, inChannels, height, width});
}
int64_t ConvProblem::weightElements() const {
    return detail::saturatingProduct({outChannels, groups > 0 ? inChannels / groups : 0, kernelH, kernelW});
}
int64_t ConvProblem::outputElements() const {
    return detail::saturatingProduct({batch, outChannels, outHeight(), outWidth()});
}

double ConvProblem::flops() const {
    return 2.0 * double(gemmM()) * double(gemmN()) * double(gemmK()) * double(groups);
}

double ConvProblem::minBytes() const {
    return elementBytes(inputFormat.type) * double(inputElements()) +
           elementBytes(outputFormat.type) * double(outputElements()) +
           4.0 * (double(weightElements()) + (bias ? double(outChannels) : 0.0));
}

std::string ConvProblem::str() const {
    std::ostringstream s;
    s << "N=" << batch << " C=" << inChannels << " H=" << height << " W=" << width
      << " K=" << outChannels << " R=" << kernelH << " S=" << kernelW << " stride=" << strideH
      << "," << strideW << " pad=" << padH << "," << padW << " dilation=" << dilationH << ","
      << dilationW << " groups=" << groups << " bias=" << (bias ? "yes" : "no");
    if (!inputFormat.isDefault()) s << " in=" << inputFormat.str();
    if (!outputFormat.isDefault()) s << " out=" << outputFormat.str();
    if (const std::string e = epilogue.str(); !e.empty()) s << " " << e;
    return s.str();
}

ConvProblem ConvProblem::alexnet1(int64_t batch) {
    ConvProblem p;
    p.batch = batch;
    p.inChannels = 3;
    p.height = p.width = 224;
    p.outChannels = 96;
    p.kernelH = p.kernelW = 11;
    p.strideH = p.strideW = 4;
    p.padH = p.padW = 2;
    p.bias = true;
    return p;
}

}  // namespace vkconv
