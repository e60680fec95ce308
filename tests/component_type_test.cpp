// How cooperative-matrix component types are named: `vkconv devices`, the devices report and the
// portability summary print shapes through CoopMatShape::str().
#include <gtest/gtest.h>

#include "runtime/component_type.hpp"

namespace vkconv::test {
namespace {

TEST(ComponentType, Bfloat16IsNamedBf16) {
    EXPECT_EQ(detail::scalarType(detail::kComponentTypeBfloat16), ScalarType::BF16);
    EXPECT_STREQ(toString(ScalarType::BF16), "bf16");
#ifdef VK_KHR_shader_bfloat16
    // Where the headers know the extension, the spelled-out value must be theirs.
    static_assert(detail::kComponentTypeBfloat16 == VK_COMPONENT_TYPE_BFLOAT16_KHR);
#endif
}

TEST(ComponentType, CoreTypesKeepTheirNames) {
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_FLOAT16_KHR), ScalarType::F16);
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_FLOAT32_KHR), ScalarType::F32);
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_UINT8_KHR), ScalarType::U8);
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_SINT8_KHR), ScalarType::S8);
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_UINT32_KHR), ScalarType::U32);
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_SINT32_KHR), ScalarType::S32);
}

TEST(ComponentType, UnknownTypesAreOther) {
    EXPECT_EQ(detail::scalarType(VK_COMPONENT_TYPE_FLOAT64_KHR), ScalarType::Other);
    // VK_EXT_shader_float8's VK_COMPONENT_TYPE_FLOAT8_E4M3_EXT: no vkconv name.
    EXPECT_EQ(detail::scalarType(static_cast<VkComponentTypeKHR>(1000491002)), ScalarType::Other);
    EXPECT_STREQ(toString(ScalarType::Other), "other");
}

TEST(ComponentType, H200Bf16ShapeString) {
    CoopMatShape shape;
    shape.m = shape.n = shape.k = 16;
    shape.a = detail::scalarType(detail::kComponentTypeBfloat16);
    shape.b = detail::scalarType(detail::kComponentTypeBfloat16);
    shape.c = shape.result = detail::scalarType(VK_COMPONENT_TYPE_FLOAT32_KHR);
    EXPECT_EQ(shape.str(), "16x16x16 bf16*bf16+f32->f32");
}

}  // namespace
}  // namespace vkconv::test
