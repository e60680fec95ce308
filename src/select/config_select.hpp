// Choosing a path and a kernel configuration for a problem on a device: the candidate set (every
// configuration of the registry's families that can_implement accepts), ranked by the families'
// cost estimates without running anything. The tuning cache overrides the ranking where a sweep
// measured better.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "kernels/common/device_fill.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// All configurations of `path` that fit the device and the problem (config_candidates.cpp).
std::vector<KernelConfig> candidateConfigs(Path path, const DeviceInfo& device,
                                           const ConvProblem& problem);
// Whether any configuration of `path` fits, without building the whole list, whose enumeration
// is the bulk of a Conv2d's planning time on devices with many shapes.
bool anyCandidateFits(Path path, const DeviceInfo& device, const ConvProblem& problem);
// The path's first configuration before can_implement's filter and why it refuses it ("config:
// reason"), to name what removed a path where none fits; "" where the path lists none.
std::string firstCandidateRefusal(Path path, const DeviceInfo& device, const ConvProblem& problem);

// Estimated relative cost of running the problem with a configuration (lower is better).
double heuristicCost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

struct PathChoice {
    Path path = Path::Fp32;
    std::string why;  // e.g. "fast: device has no cooperative-matrix f16 or bf16 shapes; using fp32"
};
PathChoice choosePath(Precision precision, const DeviceInfo& device, const ConvProblem& problem);

struct ConfigChoice {
    KernelConfig config;
    std::vector<std::pair<KernelConfig, double>> weighed;  // candidates by heuristic cost
};
// Throws Unsupported when no configuration of the path fits.
ConfigChoice selectConfig(Path path, const DeviceInfo& device, const ConvProblem& problem);

}  // namespace vkconv::detail
