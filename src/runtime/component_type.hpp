// Cooperative-matrix component types (VkComponentTypeKHR) as vkconv's ScalarType.
#pragma once

#include <vulkan/vulkan.h>

#include "vkconv/device_info.hpp"

namespace vkconv::detail {

// VK_COMPONENT_TYPE_BFLOAT16_KHR, from VK_KHR_shader_bfloat16 (extension 142). Headers older than
// that extension, like the 1.4.309 ones vkconv builds with on Debian, do not define it, yet
// drivers list shapes with it (the H200: 16x16x16 bf16*bf16+f32->f32), so its value is spelled
// out here.
constexpr VkComponentTypeKHR kComponentTypeBfloat16 = static_cast<VkComponentTypeKHR>(1000141000);

// F16, F32, BF16, U8, S8, U32 or S32; Other for any other type (e.g. fp8 or 64-bit ones).
ScalarType scalarType(VkComponentTypeKHR type);

}  // namespace vkconv::detail
