#include "vkconv/tensor_format.hpp"

#include <cmath>
#include <cstring>

#include "vkconv/error.hpp"

namespace vkconv {

const char* toString(DataType type) {
    return type == DataType::F16 ? "f16" : type == DataType::BF16 ? "bf16" : "f32";
}
const char* toString(Layout layout) { return layout == Layout::NHWC ? "nhwc" : "nchw"; }
const char* toString(WeightLayout layout) { return layout == WeightLayout::KRSC ? "krsc" : "kcrs"; }

DataType dataTypeFromString(const std::string& name, const std::string& field) {
    if (name == "f32" || name == "float32") return DataType::F32;
    if (name == "f16" || name == "float16") return DataType::F16;
    if (name == "bf16" || name == "bfloat16") return DataType::BF16;
    throw invalidArgument(field, name, "expected f32, f16 or bf16");
}

Layout layoutFromString(const std::string& name, const std::string& field) {
    if (name == "nchw") return Layout::NCHW;
    if (name == "nhwc") return Layout::NHWC;
    throw invalidArgument(field, name, "expected nchw or nhwc");
}

WeightLayout weightLayoutFromString(const std::string& name, const std::string& field) {
    if (name == "kcrs") return WeightLayout::KCRS;
    if (name == "krsc") return WeightLayout::KRSC;
    throw invalidArgument(field, name, "expected kcrs or krsc");
}

uint32_t elementBytes(DataType type) { return type == DataType::F32 ? 4 : 2; }

std::string TensorFormat::str() const { return std::string(toString(type)) + "/" + toString(layout); }

std::vector<float> relayout(const float* data, uint64_t count, const std::array<int64_t, 4>& shape, Layout from,
                            Layout to) {
    const auto [n, c, h, w] = shape;
    if (n <= 0 || c <= 0 || h <= 0 || w <= 0 || uint64_t(n) * uint64_t(c) * uint64_t(h) * uint64_t(w) != count)
        throw invalidArgument("relayout count", count,
                              "the shape " + std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" +
                                  std::to_string(w) + " has another element count");
    if (from == to) return std::vector<float>(data, data + count);
    std::vector<float> out(count);
    const uint64_t hw = uint64_t(h) * uint64_t(w);
    for (uint64_t i = 0; i < uint64_t(n); ++i)
        for (uint64_t ch = 0; ch < uint64_t(c); ++ch)
            for (uint64_t p = 0; p < hw; ++p) {
                const uint64_t nchw = (i * c + ch) * hw + p, nhwc = (i * hw + p) * c + ch;
                if (from == Layout::NCHW)
                    out[nhwc] = data[nchw];
                else
                    out[nchw] = data[nhwc];
            }
    return out;
}

uint16_t halfFromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7FFFFFFFu;
    if (absx >= 0x7F800000u) return uint16_t(sign | (absx > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (absx >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds past 65504
    if (absx < 0x38800000u) {                                   // fp16 subnormal or zero
        const float scaled = std::fabs(f) * 16777216.0f;        // 2^24: units of the smallest subnormal
        return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
    }
    const uint32_t mant = absx & 0x7FFFFFu;
    uint32_t h = ((absx >> 23) - 112) << 10 | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return uint16_t(sign | h);
}

uint16_t bfloat16FromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((x >> 16) | 0x40u);  // NaN stays NaN (quiet)
    x += 0x7FFFu + ((x >> 16) & 1u);  // round to nearest even
    return uint16_t(x >> 16);
}

float floatFromBfloat16(uint16_t b) {
    const uint32_t x = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

float heldAs(float v, DataType type) {
    if (type == DataType::F16) return floatFromHalf(halfFromFloat(v));
    if (type == DataType::BF16) return floatFromBfloat16(bfloat16FromFloat(v));
    return v;
}

std::vector<float> heldAs(std::vector<float> values, DataType type) {
    if (type != DataType::F32)
        for (float& v : values) v = heldAs(v, type);
    return values;
}

float floatFromHalf(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    uint32_t x;
    if (exponent == 0x1F) {
        x = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24, exact in fp32.
        const float v = std::ldexp(float(mantissa), -24);
        std::memcpy(&x, &v, 4);
        x |= sign;
    } else {
        x = sign | ((exponent + 112) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace vkconv
