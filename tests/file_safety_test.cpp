// No crash and no lost data from any file vkconv reads: JSON nested deeper than any vkconv
// format or larger than its limit is refused by name (and a tuning cache holding it is set aside
// by the next save, not parsed again into a crash); the tuning cache is parsed once per Context
// and read again only when it changes; what the cache is given (a NaN time, an invalid problem)
// and what its file says (a version past 2^63) is checked, never wrapped; a cache folder holding
// a NUL byte is refused instead of cut short.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vulkan/vulkan.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/json_limits.hpp"  // src/: the bounded JSON reader every file goes through
#include "temp_dir.hpp"
#include "test_devices.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/error.hpp"
#include "vkconv/pipeline_cache.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {
namespace {

using nlohmann::json;
using test::readText;
using test::TempDir;
using test::writeText;

// Arrays nested `depth` deep: a small file that overflowed the stack of the recursive
// copy/dump/destroy of a parsed value.
std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string tuningCacheWithEntry(const std::string& entry) {
    return "{\"format\": \"vkconv tuning cache\", \"version\": 2, \"devices\": {\"" + deviceKey(fakeDevice()) +
           "\": {\"entries\": {\"" + problemKey(smallProblem(), Path::Fp32) + "\": " + entry + "}}}}";
}

TEST(FileSafety, DeepJsonIsRefusedBeforeParsing) {
    for (const size_t depth : {size_t(33), size_t(1000), size_t(100000)}) {
        SCOPED_TRACE(depth);
        try {
            detail::parseJson(nested(depth), "test.json", detail::kTuningCacheLimits);
            ADD_FAILURE() << "nesting " << depth << " deep was parsed";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("nested more than 32 deep"), std::string::npos) << e.what();
        }
    }
    // Brackets inside strings are text, not nesting.
    EXPECT_NO_THROW(detail::parseJson("{\"a\": \"" + nested(1000) + "\"}", "test.json", detail::kConfigJsonLimits));
    EXPECT_NO_THROW(detail::parseJson(nested(32), "test.json", detail::kConfigJsonLimits));
}

TEST(FileSafety, OversizedJsonIsRefusedByItsLimit) {
    const std::string big = "\"" + std::string(detail::kConfigJsonLimits.maxBytes, 'x') + "\"";
    try {
        configFromJson(big);
        ADD_FAILURE() << "a configuration larger than its limit was parsed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("bytes, more than the"), std::string::npos) << std::string(e.what()).substr(0, 300);
        EXPECT_LT(std::string(e.what()).size(), 400u) << "the message quotes the whole text";
    }
}

TEST(FileSafety, DeepConfigAndDeviceJsonAreErrorsNotCrashes) {
    const std::string deep = "{\"path\": " + nested(100000) + "}";
    EXPECT_THROW(configFromJson(deep), Error);
    EXPECT_THROW(configFromJson(nested(100000)), Error);
    EXPECT_THROW(deviceInfoFromJson(deep), Error);
    EXPECT_THROW(deviceInfoFromJson("{\"devices\": " + nested(100000) + "}"), Error);
}

TEST(FileSafety, DeepTuningCacheIsIgnoredThenSetAside) {
    TempDir dir;
    writeText(dir.file("tuning.json"), tuningCacheWithEntry(nested(100000)));
    std::vector<std::string> warnings;
    TuningCache cache(dir.path(), [&](const std::string& w) { warnings.push_back(w); });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("nested more than"), std::string::npos) << warnings[0];
    EXPECT_FALSE(cache.find(fakeDevice(), smallProblem(), Path::Fp32));
    cache.put(fakeDevice(), smallProblem(), TuningEntry{fp32Config(), 1.0, "", ""});
    cache.save();
    // The next save set the file aside (kept) and wrote a new one that reads back.
    TuningCache reread(dir.path(), [](const std::string& w) { ADD_FAILURE() << w; });
    EXPECT_TRUE(reread.find(fakeDevice(), smallProblem(), Path::Fp32));
    EXPECT_EQ(std::system(("ls " + dir.path() + "/tuning.json.unreadable-* >/dev/null").c_str()), 0)
        << "the unreadable file was not kept";
}

