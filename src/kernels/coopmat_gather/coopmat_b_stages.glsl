// B's shared-memory stages ([k][n], 16-bit vec4) and the B iterator over the packed weights:
// per K slice, threads load the next BK x BN slice into registers (loadB) while the subgroups
// multiply the current one, then store it to the next stage (storeB). Include after
// coopmat_tile.glsl.

// Rows are padded by 8 elements (16 bytes): cooperative-matrix loads need 16-byte aligned
// offsets and strides, and the padding spreads rows over the banks.
const uint B_STRIDE4 = (BN + 8) / 4;
shared OPERAND_VEC4 sB[B_GLOBAL ? 1 : STAGES * BK * B_STRIDE4];

// B iterator: the BK x BN slice at row k0 of this tile's packed weights, as vec4s.
const uint B_VECS = B_GLOBAL ? 0 : BK * BN / 4;
const uint B_PER_THREAD = B_GLOBAL ? 1 : (B_VECS + THREADS - 1) / THREADS;

OPERAND_VEC4 bReg[B_PER_THREAD];

void loadB(uint k0, uint bBase) {
    if (B_GLOBAL) return;
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        // Zero-padded to whole tiles: no guard past the matrix, only past this slice.
        bReg[i] = v < B_VECS ? weight_vec[bBase + (k0 + k) * (B_COLS / 4) + n4] : OPERAND_VEC4(0);
    }
}

void storeB(uint stage) {
    if (B_GLOBAL) return;
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        if (v < B_VECS) sB[(stage * BK + k) * B_STRIDE4 + n4] = bReg[i];
    }
}

uint bTileBase(uint group, uint nTile) { return (group * B_ROWS * B_COLS + nTile * BN) / 4; }

