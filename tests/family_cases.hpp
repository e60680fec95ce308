// The kernel families as the per-family suites force them (epilogue_test.cpp,
// tensor_format_test.cpp): each family through its heuristic's best configuration for a small
// problem it serves, split-K as a family of its own.
#pragma once

#include <optional>
#include <string>

#include "vkconv/context.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::test {

struct Family {
    const char* kernel;
    Path path;
    bool splitK = false;
    const char* tag;  // in test names
};
inline constexpr Family kFamilies[] = {
    {"fp32-gemm", Path::Fp32, false, "gemm"},
    {"grouped-direct", Path::Fp32, false, "direct"},
    {"coopmat-gather", Path::CoopMatF16, false, "gather"},
    {"coopmat-packed", Path::CoopMatF16, false, "packed"},
    {"channels-last-nhwc", Path::CoopMatF16, false, "nhwc"},
    {"channels-last-nhwc", Path::CoopMatF16, true, "nhwc_splitk"},
    {"channels-last-nchw", Path::CoopMatF16, false, "nchw"},
};

// The family's problem: a dense 3x3 without padding (which every dense family serves, the NCHW
// loader included), or a depthwise 3x3 for the grouped direct kernel.
ConvProblem familyProblem(const Family& family);

// The family's best configuration for `problem` on the device (with split-K: the first split
// its K slices divide into), or none, with the reason in `why`.
std::optional<KernelConfig> familyConfig(const Family& family, const DeviceInfo& device, const ConvProblem& problem,
                                         std::string& why);

}  // namespace vkconv::test
