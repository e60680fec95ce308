// The portability suite: on every Vulkan device present, every path the device has (fp32; the
// cooperative-matrix path per listed shape, operand type and subgroup size) runs a
// representative subset of the correctness problems with a forced configuration of that shape,
// and the same subset runs under every shipped DeviceProfile, where every configuration the
// selector may choose must fit the profile and Precision::Fast must fall back to fp32, saying
// so, where the profile leaves no cooperative-matrix path. Paths a device lacks are SKIPPED
// with the reason. Runs under the validation layer where it is installed (any message fails).
// When it ends it prints a summary: device x profile x path, problems ran/passed/skipped.
//
//   vkconv_tests --gtest_filter='*Portability*'
//   LP_NATIVE_VECTOR_WIDTH=128|256|512: lavapipe's subgroup size 4|8|16 (scripts/test.sh)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "select/config_select.hpp"  // src/: the candidates every profile must bound
#include "portability_cases.hpp"
#include "test_devices.hpp"
#include "vkconv/error.hpp"

namespace vkconv::test {
namespace {

using ::testing::HasSubstr;

std::string deviceLabel(int device) {
    if (device < 0) return "(no device)";
    const DeviceInfo& d = testDevices()[size_t(device)];
    return "dev" + std::to_string(device) + " " + d.name + " sg" + std::to_string(d.subgroupSize);
}

// Notes that differ only in their whole numbers ("each group has only 1 output channel(s)", "...
// only 4 ...") become one, which names every number seen: "each group has only 1 or 4 output
// channel(s)". Numbers inside words ("8x8x8", "fp32") are part of the text.
class NumberedNotes {
public:
    void add(const std::string& s) {
        std::string text;
        std::vector<std::string> numbers;
        for (size_t i = 0; i < s.size(); ++i) {
            const bool digit = std::isdigit(static_cast<unsigned char>(s[i]));
            const bool inWord = i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1]));
            if (digit && !inWord) {
                size_t j = i;
                while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
                if (j == s.size() || s[j] == ' ') {  // a whole number, not "8x8x8" or "fp32"
                    text += kSlot;
                    numbers.push_back(s.substr(i, j - i));
                    i = j - 1;
                    continue;
                }
            }
            text += s[i];
        }
        auto& slots = notes_[text];
        slots.resize(numbers.size());
        for (size_t k = 0; k < numbers.size(); ++k) slots[k].insert(std::stoll(numbers[k]));
    }

    std::set<std::string> notes() const {
        std::set<std::string> out;
        for (const auto& [text, slots] : notes_) {
            std::string note;
            size_t slot = 0;
            for (char c : text) {
                if (c != kSlot) {
                    note += c;
                    continue;
                }
                note += listed(slots[slot++]);
            }
            out.insert(note);
        }
        return out;
    }

    bool empty() const { return notes_.empty(); }

    // {1, 4} -> "1 or 4"; runs of three or more consecutive values as "1-7": {1..7, 9} -> "1-7 or 9".
    static std::string listed(const std::set<long long>& values) {
        std::vector<std::string> parts;
        for (auto it = values.begin(); it != values.end();) {
            auto last = it;
            while (std::next(last) != values.end() && *std::next(last) == *last + 1) ++last;
            const long long run = *last - *it + 1;
            if (run >= 3) {
                parts.push_back(std::to_string(*it) + "-" + std::to_string(*last));
            } else {
                parts.push_back(std::to_string(*it));
                if (run == 2) parts.push_back(std::to_string(*last));
            }
            it = std::next(last);
        }
        std::string out;
        for (size_t k = 0; k < parts.size(); ++k)
            out += (k == 0 ? "" : k + 1 == parts.size() ? " or " : ", ") + parts[k];
        return out;
    }

private:
    static constexpr char kSlot = '\x01';
    std::map<std::string, std::vector<std::set<long long>>> notes_;
};

