#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef VKCONV_INPUT_FORMATS
#extension GL_EXT_shader_16bit_storage : require
#endif
// Packs a chunk of the fp32 NCHW input into the channel-sliced fp16 layout of nhwc_input.glsl,
// for conv2d_channels_last.comp. A transpose through shared memory: each workgroup takes
// PLANE_CHANNELS channels of one image over one part of their planes (PART_PIXELS consecutive
// pixels: the whole plane up to 256 pixels), reads each channel's part as one contiguous run and
// writes the part's pixels x channels as 16-byte words, each pixel's slice of channels one
// contiguous run. (One thread a word straight from the planes wrote 16 bytes every NHWC_C
// halves: on the H200 that pass alone took about as long as ResNet-50's 1x1 256->128 conv.)
// Binding 0 is the chunk's input, binding 3 the packed buffer.
//
// The loads: consecutive lanes read consecutive pixels of a channel pair's two planes, so that
// each load instruction reads whole cache lines, and each thread issues all its loads (at most
// 8) before it stores any. The channel count keeps a workgroup's tile within one such batch:
// 64 channels of planes up to 64 pixels, 32 up to 128, else 16 (one 32-byte sector a pixel).
// On the H200 this pass moves the input and its packed copy at copy speed, 4.28 TB/s
// (bench/RESULTS.md). It replaced tiles of 32 pixels x 64 channels read as 16-byte vectors,
// 3.5-3.7 TB/s on planes of 14x14 and larger, 3.2 on 7x7: ResNet-50's 3x3/512 s2 pass 0.177 ->
// 0.144 ms, 3x3/256 s2's 0.172 -> 0.144, 3x3/128 s2's 0.165 -> 0.144, VGG's conv1_2's 0.165 ->
// 0.144, the 1x1 downsamples' 5-10% shorter. Parts of 784 pixels (28x28 planes whole, 25 loads
// a thread) and four batches one after another (64 channels of 14x14) were slower than those
// tiles.
//
// SUBSAMPLE (a strided 1x1 convolution without padding, src/nhwc_input.cpp): only the pixels the
// conv reads are packed, one in STRIDE_H x STRIDE_W, into an image of the output's size, on which
// the conv kernel then runs at stride 1.
//
// Compiled a second time with VKCONV_INPUT_FORMATS (pack_input_nhwc_f16_io): the input in any type
// and layout (IN_F16, IN_NHWC), read as 32-bit words. For an NHWC input consecutive lanes take
// consecutive channel pairs of a pixel instead (a pixel's channels are contiguous there), and an
// fp16 pair of an even channel count is one word.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "nhwc_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

#ifdef VKCONV_INPUT_FORMATS
layout(constant_id = 72) const bool IN_F16 = false;
layout(constant_id = 73) const bool IN_NHWC = false;
layout(set = 0, binding = 0, std430) readonly buffer InputWords { uint input_words[]; };
// fp16 elements one by one: a word view would read past an odd-sized range's end.
layout(set = 0, binding = 0, std430) readonly buffer InputHalves { float16_t input_halves[]; };

// Element `at` of the bound input range, as fp32.
float inputValue(uint at) { return IN_F16 ? float(input_halves[at]) : uintBitsToFloat(input_words[at]); }

// Channels c and c + 1 (zero past C) of the pixel at plane offset `offset` of a chunk's image.
vec2 inputPair(uint image, uint c, uint offset) {
    if (IN_NHWC) {
        const uint at = chunk.in_offset + (image * IN_HW + offset) * C_TOTAL + c;
        // An even channel count keeps every pair (and the chunk's offset) on a word.
        if (IN_F16 && C_TOTAL % 2u == 0u) return unpackHalf2x16(input_words[at / 2u]);
        return vec2(inputValue(at), c + 1u < C_TOTAL ? inputValue(at + 1u) : 0.0);
    }
    const uint at = chunk.in_offset + (image * C_TOTAL + c) * IN_HW + offset;
    return vec2(inputValue(at), c + 1u < C_TOTAL ? inputValue(at + IN_HW) : 0.0);
}
const bool PAIRS_ACROSS_LANES = IN_NHWC;

