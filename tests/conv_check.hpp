// One correctness check: random inputs, a NaN-filled output, Conv2d::run, and the comparison with
// the double-precision reference. Shared by the correctness, chunking and validation suites.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/context.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::test {

struct CheckResult {
    bool ran = false;        // false: the path is not available (skipReason says why)
    std::string skipReason;
    bool limitedByProfile = false;  // skipped because a profile's narrowed limits leave no configuration
    double error = 0, bound = 0;
    std::string report;      // problem, seed, configuration, error and bound, for messages
    bool passed() const { return ran && error <= bound; }
};

// How a case picks its path: Precision::Fp32, Precision::Fast (the best cooperative-matrix path),
// or the bf16 cooperative-matrix path forced through its heuristic configuration (registered
// only on devices that have it besides f16, where Fast would never pick it).
// Packed and PackedBRegisters force the packed-input loader (B staged, or B in registers) through
// its best heuristic configuration; registered only where the device has cooperative matrices
// and such a configuration fits the problem. Nhwc forces the channels-last loader (the general
// kernel) the same way.
enum class Variant { Fp32, Fast, CoopMatBF16, Packed, PackedBRegisters, Nhwc };
std::string variantName(Variant variant);  // "fp32", "fast", "bf16", "packed", "breg", "nhwc": in test names

// Runs `problem` as `variant` on `context`. When the variant's path is not available (Fast on a
// device or problem without a cooperative-matrix path, bf16 without a configuration), returns
// ran = false with the reason instead of running the fp32 fallback a second time.
CheckResult checkConv(const Context& context, const NamedProblem& problem, Variant variant);

// One parametrized case: a problem on one device as one variant.
struct ConvCase {
    int device;  // -1: no device could be listed (the case fails with the reason)
    Variant variant;
    NamedProblem problem;
};

// gtest prints a case (in failure messages) by its name and problem.
void PrintTo(const ConvCase& c, std::ostream* os);

// Every problem x every test device x {Fp32, Fast, CoopMatBF16 where the device has both f16 and
// bf16 cooperative matrices, Packed and PackedBRegisters where a packed configuration fits}.
// profile: the suite runs under it (the chunking suite's narrow limits); packed cases are
// registered only where a packed configuration fits the device seen through it.
std::vector<ConvCase> allCases(const std::vector<NamedProblem>& problems,
                               const DeviceProfile* profile = nullptr);

// "dev0_fast_alexnet1_n2": gtest's name for a case.
std::string caseName(const ConvCase& c);

// Reports a path that is not available: a skip (with the reason), or a failure when
// VKCONV_REQUIRE_COOPMAT=1 says the fast path must run on cooperative matrices here.
// (bf16 cases exist only where the device lists bf16 shapes, so they never skip for lack of it.)
#define VKCONV_SKIP_UNAVAILABLE(result)                                                        \
    do {                                                                                       \
        if (::vkconv::test::requireCoopMat() && !(result).limitedByProfile)                    \
            FAIL() << "VKCONV_REQUIRE_COOPMAT=1 but the fast path is unavailable: "            \
                   << (result).skipReason << "\n" << (result).report;                          \
        GTEST_SKIP() << (result).skipReason;                                                   \
    } while (0)

}  // namespace vkconv::test
