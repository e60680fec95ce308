#include "kernels/common/tensor_io.hpp"

#include <algorithm>
#include <cstddef>

namespace vkconv::detail {

std::string outputModule(const std::string& shader, const ConvProblem& problem) {
    return problem.outputFormat.isDefault() ? shader : shader + "_io";
}

namespace {

struct ConvertInputSpec {
    uint32_t channels, pixels;
    VkBool32 inNhwc;
    uint32_t outPixels;

    static std::vector<VkSpecializationMapEntry> entries() {
        return {{0, offsetof(ConvertInputSpec, channels), 4},
                {1, offsetof(ConvertInputSpec, pixels), 4},
                {3, offsetof(ConvertInputSpec, inNhwc), 4},
                {4, offsetof(ConvertInputSpec, outPixels), 4}};
    }
};

}  // namespace

PipelineKey convertInputKey(const ConvProblem& p) {
    ConvertInputSpec spec{};
    spec.channels = uint32_t(p.inChannels);
    spec.pixels = uint32_t(p.height * p.width);
    spec.inNhwc = p.inputFormat.layout == Layout::NHWC ? VK_TRUE : VK_FALSE;
    spec.outPixels = uint32_t(p.outHeight() * p.outWidth());
    const DataType t = p.inputFormat.type;
    return pipelineKey(t == DataType::F16 ? "convert_input_f16" : t == DataType::BF16 ? "convert_input_bf16" : "convert_input", spec);
}

uint64_t convertedImageBytes(const ConvProblem& p) { return uint64_t(p.inChannels) * p.height * p.width * 4; }

uint64_t convertInputWorkgroups(const ConvProblem& p, uint64_t images) {
    // A thread an element up to 65536 workgroups; beyond, threads loop.
    const uint64_t elements = images * uint64_t(p.inChannels) * p.height * p.width;
    return std::clamp<uint64_t>((elements + 255) / 256, 1, 65536);
}

}  // namespace vkconv::detail
