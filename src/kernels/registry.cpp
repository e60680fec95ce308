// The registry of kernel families (kernel_family.hpp).
#include "kernels/channels_last/channels_last_family.hpp"
#include "kernels/coopmat_gather/gather_family.hpp"
#include "kernels/coopmat_packed/packed_family.hpp"
#include "kernels/fp32_gemm/fp32_gemm_family.hpp"
#include "kernels/grouped_direct/grouped_direct_family.hpp"
#include "kernels/kernel_family.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

const std::vector<const KernelFamily*>& kernelFamilies() {
    // Immutable after first use. The order is the candidates' order: the channels-last kernel's
    // two loaders, the packed loader and the gather loader on the matrix units; the GEMM tile and
    // the grouped direct kernel in fp32.
    static const ChannelsLastNhwcFamily nhwc;
    static const ChannelsLastNchwFamily nchw;
    static const CoopMatPackedFamily packed;
    static const CoopMatGatherFamily gather;
    static const Fp32GemmFamily fp32Gemm;
    static const GroupedDirectFamily groupedDirect;
    static const std::vector<const KernelFamily*> families{&nhwc, &nchw, &packed, &gather, &fp32Gemm, &groupedDirect};
    return families;
}

const KernelFamily& familyOf(const KernelConfig& config) {
    for (const KernelFamily* f : kernelFamilies())
        if (f->owns(config)) return *f;
    // Not config.str(), which asks this function.
    throw invalidArgument("config.path", toString(config.path), "no kernel family runs this configuration");
}

}  // namespace vkconv::detail
