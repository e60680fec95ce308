// Fuzzing with deterministic seeds: random and extreme field values through ConvProblem::validate,
// the execution planner, KernelConfig's resource counts and canImplement, and Conv2d on each real
// device. Every input must give a vkconv::Error (naming the field) or a correct result; a signal,
// a wrapped size or another exception type is a failure. Bounded: a fixed number of draws, the
// device part on small problems only. The CLI gets the same treatment in tests/cli/fuzz_cli.py.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "select/config_select.hpp"  // src/: the heuristic's configurations
#include "conv_check.hpp"
#include "problem/conv_plan.hpp"      // src/: planExecution
#include "shapes.hpp"         // bench/: the shapes file reader
#include "temp_dir.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::test {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// A field value: mostly small, often at a cap or past it, sometimes at int64's ends.
int64_t fuzzValue(Rng& rng) {
    static const int64_t extremes[] = {0, -1, 1, 2, 4096, 65536, (1 << 24) - 1, 1 << 24, (1 << 24) + 1,
                                       int64_t(1) << 31, std::numeric_limits<int32_t>::max(),
                                       int64_t(1) << 40, int64_t(1) << 62, kI64Max,
                                       std::numeric_limits<int64_t>::min(), -(int64_t(1) << 24)};
    switch (rng.uniformInt(0, 9)) {
        case 0: case 1: case 2: case 3: return rng.uniformInt(1, 6);
        case 4: return rng.uniformInt(0, 64);
        case 5: case 6: return extremes[rng.uniformInt(0, int64_t(std::size(extremes)) - 1)];
        case 7: return rng.uniformInt(1, 1 << 24);
        case 8: return rng.uniformInt(-(int64_t(1) << 62), int64_t(1) << 62);
        default: return rng.uniformInt(1, 3);
    }
}

ConvProblem fuzzProblem(Rng& rng) {
    ConvProblem p;
    int64_t* fields[] = {&p.batch,   &p.inChannels, &p.height,  &p.width,     &p.outChannels,
                         &p.kernelH, &p.kernelW,    &p.strideH, &p.strideW,   &p.padH,
                         &p.padW,    &p.dilationH,  &p.dilationW, &p.groups};
    // Half the draws change only a few fields of a valid small problem, so that products of
    // individually valid values (the wrap cases) are common, not drowned in invalid fields.
    if (rng.uniformInt(0, 1)) {
        p.batch = 1, p.inChannels = 4, p.height = p.width = 8, p.outChannels = 8;
        p.kernelH = p.kernelW = 3;
        for (int i = int(rng.uniformInt(1, 4)); i > 0; --i) *fields[rng.uniformInt(0, 13)] = fuzzValue(rng);
    } else {
        for (int64_t* f : fields) *f = fuzzValue(rng);
    }
    p.bias = rng.uniformInt(0, 1);
    return p;
}

// The exact product in 128 bits, for checking the library's 64-bit sizes.
__int128 exact(std::initializer_list<int64_t> factors) {
    __int128 p = 1;
    for (int64_t f : factors) p *= f;
    return p;
}

