// EXPECT that a call throws vkconv::Error whose message names `what` (a field and its value, or
// the rule broken): the tests' one way to check the library's errors.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "vkconv/error.hpp"

namespace vkconv::test {

template <typename Call>
void expectRefused(Call call, const std::string& what) {
    try {
        call();
        ADD_FAILURE() << "accepted; expected an error naming " << what;
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr(what));
    }
}

}  // namespace vkconv::test
