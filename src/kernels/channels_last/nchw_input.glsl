// The A loader of conv2d_channels_last.comp compiled with VKCONV_NCHW_INPUT (conv2d_coopmat_nchw_f16):
// a convolution without padding (groups 1, any kernel, stride and dilation) reads A straight from
// the fp32 NCHW input, with no packing pass. There A[m][(r, s, c)] = x[image][c][oh*SH + r*DH]
// [ow*SW + s*DW]: a K slice is BK channels at one tap, in the channels-last kernel's K order
// (tap-major, or with TAPS_INNER the taps inside each channel slice), and every tap lies inside
// the image (no padding). Its use is 1x1 kernels and kernels no larger than their stride (a
// ViT-style patch embedding, ConvNeXt's 2x2 downsamples), whose windows share no input, so that
// a packing pass would only move each input once more. For a 1x1 at stride 1 the pixels of one
// channel are consecutive addresses, so the tile is column-major in memory. Each load unit is one
// channel and 4 rows of the tile: for a 1x1 at stride 1 with OUT_HW a multiple of 4, 4 consecutive
// rows m..m+3, one 16-byte load (a run of 4 never straddles two images); elsewhere 4 scalar loads
// of rows a quarter tile apart, so that each load instruction of a subgroup reads consecutive
// pixels (consecutive rows per thread would spread one instruction over 4x the cache lines). The fp32 values stay in registers through
// the kernel's two-slice prefetch and become fp16 only on their way to shared memory, so the
// conversion never waits on a load. The shared stage is [k][m] (m contiguous), read as
// column-major A fragments. Channels past C read as zero (they meet B's zero padding rows; an
// unmasked read there would be the next image's data, whose inf or NaN times 0 is NaN).
//
// Defines what the kernel's pipeline calls: A_REG, A_PER_THREAD, initRows(), loadA(), storeA(),
// and the shared stage sA with its row length A_ROW_VEC4.

// Constant id 61, set by the host (src/nchw_input.cpp): 16-byte loads. Only for a 1x1 at stride 1
// with OUT_HW % 4 == 0, so that every run of 4 pixels is one aligned vector of one channel plane
// (the chunk's in_offset is then a multiple of 4 too: chunks start at whole images of C*HW*4
// bytes, a multiple of 16, and bound ranges at a power-of-two alignment).
layout(constant_id = 61) const bool NCHW_VEC4 = false;

// The input again, as vectors, for the 16-byte loads (the same binding as input_data).
layout(set = 0, binding = 0, std430) readonly buffer InputVec4 { vec4 input_vec4[]; };

#define A_REG vec4
const uint QUADS_M = BM / 4;  // runs of 4 rows in the tile
const uint A_UNITS = BK * QUADS_M;
const uint A_PER_THREAD = (A_UNITS + THREADS - 1) / THREADS;
// Rows (one channel each) padded by 16 bytes: cooperative-matrix loads need 16-byte aligned
// offsets and strides, and the 8 columns of a fragment load then start in 8 different bank groups.
const uint A_ROW_VEC4 = QUADS_M + 2;
shared f16vec4 sA[2 * BK * A_ROW_VEC4];  // [stage][k][m]

const uint NO_PIXEL = 0xffffffffu;
// Per load unit: the input offset of channel 0 of each of its 4 pixels (of the first only, for
// vector loads), NO_PIXEL past the chunk's rows. A unit keeps its channel within the slice and its
// 4 rows for every slice: rows q*4 + j of the tile for vector loads, q + j*QUADS_M for scalar ones.
uint aPixel[A_PER_THREAD * 4];
uint tileM0, nTile;

void initRows() {
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint k = v / QUADS_M, q = v - k * QUADS_M;
        // All 4 for vector loads too (only the first is read): a constant trip count unrolls.
        [[unroll]] for (uint j = 0; j < 4; ++j) {
            const uint m = tileM0 + (NCHW_VEC4 ? q * 4 + j : q + j * QUADS_M);
            const uint image = m / OUT_HW, pix = m - image * OUT_HW;
            const uint oh = pix / OUT_W, ow = pix - oh * OUT_W;
            // For vector loads (stride 1) the output pixel is the input pixel.
            const uint inPix = NCHW_VEC4 ? pix : oh * uint(STRIDE_H) * IN_W + ow * uint(STRIDE_W);
            aPixel[i * 4 + j] = m < chunk.m_rows ? chunk.in_offset + (image * C_TOTAL + k) * IN_HW + inPix : NO_PIXEL;
        }
    }
}

void loadA(uint t, out vec4 a[A_PER_THREAD]) {
    // Slice t's tap and channel slice, as the channels-last loader walks them (nhwc_input.glsl's
    // K order; a 1x1 has one tap, so slice t is channels t*BK..).
    const uint taps = KERNEL_R * KERNEL_S, slice = t / taps;
    const uint tap = TAPS_INNER ? t - slice * taps : t / TAP_SLICES;
    const uint channelSlice = TAPS_INNER ? slice : t - tap * TAP_SLICES;
    const uint r = tap / KERNEL_S, s = tap - r * KERNEL_S;
    const uint c0 = channelSlice * BK;
    const uint offset = c0 * IN_HW + r * uint(DIL_H) * IN_W + s * uint(DIL_W);
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const bool channel = v < A_UNITS && c0 + v / QUADS_M < C_TOTAL && (DEBUG_SKIP & 1u) == 0u;
        if (NCHW_VEC4) {
            const uint at = aPixel[i * 4];
            a[i] = channel && at != NO_PIXEL ? input_vec4[(at + offset) / 4] : vec4(0.0);
        } else {
            [[unroll]] for (uint j = 0; j < 4; ++j) {
                const uint at = aPixel[i * 4 + j];
                a[i][j] = channel && at != NO_PIXEL ? input_data[at + offset] : 0.0;
            }
        }
    }
}

void storeA(uint stage, vec4 a[A_PER_THREAD]) {
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint k = v / QUADS_M, q = v - k * QUADS_M, row = (stage * BK + k) * A_ROW_VEC4;
        if (v >= A_UNITS) continue;
        if (NCHW_VEC4) {
            sA[row + q] = f16vec4(a[i]);
        } else {
            [[unroll]] for (uint j = 0; j < 4; ++j) {
                const uint m = q + j * QUADS_M;
                sA[row + m / 4][m % 4] = float16_t(a[i][j]);
            }
        }
    }
}