// validate() refuses with InvalidArgument naming "field = value", or accepts a problem whose
// every size is exact and within the documented caps. The accessors never trap either way.
TEST(Fuzz, ValidateRefusesOrSizesAreExact) {
    Rng rng(20261124);
    int accepted = 0;
    for (int i = 0; i < 200000; ++i) {
        const ConvProblem p = fuzzProblem(rng);
        // On an invalid problem too: no trap, no undefined behaviour (the sanitizer stage).
        (void)p.inputElements(), (void)p.weightElements(), (void)p.outputElements();
        (void)p.gemmM(), (void)p.gemmN(), (void)p.gemmK(), (void)p.flops(), (void)p.minBytes();
        try {
            p.validate();
        } catch (const Error& e) {
            ASSERT_EQ(e.kind(), Error::Kind::InvalidArgument) << e.what();
            ASSERT_NE(std::string(e.what()).find(" = "), std::string::npos) << e.what();
            continue;
        } catch (const std::exception& e) {
            FAIL() << p.str() << ": validate threw a non-vkconv exception: " << e.what();
        }
        ++accepted;
        const int64_t oh = p.outHeight(), ow = p.outWidth();
        ASSERT_GE(oh, 1) << p.str();
        ASSERT_GE(ow, 1) << p.str();
        ASSERT_EQ(__int128(p.inputElements()), exact({p.batch, p.inChannels, p.height, p.width})) << p.str();
        ASSERT_EQ(__int128(p.outputElements()), exact({p.batch, p.outChannels, oh, ow})) << p.str();
        ASSERT_EQ(__int128(p.weightElements()), exact({p.outChannels, p.inChannels / p.groups, p.kernelH, p.kernelW}))
            << p.str();
        ASSERT_LE(p.inputElements(), int64_t(1) << 50) << p.str();
        ASSERT_LE(p.outputElements(), int64_t(1) << 50) << p.str();
        ASSERT_LE(p.gemmK(), int64_t(1) << 30) << p.str();
    }
    EXPECT_GT(accepted, 1000) << "the generator must also produce valid problems";
}

DeviceInfo fuzzDevice(Rng& rng) {
    DeviceInfo d = fakeDevice();
    const uint64_t ranges[] = {1024, 1u << 20, 128u << 20, 1ull << 32};
    const uint64_t alignments[] = {4, 16, 256, 65536};
    const uint32_t grids[] = {1, 7, 65535, 0x7fffffff};
    d.maxStorageBufferRange = ranges[rng.uniformInt(0, 3)];
    d.minStorageBufferOffsetAlignment = alignments[rng.uniformInt(0, 3)];
    for (auto& g : d.maxWorkGroupCount) g = grids[rng.uniformInt(0, 3)];
    return d;
}

// The planner, on valid problems and made-up device limits with any tile sizes: a plan within
// the limits, or an Error; never a division by zero, a wrapped size or an unbounded plan.
TEST(Fuzz, PlanFitsTheLimitsOrRefuses) {
    Rng rng(7);
    const uint32_t tiles[] = {0, 1, 8, 64, 4096, 1u << 31, 0xffffffffu};
    int planned = 0;
    for (int i = 0; i < 20000; ++i) {
        const ConvProblem p = fuzzProblem(rng);
        try {
            p.validate();
        } catch (const Error&) {
            continue;
        }
        const DeviceInfo d = fuzzDevice(rng);
        const uint32_t bm = tiles[rng.uniformInt(0, 6)], bn = tiles[rng.uniformInt(0, 6)];
        const uint32_t tilesPerWorkgroup = uint32_t(rng.uniformInt(0, 3));
        detail::ExecutionPlan plan;
        try {
            plan = detail::planExecution(p, d, bm, bn, 0, 0, 0, tilesPerWorkgroup);
        } catch (const Error& e) {
            ASSERT_NE(std::string(e.what()), "") << p.str();
            continue;
        } catch (const std::exception& e) {
            FAIL() << p.str() << ": planExecution threw a non-vkconv exception: " << e.what();
        }
        ++planned;
        ASSERT_GE(plan.imagesPerChunk, 1u);
        ASSERT_LE(plan.dispatches.size(), size_t(1) << 20);
        const uint64_t usable = std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31);
        for (const auto& c : plan.chunks) {
            ASSERT_LE(c.input.range, usable) << p.str();
            ASSERT_LE(c.output.range, usable) << p.str();
            ASSERT_EQ(c.input.offset % std::max<uint64_t>(d.minStorageBufferOffsetAlignment, 4), 0u);
        }
        for (const auto& x : plan.dispatches) {
            ASSERT_GE(x.groupsX, 1u);
            ASSERT_LE(x.groupsX, d.maxWorkGroupCount[0]) << p.str();
            ASSERT_LE(x.groupsY, d.maxWorkGroupCount[1]) << p.str();
            ASSERT_LE(x.groupsZ, d.maxWorkGroupCount[2]) << p.str();
        }
    }
    EXPECT_GT(planned, 100);
}

