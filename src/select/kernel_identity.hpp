// What code a configuration runs: the embedded shaders it dispatches and a hash of their SPIR-V.
// The tuning cache records the hash with each measurement, so that a configuration measured on
// other kernel code (an older or newer vkconv) is never taken as measured on this one.
#pragma once

#include <string>
#include <vector>

#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The embedded shaders (file stems, see pipeline.hpp) a Conv2d with `config` dispatches, in
// dispatch order: the packed loader's packing pass first. Must match the names the kernels'
// prepare functions use (tests/tuning_cache_test.cpp checks it).
std::vector<std::string> kernelShaders(const KernelConfig& config);

// "fnv1a64:<16 hex digits>" over those shaders' names and SPIR-V words.
std::string kernelSpirvHash(const KernelConfig& config);

}  // namespace vkconv::detail
