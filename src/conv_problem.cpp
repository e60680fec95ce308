// Validation and derived sizes of a ConvProblem. Every check names the field and its value.
#include <sstream>

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
    // The GEMM sizes per chunk must fit 32-bit indices in the shaders.
    const int64_t k = gemmK();
    if (k > (int64_t(1) << 30)) throw invalidArgument("in_channels*kernel_h*kernel_w", k, "too large");
    if (inputElements() > (int64_t(1) << 50) || outputElements() > (int64_t(1) << 50))
        throw invalidArgument("problem size", str(), "tensors too large");
}

int64_t ConvProblem::outHeight() const {
    return (height + 2 * padH - dilationH * (kernelH - 1) - 1) / strideH + 1;
}

int64_t ConvProblem::outWidth() const {
    return (width + 2 * padW - dilationW * (kernelW - 1) - 1) / strideW + 1;
}

int64_t ConvProblem::inputElements() const { return batch * inChannels * height * width; }
int64_t ConvProblem::weightElements() const {
    return outChannels * (inChannels / groups) * kernelH * kernelW;
}
int64_t ConvProblem::outputElements() const {
    return batch * outChannels * outHeight() * outWidth();
}

double ConvProblem::flops() const {
    return 2.0 * double(gemmM()) * double(gemmN()) * double(gemmK()) * double(groups);
}

double ConvProblem::minBytes() const {
    return 4.0 * (double(inputElements()) + double(weightElements()) + double(outputElements()) +
                  (bias ? double(outChannels) : 0.0));
}

std::string ConvProblem::str() const {
    std::ostringstream s;
    s << "N=" << batch << " C=" << inChannels << " H=" << height << " W=" << width
      << " K=" << outChannels << " R=" << kernelH << " S=" << kernelW << " stride=" << strideH
      << "," << strideW << " pad=" << padH << "," << padW << " dilation=" << dilationH << ","
      << dilationW << " groups=" << groups << " bias=" << (bias ? "yes" : "no");
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