// The precise mode's split (Ootomo and Yokota): 0 the input as the fast path rounds it (saturated
// to fp16's range), 1 its fp16 high part, NaN beyond fp16's range (a precise result is never
// silently saturated), 2 its low part (v - high) * 2^11, which fp16 holds to 2^-11 of itself.
layout(constant_id = 74) const uint INPUT_PART = 0;
vec2 inputPart(vec2 v) {
    if (INPUT_PART == 0u) return v;
    const vec2 high = unpackHalf2x16(packHalf2x16(v));
    if (INPUT_PART == 2u) return (v - high) * 2048.0;
    return vec2(abs(v.x) > 65504.0 ? uintBitsToFloat(0x7fc00000u) : v.x, abs(v.y) > 65504.0 ? uintBitsToFloat(0x7fc00000u) : v.y);
}
#endif

layout(constant_id = 63) const bool SUBSAMPLE = false;
// Pixels of a packed image.
const uint PACKED_HW = SUBSAMPLE ? OUT_HW : IN_HW;
// A packed image's planes in PLANE_PARTS parts of PART_PIXELS pixels (the last one shorter where
// they do not divide the plane), each a workgroup's, of PLANE_CHANNELS channels. src/nhwc_input.cpp
// mirrors these (nhwcPackParts, nhwcPackChannels) to size the grid.
const uint PLANE_PARTS = (PACKED_HW + 255) / 256;
const uint PART_PIXELS = (PACKED_HW + PLANE_PARTS - 1) / PLANE_PARTS;
const uint PLANE_CHANNELS = PART_PIXELS <= 64 ? 64 : PART_PIXELS <= 128 ? 32 : 16;
const uint PART_ITEMS = PLANE_CHANNELS / 2 * PART_PIXELS;  // (channel pair, pixel) items of a part
const uint PART_LOADS = (PART_ITEMS + 255) / 256;          // items a thread: at most 8
// [pixel][channel pair] as half pairs, each pixel's row PART_ROW_WORDS words long, an odd
// number: the lanes' stores of consecutive pixels then fall in consecutive banks.
const uint PART_ROW_WORDS = PLANE_CHANNELS / 2 + 1;
shared uint sPart[PART_PIXELS * PART_ROW_WORDS];
// The tile's 16-byte words of one channel slice: a whole slice, or the tile's part of one.
const uint RUN_WORDS = PLANE_CHANNELS / 8 < NHWC_SLICE_WORDS ? PLANE_CHANNELS / 8 : NHWC_SLICE_WORDS;

// The input offset, within its plane, of packed pixel `pixel` of an image.
uint planeOffset(uint pixel) {
    if (!SUBSAMPLE) return pixel;
    const uint oh = pixel / OUT_W, ow = pixel - oh * OUT_W;
    return oh * uint(STRIDE_H) * IN_W + ow * uint(STRIDE_W);
}

// Where packed pixel `pixel` of an image (in row order) goes in the packed image: its row's
// columns in phases at stride > 1 (nhwcColumn); the subsampled image is read at stride 1.
uint packedPosition(uint pixel) {
    if (SUBSAMPLE) return pixel;
    const uint row = pixel / IN_W;
    return row * IN_W + nhwcColumn(pixel - row * IN_W, uint(STRIDE_W));
}

// Saturated to fp16's range: an infinity would meet a zero weight of the padding channels
// (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
vec2 saturate(vec2 v) { return clamp(v, vec2(-65504.0), vec2(65504.0)); }

