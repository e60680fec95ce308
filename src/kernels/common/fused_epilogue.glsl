// The fused epilogue every conv kernel applies before its store, in fp32, cuDNN's form:
//   y = act(alpha * conv(x) + bias + beta * z)
// with z the residual (binding 5: a tensor of the output's shape, type and layout, bound like the
// output, so that an element's index is the same in both; it may be the output itself). The host
// sets the constants from ConvProblem::epilogue (src/kernels/common/kernel_specs.cpp); with their
// defaults the epilogue is the bias add alone, and the compiler folds the rest away.
//
// The output's type and layout. The kernels compute each output's NCHW index (the chunk's
// out_offset + (image * K_TOTAL + k) * OUT_HW + pixel) and go through the macros below:
//   OUTPUT_ELEMENT(i)      that element's index in the output's own layout,
//   STORE_OUTPUT(e, v)     v to element e, in the output's type,
//   RESIDUAL_VALUE(e)      the residual's element e, as fp32.
// Each kernel is compiled twice: as it is, for fp32 NCHW outputs (the macros are the plain
// array accesses, the module needs no 16-bit storage, and its SPIR-V is what it was before
// other formats existed), and with VKCONV_TENSOR_IO (the "_io" modules), where the constants
// OUT_F16 and OUT_NHWC choose the type and layout (kernels/common/tensor_io.cpp sets them).

layout(constant_id = 42) const uint ACTIVATION = 0;  // Activation: 0 identity ... 9 hardswish
layout(constant_id = 43) const bool HAS_RESIDUAL = false;
layout(constant_id = 44) const bool UNIT_ALPHA = true;  // alpha == 1: kernels may start their sums at the bias
layout(constant_id = 45) const float ALPHA = 1.0;
layout(constant_id = 46) const float BETA = 1.0;
layout(constant_id = 47) const float ACT_LOWER = 0.0;  // clamp's lower bound; leaky relu's slope
layout(constant_id = 48) const float ACT_UPPER = 6.0;  // clamp's upper bound

layout(set = 0, binding = 5, std430) readonly buffer ResidualBuffer { float residual_data[]; };

#ifdef VKCONV_TENSOR_IO
layout(constant_id = 70) const bool OUT_F16 = false;
layout(constant_id = 71) const bool OUT_NHWC = false;
layout(constant_id = 75) const bool OUT_BF16 = false;  // bfloat16, as 16-bit patterns
// Whether the output is fp32 NCHW, which the kernels' vector stores assume.
const bool OUT_F32_NCHW = !OUT_F16 && !OUT_BF16 && !OUT_NHWC;
layout(set = 0, binding = 3, std430) writeonly buffer OutputHalves { float16_t output_f16[]; };
layout(set = 0, binding = 5, std430) readonly buffer ResidualHalves { float16_t residual_f16[]; };
layout(set = 0, binding = 3, std430) writeonly buffer OutputBfloat16 { uint16_t output_bf16[]; };
layout(set = 0, binding = 5, std430) readonly buffer ResidualBfloat16 { uint16_t residual_bf16[]; };

// fp32 -> bfloat16 bits, round to nearest even; NaN stays NaN.
uint16_t toBfloat16(float v) {
    const uint x = floatBitsToUint(v);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
    return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

uint outputElement(uint index) {
    if (!OUT_NHWC) return index;
    const uint imageSize = K_TOTAL * OUT_HW;
    const uint rel = index - chunk.out_offset, image = rel / imageSize, inImage = rel - image * imageSize;
    const uint k = inImage / OUT_HW, pix = inImage - k * OUT_HW;
    return chunk.out_offset + image * imageSize + pix * K_TOTAL + k;
}

// Output (image, k, pix) of the chunk, where a kernel has them at hand.
uint outputElementAt(uint image, uint k, uint pix) {
    return chunk.out_offset + image * K_TOTAL * OUT_HW + (OUT_NHWC ? pix * K_TOTAL + k : k * OUT_HW + pix);
}

float residualValue(uint element) {
    if (OUT_BF16) return uintBitsToFloat(uint(residual_bf16[element]) << 16);
    return OUT_F16 ? float(residual_f16[element]) : residual_data[element];
}

void storeOutputValue(uint element, float value) {
    if (OUT_BF16)
        output_bf16[element] = toBfloat16(value);
    else if (OUT_F16)
        output_f16[element] = float16_t(value);
    else
        output_data[element] = value;
}

#define OUTPUT_ELEMENT(index) outputElement(index)
#define STORE_OUTPUT(element, value) storeOutputValue(element, value)
#define RESIDUAL_VALUE(element) residualValue(element)
#define IF_OUTPUT_F32_NCHW(condition) (OUT_F32_NCHW && (condition))
#else
#define OUTPUT_ELEMENT(index) (index)
#define STORE_OUTPUT(element, value) output_data[element] = (value)
#define RESIDUAL_VALUE(element) residual_data[element]
#define IF_OUTPUT_F32_NCHW(condition) (condition)
#endif

// erf to about 1.5e-7 (Abramowitz and Stegun 7.1.26): GLSL has none.
float erfApprox(float x) {
    const float t = 1.0 / (1.0 + 0.3275911 * abs(x));
    const float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return sign(x) * (1.0 - poly * exp(-x * x));
}

float activate(float v) {
    if (ACTIVATION == 1u) return max(v, 0.0);                                  // relu
    if (ACTIVATION == 2u) return clamp(v, 0.0, 6.0);                            // relu6
    if (ACTIVATION == 3u) return clamp(v, ACT_LOWER, ACT_UPPER);                // clamp
    if (ACTIVATION == 4u) return v >= 0.0 ? v : ACT_LOWER * v;                  // leaky relu
    if (ACTIVATION == 5u) return 1.0 / (1.0 + exp(-v));                         // sigmoid
    if (ACTIVATION == 6u) return v / (1.0 + exp(-v));                           // silu
    if (ACTIVATION == 7u) return 0.5 * v * (1.0 + erfApprox(v * 0.70710678118654752));  // gelu (erf)
    if (ACTIVATION == 8u) {                                                     // gelu (tanh)
        // tanh's argument held to [-10, 10], where tanh is +-1 in fp32: some drivers compute it
        // as a quotient of exponentials that overflows to NaN beyond.
        const float u = clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), -10.0, 10.0);
        return 0.5 * v * (1.0 + tanh(u));
    }
    if (ACTIVATION == 9u) return v * clamp(v + 3.0, 0.0, 6.0) * (1.0 / 6.0);  // hardswish
    return v;
}

// The epilogue of one output element: `sum` the conv's, `biasValue` the bias still to add (0
// where the kernel started its sum at the bias, or without bias), `index` its element in the
// output (and so in the residual): OUTPUT_ELEMENT of its NCHW index.
float fusedEpilogue(float sum, float biasValue, uint index) {
    float v = (UNIT_ALPHA ? sum : ALPHA * sum) + biasValue;
    if (HAS_RESIDUAL) v += BETA * RESIDUAL_VALUE(index);
    return activate(v);
}
