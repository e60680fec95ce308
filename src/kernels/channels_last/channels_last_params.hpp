// The channels-last kernel's own parameters, whichever of its two loaders a configuration has.
#pragma once

#include <variant>

#include "kernels/common/coopmat_common.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

inline const ChannelsLastTiling& channelsLast(const KernelConfig& c) {
    if (const auto* k = std::get_if<ChannelsLastNhwcKernel>(&c.params)) return *k;
    if (const auto* k = std::get_if<ChannelsLastNchwKernel>(&c.params)) return *k;
    throw invalidArgument("config.params", c.kernel(), "is not the channels-last kernel's");
}

inline ChannelsLastTiling& channelsLast(KernelConfig& c) {
    return const_cast<ChannelsLastTiling&>(channelsLast(static_cast<const KernelConfig&>(c)));
}

}  // namespace vkconv::detail