void main() {
    const uint images = chunk.m_rows / OUT_HW;
    const uint channelTiles = (NHWC_C + PLANE_CHANNELS - 1) / PLANE_CHANNELS;
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= images * channelTiles * PLANE_PARTS) return;
    // Consecutive workgroups take consecutive parts of the same planes.
    const uint image = id / (channelTiles * PLANE_PARTS), rest = id - image * channelTiles * PLANE_PARTS;
    const uint c0 = rest / PLANE_PARTS * PLANE_CHANNELS, p0 = rest % PLANE_PARTS * PART_PIXELS;
    const uint pixels = min(PART_PIXELS, PACKED_HW - p0);  // of this part
    const uint tid = gl_LocalInvocationIndex;
    vec2 v[PART_LOADS];
#ifdef VKCONV_INPUT_FORMATS
    [[unroll]] for (uint j = 0; j < PART_LOADS; ++j) {
        const uint item = j * 256 + tid;
        const uint pair = PAIRS_ACROSS_LANES ? item % (PLANE_CHANNELS / 2) : item / PART_PIXELS;
        const uint px = PAIRS_ACROSS_LANES ? item / (PLANE_CHANNELS / 2) : item - pair * PART_PIXELS;
        const uint c = c0 + 2 * pair;
        v[j] = item < PART_ITEMS && px < pixels && c < C_TOTAL ? inputPart(inputPair(image, c, planeOffset(p0 + px))) : vec2(0.0);
    }
#else
    const uint first = chunk.in_offset + (image * C_TOTAL + c0) * IN_HW;  // channel c0's plane
    [[unroll]] for (uint j = 0; j < PART_LOADS; ++j) {
        const uint item = j * 256 + tid, pair = item / PART_PIXELS, px = item - pair * PART_PIXELS;
        const uint c = c0 + 2 * pair, at = first + 2 * pair * IN_HW + planeOffset(p0 + px);
        const bool inside = item < PART_ITEMS && px < pixels;
        v[j].x = inside && c < C_TOTAL ? input_data[at] : 0.0;
        v[j].y = inside && c + 1 < C_TOTAL ? input_data[at + IN_HW] : 0.0;
    }
#endif
    [[unroll]] for (uint j = 0; j < PART_LOADS; ++j) {
#ifdef VKCONV_INPUT_FORMATS
        const uint item = j * 256 + tid;
        const uint pair = PAIRS_ACROSS_LANES ? item % (PLANE_CHANNELS / 2) : item / PART_PIXELS;
        const uint px = PAIRS_ACROSS_LANES ? item / (PLANE_CHANNELS / 2) : item - pair * PART_PIXELS;
#else
        const uint item = j * 256 + tid, pair = item / PART_PIXELS, px = item - pair * PART_PIXELS;
#endif
#ifdef VKCONV_INPUT_FORMATS
        // The high part keeps its NaN (beyond fp16's range) past the saturation.
        const vec2 kept = INPUT_PART == 1u ? mix(saturate(v[j]), v[j], isnan(v[j])) : saturate(v[j]);
        if (item < PART_ITEMS) sPart[px * PART_ROW_WORDS + pair] = packHalf2x16(kept);
#else
        if (item < PART_ITEMS) sPart[px * PART_ROW_WORDS + pair] = packHalf2x16(saturate(v[j]));
#endif
    }
    barrier();
    // Each 16-byte word of the tile to its place: consecutive lanes, consecutive words of one
    // channel slice's run of the packed image (RUN_WORDS words a pixel; c0 starts a run).
    const uint words = min(PLANE_CHANNELS, NHWC_C - c0) / 8;
    for (uint item = tid; item < words * pixels; item += 256) {
        const uint run = item / (pixels * RUN_WORDS), inRun = item - run * pixels * RUN_WORDS;
        const uint px = inRun / RUN_WORDS, tileWord = run * RUN_WORDS + inRun % RUN_WORDS;
        const uint at = px * PART_ROW_WORDS + tileWord * 4, word = c0 / 8 + tileWord;
        packed_data[nhwcWord(image, word / NHWC_SLICE_WORDS, packedPosition(p0 + px), PACKED_HW) +
                    word % NHWC_SLICE_WORDS] = uvec4(sPart[at], sPart[at + 1], sPart[at + 2], sPart[at + 3]);
    }
}
