// The epilogue: adds the bias and writes C[m][col] of a group to the NCHW output. Consecutive m
// are consecutive output pixels, so threads that walk m store coalesced.

void storeOutput(uint m, uint col, uint group, float value) {
    if (m >= chunk.m_rows || col >= K_G) return;
    uint image = m / OUT_HW;
    uint pix = m - image * OUT_HW;
    uint k = group * K_G + col;
    if (HAS_BIAS) value += bias_data[k];
    if ((DEBUG_SKIP & 4u) != 0u && value != -12345.0) return;  // keeps the math, drops the store
    output_data[chunk.out_offset + (image * K_TOTAL + k) * OUT_HW + pix] = value;
}
