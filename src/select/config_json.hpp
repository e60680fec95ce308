// KernelConfig as JSON: the object the tuning cache stores under each entry's "config" (every
// field by name), and the reading that checks each field and names the one that is wrong.
// configToJson and configFromJson (vkconv/tuning.hpp) are the text forms of the same object.
#pragma once

#include <nlohmann/json.hpp>

#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

nlohmann::json configObject(const KernelConfig& config);
// Whether `object` is a configuration of the flat form older vkconv wrote (tuning cache format 2:
// every kernel's fields in one object, with "aLoader" and "fp32Kernel", no "kernel").
bool isFlatConfig(const nlohmann::json& object);
// Throws vkconv::Error (InvalidArgument) naming the field ("config.bm") and its value.
KernelConfig configFromObject(const nlohmann::json& object);

}  // namespace vkconv::detail