// The summary's notes name the numbers they stand for, not "N".
TEST(PortabilitySummaryNotes, NameTheActualNumbers) {
    NumberedNotes notes;
    notes.add("fast requested, but each group has only 4 output channel(s), too few; using fp32");
    notes.add("fast requested, but each group has only 1 output channel(s), too few; using fp32");
    notes.add("fast requested, but each group has only 4 output channel(s), too few; using fp32");
    notes.add("no 8x8x8 shape in fp32");
    EXPECT_EQ(notes.notes(), (std::set<std::string>{
                                 "fast requested, but each group has only 1 or 4 output channel(s), too few; using fp32",
                                 "no 8x8x8 shape in fp32"}));
    EXPECT_EQ(NumberedNotes::listed({1, 2, 3, 4, 5, 6, 7, 9}), "1-7 or 9");
    EXPECT_EQ(NumberedNotes::listed({2, 3, 8}), "2, 3 or 8");
    NumberedNotes one;
    one.add("each group has only 2 output channel(s)");
    EXPECT_EQ(one.notes(), std::set<std::string>{"each group has only 2 output channel(s)"});
}

std::string joined(const std::set<std::string>& items) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : "; ") + i;
    return s;
}

// Every problem's name is one edgeCaseProblems() still has.
TEST(PortabilitySubset, NamesExist) {
    EXPECT_EQ(portabilityProblems().size(), 27u)
        << "a problem of portabilityProblems() is no longer in edgeCaseProblems()";
}

class Portability : public ::testing::TestWithParam<PathCase> {};

TEST_P(Portability, PathMatchesReference) {
    const PathCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    LedgerRow row{deviceLabel(c.device), "none", c.label()};
    if (!c.skipReason.empty()) {
        row.note = c.skipReason;
        row.pathSkipped = true;
        recordLedger(row);
        if (requireCoopMat() && c.path == Path::CoopMatF16)
            FAIL() << "VKCONV_REQUIRE_COOPMAT=1 but " << c.label() << " is unavailable: " << c.skipReason;
        GTEST_SKIP() << c.skipReason;
    }
    PortabilityContext ctx;
    try {
        ctx = portabilityContext(c.device, std::nullopt);
    } catch (const std::exception& e) {
        FAIL() << "creating the Context for device " << c.device << " threw: " << e.what();
    }
    ASSERT_EQ(ctx.creationMessages, 0u) << "validation messages while creating the Context; last: "
                                        << ctx.creationMessage;
    const Context& context = *ctx.context;
    std::set<std::string> skipReasons;
    for (const NamedProblem& problem : portabilityProblems()) {
        SCOPED_TRACE(problem.name);
        std::string whyNot;
        std::optional<KernelConfig> config;
        try {
            config = configForPath(c, context.device(), problem.problem, &whyNot);
        } catch (const Error& e) {
            // The one documented exception: selectConfig's Unsupported, "no configuration of the
            // path fits", and only on a cooperative-matrix path (the subset's problems all have
            // an fp32 configuration on any Vulkan 1.3 device). Anything else is a failure.
            if (e.kind() != Error::Kind::Unsupported || c.path == Path::Fp32) {
                ADD_FAILURE() << "choosing a " << c.label() << " configuration for " << problem.problem.str()
                              << " threw: " << e.what();
                continue;
            }
            whyNot = e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "choosing a " << c.label() << " configuration for " << problem.problem.str()
                          << " threw: " << e.what();
            continue;
        }
        if (!config) {
            ++row.skipped;
            skipReasons.insert(whyNot);
            continue;
        }
        ConvOptions options;
        options.precision = c.path == Path::Fp32 ? Precision::Fp32 : Precision::Fast;
        options.config = config;
        ProblemRun run;
        try {
            run = runProblem(context, problem, options);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "problem " << problem.name << ": " << problem.problem.str() << "\n  config "
                          << config->str() << "\n  threw: " << e.what();
            ++row.ran;
            continue;
        }
        ++row.ran;
        EXPECT_EQ(run.config, *config) << run.report;
        EXPECT_EQ(canImplement(run.config, context.device(), problem.problem), "") << run.report;
        EXPECT_LE(run.error, run.bound) << run.report;
        EXPECT_LE(run.elementError, run.elementBound) << run.report;
        EXPECT_EQ(run.guardWordsChanged, 0u) << run.report;
        EXPECT_EQ(run.validationMessages, 0u) << run.report;
        if (run.passed()) ++row.passed;
    }
    row.note = joined(skipReasons);
    recordLedger(row);
    if (row.skipped && requireCoopMat() && c.path == Path::CoopMatF16)
        ADD_FAILURE() << "VKCONV_REQUIRE_COOPMAT=1 but " << row.skipped << " problem(s) have no "
                      << c.label() << " configuration: " << row.note;
    if (row.ran == 0) GTEST_SKIP() << "no problem of the subset has a " << c.label() << " configuration: " << row.note;
}

