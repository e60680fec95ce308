#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Packs a chunk of the fp32 NCHW input into the channel-sliced fp16 layout of nhwc_input.glsl,
// for conv2d_coopmat_nhwc.comp. A transpose through shared memory: each workgroup reads a tile of
// 64 channels x 32 pixels, each channel's pixels one contiguous run, and writes the tile's 32
// pixels x 64 channels as 16-byte words, each pixel's slice of channels one contiguous run. (One
// thread a word straight from the planes wrote 16 bytes every NHWC_C halves: on the H200 that
// pass alone took about as long as ResNet-50's 1x1 256->128 conv.) Binding 0 is the chunk's
// input, binding 3 the packed buffer.
//
// Each thread reads four pixels of two neighbouring channels (tilePixel: 16-byte loads where an
// image's plane is a whole number of 4-pixel words), converts them to four half pairs, and puts
// each pair where the pixel's 16-byte output word will read it: the shared tile is already the
// output's layout, so the second phase copies one 16-byte shared word to one 16-byte output word.
//
// SUBSAMPLE (a strided 1x1 convolution without padding, src/nhwc_input.cpp): only the pixels the
// conv reads are packed, one in STRIDE_H x STRIDE_W, into an image of the output's size, on which
// the conv kernel then runs at stride 1.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "nhwc_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer InputQuads { vec4 input_quads[]; };
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

// One group of 4 pixels and two channels a thread. Larger tiles packed slower on the H200
// (bench/RESULTS.md): ResNet-50's 3x3/256 s2 input in 0.171 ms with 32 pixels, 0.185 with 64,
// 0.254 with 128. src/nhwc_input.cpp sizes the grid by these.
const uint TILE_PIXELS = 32;    // pixels of a workgroup's tile
const uint TILE_CHANNELS = 64;  // channels of a workgroup's tile
const uint TILE_WORDS = TILE_CHANNELS / 8;
const uint GROUPS = TILE_PIXELS / 4;  // the first phase's groups of 4 pixels
layout(constant_id = 63) const bool SUBSAMPLE = false;
// WHOLE_PLANES (small planes that are not whole 16-byte words, src/nhwc_input.cpp): a workgroup
// packs PLANE_CHANNELS whole planes of one image instead, packWholePlanes below.
layout(constant_id = 66) const bool WHOLE_PLANES = false;
// [pixel][word]: the tile's output words, each pixel's words swizzled (wordSlot).
shared uvec4 sWords[WHOLE_PLANES ? 1 : TILE_PIXELS * TILE_WORDS];
// Pixels of a packed image.
const uint PACKED_HW = SUBSAMPLE ? OUT_HW : IN_HW;
// The planes are read four pixels at a time where every plane starts on a 16-byte boundary: a
// plane a whole number of 4-pixel words (chunks then start at whole images, a multiple of 16
// bytes, bound at a power-of-two alignment: src/nhwc_input.cpp, vectorInputAlignmentRule), and
// where the packed pixels are the plane's own.
const bool QUAD_PLANES = IN_HW % 4 == 0 && !SUBSAMPLE;

// The input offset, within its plane, of packed pixel `pixel` of an image.
uint planeOffset(uint pixel) {
    if (!SUBSAMPLE) return pixel;
    const uint oh = pixel / OUT_W, ow = pixel - oh * OUT_W;
    return oh * uint(STRIDE_H) * IN_W + ow * uint(STRIDE_W);
}

// The four pixels of the tile that a thread of the first phase reads for its group: with 16-byte
// loads one vector, four consecutive pixels; with scalar loads four pixels GROUPS apart, so that
// the 8 threads of a channel pair read 8 consecutive pixels (one 32-byte sector) a load instead
// of one every 16 bytes (then 4 loads touched every sector: ResNet-50's 2048->512 1x1 on 7x7
// planes packed at 3.0 TB/s, 3.24 now, against 3.35 for planes of whole vectors; bench/RESULTS.md).
uint tilePixel(uint group, uint e) { return QUAD_PLANES ? group * 4 + e : group + GROUPS * e; }

