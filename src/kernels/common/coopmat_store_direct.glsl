// The epilogue without a round trip through shared memory: each lane writes the accumulator
// elements it holds straight to the output, handing each to the kernel's storeAccumulator().
// Include after coopmat_tile.glsl.
//
// Which (row, column) of a fragment a lane's element e is, GL_KHR_cooperative_matrix leaves to the
// implementation. The kernel learns it instead of assuming it: a fragment of the accumulator type
// loaded from sFragmentPositions, whose element (r, c) holds r*MMA_N + c, is laid out like every
// other fragment of that type (component-wise arithmetic between two of them relies on it), so
// its component e names the position of every accumulator's component e.
//
// It replaced staging each fragment through a per-subgroup shared array (coopmat_store_tile.glsl,
// until 2026-11-21): no shared round trip, no subgroup barriers, one fragment of shared memory
// instead of one per subgroup. H200: ResNet-50 conv1 0.72 -> 0.55 ms, VGG-16 conv1_1 0.30 ->
// 0.21, most other layers the same or faster (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the direct epilogue).

shared float sFragmentPositions[MMA_M * MMA_N];

// Fill before the first storeTileDirect(), then barrier().
void initFragmentPositions() {
    for (uint e = gl_LocalInvocationIndex; e < MMA_M * MMA_N; e += THREADS)
        sFragmentPositions[e] = float(e);
}

// Defined by the kernel: writes C[mLocal][nLocal] of this workgroup's tile (bias, bounds, layout).
void storeAccumulator(uint mLocal, uint nLocal, float value);

// Components a lane holds of one accumulator fragment, if the implementation spreads the fragment
// evenly over the subgroup. The main loop needs it as a constant: looping to position.length(),
// NVIDIA's compiler kept the loop and indexed the accumulators dynamically, i.e. in local memory
// (H200, alexnet1: 2-4x slower). The fragment loops need their [[unroll]] for the same reason:
// without it the gather kernel went to local memory too (0.87 -> 1.81 ms).
const int FRAGMENT_LENGTH = int(MMA_M * MMA_N / SUBGROUP);

void storeTileDirect(uint warpM, uint warpN) {
    coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator> position;
    coopMatLoad(position, sFragmentPositions, 0, MMA_N, gl_CooperativeMatrixLayoutRowMajor);
    if (position.length() != FRAGMENT_LENGTH) {
        // Not spread evenly (replicated elements, say): correct, but with the accumulators
        // indexed dynamically. The driver folds this branch away where it is not taken.
        for (uint i = 0; i < FRAG_M; ++i)
            for (uint j = 0; j < FRAG_N; ++j)
                for (int e = 0; e < position.length(); ++e) {
                    const uint at = uint(position[e]);
                    storeAccumulator(warpM * WARP_TILE_M + i * MMA_M + at / MMA_N,
                                     warpN * WARP_TILE_N + j * MMA_N + at % MMA_N, acc[i * FRAG_N + j][e]);
                }
        return;
    }
    [[unroll]] for (uint i = 0; i < FRAG_M; ++i)
        [[unroll]] for (uint j = 0; j < FRAG_N; ++j) {
            const uint m0 = warpM * WARP_TILE_M + i * MMA_M;
            const uint n0 = warpN * WARP_TILE_N + j * MMA_N;
            [[unroll]] for (int e = 0; e < FRAGMENT_LENGTH; ++e) {
                const uint at = uint(position[e]);
                storeAccumulator(m0 + at / MMA_N, n0 + at % MMA_N, acc[i * FRAG_N + j][e]);
            }
        }
}
