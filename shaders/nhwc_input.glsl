// The channels-last input of the general cooperative-matrix kernel (conv2d_coopmat_nhwc.comp):
// pack_input_nhwc_f16.comp rewrites each chunk's fp32 NCHW input, once per run, as fp16 NHWC
// images of NHWC_C halves a pixel (C padded with zeros to a multiple of the kernel's BK). A K
// slice of the implicit GEMM is then one kernel tap (r, s) and BK consecutive channels: for each
// output pixel a run of BK halves in memory, loaded as 16-byte words, with the tap's bounds check
// done once per row instead of the im2col index arithmetic per element. Padding is not stored:
// the loads that fall outside the image read as zero.

layout(constant_id = 60) const uint NHWC_C = 8;  // halves per packed pixel, a multiple of 8
const uint NHWC_WORDS = NHWC_C / 8;              // 16-byte words per packed pixel
// The GEMM K order (src/nhwc_input.cpp packs B to match): false, the channels inside each tap,
// k = (r*S + s)*NHWC_C + c; true, the taps inside each BK-channel slice, so that the R*S slices
// reading the same pixels' channels follow one another and find them in the cache.
layout(constant_id = 62) const bool TAPS_INNER = false;
