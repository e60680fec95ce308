// The conv problem as the kernels see it: specialization constants for the problem (baked in
// per problem, so that the index arithmetic divides by constants), push constants for the
// chunk a dispatch covers, and the buffers. Shared by every conv2d kernel.
// Constant ids 0..19 belong to the problem (src/kernel_specs.hpp: ProblemSpec), 20.. to the kernel.

layout(constant_id = 0) const uint C_G = 1;       // input channels per group
layout(constant_id = 1) const uint IN_H = 1;
layout(constant_id = 2) const uint IN_W = 1;
layout(constant_id = 3) const uint K_G = 1;       // output channels per group (GEMM N)
layout(constant_id = 4) const uint OUT_H = 1;
layout(constant_id = 5) const uint OUT_W = 1;
layout(constant_id = 6) const uint KERNEL_R = 1;
layout(constant_id = 7) const uint KERNEL_S = 1;
layout(constant_id = 8) const int STRIDE_H = 1;
layout(constant_id = 9) const int STRIDE_W = 1;
layout(constant_id = 10) const int PAD_H = 0;
layout(constant_id = 11) const int PAD_W = 0;
layout(constant_id = 12) const int DIL_H = 1;
layout(constant_id = 13) const int DIL_W = 1;
layout(constant_id = 14) const uint C_TOTAL = 1;  // C = C_G * groups
layout(constant_id = 15) const uint K_TOTAL = 1;  // K = K_G * groups
layout(constant_id = 16) const uint GEMM_K = 1;   // C_G * R * S
layout(constant_id = 17) const uint B_ROWS = 1;   // packed weight rows per group (GEMM_K padded)
layout(constant_id = 18) const uint B_COLS = 1;   // packed weight columns per group (K_G padded)
layout(constant_id = 19) const bool HAS_BIAS = true;

// Diagnostics only (tools/kernel-lab --skip): leave parts of a kernel out to see what they cost.
// The results are then wrong. 1: A's global loads, 2: the matrix work, 4: the output stores;
// the packed kernels also 16: the whole epilogue, 32: the window's shared stores, 64: the bias.
layout(constant_id = 40) const uint DEBUG_SKIP = 0;

// Columns per kernel row in the GEMM's K ordering: kk = (c*R + r)*S_COLS + s. Kernels whose
// threads walk groups of S lanes pad S up to a multiple of the group (src: ProblemSpec.sCols);
// the padding columns read as zero and meet zero weights.
layout(constant_id = 41) const uint KERNEL_S_COLS = 0;  // 0: S
const uint S_COLS = KERNEL_S_COLS == 0 ? KERNEL_S : KERNEL_S_COLS;
const uint RS = KERNEL_R * S_COLS;
const uint IN_HW = IN_H * IN_W;
const uint OUT_HW = OUT_H * OUT_W;

// One dispatch covers a chunk of whole images (so each buffer range stays within
// maxStorageBufferRange) and a range of M tiles and groups (so the grid stays within
// maxComputeWorkGroupCount). src/conv_plan.cpp computes them.
layout(push_constant) uniform ChunkParams {
    uint m_rows;       // GEMM rows in this chunk: images * OUT_H * OUT_W
    uint in_offset;    // element offset of the chunk's first image in the bound input range
    uint out_offset;   // likewise for the output
    uint m_tile_base;  // first M tile of this dispatch
    uint group_base;   // first group of this dispatch
} chunk;

// A kernel that reads binding 0 or writes binding 3 in another type defines VKCONV_OWN_INPUT /
// VKCONV_OWN_OUTPUT and declares it itself (the packed-input kernels).
#ifndef VKCONV_OWN_INPUT
layout(set = 0, binding = 0, std430) readonly buffer InputBuffer { float input_data[]; };
#endif
layout(set = 0, binding = 2, std430) readonly buffer BiasBuffer { float bias_data[]; };
#ifndef VKCONV_OWN_OUTPUT
layout(set = 0, binding = 3, std430) writeonly buffer OutputBuffer { float output_data[]; };
#endif
// binding 1 (packed weights) is declared by each kernel in its own operand type.

#include "fused_epilogue.glsl"
