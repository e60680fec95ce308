// Element types and memory layouts of tensors and weights.
//
// A 4-D activation tensor's shape is always its logical (N, C, H, W); its layout says how those
// elements lie in memory: NCHW (each channel's plane contiguous) or NHWC (each pixel's channels
// contiguous: PyTorch's torch.channels_last, what GPUs with matrix units prefer). Weights are
// (K, C/groups, R, S) logically, held as KCRS or KRSC (PyTorch's channels_last weights).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vkconv {

enum class DataType {
    F32,  // IEEE binary32
    F16,  // IEEE binary16: values round to nearest even; beyond +-65504 they become +-inf
    BF16,  // bfloat16 (fp32's range, 8 significant bits): values round to nearest even. No
           // kernel multiplies bf16 yet: bf16 tensors run through fp32 arithmetic (describe()).
};
enum class Layout { NCHW, NHWC };
enum class WeightLayout { KCRS, KRSC };

// "f32", "f16", "bf16"; "nchw", "nhwc"; "kcrs", "krsc".
const char* toString(DataType type);
const char* toString(Layout layout);
const char* toString(WeightLayout layout);
// Each throws InvalidArgument naming `field` and the value.
DataType dataTypeFromString(const std::string& name, const std::string& field = "dtype");
Layout layoutFromString(const std::string& name, const std::string& field = "layout");
WeightLayout weightLayoutFromString(const std::string& name, const std::string& field = "weight_layout");

uint32_t elementBytes(DataType type);

struct TensorFormat {
    DataType type = DataType::F32;
    Layout layout = Layout::NCHW;

    bool isDefault() const { return type == DataType::F32 && layout == Layout::NCHW; }
    std::string str() const;  // "f16/nhwc"
    friend bool operator==(const TensorFormat& a, const TensorFormat& b) {
        return a.type == b.type && a.layout == b.layout;
    }
    friend bool operator!=(const TensorFormat& a, const TensorFormat& b) { return !(a == b); }
};

// The elements of a logical (N, C, H, W) tensor, held in layout `from`, in layout `to`'s order
// (a copy where the two agree). Throws InvalidArgument for a shape that does not match the count.
std::vector<float> relayout(const float* data, uint64_t count, const std::array<int64_t, 4>& shape, Layout from,
                            Layout to);

// fp32 -> fp16 bits, round to nearest even (overflow to +-inf, NaN kept NaN), and back.
uint16_t halfFromFloat(float value);
float floatFromHalf(uint16_t bits);
// fp32 -> bfloat16 bits, round to nearest even (NaN kept NaN), and back (exact).
uint16_t bfloat16FromFloat(float value);
float floatFromBfloat16(uint16_t bits);
// A value as a tensor of `type` holds it (rounded to fp16 or bf16; fp32 as it is), and so for
// every value of a vector: what a reference computes on to see what the kernel saw.
float heldAs(float value, DataType type);
std::vector<float> heldAs(std::vector<float> values, DataType type);

}  // namespace vkconv
