// The kernel families the registry lists (registry.cpp), each defined in its own folder.
#pragma once

#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

const KernelFamily& channelsLastNhwcFamily();  // channels_last/
const KernelFamily& channelsLastNchwFamily();  // channels_last/
const KernelFamily& coopMatPackedFamily();     // coopmat_packed/
const KernelFamily& coopMatGatherFamily();     // coopmat_gather/
const KernelFamily& fp32GemmFamily();          // fp32_gemm/
const KernelFamily& groupedDirectFamily();     // grouped_direct/

}  // namespace vkconv::detail