uint32_t fuzzField(Rng& rng) {
    static const uint32_t values[] = {0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 4096, 65536, 1u << 28, 1u << 31, 0xffffffffu};
    return rng.uniformInt(0, 2) ? values[rng.uniformInt(0, 9)] : values[rng.uniformInt(0, 15)];
}

// Any configuration (a hand-edited tuning cache entry) through canImplement: never an exception,
// and what it accepts has resource counts within the device's limits and plans or refuses.
TEST(Fuzz, CanImplementAnyConfiguration) {
    Rng rng(99);
    const DeviceInfo devices[] = {fakeDevice(), fakeCoopMatDevice(false), fakeCoopMatDevice(true)};
    const ConvProblem problem = smallProblem();
    int accepted = 0;
    for (int i = 0; i < 50000; ++i) {
        const DeviceInfo& d = devices[i % 3];
        KernelConfig c;
        c.path = rng.uniformInt(0, 1) ? Path::Fp32 : Path::CoopMatF16;  // also the path of another kernel
        for (uint32_t* f : {&c.bm, &c.bn, &c.bk, &c.subgroupSize}) *f = fuzzField(rng);
        auto fuzzCoopMat = [&](CoopMatTiling& k) {
            for (uint32_t* f : {&k.warpsM, &k.warpsN, &k.mmaM, &k.mmaN, &k.mmaK, &k.stages}) *f = fuzzField(rng);
        };
        auto fuzzChannelsLast = [&](ChannelsLastTiling& k) {
            fuzzCoopMat(k);
            k.splitK = fuzzField(rng);
            k.tapsInner = rng.uniformInt(0, 1), k.fragmentPrefetch = rng.uniformInt(0, 1);
        };
        switch (rng.uniformInt(0, 5)) {
            case 0: c.params = Fp32GemmKernel{fuzzField(rng), fuzzField(rng)}; break;
            case 1: {
                GroupedDirectKernel k;
                for (uint32_t* f : {&k.threadsW, &k.threadsH, &k.vecW, &k.rows, &k.channels, &k.groups, &k.groupSteps})
                    *f = fuzzField(rng);
                k.fromMemory = rng.uniformInt(0, 1);
                c.params = k;
                break;
            }
            case 2: {
                CoopMatGatherKernel k;
                fuzzCoopMat(k);
                k.sLanes = fuzzField(rng), k.bGlobal = rng.uniformInt(0, 1);
                c.params = k;
                break;
            }
            case 3: {
                CoopMatPackedKernel k;
                fuzzCoopMat(k);
                k.tilesPerWorkgroup = fuzzField(rng);
                c.params = k;
                break;
            }
            case 4: {
                ChannelsLastNhwcKernel k;
                fuzzChannelsLast(k);
                c.params = k;
                break;
            }
            default: {
                ChannelsLastNchwKernel k;
                fuzzChannelsLast(k);
                c.params = k;
                break;
            }
        }
        std::string why;
        try {
            why = canImplement(c, d, problem);
        } catch (const std::exception& e) {
            FAIL() << c.str() << ": canImplement threw: " << e.what();
        }
        try {
            (void)c.threads();
            (void)c.sharedMemoryBytes(problem);
        } catch (const Error&) {
            ASSERT_NE(why, "") << c.str() << ": accepted, but its resource counts do not fit 32 bits";
        }
        if (!why.empty()) continue;
        ++accepted;
        ASSERT_LE(c.threads(), d.maxWorkGroupInvocations) << c.str();
        ASSERT_LE(c.sharedMemoryBytes(problem), d.maxSharedMemoryBytes) << c.str();
        try {
            const uint32_t tiles = c.is<CoopMatPackedKernel>() ? c.as<CoopMatPackedKernel>().tilesPerWorkgroup : 1;
            (void)detail::planExecution(problem, d, c.bm, c.bn, 0, 0, 0, tiles);
        } catch (const Error&) {
        }
    }
    EXPECT_GT(accepted, 0) << "the generator must also produce configurations that fit";
}

