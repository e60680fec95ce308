// How a Conv2d is built beyond its options, for vkconv's own uses (not part of the API):
// diagnostics for its tools (a kernel with parts left out, to time what each part costs:
// kernel-lab --skip; the results are then wrong), and the precise mode's parts (conv/precise.hpp),
// whose packing pass keeps one part of an fp32 input.
#pragma once

#include <cstdint>

namespace vkconv::detail {

// The shaders' specialization constant of the mask (conv_problem.glsl).
constexpr uint32_t kDebugSkipConstant = 40;

struct BuildVariant {
    // The shaders' DEBUG_SKIP mask (specialization constant 40): the cooperative-matrix kernels
    // leave out 1 = A's global loads, 2 = the matrix work, 4 = the output stores, 8 = the conv
    // itself (the packed loader: time its packing pass alone), and the packed loader also 16 =
    // the whole epilogue, 32 = the window's shared stores, 64 = the bias; the channels-last and
    // NCHW loaders 16 = B's global loads; the grouped direct kernel 1 = the input loads, 2 = the
    // arithmetic (and its shared-memory reads), 4 = the output stores.
    uint32_t skip = 0;
    // The packing pass's INPUT_PART (pack_input_nhwc_f16.comp): 0 the input as the fast path
    // rounds it, 1 its fp16 high part (NaN beyond fp16's range), 2 its low part times 2^11.
    uint32_t inputPart = 0;
};

}  // namespace vkconv::detail