// A pixel's word w sits at w ^ swizzle: the 8 threads of a channel pair, which the first phase
// stores at once, then write 8 different bank groups (their pixels 4 apart with vectors, 1
// apart without).
uint wordSlot(uint px, uint w) { return px * TILE_WORDS + (w ^ (QUAD_PLANES ? (px / 4) % 8 : px % 8)); }

// Where packed pixel `pixel` of an image (in row order) goes in the packed image: its row's
// columns in phases at stride > 1 (nhwcColumn); the subsampled image is read at stride 1.
uint packedPosition(uint pixel) {
    if (SUBSAMPLE) return pixel;
    const uint row = pixel / IN_W;
    return row * IN_W + nhwcColumn(pixel - row * IN_W, uint(STRIDE_W));
}

// Saturated to fp16's range: an infinity would meet a zero weight of the padding channels
// (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
vec4 saturate(vec4 v) { return clamp(v, vec4(-65504.0), vec4(65504.0)); }

// Channel c of the packed pixels p0 + tilePixel(group, 0..3) (of the chunk, images one after
// another); zero past either end.
vec4 loadPixels(uint p0, uint group, uint c, uint pixels) {
    if (c >= C_TOTAL) return vec4(0.0);
    if (QUAD_PLANES) {
        const uint p = p0 + tilePixel(group, 0);
        if (p >= pixels) return vec4(0.0);
        const uint image = p / IN_HW, pixel = p - image * IN_HW;
        return saturate(input_quads[(chunk.in_offset + (image * C_TOTAL + c) * IN_HW + pixel) / 4]);
    }
    vec4 v = vec4(0.0);
    [[unroll]] for (uint e = 0; e < 4; ++e) {
        const uint q = p0 + tilePixel(group, e), image = q / PACKED_HW, pixel = q - image * PACKED_HW;
        if (q < pixels) v[e] = input_data[chunk.in_offset + (image * C_TOTAL + c) * IN_HW + planeOffset(pixel)];
    }
    return saturate(v);
}

// WHOLE_PLANES: the PLANE_CHANNELS planes of one image that a workgroup packs are one contiguous
// run of the input, read in order (consecutive lanes, consecutive pixels of a channel pair's
// planes), so that each load instruction reads whole cache lines, where 32-pixel tiles of planes
// that are not whole 16-byte words read 8 pixels of each channel a load. Each thread issues all
// its loads (at most 8: 64 channels of 7x7 planes, 16 of 14x14) before it stores any. (On the
// H200, 14x14 planes in four batches of 8, one after another, packed at half the 32-pixel
// tiles' speed, and in one batch at 1.2x it: src/nhwc_input.cpp.) [pixel][channel pair] as half
// pairs, each pixel's row PLANE_WORDS words long, an odd number: the lanes' stores of
// consecutive pixels then fall in consecutive banks.
const uint PLANE_CHANNELS = IN_HW <= 64 ? 64 : IN_HW <= 128 ? 32 : 16;  // nhwcWholePlaneChannels
const uint PLANE_WORDS = PLANE_CHANNELS / 2 + 1;
shared uint sPlane[WHOLE_PLANES ? IN_HW * PLANE_WORDS : 1];
const uint PLANE_ITEMS = PLANE_CHANNELS / 2 * IN_HW;  // (channel pair, pixel) items of a tile
const uint PLANE_LOADS = (PLANE_ITEMS + 255) / 256;   // items a thread
const uint PLANE_BATCH = PLANE_LOADS < 8 ? PLANE_LOADS : 8;
// The tile's 16-byte words of one channel slice: a whole slice, or the tile's part of one.
const uint RUN_WORDS = PLANE_CHANNELS / 8 < NHWC_SLICE_WORDS ? PLANE_CHANNELS / 8 : NHWC_SLICE_WORDS;

