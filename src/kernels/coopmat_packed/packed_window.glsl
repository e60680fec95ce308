// The packed A iterator's window (conv2d_coopmat_packed_breg.comp): a workgroup's BM GEMM rows
// are consecutive packed pixels of one image, so everything its A fragments read is one
// contiguous window of the packed image, copied into shared memory with 16-byte loads; every A
// fragment is then a strided coopMatLoad from it. Also the epilogue's side of the packed layout:
// packedOutputIndex(), storeAccumulator() and the bias row.
// Include after packed_input.glsl and coopmat_tile.glsl.

layout(set = 0, binding = 0, std430) readonly buffer PackedBuffer { uvec4 packed_data[]; };

// Rows p0 .. p0+BM-1 read packed pixels p0 .. p0+BM-1+(PACK_R-1)*PACK_W+PACK_S-1, the last one's
// first PACK_CK halves: WINDOW_LOAD_WORDS 16-byte words.
const uint WINDOW_LOAD_WORDS = ((BM - 1 + (PACK_R - 1) * PACK_W + PACK_S - 1) * PACK_C + PACK_CK + 7) / 8;
// The window's size, from the host (src/packed_input.cpp): at least WINDOW_LOAD_WORDS, more where
// the kernel also stages its epilogue there. A plain constant rather than a max() of the two in
// a specialization-constant expression: NVIDIA's driver seemed to size shared arrays wrongly from
// such selects (bench/RESULTS.md, 962de81).
layout(constant_id = 59) const uint WINDOW_WORDS = 1;
shared uvec4 sWindow[WINDOW_WORDS];
shared float sBias[BN];  // this workgroup's BN bias values (zero past K_G or without bias)

// The window offset, in halves, of A's fragment rows for K step k (a multiple of MMA_K): tap
// (r, s) starts at packed pixel r*PACK_W + s, its channel j at half j.
uint aTapOffset(uint k) {
    const uint tap = k / PACK_CK, r = tap / PACK_S;
    return (r * PACK_W + tap - r * PACK_S) * PACK_C + (k - tap * PACK_CK);
}

// M tile `tile` is GEMM rows p0 .. p0+BM-1 of packed image `image`.
void splitTile(uint tile, out uint image, out uint p0) {
    image = tile / PACK_TILES;
    p0 = (tile - image * PACK_TILES) * BM;
}

// The first 16-byte word of that tile's window in the packed buffer.
uint windowSource(uint image, uint p0) { return (image * PACK_IMAGE + p0 * PACK_C) / 8; }

uint tileImage, tileP0;

void setTile(uint tile) { splitTile(tile, tileImage, tileP0); }

// The window walk: invocation i copies words i, i + THREADS, i + 2 * THREADS, ... below
// WINDOW_LOAD_WORDS, at most WINDOW_WORDS_PER_INVOCATION of them. windowWord(k, v) gives the
// k-th as v, false past the window's end. loadWindow() walks them in a loop; a kernel that holds
// them in registers (conv2d_coopmat_packed_breg.comp) unrolls over k instead.
const uint WINDOW_WORDS_PER_INVOCATION = (WINDOW_LOAD_WORDS + THREADS - 1) / THREADS;

bool windowWord(uint k, out uint v) {
    v = gl_LocalInvocationIndex + k * THREADS;
    return v < WINDOW_LOAD_WORDS;
}

void loadWindow() {
    if ((DEBUG_SKIP & 32u) != 0u) return;
    const uint base = windowSource(tileImage, tileP0);
    uint v;
    for (uint k = 0; windowWord(k, v); ++k)
        sWindow[v] = (DEBUG_SKIP & 1u) != 0u ? uvec4(v) : packed_data[base + v];
}

// A barrier must follow before storeAccumulator() reads it.
void loadBiasRow() {
    for (uint n = gl_LocalInvocationIndex; n < BN; n += THREADS) {
        const uint col = gl_WorkGroupID.y * BN + n;
        sBias[n] = HAS_BIAS && col < K_G ? bias_data[col] : 0.0;
    }
}

// GEMM row p = tileP0 + mLocal is packed pixel (oh, ow) of the tile's image. False where that is
// no output pixel (a padding column, ow >= OUT_W, or a row past the image); else `index` is its
// NCHW index for output channel `col` (OUTPUT_ELEMENT: fused_epilogue.glsl). Both packed kernels' epilogues go through it.
bool packedOutputIndex(uint mLocal, uint col, out uint index) {
    const uint p = tileP0 + mLocal, oh = p / PACK_W, ow = p - oh * PACK_W;
    if (oh >= OUT_H || ow >= OUT_W) return false;
    index = chunk.out_offset + (tileImage * K_TOTAL + col) * OUT_HW + oh * OUT_W + ow;
    return true;
}

// The epilogue hands over C[mLocal][nLocal]; padding rows and columns past K_G are dropped.
void storeAccumulator(uint mLocal, uint nLocal, float value) {
    const uint col = gl_WorkGroupID.y * BN + nLocal;
    uint index;
    if (!packedOutputIndex(mLocal, col, index) || col >= K_G) return;
    value = fusedEpilogue(value, (DEBUG_SKIP & 64u) == 0u ? sBias[nLocal] : 0.0, OUTPUT_ELEMENT(index));
    if ((DEBUG_SKIP & 4u) != 0u && value != -12345.0) return;  // keeps the math, drops the store
    STORE_OUTPUT(OUTPUT_ELEMENT(index), value);
}
