#include "select/kernel_identity.hpp"

#include <cstdio>

#include "kernels/kernel_family.hpp"
#include "runtime/pipeline.hpp"

namespace vkconv::detail {

std::vector<std::string> kernelShaders(const KernelConfig& c) { return familyOf(c).shaders(c); }

std::string kernelSpirvHash(const KernelConfig& config) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64-bit
    auto mix = [&](const void* data, size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    };
    for (const std::string& name : kernelShaders(config)) {
        const SpirvBlob spirv = embeddedShader(name);
        mix(name.data(), name.size() + 1);
        mix(spirv.words, spirv.wordCount * sizeof(uint32_t));
    }
    char text[32];
    std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return text;
}

}  // namespace vkconv::detail
