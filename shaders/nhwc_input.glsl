// The channels-last input of the general cooperative-matrix kernel (conv2d_coopmat_nhwc.comp):
// pack_input_nhwc_f16.comp rewrites each chunk's fp32 NCHW input, once per run, as fp16 images in
// channel slices, [image][slice][pixel][NHWC_SLICE halves]: NHWC_C / NHWC_SLICE slices of
// NHWC_SLICE channels (C padded with zeros to NHWC_C), NHWC_SLICE the kernel's BK. A K slice of
// the implicit GEMM is then one kernel tap (r, s) and one channel slice: for each output pixel a
// run of BK halves, loaded as 16-byte words, with the tap's bounds check done once per row
// instead of the im2col index arithmetic per element. At stride 1 consecutive output pixels of a
// row read consecutive runs, so a subgroup's loads of a slice fall in a few whole cache lines; with
// all of a pixel's channels contiguous instead, each row of the tile would sit in a line of its
// own. Padding is not stored: the loads that fall outside the image read as zero.

layout(constant_id = 60) const uint NHWC_C = 8;      // channels of a packed pixel, a multiple of NHWC_SLICE
layout(constant_id = 64) const uint NHWC_SLICE = 8;  // channels of a slice (the kernel's BK), a multiple of 8
const uint NHWC_SLICE_WORDS = NHWC_SLICE / 8;        // 16-byte words of a pixel's slice
const uint NHWC_SLICES = NHWC_C / NHWC_SLICE;
// The GEMM K order (src/nhwc_input.cpp packs B to match): false, the channels inside each tap,
// k = (r*S + s)*NHWC_C + c; true, the taps inside each BK-channel slice, so that the R*S slices
// reading the same pixels' channels follow one another and find them in the cache.
layout(constant_id = 62) const bool TAPS_INNER = false;

// The first 16-byte word of channel slice `slice` of pixel `pixel` of packed image `image`, whose
// images have `imagePixels` pixels.
uint nhwcWord(uint image, uint slice, uint pixel, uint imagePixels) {
    return ((image * NHWC_SLICES + slice) * imagePixels + pixel) * NHWC_SLICE_WORDS;
}