INSTANTIATE_TEST_SUITE_P(Paths, Portability, ::testing::ValuesIn(allPathCases()),
                         [](const auto& info) { return info.param.name; });

class PortabilityProfile : public ::testing::TestWithParam<ProfileCase> {};

// The effective device never exceeds the profile or the hardware.
void expectNarrowed(const DeviceInfo& e, const DeviceInfo& hw, const DeviceProfile& p) {
    EXPECT_LE(e.maxSharedMemoryBytes, hw.maxSharedMemoryBytes);
    EXPECT_LE(e.maxSharedMemoryBytes, p.maxSharedMemoryBytes.value_or(~0u));
    EXPECT_LE(e.maxWorkGroupInvocations, hw.maxWorkGroupInvocations);
    EXPECT_LE(e.maxWorkGroupInvocations, p.maxWorkGroupInvocations.value_or(~0u));
    EXPECT_LE(e.maxStorageBufferRange, hw.maxStorageBufferRange);
    EXPECT_LE(e.maxStorageBufferRange, p.maxStorageBufferRange.value_or(~0ull));
    for (int i = 0; i < 3; ++i) {
        EXPECT_LE(e.maxWorkGroupCount[i], hw.maxWorkGroupCount[i]);
        if (p.maxWorkGroupCount) {
            EXPECT_LE(e.maxWorkGroupCount[i], (*p.maxWorkGroupCount)[i]);
        }
    }
    if (p.coopMatKhr == false) {
        EXPECT_FALSE(e.coopMatKhr);
    }
    if (p.shaderFloat16 == false) {
        EXPECT_FALSE(e.shaderFloat16);
    }
    if (p.coopMatShapes) {
        EXPECT_LE(e.coopMatShapes.size(), p.coopMatShapes->size());
    }
}

