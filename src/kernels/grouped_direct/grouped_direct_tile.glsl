// The grouped direct kernel's loads (conv2d_grouped_direct.comp): one step's input tiles
// (GB groups' input channel c, each TILE_WORDS words, halo included) from memory into
// registers (fetchStep), so that they are in flight while the previous step's arithmetic runs,
// then into shared memory (storeStep). Two ways:
// - by rows: each word of the shared tiles is one load, zero outside the image; 16-byte loads
//   where the input rows are whole vectors and every tile starts on one (ROW_VECTORS);
// - by planes, where one tile covers a whole output plane and rows are not whole vectors (a
//   14 x 14 plane): a group's plane is one contiguous run of memory, loaded as 16-byte vectors
//   where planes are whole vectors, each word stored where it belongs in the tile. These loads
//   write only the image's words; zeroSharedTiles zeroes the rest (the padding) once.

// (Written without && and ||: glslang turns those into branches, which a global constant that
// uses them cannot reference.)
const bool ROW_VECTORS = IN_W % 4u + (TILES_W == 1u ? 0u : (TILE_W * SW) % 4u) == 0u;
const bool PLANE_LOADS = TILES_PER_IMAGE == 1u ? !ROW_VECTORS : false;
const bool VECTORS_POSSIBLE = PLANE_LOADS ? IN_HW % 4u == 0u : ROW_VECTORS;
// The words (scalar loads) and vectors (16-byte loads) of one step.
const uint STEP_LOADS = PLANE_LOADS ? GB * IN_HW : STEP_WORDS;
const uint LOAD_STEPS = (STEP_LOADS + THREADS - 1u) / THREADS;
const uint PLANE_VECS = IN_HW / 4u;
const uint STEP_LOADS4 = VECTORS_POSSIBLE ? STEP_LOADS / 4u : 0u;
const uint LOAD_STEPS4 = STEP_LOADS4 == 0u ? 1u : (STEP_LOADS4 + THREADS - 1u) / THREADS;  // never an empty array

// One step's loads on their way from memory to shared memory.
float staged[LOAD_STEPS];
vec4 staged4[LOAD_STEPS4];

// Issues the loads of step t (input channel t % C_G of groups firstGroup + (t / C_G)*GB + p) of
// the image whose channels start at imagePlanes; the tiles' top-left input (shared column 0) is
// (ih0, iwA). Past the last group and outside the image: zero.
void fetchStep(uint t, uint imagePlanes, uint firstGroup, int ih0, int iwA, bool vectors) {
    if ((DEBUG_SKIP & 1u) != 0u) {  // diagnostics: the step's loads left out
        [[unroll]] for (uint i = 0; i < LOAD_STEPS4; ++i) staged4[i] = vec4(0.0);
        [[unroll]] for (uint i = 0; i < LOAD_STEPS; ++i) staged[i] = 0.0;
        return;
    }
    const uint step = t / C_G, c = t - step * C_G;
    const uint group0 = firstGroup + step * GB;
    if (VECTORS_POSSIBLE && vectors) {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS4; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;  // 16-byte vector e of the step
            if (PLANE_LOADS) {
                const uint p = e / PLANE_VECS;
                const bool inside = e < STEP_LOADS4 && group0 + p < GROUPS;
                const uint start = imagePlanes + ((group0 + p) * C_G + c) * IN_HW;
                staged4[i] = inside ? input_vec4[start / 4u + (e - p * PLANE_VECS)] : vec4(0.0);
            } else {
                const uint p = e / (TILE_WORDS / 4u);
                const uint inTile = e - p * (TILE_WORDS / 4u);
                const uint row = inTile / (ROW_WORDS / 4u);
                const int ih = ih0 + int(row);
                const int iw = iwA + 4 * int(inTile - row * (ROW_WORDS / 4u));
                const bool inside =
                    e < STEP_LOADS4 && group0 + p < GROUPS && uint(ih) < IN_H && uint(iw) < IN_W;
                const uint start = imagePlanes + ((group0 + p) * C_G + c) * IN_HW;
                staged4[i] = inside ? input_vec4[(start + uint(ih) * IN_W + uint(iw)) / 4u] : vec4(0.0);
            }
        }
    } else {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            if (PLANE_LOADS) {
                const uint p = e / IN_HW;
                const bool inside = e < STEP_LOADS && group0 + p < GROUPS;
                const uint start = imagePlanes + ((group0 + p) * C_G + c) * IN_HW;
                staged[i] = inside ? INPUT_AT(start + (e - p * IN_HW)) : 0.0;
            } else {
                const uint p = e / TILE_WORDS;
                const uint inTile = e - p * TILE_WORDS;
                const uint row = inTile / ROW_WORDS;
                const int ih = ih0 + int(row);
                const int iw = iwA + int(inTile - row * ROW_WORDS);
                const bool inside = e < STEP_LOADS && group0 + p < GROUPS && uint(ih) < IN_H && uint(iw) < IN_W;
                const uint start = imagePlanes + ((group0 + p) * C_G + c) * IN_HW;
                staged[i] = inside ? INPUT_AT(start + uint(ih) * IN_W + uint(iw)) : 0.0;
            }
        }
    }
}

// Word `pos` of plane p's image lands in shared memory here (whole-plane loads: the tile's
// top-left input is (-PAD_H, -PAD_W - SHIFT)), or past STEP_WORDS where the tile does not use it.
uint planeWord(uint p, uint pos) {
    const uint ih = pos / IN_W, iw = pos - (pos / IN_W) * IN_W;
    const uint row = ih + uint(PAD_H), col = iw + uint(PAD_W) + SHIFT;
    return row < IN_TILE_H && col < SHIFT + IN_TILE_W ? p * TILE_WORDS + row * ROW_WORDS + col : STEP_WORDS;
}

void storeWord(uint base, uint word, float value) {
    if (word < STEP_WORDS) sIn[(base + word) / 4u][(base + word) % 4u] = value;
}

// Stores the fetched step into the shared buffer starting at word `base`.
void storeStep(uint base, bool vectors) {
    if (VECTORS_POSSIBLE && vectors) {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS4; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            if (e >= STEP_LOADS4) continue;
            if (PLANE_LOADS) {
                const uint p = e / PLANE_VECS;
                const uint pos = 4u * (e - p * PLANE_VECS);
                [[unroll]] for (uint k = 0; k < 4u; ++k) storeWord(base, planeWord(p, pos + k), staged4[i][k]);
            } else {
                sIn[base / 4u + e] = staged4[i];
            }
        }
    } else {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            if (e >= STEP_LOADS) continue;
            if (PLANE_LOADS) {
                const uint p = e / IN_HW;
                storeWord(base, planeWord(p, e - p * IN_HW), staged[i]);
            } else {
                storeWord(base, e, staged[i]);
            }
        }
    }
}

// Whole-plane loads leave the padding (and the tiles' unused words) alone: zero every buffer
// once, before any step's store (a barrier apart: other threads store into the same vectors).
void zeroSharedTiles() {
    [[dont_unroll]] for (uint e = gl_LocalInvocationIndex; e < BUFFERS * STEP_WORDS / 4u; e += THREADS) sIn[e] = vec4(0.0);
    barrier();
}
