#include "kernel_identity.hpp"

#include <cstdio>

#include "pipeline.hpp"

namespace vkconv::detail {

namespace {

std::vector<std::string> loaderShaders(ALoader loader) {
    // The bf16 path has no shader of its own yet (canImplement refuses it); it names the f16
    // kernels it would share the structure of, so that its hash still changes with them.
    switch (loader) {
        case ALoader::Gather: return {"conv2d_coopmat_f16"};
        case ALoader::Packed:
            return {"pack_input_f16", "conv2d_coopmat_packed_breg_f16"};
        case ALoader::Nhwc: return {"pack_input_nhwc_f16", "conv2d_coopmat_nhwc_f16"};
        case ALoader::Nchw: return {"conv2d_coopmat_nchw_f16"};
    }
    return {};
}

}  // namespace

std::vector<std::string> kernelShaders(const KernelConfig& c) {
    if (c.groupedDirect()) return {"conv2d_grouped_direct"};
    if (c.path == Path::Fp32) return {"conv2d_fp32"};
    std::vector<std::string> shaders = loaderShaders(c.aLoader);
    if (c.splitK > 1) shaders.push_back("reduce_split_k");  // split-K's second pass
    return shaders;
}

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
