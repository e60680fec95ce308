// Size arithmetic that cannot wrap: products of problem and configuration fields are computed
// with the compiler's overflow builtins, so a value too large to represent is reported (by the
// caller, naming the field) instead of wrapping to a small or zero size.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

#include "vkconv/error.hpp"

namespace vkconv::detail {

// The product of non-negative factors, or nullopt if it exceeds `max` (or int64).
inline std::optional<int64_t> checkedProduct(std::initializer_list<int64_t> factors,
                                             int64_t max = std::numeric_limits<int64_t>::max()) {
    int64_t product = 1;
    for (int64_t f : factors) {
        if (f < 0 || __builtin_mul_overflow(product, f, &product) || product > max) return std::nullopt;
    }
    return product;
}

// The same for unsigned 64-bit factors.
inline std::optional<uint64_t> checkedProductU64(std::initializer_list<uint64_t> factors,
                                                 uint64_t max = std::numeric_limits<uint64_t>::max()) {
    uint64_t product = 1;
    for (uint64_t f : factors) {
        if (__builtin_mul_overflow(product, f, &product) || product > max) return std::nullopt;
    }
    return product;
}

// The product, or `saturated` when it does not fit: for accessors whose callers compare the
// result against a limit (a saturated value always fails the comparison, it never wraps small).
inline int64_t saturatingProduct(std::initializer_list<int64_t> factors) {
    return checkedProduct(factors).value_or(std::numeric_limits<int64_t>::max());
}

inline bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

// A resource count of a configuration as the 32-bit value a pipeline takes; a product that does
// not fit (a hand-edited tuning cache entry with 2^28 subgroups) is an error naming its factors.
inline uint32_t fitU32(const char* what, std::optional<uint64_t> value, const std::string& factors) {
    if (!value || *value > 0xffffffffull)
        throw invalidArgument(std::string("config ") + what, factors, "does not fit 32 bits");
    return static_cast<uint32_t>(*value);
}

}  // namespace vkconv::detail
