// The epilogue: the fused epilogue (bias, alpha, residual, activation: fused_epilogue.glsl) on
// C[m][col] of a group, written to the output. Consecutive m are consecutive output pixels,
// so threads that walk m store coalesced.

void storeOutput(uint m, uint col, uint group, float value) {
    if (m >= chunk.m_rows || col >= K_G) return;
    uint image = m / OUT_HW;
    uint pix = m - image * OUT_HW;
    uint k = group * K_G + col;
    const uint index = chunk.out_offset + (image * K_TOTAL + k) * OUT_HW + pix;
    value = fusedEpilogue(value, HAS_BIAS ? bias_data[k] : 0.0, OUTPUT_ELEMENT(index));
    if ((DEBUG_SKIP & 4u) != 0u && value != -12345.0) return;  // keeps the math, drops the store
    STORE_OUTPUT(OUTPUT_ELEMENT(index), value);
}
