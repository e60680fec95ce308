// vkconv_tests' main: runs every suite, then destroys the shared Contexts while the Vulkan
// loader and driver are still fully alive (not during static destruction), and prints how many
// cases ran a cooperative-matrix kernel against how many the selected cases stand for.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "conv_check.hpp"
#include "test_devices.hpp"

namespace {

// Selected cases of the suites that run checkConv, whose variant stands for a cooperative-matrix
// kernel: "Problems/ConvCorrectness.MatchesReference/dev0_fast_alexnet1_n2" and the like.
uint64_t coopMatCasesIntended() {
    uint64_t n = 0;
    const auto* unit = ::testing::UnitTest::GetInstance();
    for (int i = 0; i < unit->total_test_suite_count(); ++i) {
        const auto* suite = unit->GetTestSuite(i);
        const std::string suiteName = suite->name();
        if (suiteName != "Problems/ConvCorrectness" && suiteName != "Problems/ConvChunking" &&
            suiteName != "Problems/ConvValidation")
            continue;
        for (int j = 0; j < suite->total_test_count(); ++j) {
            const auto* info = suite->GetTestInfo(j);
            if (!info->should_run()) continue;
            const std::string name = info->name();  // "MatchesReference/dev0_fast_alexnet1_n2"
            const size_t device = name.find("/dev");
            const size_t start = name.find('_', device);
            const size_t end = name.find('_', start + 1);
            if (device == std::string::npos || start == std::string::npos || end == std::string::npos) continue;
            const std::string variant = name.substr(start + 1, end - start - 1);
            for (vkconv::test::Variant v : vkconv::test::kAllVariants)
                n += vkconv::test::variantName(v) == variant && vkconv::test::expectsCoopMat(v);
        }
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    // The validation layer reports each message at most 10 times per instance by default; the
    // validation cases share one instance and count messages per case, so a repeated message
    // would pass every case after the tenth. Unless the caller chose a limit, make it unlimited.
    setenv("VK_LAYER_DUPLICATE_MESSAGE_LIMIT", "2147483647", /*overwrite=*/0);
    // A private cache folder unless the caller chose one (scripts/test.sh does, to keep compiled
    // pipelines between runs): never the user's ~/.cache/vkconv, whose tuning.json would change
    // which configurations the tests run.
    std::string privateCache;
    if (const char* dir = std::getenv("VKCONV_CACHE_DIR"); !dir || !*dir) {
        char path[] = "/tmp/vkconv-tests-cache-XXXXXX";
        if (!mkdtemp(path)) {
            std::perror("vkconv_tests: mkdtemp");
            return 1;
        }
        privateCache = path;
        setenv("VKCONV_CACHE_DIR", path, 1);
    }
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    vkconv::test::releaseSharedContexts();
    if (!privateCache.empty()) std::system(("rm -rf '" + privateCache + "'").c_str());
    // scripts/test.sh reads this line (per shard) and requires ran == intended in the Mesa 26 root.
    std::printf("[vkconv-tests] cooperative-matrix cases: %llu ran, %llu intended\n",
                static_cast<unsigned long long>(vkconv::test::coopMatCasesRan()),
                static_cast<unsigned long long>(coopMatCasesIntended()));
    return result;
}
