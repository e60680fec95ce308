// vkconv: conv2d on any Vulkan 1.3 GPU. One include for the user's API: devices, tensors, Conv2d.
// Tuning (the tuning cache, ranking, the sweep's rules) is for tools that measure configurations:
// include "vkconv/tuning.hpp" for it.
#pragma once

#include "vkconv/batch_norm.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/copy_bandwidth.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/epilogue.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/pipeline_cache.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/sequence.hpp"
#include "vkconv/tensor.hpp"
#include "vkconv/tensor_format.hpp"
#include "vkconv/version.hpp"