TEST(FileSafety, TuningCacheLargerThanItsLimitIsNotRead) {
    TempDir dir;
    {
        std::string text = tuningCacheWithEntry("{}");
        text.insert(text.size() - 1, ", \"padding\": \"" + std::string(detail::kTuningCacheLimits.maxBytes, ' ') + "\"");
        writeText(dir.file("tuning.json"), text);
    }
    std::vector<std::string> warnings;
    TuningCache cache(dir.path(), [&](const std::string& w) { warnings.push_back(w); });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("MiB vkconv reads"), std::string::npos) << warnings[0];
}

TEST(FileSafety, VersionPastInt64IsNewerNotNegative) {
    TempDir dir;
    writeText(dir.file("tuning.json"),
              "{\"format\": \"vkconv tuning cache\", \"version\": 18446744073709551615, \"devices\": {}}");
    std::vector<std::string> warnings;
    TuningCache cache(dir.path(), [&](const std::string& w) { warnings.push_back(w); });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("18446744073709551615"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("newer"), std::string::npos) << warnings[0];
    EXPECT_EQ(warnings[0].find("-1"), std::string::npos) << warnings[0];
}

TEST(FileSafety, PutRefusesWhatFindCouldNeverUse) {
    TempDir dir;
    TuningCache cache(dir.path());
    const double bad[] = {std::nan(""), -1.0, INFINITY};
    for (double ms : bad) {
        SCOPED_TRACE(ms);
        EXPECT_THROW(cache.put(fakeDevice(), smallProblem(), TuningEntry{fp32Config(), ms, "", ""}), Error);
    }
    ConvProblem strideZero = smallProblem();
    strideZero.strideH = 0;
    EXPECT_THROW(cache.put(fakeDevice(), strideZero, TuningEntry{fp32Config(), 1.0, "", ""}), Error);
    EXPECT_EQ(cache.size(), 0u);
    cache.save();
    EXPECT_EQ(readText(dir.file("tuning.json")).find("NaN"), std::string::npos);
}

TEST(FileSafety, CacheFolderWithNulByteIsRefused) {
    const std::string dir = std::string("/tmp/vkconv\0evil", 16);
    try {
        TuningCache cache(dir);
        ADD_FAILURE() << "a folder name holding NUL was taken as " << cache.dir();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("NUL"), std::string::npos) << e.what();
    }
    EXPECT_THROW(resolveCacheDir(dir), Error);
}

TEST(FileSafety, RequireWritableSaysWhyBeforeAnySave) {
    TempDir dir;
    writeText(dir.file("plain"), "a file, not a folder\n");
    TuningCache blocked(dir.file("plain") + "/cache");
    EXPECT_THROW(blocked.requireWritable(), Error);
    TuningCache fine(dir.file("cache"));
    EXPECT_NO_THROW(fine.requireWritable());
}

// On each real device: planning reads the tuning cache once per Context (a large cache does not
// slow every plan), and a file changed on disk is read again.
class FileSafetyOnDevice : public ::testing::TestWithParam<int> {};

