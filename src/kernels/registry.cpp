// The registry of kernel families (kernel_family.hpp).
#include "kernels/families.hpp"
#include "kernels/kernel_family.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

const std::vector<const KernelFamily*>& kernelFamilies() {
    // Immutable after first use. The order is the candidates' order: the channels-last kernel's
    // two loaders, the packed loader and the gather loader on the matrix units; the GEMM tile and
    // the grouped direct kernel in fp32.
    static const std::vector<const KernelFamily*> families{&channelsLastNhwcFamily(), &channelsLastNchwFamily(),
                                                           &coopMatPackedFamily(),    &coopMatGatherFamily(),
                                                           &fp32GemmFamily(),         &groupedDirectFamily()};
    return families;
}

const KernelFamily& familyOf(const KernelConfig& config) {
    for (const KernelFamily* f : kernelFamilies())
        if (f->owns(config)) return *f;
    // Not config.str(), which asks this function.
    throw invalidArgument("config.path", toString(config.path), "no kernel family runs this configuration");
}

}  // namespace vkconv::detail
