// The packed input (src/packed_input.cpp computes its geometry): the fp32 NCHW input rewritten,
// once per run, as fp16 NHWC images with the padding written as zeros and the stride folded
// into the channels (space-to-depth: packed channel j = (c*STRIDE_H + dy)*STRIDE_W + dx holds
// input pixel (y*STRIDE_H + dy - PAD_H, x*STRIDE_W + dx - PAD_W)). The convolution becomes a
// stride-1 one with a PACK_R x PACK_S kernel, and for output pixel p = oh*PACK_W + ow of an
// image (columns ow >= OUT_W are computed and thrown away) the GEMM row's K run of tap (r, s)
// is the first PACK_CK halves of packed pixel p + r*PACK_W + s: A is a strided matrix in memory,
// loaded with coopMatLoad, with no index arithmetic per element. The GEMM K is tap-major:
// k = (r*PACK_S + s)*PACK_CK + j.

layout(constant_id = 50) const uint PACK_R = 1;      // ceil(KERNEL_R / STRIDE_H)
layout(constant_id = 51) const uint PACK_S = 1;      // ceil(KERNEL_S / STRIDE_W)
layout(constant_id = 52) const uint PACK_C = 8;      // halves per packed pixel: >= PACK_CK, 16-byte units
layout(constant_id = 53) const uint PACK_H = 1;      // OUT_H + PACK_R - 1
layout(constant_id = 54) const uint PACK_W = 1;      // OUT_W + PACK_S - 1
layout(constant_id = 55) const uint PACK_CK = 16;    // C*STRIDE_H*STRIDE_W padded to the MMA's K
const uint PACK_TAPS_K = PACK_R * PACK_S * PACK_CK;  // the GEMM K before padding to BK
layout(constant_id = 56) const uint PACK_TILES = 1;  // M tiles per image: ceil(OUT_H*PACK_W / BM)
const uint PACK_IMAGE = PACK_H * PACK_W * PACK_C;    // halves per packed image
