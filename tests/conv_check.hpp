// One correctness check: random inputs, a NaN-filled output, Conv2d::run, and the comparison with
// the double-precision reference. Shared by the correctness, chunking and validation suites.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {

struct CheckResult {
    bool ran = false;        // false: the path is not available (skipReason says why)
    std::string skipReason;
    bool limitedByProfile = false;  // skipped because a profile's narrowed limits leave no configuration
    // Set when the case ran something other than what its variant stands for (a `fast` case on
    // fp32, a `fastfp32` case on cooperative matrices, a fallback that does not say why): a
    // failure, never a skip.
    std::string wrongPath;
    Path path = Path::Fp32;  // the path that ran
    double error = 0, bound = 0;  // ||out - ref|| / ||ref|| and errorBound(path)
    // max |out - ref| / RMS(ref) and elementErrorBound(path): one bad element in a large output
    // moves the L2 error too little to fail it.
    double elementError = 0, elementBound = 0;
    uint64_t guardWordsChanged = 0;  // words of the poisoned region after the output that changed
    std::string config, describe;  // what ran: KernelConfig::str() and Conv2d::describe()
    std::string report;      // problem, seed, configuration, errors and bounds, for messages
    bool passed() const {
        return ran && wrongPath.empty() && error <= bound && elementError <= elementBound && guardWordsChanged == 0;
    }
};

// The checks every case that ran makes: the path it stands for, both error bounds, the guard.
#define VKCONV_EXPECT_CHECK_PASSED(result)                                                     \
    do {                                                                                       \
        EXPECT_EQ((result).wrongPath, "") << (result).report;                                  \
        EXPECT_LE((result).error, (result).bound) << (result).report;                          \
        EXPECT_LE((result).elementError, (result).elementBound) << (result).report;            \
        EXPECT_EQ((result).guardWordsChanged, 0u)                                              \
            << "the kernel wrote past the end of the output\n" << (result).report;            \
    } while (0)

// The output poisoning every check uses: `out` gets a buffer kGuardWords (16 KiB) longer than its
// elements, every element NaN (an element the kernel never writes fails), the words after them a
// NaN pattern no kernel writes. The kernels bind only the tensor's own bytes: a write past them
// lands in the guard, and guardWordsChanged() counts it after the run.
constexpr uint64_t kGuardWords = 4096;
void poisonWithGuard(const Context& context, Tensor& out);
uint64_t guardWordsChanged(const Context& context, const Tensor& out);

// Cases that ran a cooperative-matrix kernel in this process (printed by main when the suite
// ends, so that scripts/test.sh can check it against coopMatCasesIntended()).
uint64_t coopMatCasesRan();

// How a case picks its path: Precision::Fp32, or Precision::Fast (the best cooperative-matrix path).
// PackedBRegisters forces the packed-input loader (B in registers) through its best heuristic
// configuration; registered only where the device has cooperative matrices and such a
// configuration fits the problem. Nhwc forces the channels-last loader (the general
// kernel) the same way. Nchw forces the loader that reads 1x1 convolutions' NCHW input directly,
// on the few problems nchwVariantConfigKind() names, each with the kind of configuration it checks.
// FastFp32 is Precision::Fast where the suite expects the documented fallback to fp32: on a device
// with cooperative matrices, a problem with fewer than 8 output channels per group (too few for
// matrix-unit tiles). It is its own variant so that such a case is never counted as a fast pass;
// a Fast case must run a cooperative-matrix kernel wherever the device lists f16 shapes.
enum class Variant { Fp32, Fast, FastFp32, PackedBRegisters, Nhwc, NhwcTapsInner, Nchw };
constexpr Variant kAllVariants[] = {Variant::Fp32,          Variant::Fast, Variant::FastFp32, Variant::PackedBRegisters,
                                    Variant::Nhwc, Variant::NhwcTapsInner, Variant::Nchw};
// "fp32", "fast", "fastfp32", "breg", "nhwc", "nhwctaps", "nchw": in test names
std::string variantName(Variant variant);
// Whether a case of this variant stands for a cooperative-matrix kernel (all but fp32, fastfp32).
bool expectsCoopMat(Variant variant);
// The suite's rule for Precision::Fast: a cooperative-matrix kernel where the device (as the case
// sees it) lists an f16 shape with f32 accumulation and each group has at least 8 output channels.
bool fastExpectsCoopMat(const DeviceInfo& device, const ConvProblem& problem);

// The heuristic's best candidate configuration of `path` for `problem` among those `keep` accepts,
// if any: how the suites force one kind of configuration (a loader, a BK, an instruction shape).
std::optional<KernelConfig> bestCandidate(Path path, const DeviceInfo& device, const ConvProblem& problem,
                                          const std::function<bool(const KernelConfig&)>& keep);

// The check itself: runs `problem` with `options` on fresh random inputs from its seed into an
// output poisoned with its guard, and compares with the reference. `label` names how the options
// were chosen, in the report. checkConv calls it; suites that force a configuration of their own
// (tests/channel_slices_test.cpp) call it directly.
// Where the problem's epilogue has a residual, it is random too (its own stream); `residualInPlace`
// passes the output tensor as the residual (it then starts as the residual, not NaN).
CheckResult checkConvWith(const Context& context, const NamedProblem& problem, const ConvOptions& options,
                          const std::string& label, bool residualInPlace = false);

// Runs `problem` as `variant` on `context`. When the variant's path is not available (Fast on a
// device or problem without a cooperative-matrix path, a forced loader without a configuration), returns
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

// Every problem x every test device x {Fp32, Fast, PackedBRegisters where a packed configuration
// fits, the channels-last loaders where their configurations fit}.
// profile: the suite runs under it (the chunking suite's narrow limits); packed cases are
// registered only where a packed configuration fits the device seen through it.
std::vector<ConvCase> allCases(const std::vector<NamedProblem>& problems,
                               const DeviceProfile* profile = nullptr);

// "dev0_fast_alexnet1_n2": gtest's name for a case.
std::string caseName(const ConvCase& c);

// Reports a path that is not available: a skip (with the reason), or a failure when
// VKCONV_REQUIRE_COOPMAT=1 says the fast path must run on cooperative matrices here.
#define VKCONV_SKIP_UNAVAILABLE(result)                                                        \
    do {                                                                                       \
        if (::vkconv::test::requireCoopMat() && !(result).limitedByProfile)                    \
            FAIL() << "VKCONV_REQUIRE_COOPMAT=1 but the fast path is unavailable: "            \
                   << (result).skipReason << "\n" << (result).report;                          \
        GTEST_SKIP() << (result).skipReason;                                                   \
    } while (0)

}  // namespace vkconv::test
