// The channels-last input of the general cooperative-matrix kernel (conv2d_channels_last.comp):
// pack_input_nhwc_f16.comp rewrites each chunk's fp32 NCHW input, once per run, as fp16 images in
// channel slices, [image][slice][pixel][NHWC_SLICE halves]: NHWC_C / NHWC_SLICE slices of
// NHWC_SLICE channels (C padded with zeros to NHWC_C), NHWC_SLICE the kernel's BK. A K slice of
// the implicit GEMM is then one kernel tap (r, s) and one channel slice: for each output pixel a
// run of BK halves, loaded as 16-byte words, with the tap's bounds check done once per row
// instead of the im2col index arithmetic per element. At stride 1 consecutive output pixels of a
// row read consecutive runs, so a subgroup's loads of a slice fall in a few whole cache lines; with
// all of a pixel's channels contiguous instead, each row of the tile would sit in a line of its
// own. Padding is not stored: the loads that fall outside the image read as zero. Pixels are in
// row order, each row's columns in phases where the stride is more than 1 (nhwcColumn).

layout(constant_id = 60) const uint NHWC_C = 8;      // channels of a packed pixel, a multiple of NHWC_SLICE
layout(constant_id = 64) const uint NHWC_SLICE = 8;  // channels of a slice (the kernel's BK), a multiple of 8
const uint NHWC_SLICE_WORDS = NHWC_SLICE / 8;        // 16-byte words of a pixel's slice
const uint NHWC_SLICES = NHWC_C / NHWC_SLICE;
// The GEMM K order (src/nhwc_input.cpp packs B to match): false, the channels inside each tap,
// k = (r*S + s)*NHWC_C + c; true, the taps inside each BK-channel slice, so that the R*S slices
// reading the same pixels' channels follow one another and find them in the cache.
layout(constant_id = 62) const bool TAPS_INNER = false;

// Strided convolutions' packed rows hold their columns in `phases` (the stride along W) phases:
// the columns iw % phases == 0 first, then 1, ...: the taps of consecutive output columns then
// read consecutive packed pixels, whole cache lines, as at stride 1 (on the H200, ResNet-50's
// 3x3/512 s2 1.032 -> 1.001 ms, 3x3/256 s2 0.633 -> 0.626, with the A store order of
// conv2d_channels_last.comp; the packing pass's time unchanged). The position within its row of
// column iw of a row of IN_W.
uint nhwcColumn(uint iw, uint phases) {
    const uint phase = iw % phases;
    return phase * (IN_W / phases) + min(phase, IN_W % phases) + iw / phases;
}

// The first 16-byte word of channel slice `slice` of pixel `pixel` of packed image `image`, whose
// images have `imagePixels` pixels.
uint nhwcWord(uint image, uint slice, uint pixel, uint imagePixels) {
    return ((image * NHWC_SLICES + slice) * imagePixels + pixel) * NHWC_SLICE_WORDS;
}
