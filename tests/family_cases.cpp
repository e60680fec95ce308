#include "family_cases.hpp"

#include "conv_check.hpp"
#include "kernels/channels_last/channels_last_params.hpp"  // src/

namespace vkconv::test {

ConvProblem familyProblem(const Family& f) {
    ConvProblem p;
    p.batch = 2, p.inChannels = 16, p.height = 10, p.width = 11, p.outChannels = 24;
    p.kernelH = p.kernelW = 3;
    if (std::string(f.kernel) == "grouped-direct") {
        p.outChannels = 16, p.groups = 16, p.padH = p.padW = 1;
    }
    return p;
}

std::optional<KernelConfig> familyConfig(const Family& family, const DeviceInfo& device, const ConvProblem& p,
                                         std::string& why) {
    std::optional<KernelConfig> config = bestCandidate(family.path, device, p, [&](const KernelConfig& k) {
        return std::string(k.kernel()) == family.kernel && k.splits() == 1;
    });
    if (config && family.splitK) {
        for (uint32_t split = 2; split <= 9; ++split) {
            detail::channelsLast(*config).splitK = split;
            if (canImplement(*config, device, p).empty()) break;
        }
        if (!canImplement(*config, device, p).empty()) config.reset();
    }
    if (!config)
        why = std::string("no ") + family.kernel + (family.splitK ? " split-K" : "") + " configuration on '" +
              device.name + "'" +
              (family.path == Path::CoopMatF16 && !device.coopMatKhr ? " (no VK_KHR_cooperative_matrix)" : "");
    return config;
}

}  // namespace vkconv::test
