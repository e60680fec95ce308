// The device's achievable memory bandwidth, measured as a device-local to device-local copy by
// a compute shader (16-byte words, grid-stride): the floor a memory-bound kernel is compared
// against. (vkCmdCopyBuffer is not: on the H200 it reached 0.85 TB/s, shaders 4 TB/s; on
// lavapipe the shader copy is the slower one.) A copy of B bytes moves
// 2*B bytes (each byte is read once and written once), the same counting ConvProblem::minBytes
// uses for a convolution's input (read) and output (written).
#pragma once

#include <cstdint>
#include <vector>

#include "vkconv/context.hpp"

namespace vkconv {

struct CopyBandwidth {
    uint64_t bytes = 0;  // size of one copy (the source buffer; the destination is as large)
    int iterations = 0;
    double medianMs = 0, minMs = 0, maxMs = 0;
    double p10Ms = 0, p90Ms = 0;
    double spread = 0;        // (p90 - p10) / median of the copy times
    double gbps = 0;          // 2 * bytes / median time, in 1e9 bytes per second
    double peakGbps = 0;      // 2 * bytes / fastest time
    std::vector<double> ms;   // each timed copy, in submission order
};

// Times `iterations` copies of `bytes` bytes between two device-local buffers (after `warmup`
// untimed ones), each between timestamp queries and separated by barriers so they do not
// overlap. Throws vkconv::Error: InvalidArgument for bytes == 0, warmup < 0 or iterations < 1;
// Unsupported when the device has no compute-queue timestamps or cannot allocate the buffers.
CopyBandwidth measureCopyBandwidth(const Context& context, uint64_t bytes, int warmup,
                                   int iterations);

}  // namespace vkconv