void packWholePlanes() {
    const uint images = chunk.m_rows / OUT_HW;
    const uint channelTiles = (NHWC_C + PLANE_CHANNELS - 1) / PLANE_CHANNELS;
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= images * channelTiles) return;
    const uint image = id / channelTiles, c0 = (id - image * channelTiles) * PLANE_CHANNELS;
    const uint tid = gl_LocalInvocationIndex;
    const uint first = chunk.in_offset + (image * C_TOTAL + c0) * IN_HW;  // channel c0's pixel 0
    for (uint base = 0; base < PLANE_ITEMS; base += 256 * PLANE_BATCH) {
        vec2 v[PLANE_BATCH];
        [[unroll]] for (uint j = 0; j < PLANE_BATCH; ++j) {
            const uint item = base + j * 256 + tid, pair = item / IN_HW, px = item - pair * IN_HW;
            const uint c = c0 + 2 * pair, at = first + 2 * pair * IN_HW + px;
            v[j].x = item < PLANE_ITEMS && c < C_TOTAL ? input_data[at] : 0.0;
            v[j].y = item < PLANE_ITEMS && c + 1 < C_TOTAL ? input_data[at + IN_HW] : 0.0;
        }
        [[unroll]] for (uint j = 0; j < PLANE_BATCH; ++j) {
            const uint item = base + j * 256 + tid, pair = item / IN_HW, px = item - pair * IN_HW;
            if (item < PLANE_ITEMS) sPlane[px * PLANE_WORDS + pair] = packHalf2x16(saturate(vec4(v[j], 0.0, 0.0)).xy);
        }
    }
    barrier();
    // Each 16-byte word of the tile to its place: consecutive lanes, consecutive words of one
    // channel slice's run of the packed image (RUN_WORDS words a pixel; c0 starts a run).
    const uint words = min(PLANE_CHANNELS, NHWC_C - c0) / 8;
    for (uint item = tid; item < words * IN_HW; item += 256) {
        const uint run = item / (IN_HW * RUN_WORDS), rest = item - run * IN_HW * RUN_WORDS;
        const uint px = rest / RUN_WORDS, tileWord = run * RUN_WORDS + rest % RUN_WORDS;
        const uint at = px * PLANE_WORDS + tileWord * 4, word = c0 / 8 + tileWord;
        packed_data[nhwcWord(image, word / NHWC_SLICE_WORDS, packedPosition(px), IN_HW) + word % NHWC_SLICE_WORDS] =
            uvec4(sPlane[at], sPlane[at + 1], sPlane[at + 2], sPlane[at + 3]);
    }
}

void main() {
    if (WHOLE_PLANES) {
        packWholePlanes();
        return;
    }
    const uint images = chunk.m_rows / OUT_HW;
    const uint pixels = images * PACKED_HW;
    const uint pixelTiles = (pixels + TILE_PIXELS - 1) / TILE_PIXELS;
    const uint channelTiles = (NHWC_C + TILE_CHANNELS - 1) / TILE_CHANNELS;
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= pixelTiles * channelTiles) return;
    const uint p0 = (id % pixelTiles) * TILE_PIXELS, c0 = (id / pixelTiles) * TILE_CHANNELS;
    const uint tid = gl_LocalInvocationIndex;

    // GROUPS groups of 4 pixels x 32 channel pairs, GROUPS / 8 a thread. A subgroup takes 8
    // consecutive groups (with vectors 32 pixels, 128 contiguous bytes of a plane) of 4 channel
    // pairs.
    [[unroll]] for (uint i = 0; i < GROUPS / 8; ++i) {
        const uint item = i * 256 + tid;
        const uint group = (item / 256) * 8 + item % 8, pair = (item / 8) % 32;
        const uint c = c0 + 2 * pair;
        const vec4 even = loadPixels(p0, group, c, pixels), odd = loadPixels(p0, group, c + 1, pixels);
        [[unroll]] for (uint e = 0; e < 4; ++e)
            sWords[wordSlot(tilePixel(group, e), pair / 4)][pair % 4] = packHalf2x16(vec2(even[e], odd[e]));
    }
    barrier();
    const uint words = min(TILE_CHANNELS, NHWC_C - c0) / 8;
    [[unroll]] for (uint i = 0; i < TILE_PIXELS * TILE_WORDS / 256; ++i) {
        const uint item = i * 256 + tid, px = item / TILE_WORDS, w = item % TILE_WORDS;
        if (p0 + px >= pixels || w >= words) continue;
        const uint p = p0 + px, image = p / PACKED_HW, word = c0 / 8 + w;
        packed_data[nhwcWord(image, word / NHWC_SLICE_WORDS, packedPosition(p - image * PACKED_HW), PACKED_HW) +
                    word % NHWC_SLICE_WORDS] = sWords[wordSlot(px, w)];
    }
}
