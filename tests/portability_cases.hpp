// The portability suite's cases and tools: which paths each Vulkan device present can run (the
// portable fp32 path, and the cooperative-matrix path once per listed shape, operand type and
// subgroup size), the representative problem subset, running one problem with a given
// configuration or precision, and whether a configuration stays inside a DeviceProfile.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "test_problems.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::test {

// ~27 of edgeCaseProblems(): edge cases of every kind plus two small AlexNet-like layers.
std::vector<NamedProblem> portabilityProblems();

// One path of one device: fp32, or a cooperative-matrix shape at one subgroup size. A case with
// a skipReason stands for a path the device cannot run (registered so that it reports SKIPPED).
struct PathCase {
    int device = -1;  // -1: no device could be listed (the case fails with the reason)
    Path path = Path::Fp32;
    uint32_t mmaM = 0, mmaN = 0, mmaK = 0;  // cooperative matrix: the listed shape
    uint32_t subgroupSize = 0;              // cooperative matrix: the size the kernel is built for
    bool nvCoopMat2 = false;                // VK_NV_cooperative_matrix2: listed, no vkconv path yet
    std::string skipReason;
    std::string name;  // "dev0_coopmat_f16_8x8x8_sg8": the test's name
    std::string label() const;  // "coopmat-f16 8x8x8 sg8": the summary's path column
};
void PrintTo(const PathCase& c, std::ostream* os);

// Every test device x every path it has (and one skipped case per path it lacks).
std::vector<PathCase> allPathCases();

// One device under one shipped profile, as it is ("none"), or under tightCoopMatProfile().
struct ProfileCase {
    int device = -1;
    std::string profile;  // DeviceProfile::byName, "none" or tightCoopMatProfile().name
    std::string name;     // "dev0_profile_mobile"
};
// A test profile: the spec minimums of shared memory (16 KB) and invocations (128) with the
// device's cooperative matrices kept, so the fast path's own configurations meet tight limits
// (no shipped profile does that on lavapipe, whose 8x8x8 shape no shipped profile lists).
const DeviceProfile& tightCoopMatProfile();
// The profile a case names (an empty one for "none").
DeviceProfile profileFor(const ProfileCase& c);
void PrintTo(const ProfileCase& c, std::ostream* os);
std::vector<ProfileCase> allProfileCases();

// The portability suite's Context for a device (and profile): with the validation layer on unless
// portabilityValidation() says otherwise.
struct PortabilityContext {
    Context* context = nullptr;
    bool validation = false;
    size_t creationMessages = 0;
    std::string creationMessage;
};
PortabilityContext portabilityContext(int device, const std::optional<DeviceProfile>& profile);

// Whether the suite runs under VK_LAYER_KHRONOS_validation: env VKCONV_PORTABILITY_VALIDATION=0
// turns it off, =1 requires it; unset, it is on where the layer is installed (and required in CI).
// `why` says which and, when it is off, why.
bool portabilityValidation(std::string* why = nullptr);

// One problem run once: NaN-poisoned output, the reference within errorBound(config's path),
// and the validation messages it caused.
struct ProblemRun {
    bool ran = false;
    std::string skipReason;  // set when ran is false
    KernelConfig config;
    std::string description;  // Conv2d::describe()
    double error = 0, bound = 0;
    double elementError = 0, elementBound = 0;  // maxElementError and elementErrorBound(path)
    uint64_t guardWordsChanged = 0;              // writes past the output (conv_check.hpp)
    size_t validationMessages = 0;
    std::string lastValidationMessage;
    std::string report;  // problem, seed, configuration, error and bound, for messages
    bool passed() const {
        return ran && error <= bound && elementError <= elementBound && guardWordsChanged == 0 &&
               validationMessages == 0;
    }
};
// Plans with `options`; runs and compares unless `planOnly`.
ProblemRun runProblem(const Context& context, const NamedProblem& problem, const ConvOptions& options,
                      bool planOnly = false);

// The heuristic's best configuration of the path case's shape and subgroup size for a problem
// on the context's device, or the reason there is none.
std::optional<KernelConfig> configForPath(const PathCase& path, const DeviceInfo& device,
                                          const ConvProblem& problem, std::string* whyNot);

// "" if the configuration stays inside the profile's limits and the real device's (threads,
// shared memory, subgroup size, cooperative-matrix shapes and operand types, grid), else what it
// exceeds. `hardware` is the device without the profile.
std::string profileViolation(const KernelConfig& config, const ConvProblem& problem,
                             const DeviceProfile& profile, const DeviceInfo& hardware);

// The summary printed when the suite ends: one row per device x profile x path.
struct LedgerRow {
    std::string device, profile, path;
    int ran = 0, passed = 0, skipped = 0;  // problems
    bool pathSkipped = false;              // the whole path is unavailable (note says why)
    std::string note;  // skip reason, profile notes or fallback, for the last column
};
void recordLedger(const LedgerRow& row);

}  // namespace vkconv::test
