// Precision::Precise: fp32 accuracy from the fp16 matrix units, after Ootomo and Yokota
// ("Recovering single precision accuracy from Tensor Cores while surpassing the FP32
// theoretical peak performance", 2022). Each fp32 operand is split into an fp16 high part and
// a low part scaled by 2^11 (so that it stays a normal fp16 number): x = x_h + 2^-11 x_l,
// W = W_h + 2^-11 W_l. Then
//   conv(x, W) = conv(x_h, W_h) + 2^-11 (conv(x_h, W_l) + conv(x_l, W_h))   (+ 2^-22 x_l W_l, dropped)
// each product on the matrix units with fp32 accumulation. Here the three products are three
// passes of the channels-last kernel, chained through the fused epilogue:
//   y  = alpha conv(x_h, W_h) + bias + beta z
//   y  = alpha 2^-11 conv(x_h, W_l) + y          (the output as its own residual)
//   y  = act(alpha 2^-11 conv(x_l, W_h) + y)
// the split of x done by each pass's packing pass (INPUT_PART), of W on the host. An fp16
// input has no low part: two passes. Outside what it serves (an fp16 output, whose rounding
// bounds the error anyway; groups; no channels-last configuration; weights beyond fp16's range)
// the Conv2d falls back, and describe() says so. Inputs beyond +-65504 give NaN outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vkconv/conv2d.hpp"

namespace vkconv::detail {

struct PrecisePlan {
    std::vector<Conv2d> parts;  // x_h W_h, x_h W_l, x_l W_h (the last absent for an fp16 input)
    std::string describe;       // "precise: 3 passes of ...": Conv2d::describe()'s
};

// The parts, or null with `why` (then the caller falls back: fp32, or fast for an fp16 output).
std::unique_ptr<PrecisePlan> planPrecise(const Context& context, const ConvProblem& problem, const float* weight,
                                         const float* bias, const ConvOptions& options, std::string& why);

// Records the parts: the caller's barrier before, a compute barrier between them.
void recordPrecise(const PrecisePlan& plan, VkCommandBuffer cmd, const Tensor& input, Tensor& output,
                   const Tensor* residual);

}  // namespace vkconv::detail
