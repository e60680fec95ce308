// The grouped direct kernel's walk (WALK, shaders/conv2d_grouped_direct.comp): each thread walks
// down its column strip of ROWS output rows (VEC_W outputs wide, KB output channels of a group of
// one input channel), reading each input row of the strip once, straight from memory, and
// applying it to the R output rows it meets. Its accumulators are a ring of R output rows, not
// ROWS: output row o lives in slot o % R from the input row that starts it (row o, kernel row 0)
// to the one that completes it (row o + R - 1, kernel row R - 1), then leaves as one store. A
// thread thus does R x S x VEC_W multiply-adds for each window row it reads (196 for a 7x7 depthwise
// thread four outputs wide), where a tile of ROWS rows held whole does R x S x VEC_W x ROWS / (ROWS
// + R - 1) and needs ROWS x VEC_W accumulators; and no workgroup has staging, barriers or a
// short life to pay for. The loop over input rows is unrolled R at a time, so that every slot
// index is a constant. Stride and dilation 1 down a column (src/grouped_direct_config.cpp).

// Loads window row ih (the row of the thread's plane) into x: word SHIFT + q is input column
// iw0 + q, zero outside the image; with vectors, whole 16-byte vectors from column iw0 - SHIFT.
const uint WALK_WORDS = WINDOW_VECS * 4u;  // >= SHIFT + THREAD_IN_W
void loadWalkRow(out float x[WALK_WORDS], uint planeStart, int ih, int iw0, bool vectors) {
    [[unroll]] for (uint q = 0; q < WALK_WORDS; ++q) x[q] = 0.0;
    if ((DEBUG_SKIP & 1u) != 0u || uint(ih) >= IN_H) return;
    const uint rowStart = planeStart + uint(ih) * IN_W;
    if (vectors) {
        [[unroll]] for (uint k = 0; k < WINDOW_VECS; ++k) {
            const int iw = iw0 - int(SHIFT) + 4 * int(k);  // a multiple of 4: wholly inside or outside
            const vec4 v = uint(iw) < IN_W ? input_vec4[(rowStart + uint(iw)) / 4u] : vec4(0.0);
            x[4u * k] = v.x, x[4u * k + 1u] = v.y, x[4u * k + 2u] = v.z, x[4u * k + 3u] = v.w;
        }
    } else {
        [[unroll]] for (uint q = 0; q < THREAD_IN_W; ++q) {
            const int iw = iw0 + int(q);
            x[SHIFT + q] = uint(iw) < IN_W ? input_data[rowStart + uint(iw)] : 0.0;
        }
    }
}

// The ring: [kb][slot][v] (a global array: GLSL passes no arrays sized by specialization constants).
float walkAcc[KB * KERNEL_R * VEC_W];

// Output row oh of channel block kBlock's KB channels, from ring slot `slot`.
void storeWalkRow(uint slot, uint image, uint group, uint kBlock, uint oh,
                  uint ow) {
    const bool vectors = VEC_W % 4u == 0u && OUT_W % 4u == 0u && (chunk.out_offset & 3u) == 0u;
    [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
        const uint kk = kBlock * KB + kb;
        if (kk >= K_G) break;
        const uint rowStart = chunk.out_offset + ((image * K_TOTAL + group * K_G + kk) * OUT_H + oh) * OUT_W;
        const uint o = (kb * KERNEL_R + slot) * VEC_W;
        if (vectors) {
            [[unroll]] for (uint q = 0; q < VEC_W; q += 4u)
                if (ow + q < OUT_W)
                    output_vec4[(rowStart + ow + q) / 4u] = vec4(walkAcc[o + q], walkAcc[o + q + 1u], walkAcc[o + q + 2u], walkAcc[o + q + 3u]);
        } else {
            [[unroll]] for (uint v = 0; v < VEC_W; ++v)
                if (ow + v < OUT_W) output_data[rowStart + ow + v] = walkAcc[o + v];
        }
    }
}

// This thread's strip: output rows oh0.. (ROWS of them, fewer at the plane's foot), columns
// ow.. of group `group` (its weights and bias: group g, the same unless past the last group).
void walkStrip(uint image, uint group, uint kBlock, uint oh0, uint ow, uint imagePlanes, bool vectorLoads) {
    if (group >= GROUPS || oh0 >= OUT_H || ow >= OUT_W) return;  // no barriers to meet
    const uint rows = min(ROWS, OUT_H - oh0);
    const uint inRows = rows + KERNEL_R - 1u;
    const uint planeStart = imagePlanes + group * IN_HW;  // C_G == 1
    const int ih0 = int(oh0) - PAD_H;                    // STRIDE_H == DIL_H == 1
    const int iw0 = int(ow) * STRIDE_W - PAD_W;
    const bool vectors = VEC_READS && IN_W % 4u == 0u && vectorLoads;

    float w[W_VECS * 4u];
    const uint weightBase = (group * K_BLOCKS + kBlock) * W_VECS;  // loadWeights' order, C_G == 1
    [[unroll]] for (uint i = 0; i < W_VECS; ++i) {
        const vec4 v = weight_vec4[weightBase + i];
        w[4u * i] = v.x, w[4u * i + 1u] = v.y, w[4u * i + 2u] = v.z, w[4u * i + 3u] = v.w;
    }
    float bias[KB];
    [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
        const uint kk = kBlock * KB + kb;
        bias[kb] = HAS_BIAS && kk < K_G ? bias_data[group * K_G + kk] : 0.0;
    }

    float x[WALK_WORDS], next[WALK_WORDS];
    loadWalkRow(next, planeStart, ih0, iw0, vectors);
    [[dont_unroll]] for (uint base = 0; base < inRows; base += KERNEL_R) {
        [[unroll]] for (uint a = 0; a < KERNEL_R; ++a) {
            const uint i = base + a;  // the window row; i % R == a
            if (i >= inRows) break;
            // The next row's loads are in flight during this row's arithmetic.
            [[unroll]] for (uint q = 0; q < WALK_WORDS; ++q) x[q] = next[q];
            if (i + 1u < inRows) loadWalkRow(next, planeStart, ih0 + int(i) + 1, iw0, vectors);
            // Output row i starts here (slot a's last row left after input row i - 1).
            [[unroll]] for (uint kb = 0; kb < KB; ++kb)
                [[unroll]] for (uint v = 0; v < VEC_W; ++v) walkAcc[(kb * KERNEL_R + a) * VEC_W + v] = bias[kb];
            [[unroll]] for (uint r = 0; r < ((DEBUG_SKIP & 2u) != 0u ? 0u : KERNEL_R); ++r) {
                if (i < r || i - r >= rows) continue;  // output row i - r is not this strip's
                const uint slot = (a + KERNEL_R - r) % KERNEL_R;
                [[unroll]] for (uint s = 0; s < KERNEL_S; ++s)
                    [[unroll]] for (uint v = 0; v < VEC_W; ++v) {
                        const float xv = x[SHIFT + v * SW + s * DW];
                        [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
                            const uint o = (kb * KERNEL_R + slot) * VEC_W + v;
                            walkAcc[o] = fma(xv, w[kb * TAPS + r * KERNEL_S + s], walkAcc[o]);
                        }
                    }
            }
            // Output row i - (R - 1) is complete: slot (a + 1) % R.
            if (i + 1u < KERNEL_R) continue;
            if ((DEBUG_SKIP & 4u) != 0u && walkAcc[0] != -12345.0) continue;
            storeWalkRow((a + 1u) % KERNEL_R, image, group, kBlock, oh0 + i + 1u - KERNEL_R, ow);
        }
    }
}
