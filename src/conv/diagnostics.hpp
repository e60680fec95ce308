// Diagnostics for vkconv's own tools: a Conv2d built with parts of its kernel left out, to time
// what each part costs (kernel-lab --skip). Not part of the API: the results are wrong.
#pragma once

#include <cstdint>

namespace vkconv::detail {

// The shaders' specialization constant of the mask (conv_problem.glsl).
constexpr uint32_t kDebugSkipConstant = 40;

struct Diagnostics {
    // The shaders' DEBUG_SKIP mask (specialization constant 40): the cooperative-matrix kernels
    // leave out 1 = A's global loads, 2 = the matrix work, 4 = the output stores, 8 = the conv
    // itself (the packed loader: time its packing pass alone), and the packed loader also 16 =
    // the whole epilogue, 32 = the window's shared stores, 64 = the bias; the channels-last and
    // NCHW loaders 16 = B's global loads; the grouped direct kernel 1 = the input loads, 2 = the
    // arithmetic (and its shared-memory reads), 4 = the output stores.
    uint32_t skip = 0;
};

}  // namespace vkconv::detail