TEST_P(FileSafetyOnDevice, TuningCacheIsParsedOncePerContext) {
    if (GetParam() < 0) FAIL() << test::listDevicesError();
    TempDir dir;
    ContextOptions o;
    o.deviceIndex = GetParam();
    o.cacheDir = dir.path();
    Context context(o);
    const ConvProblem problem = smallProblem();
    const std::vector<float> weight(size_t(problem.weightElements()), 0.5f), bias(size_t(problem.outChannels), 0.25f);
    ConvOptions options;
    options.precision = Precision::Fp32;
    {
        // About 16 MB of entries for other problems: parsing it takes a large fraction of a second.
        json doc{{"format", "vkconv tuning cache"}, {"version", 2}, {"devices", json::object()}};
        json& entries = doc["devices"][deviceKey(context.device())]["entries"];
        entries = json::object();
        const json entry = json::parse(configToJson(fp32Config()));
        for (int i = 0; i < 12000; ++i)
            entries["fp32 other-problem-" + std::to_string(i)] = json{{"config", entry}, {"ms", 1.0}, {"date", "x"}};
        writeText(dir.file("tuning.json"), doc.dump(2));
    }
    // The file was just written: plans read it again until it has settled (coarse file times);
    // wait that out so that what follows sees the steady state.
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    const auto seconds = [](auto f) {
        const auto start = std::chrono::steady_clock::now();
        f();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const double parse = seconds([&] { TuningCache cache(dir.path()); });
    Conv2d keep(context, problem, weight, bias, options);  // keeps the pipeline alive: plans below reuse it
    const auto plans = [&](bool useCache) {
        ConvOptions o = options;
        o.useTuningCache = useCache;
        return seconds([&] {
                   for (int i = 0; i < 5; ++i) Conv2d conv(context, problem, weight, bias, o);
               }) / 5;
    };
    const double withCache = plans(true), without = plans(false);
    EXPECT_LT(withCache - without, parse / 2)
        << "a plan with the tuning cache took " << withCache << " s, without " << without << " s; parsing the file takes "
        << parse << " s: the cache is parsed at every plan";

    // A changed file is read again: an entry for this problem appears.
    {
        TuningCache cache(dir.path());
        KernelConfig other = fp32Config();
        other.bm = 32;
        cache.put(context.device(), problem, TuningEntry{other, 0.5, "", "test"});
        cache.save();
    }
    Conv2d conv(context, problem, weight, bias, options);
    EXPECT_NE(conv.describe().find("from the tuning cache"), std::string::npos) << conv.describe();
}

// A pipeline-cache file whose vkconv header, checksum and Vulkan header are right but whose
// payload is garbage: the driver keeps nothing of it, and the note says "cold", not "warm".
TEST_P(FileSafetyOnDevice, GarbagePipelineCachePayloadIsReportedCold) {
    if (GetParam() < 0) FAIL() << test::listDevicesError();
    TempDir dir;
    ContextOptions o;
    o.deviceIndex = GetParam();
    o.cacheDir = dir.path();
    o.persistentPipelineCache = true;
    const ConvProblem problem = smallProblem();
    const std::vector<float> weight(size_t(problem.weightElements()), 0.5f), bias(size_t(problem.outChannels), 0.25f);
    ConvOptions options;
    options.precision = Precision::Fp32;
    std::string file;
    {
        Context context(o);
        Conv2d conv(context, problem, weight, bias, options);
        file = savePipelineCache(context);
    }
    std::string bytes = readText(file);
    constexpr size_t kFileHeader = 32;  // pipeline_cache_file.cpp's FileHeader
    VkPipelineCacheHeaderVersionOne vk;
    ASSERT_GE(bytes.size(), kFileHeader + sizeof vk);
    std::memcpy(&vk, bytes.data() + kFileHeader, sizeof vk);
    // Keep both headers, put garbage where the pipelines were (or would be: a driver that keeps
    // none wrote the header alone), and fix the length and the checksum.
    bytes.resize(kFileHeader + vk.headerSize);
    for (size_t i = 0; i < 4096; ++i) bytes += char(0x5a ^ (i * 7));
    const uint64_t payloadBytes = bytes.size() - kFileHeader;
    std::memcpy(&bytes[16], &payloadBytes, sizeof payloadBytes);
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = kFileHeader; i < bytes.size(); ++i) hash = (hash ^ uint8_t(bytes[i])) * 0x100000001b3ull;
    std::memcpy(&bytes[24], &hash, sizeof hash);
    writeText(file, bytes);

    Context context(o);
    const PipelineCacheStatus status = pipelineCacheStatus(context);
    EXPECT_EQ(status.note.rfind("cold", 0), 0u) << status.note;
    EXPECT_EQ(status.loadedBytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Devices, FileSafetyOnDevice, ::testing::ValuesIn(test::testDeviceIndices()));

}  // namespace
}  // namespace vkconv
