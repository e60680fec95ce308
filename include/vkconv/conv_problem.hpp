// The description of one conv2d forward: sizes, stride, padding, dilation, groups, bias, the
// element type and layout of the input and the output (the residual has the output's:
// tensor_format.hpp), and the fused epilogue (activation, scales, residual: epilogue.hpp). The
// bias is K fp32 values; the weights' type and layout are the host data's (Conv2d's WeightData).
// The result is what PyTorch's torch.nn.functional.conv2d returns for the same arguments, then
// the epilogue, rounded to the output's type.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "vkconv/epilogue.hpp"
#include "vkconv/tensor_format.hpp"

namespace vkconv {

struct ConvProblem {
    int64_t batch = 1;        // N
    int64_t inChannels = 1;   // C
    int64_t height = 1;       // H
    int64_t width = 1;        // W
    int64_t outChannels = 1;  // K
    int64_t kernelH = 1;      // R
    int64_t kernelW = 1;      // S
    int64_t strideH = 1, strideW = 1;
    int64_t padH = 0, padW = 0;
    int64_t dilationH = 1, dilationW = 1;
    int64_t groups = 1;
    bool bias = true;
    TensorFormat inputFormat;   // default f32/nchw
    TensorFormat outputFormat;  // also the residual's
    Epilogue epilogue;  // the default: the bias add alone

    // Throws vkconv::Error (InvalidArgument) naming the first bad field and its value.
    void validate() const;

    int64_t outHeight() const;  // (H + 2*padH - dilationH*(R-1) - 1) / strideH + 1
    int64_t outWidth() const;
    bool strided() const { return strideH > 1 || strideW > 1; }
    // Logical (N, C, H, W) shapes, whatever the layout.
    std::array<int64_t, 4> inputShape() const { return {batch, inChannels, height, width}; }
    std::array<int64_t, 4> weightShape() const {
        return {outChannels, groups > 0 ? inChannels / groups : 0, kernelH, kernelW};
    }
    std::array<int64_t, 4> outputShape() const {
        return {batch, outChannels, outHeight(), outWidth()};
    }
    // Sizes below are exact for a problem validate() accepts; on one it refuses they never
    // wrap or trap (products saturate at INT64_MAX, a non-positive stride or groups gives 0).
    int64_t inputElements() const;
    int64_t weightElements() const;
    int64_t outputElements() const;

    // Implicit-GEMM view, per group: M = N*OH*OW, N = K/groups, K = (C/groups)*R*S.
    int64_t gemmM() const;
    int64_t gemmN() const;
    int64_t gemmK() const;
    double flops() const;  // 2*M*N*K*groups multiply-adds (bias not counted)
    // Input and output in their types, fp32 weights and bias, each moved once.
    double minBytes() const;

    // "N=256 C=3 H=224 W=224 K=96 R=11 S=11 stride=4,4 pad=2,2 ...", then the formats and the
    // epilogue's words where they are not the default ("... bias=yes in=f16/nhwc out=f16/nhwc
    // relu residual").
    std::string str() const;

    // The headline benchmark: the first layer of AlexNet.
    static ConvProblem alexnet1(int64_t batch = 256);
};

}  // namespace vkconv