// Every JSON file vkconv reads (a configuration, a device description, the tuning cache, the
// benchmark's shapes), as text drawn from deep nesting, oversized values, truncation and byte
// noise around a valid document: each is taken or refused with vkconv::Error, never a crash
// (the recursive copy and destruction of a deeply nested value overflowed the stack).
std::string fuzzJson(Rng& rng, const std::string& valid) {
    auto nest = [](size_t depth, const std::string& open, const std::string& close, const std::string& inner) {
        std::string s;
        s.reserve(depth * (open.size() + close.size()) + inner.size());
        for (size_t i = 0; i < depth; ++i) s += open;
        s += inner;
        for (size_t i = 0; i < depth; ++i) s += close;
        return s;
    };
    static const size_t depths[] = {1, 31, 32, 33, 100, 5000, 100000, 400000};
    const size_t depth = depths[rng.uniformInt(0, int64_t(std::size(depths)) - 1)];
    switch (rng.uniformInt(0, 7)) {
        case 0: return nest(depth, "[", "]", "");
        case 1: return nest(depth, "{\"a\":", "}", "1");
        case 2: {  // a valid document with one value replaced by a deep one
            const size_t colon = valid.find(':', size_t(rng.uniformInt(0, int64_t(valid.size()) - 1)));
            if (colon == std::string::npos) return valid;
            const size_t end = valid.find_first_of(",}", colon);
            return valid.substr(0, colon + 1) + nest(depth, "[", "]", "0") + valid.substr(end);
        }
        case 3: return valid.substr(0, size_t(rng.uniformInt(0, int64_t(valid.size()))));
        case 4: {  // byte noise
            std::string s = valid;
            for (int i = int(rng.uniformInt(1, 8)); i > 0; --i)
                s[size_t(rng.uniformInt(0, int64_t(s.size()) - 1))] = char(rng.uniformInt(0, 255));
            return s;
        }
        case 5: return "\"" + std::string(size_t(rng.uniformInt(1, 80)) << 20, 'x') + "\"";  // up to 80 MB
        case 6: return valid.substr(0, valid.size() - 1) + ", \"pad\": [" + nest(depth, "1,", "", "1") + "]}";
        default: return valid;
    }
}

TEST(Fuzz, JsonFilesAreTakenOrRefusedNeverACrash) {
    Rng rng(0x150A);
    const std::string config = configToJson(KernelConfig{});
    const std::string device = deviceInfoToJson(fakeDevice());
    const std::string cache =
        "{\"format\": \"vkconv tuning cache\", \"version\": 2, \"devices\": {\"d\": {\"entries\": {\"p\": "
        "{\"config\": " + config + ", \"ms\": 1.0, \"date\": \"x\"}}}}}";
    const std::string shapes =
        "{\"suites\": {\"s\": {\"shapes\": [{\"name\": \"a\", \"batch\": 1, \"in_channels\": 4, \"height\": 8, "
        "\"width\": 8, \"out_channels\": 4, \"kernel\": 3}]}}}";
    TempDir dir;
    int taken = 0, refused = 0;
    for (int draw = 0; draw < 24; ++draw) {
        SCOPED_TRACE(draw);
        const auto attempt = [&](const char* what, const std::function<void()>& f) {
            try {
                f();
                ++taken;
            } catch (const Error&) {
                ++refused;
            } catch (const std::exception& e) {
                ADD_FAILURE() << what << ": not a vkconv::Error: " << e.what();
            }
        };
        attempt("configFromJson", [&] { configFromJson(fuzzJson(rng, config)); });
        attempt("deviceInfoFromJson", [&] { deviceInfoFromJson(fuzzJson(rng, device)); });
        attempt("TuningCache", [&] {
            writeText(dir.file("tuning.json"), fuzzJson(rng, cache));
            TuningCache c(dir.path(), [](const std::string&) {});
            (void)c.find(fakeDevice(), smallProblem(), Path::Fp32);
            (void)c.size();
        });
        attempt("loadShapes", [&] {
            writeText(dir.file("shapes.json"), fuzzJson(rng, shapes));
            (void)bench::loadShapes(dir.file("shapes.json"));
        });
    }
    EXPECT_GT(taken, 0);
    EXPECT_GT(refused, 0);
}

