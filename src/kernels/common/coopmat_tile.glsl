// The cooperative-matrix workgroup tile shared by the coopmat kernels: kernel constants, the
// packed weights, the accumulators and the epilogue. A kernel that includes this provides its A
// and B iterators (coopmat_stages.glsl holds the staged ones) and its epilogue
// (coopmat_store_direct.glsl writes the accumulators straight to the output).
//
// A workgroup of WARPS_M x WARPS_N subgroups computes a BM x BN tile of C for one group; each
// subgroup a (BM/WARPS_M) x (BN/WARPS_N) warp tile of MMA_M x MMA_N accumulator fragments.

layout(constant_id = 20) const uint BM = 128;
layout(constant_id = 21) const uint BN = 64;
layout(constant_id = 22) const uint BK = 32;
layout(constant_id = 23) const uint WARPS_M = 4;
layout(constant_id = 24) const uint WARPS_N = 2;
layout(constant_id = 25) const uint MMA_M = 16;
layout(constant_id = 26) const uint MMA_N = 16;
layout(constant_id = 27) const uint MMA_K = 16;
layout(constant_id = 28) const uint STAGES = 2;
layout(constant_id = 29) const uint SUBGROUP = 32;
layout(constant_id = 30) const uint THREADS = 256;  // WARPS_M * WARPS_N * SUBGROUP
layout(local_size_x_id = 30) in;
// B_GLOBAL: B fragments are loaded straight from the packed weights (which stay in the caches:
// every workgroup reads the same few KB) instead of being staged through shared memory. That
// frees shared memory and barriers, and lets BK cover the whole GEMM K of small-K layers.
layout(constant_id = 33) const bool B_GLOBAL = false;

#define OPERAND float16_t
#define OPERAND_VEC4 f16vec4

// Packed weights: per group a B_ROWS x B_COLS row-major matrix in the operand type, read 4 at a time.
// A kernel that reads them in another type defines VKCONV_OWN_WEIGHTS and declares binding 1 itself.
#ifndef VKCONV_OWN_WEIGHTS
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { OPERAND_VEC4 weight_vec[]; };
#endif

const uint WARP_TILE_M = BM / WARPS_M;
const uint WARP_TILE_N = BN / WARPS_N;
const uint FRAG_M = WARP_TILE_M / MMA_M;
const uint FRAG_N = WARP_TILE_N / MMA_N;

coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator> acc[FRAG_M * FRAG_N];

void clearAccumulators() {
    for (uint i = 0; i < FRAG_M * FRAG_N; ++i)
        acc[i] = coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator>(0.0);
}
