// The A iterator of the implicit GEMM: row m of A is output pixel (image, oh, ow) of the chunk,
// column kk is (c, r, s) of its receptive field. Padding reads as zero. A thread resolves its row
// once per tile (GatherRow) and then walks columns.

struct GatherRow {
    uint base;  // input element offset of (image, group's first channel, 0, 0)
    int ih0;    // top-left input coordinate of the receptive field (may be negative)
    int iw0;
    bool valid; // m < chunk.m_rows
};

GatherRow gatherRow(uint m, uint group) {
    GatherRow row;
    row.valid = m < chunk.m_rows;
    uint mm = row.valid ? m : 0u;
    uint image = mm / OUT_HW;
    uint pix = mm - image * OUT_HW;
    uint oh = pix / OUT_W;
    uint ow = pix - oh * OUT_W;
    row.base = chunk.in_offset + (image * C_TOTAL + group * C_G) * IN_HW;
    row.ih0 = int(oh) * STRIDE_H - PAD_H;
    row.iw0 = int(ow) * STRIDE_W - PAD_W;
    return row;
}

// A[m][kk] as fp32; zero outside the input, past GEMM_K, or past the chunk's rows.
float gatherA(GatherRow row, uint kk) {
    uint c = kk / RS;
    uint rs = kk - c * RS;
    uint r = rs / S_COLS;
    uint s = rs - r * S_COLS;
    int ih = row.ih0 + int(r) * DIL_H;
    int iw = row.iw0 + int(s) * DIL_W;
    bool inside = row.valid && kk < GEMM_K && s < KERNEL_S && uint(ih) < IN_H && uint(iw) < IN_W;
    return inside ? input_data[row.base + c * IN_HW + uint(ih) * IN_W + uint(iw)] : 0.0;
}
