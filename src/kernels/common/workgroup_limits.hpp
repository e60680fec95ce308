// The limits every GEMM-tiled workgroup meets, whatever its kernel: its threads and shared memory
// (as its family counts them) within the device's, and its grid's N tiles within the grid.
#pragma once

#include <string>

#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

std::string workgroupLimits(const KernelFamily& family, const KernelConfig& config, const DeviceInfo& device,
                            const ConvProblem& problem);

}  // namespace vkconv::detail