TEST_P(PortabilityProfile, FitsProfileAndMatchesReference) {
    const ProfileCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const bool none = c.profile == "none";
    const DeviceProfile profile = profileFor(c);
    const DeviceInfo& hw = testDevices()[size_t(c.device)];
    PortabilityContext ctx;
    try {
        ctx = portabilityContext(c.device, none ? std::nullopt : std::optional<DeviceProfile>(profile));
    } catch (const std::exception& e) {
        FAIL() << "creating the Context for device " << c.device << " under profile " << c.profile
               << " threw: " << e.what();
    }
    ASSERT_EQ(ctx.creationMessages, 0u) << "validation messages while creating the Context; last: "
                                        << ctx.creationMessage;
    const Context& context = *ctx.context;
    const DeviceInfo& e = context.device();
    expectNarrowed(e, hw, profile);
    std::vector<std::string> notes;
    applyProfile(hw, profile, &notes);

    LedgerRow fp32Row{deviceLabel(c.device), c.profile, "fp32 (selected)"};
    LedgerRow fastRow{deviceLabel(c.device), c.profile, "fast"};
    std::set<std::string> fastPaths;
    NumberedNotes fallbacks;
    for (const std::string& n : notes) fp32Row.note += (fp32Row.note.empty() ? "" : "; ") + n;
    size_t violations = 0;
    for (const NamedProblem& problem : portabilityProblems()) {
        SCOPED_TRACE(problem.name);
        const ConvProblem& p = problem.problem;
        // Everything the selector may choose stays inside the profile (and the hardware).
        bool coopMat = false;
        for (Path path : {Path::Fp32, Path::CoopMatF16}) {
            const auto candidates = detail::candidateConfigs(path, e, p);
            if (path != Path::Fp32) coopMat |= !candidates.empty();
            for (const auto& k : candidates)
                if (std::string why = profileViolation(k, p, profile, hw); !why.empty() && violations++ < 5)
                    ADD_FAILURE() << "candidate " << k.str() << " for " << p.str() << " exceeds profile "
                                  << c.profile << ": " << why;
        }
        ConvOptions fp32Options;
        fp32Options.precision = Precision::Fp32;
        ConvOptions fastOptions;  // Precision::Fast
        ProblemRun fp32, fast;
        try {
            fp32 = runProblem(context, problem, fp32Options);
            // Where no cooperative-matrix configuration survives, Fast must plan the same fp32
            // configuration, whose result the fp32 run has just checked: plan only.
            fast = runProblem(context, problem, fastOptions, /*planOnly=*/!coopMat);
        } catch (const std::exception& ex) {
            ADD_FAILURE() << "problem " << problem.name << ": " << p.str() << " under profile "
                          << c.profile << "\n  threw: " << ex.what();
            ++fp32Row.ran, ++fastRow.ran;
            continue;
        }
        ++fp32Row.ran;
        EXPECT_EQ(canImplement(fp32.config, e, p), "") << fp32.report;
        EXPECT_EQ(profileViolation(fp32.config, p, profile, hw), "") << fp32.report;
        EXPECT_LE(fp32.error, fp32.bound) << fp32.report;
        EXPECT_LE(fp32.elementError, fp32.elementBound) << fp32.report;
        EXPECT_EQ(fp32.guardWordsChanged, 0u) << fp32.report;
        EXPECT_EQ(fp32.validationMessages, 0u) << fp32.report;
        if (fp32.passed()) ++fp32Row.passed;

        ++fastRow.ran;
        EXPECT_EQ(canImplement(fast.config, e, p), "") << fast.report;
        EXPECT_EQ(profileViolation(fast.config, p, profile, hw), "") << fast.report;
        EXPECT_EQ(fast.validationMessages, 0u) << fast.report;
        if (fast.config.path != Path::Fp32) {
            EXPECT_TRUE(coopMat) << fast.report;
            EXPECT_LE(fast.error, fast.bound) << fast.report;
            EXPECT_LE(fast.elementError, fast.elementBound) << fast.report;
            EXPECT_EQ(fast.guardWordsChanged, 0u) << fast.report;
            const CoopMatTiling& t = *fast.config.coopMat();
            fastPaths.insert(std::string(toString(fast.config.path)) + " " + std::to_string(t.mmaM) + "x" +
                             std::to_string(t.mmaN) + "x" + std::to_string(t.mmaK));
            if (fast.passed()) ++fastRow.passed;
        } else {
            // fp32: required where the profile left no cooperative-matrix configuration, allowed
            // (the selector's own call, e.g. too few output channels per group) elsewhere; either
            // way it must say why, and be the fp32 path's own choice, checked by the run above.
            EXPECT_THAT(fast.description, HasSubstr("fast requested, but")) << fast.report;
            EXPECT_THAT(fast.description, HasSubstr("using fp32")) << fast.report;
            EXPECT_EQ(fast.config, fp32.config) << "the fallback must be the fp32 path's own choice\n"
                                                << fast.report << "\n" << fp32.report;
            std::string why = detail::choosePath(Precision::Fast, e, p).why;
            const std::string name = "'" + e.name + "'";
            if (size_t at = why.find(name); at != std::string::npos) why.replace(at, name.size(), "the device");
            fallbacks.add(why);
            if (fast.config == fp32.config && fast.validationMessages == 0 && fp32.passed()) ++fastRow.passed;
        }
    }
    fastRow.path = "fast -> " + (fastPaths.empty() ? std::string("fp32") : joined(fastPaths)) +
                   (fallbacks.empty() || fastPaths.empty() ? "" : ", fp32");
    fastRow.note = joined(fallbacks.notes());
    recordLedger(fp32Row);
    recordLedger(fastRow);
}

INSTANTIATE_TEST_SUITE_P(Profiles, PortabilityProfile, ::testing::ValuesIn(allProfileCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vkconv::test