// On each real device: random problems, mostly small and valid (run, and compared with the
// reference by both bounds), some huge or invalid (a vkconv::Error before any GPU work).
class FuzzOnDevice : public ::testing::TestWithParam<int> {};

TEST_P(FuzzOnDevice, Conv2dErrorsOrMatchesReference) {
    ASSERT_GE(GetParam(), 0) << listDevicesError();
    const Context& context = *sharedContext(GetParam()).context;
    Rng rng(1000 + uint64_t(GetParam()));
    int ran = 0, refused = 0;
    for (int i = 0; i < 24; ++i) {
        ConvProblem p = fuzzProblem(rng);
        // A third of the draws: a small valid problem with random stride, padding, dilation and
        // groups, so that runs are common.
        if (i % 3 == 0) {
            p.groups = rng.uniformInt(1, 3);
            p.batch = rng.uniformInt(1, 2), p.inChannels = p.groups * rng.uniformInt(1, 4);
            p.outChannels = p.groups * rng.uniformInt(1, 9), p.height = rng.uniformInt(5, 17);
            p.width = rng.uniformInt(5, 17), p.kernelH = rng.uniformInt(1, 3), p.kernelW = rng.uniformInt(1, 3);
            p.strideH = rng.uniformInt(1, 3), p.strideW = rng.uniformInt(1, 3);
            p.padH = rng.uniformInt(0, 2), p.padW = rng.uniformInt(0, 2);
            p.dilationH = rng.uniformInt(1, 2), p.dilationW = rng.uniformInt(1, 2);
        }
        SCOPED_TRACE(p.str());
        ConvOptions options;
        options.precision = i % 4 == 0 ? Precision::Fast : Precision::Fp32;
        // Run only what the CPU reference checks in well under a second; the weights of a larger
        // problem are left empty, which Conv2d must refuse (by size) before any GPU work.
        const bool small = p.weightElements() <= (1 << 18) && p.inputElements() <= (1 << 18) &&
                           p.outputElements() <= (1 << 18) && p.flops() <= 2e7;
        const std::vector<float> weight = small ? randomValues(uint64_t(i) * 3 + 1, size_t(p.weightElements())) : std::vector<float>{};
        const std::vector<float> bias = small && p.bias ? randomValues(uint64_t(i) * 3 + 2, size_t(p.outChannels)) : std::vector<float>{};
        try {
            Conv2d conv(context, p, weight, bias, options);
            // Constructed: the problem is valid, and small (else the weight size was refused).
            ASSERT_TRUE(small);
            const std::vector<float> input = randomValues(uint64_t(i) * 3, size_t(p.inputElements()));
            Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
            const auto shape = p.outputShape();
            Tensor out(context, {shape.begin(), shape.end()});
            in.upload(input);
            poisonWithGuard(context, out);
            conv.run(in, out);
            const std::vector<float> got = out.download();
            const auto ref = referenceConv2d(p, input.data(), weight.data(), p.bias ? bias.data() : nullptr);
            const Path path = conv.config().path;
            EXPECT_LE(relativeError(got.data(), ref), errorBound(path)) << conv.describe();
            EXPECT_LE(maxElementError(got.data(), ref), elementErrorBound(path)) << conv.describe();
            EXPECT_EQ(guardWordsChanged(context, out), 0u) << conv.describe();
            ++ran;
        } catch (const Error& e) {
            ++refused;
            EXPECT_NE(std::string(e.what()), "");
        } catch (const std::exception& e) {
            FAIL() << "threw a non-vkconv exception: " << e.what();
        }
        // Tensors: a shape too large is refused before any allocation.
        if (p.inputElements() > (int64_t(1) << 40)) {
            EXPECT_THROW(Tensor(context, {p.batch, p.inChannels, p.height, p.width}), Error);
        }
    }
    EXPECT_GE(ran, 8);
    EXPECT_GE(refused, 1);
}

INSTANTIATE_TEST_SUITE_P(Devices, FuzzOnDevice, ::testing::ValuesIn(testDeviceIndices()),
                         [](const auto& info) {
                             return info.param < 0 ? std::string("nodevice") : "dev" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace vkconv::test
