// The tuning cache and the persistent pipeline-cache file (include/vkconv/tuning.hpp,
// pipeline_cache.hpp). All on made-up devices and temporary folders, except the last case, which
// plans a Conv2d on each real device to check that a cache entry is used (and ignored when the
// option is off). The acceptance rule and the neighbourhood: tuning_rules_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runtime/pipeline_cache_file.hpp"
#include "temp_dir.hpp"
#include "test_devices.hpp"
#include "tuning_device_setup.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {
namespace {

using ::testing::HasSubstr;
using test::readText;
using test::TempDir;
using test::writeText;

// Every field, one by one: KernelConfig::operator== compares names, which could hide a field
// that the name does not show.
void expectSame(const Fp32GemmKernel& a, const Fp32GemmKernel& b) {
    EXPECT_EQ(a.tm, b.tm);
    EXPECT_EQ(a.tn, b.tn);
}

void expectSame(const GroupedDirectKernel& a, const GroupedDirectKernel& b) {
    EXPECT_EQ(a.threadsW, b.threadsW);
    EXPECT_EQ(a.threadsH, b.threadsH);
    EXPECT_EQ(a.vecW, b.vecW);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.channels, b.channels);
    EXPECT_EQ(a.groups, b.groups);
    EXPECT_EQ(a.groupSteps, b.groupSteps);
    EXPECT_EQ(a.fromMemory, b.fromMemory);
}

void expectSameTiling(const CoopMatTiling& a, const CoopMatTiling& b) {
    EXPECT_EQ(a.warpsM, b.warpsM);
    EXPECT_EQ(a.warpsN, b.warpsN);
    EXPECT_EQ(a.mmaM, b.mmaM);
    EXPECT_EQ(a.mmaN, b.mmaN);
    EXPECT_EQ(a.mmaK, b.mmaK);
    EXPECT_EQ(a.stages, b.stages);
}

void expectSame(const CoopMatGatherKernel& a, const CoopMatGatherKernel& b) {
    expectSameTiling(a, b);
    EXPECT_EQ(a.sLanes, b.sLanes);
    EXPECT_EQ(a.bGlobal, b.bGlobal);
}

void expectSame(const CoopMatPackedKernel& a, const CoopMatPackedKernel& b) {
    expectSameTiling(a, b);
    EXPECT_EQ(a.tilesPerWorkgroup, b.tilesPerWorkgroup);
}

void expectSame(const ChannelsLastTiling& a, const ChannelsLastTiling& b) {
    expectSameTiling(a, b);
    EXPECT_EQ(a.tapsInner, b.tapsInner);
    EXPECT_EQ(a.fragmentPrefetch, b.fragmentPrefetch);
    EXPECT_EQ(a.splitK, b.splitK);
}

void expectSameFields(const KernelConfig& a, const KernelConfig& b) {
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.bm, b.bm);
    EXPECT_EQ(a.bn, b.bn);
    EXPECT_EQ(a.bk, b.bk);
    EXPECT_EQ(a.subgroupSize, b.subgroupSize);
    EXPECT_STREQ(a.kernel(), b.kernel());
    ASSERT_EQ(a.params.index(), b.params.index());
    std::visit([&](const auto& k) { expectSame(k, std::get<std::decay_t<decltype(k)>>(b.params)); }, a.params);
}

TEST(TuningCache, ConfigJsonKeepsEveryField) {
    CoopMatTiling tiling;
    tiling.warpsM = 3, tiling.warpsN = 4, tiling.mmaM = 16, tiling.mmaN = 8, tiling.mmaK = 32, tiling.stages = 3;
    KernelConfig c;
    c.path = Path::CoopMatF16;
    c.bm = 96, c.bn = 48, c.bk = 32, c.subgroupSize = 64;
    ChannelsLastNhwcKernel nhwc{{tiling, true, true, 4}};
    c.params = nhwc;
    expectSameFields(configFromJson(configToJson(c)), c);
    c.params = ChannelsLastNchwKernel{{tiling, true, false, 2}};
    expectSameFields(configFromJson(configToJson(c)), c);
    c.params = CoopMatPackedKernel{tiling, 16};
    expectSameFields(configFromJson(configToJson(c)), c);
    c.params = CoopMatGatherKernel{tiling, 4, true};
    expectSameFields(configFromJson(configToJson(c)), c);
    KernelConfig gemm;
    gemm.params = Fp32GemmKernel{8, 2};
    expectSameFields(configFromJson(configToJson(gemm)), gemm);
    KernelConfig direct;
    direct.params = GroupedDirectKernel{56, 4, 2, 8, 4, 2, 3, true};
    direct.subgroupSize = 16;
    expectSameFields(configFromJson(configToJson(direct)), direct);
    // The object holds its kernel's fields and no other: one of another kernel's is refused by name.
    const std::string gather = configToJson(c);
    ASSERT_EQ(gather.back(), '}');
    try {
        (void)configFromJson(gather.substr(0, gather.size() - 1) + ", \"tapsInner\": true}");
        ADD_FAILURE() << "a gather configuration with tapsInner was read";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("config.tapsInner"));
        EXPECT_THAT(e.what(), HasSubstr("not a field of the coopmat-gather kernel"));
    }
    EXPECT_THROW(configFromJson("{\"path\": \"fp32\"}"), Error);
    EXPECT_THROW(configFromJson("not json"), Error);
    try {
        (void)configFromJson(R"({"path": "fp32", "kernel": "winograd", "bm": 64, "bn": 64, "bk": 8, "subgroupSize": 0})");
        ADD_FAILURE() << "an unknown kernel was read";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("config.kernel = winograd"));
    }
    EXPECT_THROW(configFromJson(R"({"path": "coopmat-bf16", "kernel": "coopmat-gather"})"), Error);
}

// A configuration in the flat form that tuning caches of format 2 hold (every kernel's fields,
// "aLoader" and "fp32Kernel") is refused with that reason, never read as some kernel's.
TEST(TuningCache, FlatConfigurationsOfFormat2AreRefusedByName) {
    const std::string flat =
        R"({"path": "coopmat-f16", "bm": 64, "bn": 64, "bk": 32, "tm": 4, "tn": 4, "warpsM": 2, "warpsN": 2,
            "mmaM": 16, "mmaN": 16, "mmaK": 16, "stages": 2, "aLoader": "nhwc", "bGlobal": false, "sLanes": 1,
            "tapsInner": false, "fragmentPrefetch": false, "tilesPerWorkgroup": 1, "splitK": 1,
            "subgroupSize": 32, "fp32Kernel": "gemm", "directThreadsW": 0, "directThreadsH": 0,
            "directVecW": 1, "directRows": 1, "directChannels": 1, "directGroups": 1,
            "directGroupSteps": 1, "directFromMemory": false})";
    try {
        (void)configFromJson(flat);
        ADD_FAILURE() << "a flat configuration was read";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("written by an older vkconv"));
    }
    // In a tuning cache: the entry is ignored with that reason, and kept in the file.
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const ConvProblem problem = smallProblem();
    {
        TuningCache cache(dir.path());
        cache.put(device, problem, TuningEntry{fp32Config(), 1.0, "", ""});
        cache.save();
    }
    std::string text = readText(dir.path() + "/tuning.json");
    const size_t at = text.find("\"config\": {");
    ASSERT_NE(at, std::string::npos) << text;
    const size_t end = text.find('}', at);
    text.replace(at, end + 1 - at, "\"config\": " + flat);
    writeText(dir.path() + "/tuning.json", text);
    TuningCache cache(dir.path());
    std::string why;
    EXPECT_FALSE(cache.find(device, problem, Path::Fp32, &why));
    EXPECT_THAT(why, HasSubstr("written by an older vkconv (tuning cache format 2"));
}

TEST(TuningCache, EntryRoundTripsThroughTheFile) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const ConvProblem problem = smallProblem();
    const KernelConfig config = fp32Config();
    ASSERT_EQ(canImplement(config, device, problem), "");
    {
        TuningCache cache(dir.path());
        EXPECT_EQ(cache.size(), 0u);
        EXPECT_TRUE(cache.notes().empty());
        cache.put(device, problem, TuningEntry{config, 1.25, "", "accepted: test"});
        cache.save();
    }
    TuningCache cache(dir.path());
    EXPECT_TRUE(cache.notes().empty());
    EXPECT_EQ(cache.size(), 1u);
    const auto entry = cache.find(device, problem, Path::Fp32);
    ASSERT_TRUE(entry);
    expectSameFields(entry->config, config);
    EXPECT_DOUBLE_EQ(entry->ms, 1.25);
    EXPECT_EQ(entry->decision, "accepted: test");
    EXPECT_EQ(entry->date.size(), 20u) << entry->date;  // 2026-11-21T10:00:00Z
    // Keyed by problem and path: another batch or the other path has no entry.
    ConvProblem other = problem;
    other.batch = 3;
    EXPECT_FALSE(cache.find(device, other, Path::Fp32));
    EXPECT_FALSE(cache.find(device, problem, Path::CoopMatF16));
    // No temporary files are left behind (the lock file stays, by design: cache_files.hpp).
    EXPECT_EQ(std::system(("test $(ls -A '" + dir.path() + "' | grep -v '^tuning.json.lock$' | wc -l) -eq 1").c_str()), 0);
}

TEST(TuningCache, EntriesOfAnotherDeviceOrDriverAreIgnoredAndKept) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    DeviceInfo newDriver = fakeDevice(0x01020305);
    DeviceInfo otherUuid = fakeDevice(0x01020304, 0xcd);
    DeviceInfo otherDevice = fakeDevice();
    otherDevice.deviceId = 0x2330;
    const ConvProblem problem = smallProblem();
    {
        TuningCache cache(dir.path());
        cache.put(device, problem, TuningEntry{fp32Config(), 1.0, "", ""});
        cache.save();
    }
    {
        TuningCache cache(dir.path());
        EXPECT_TRUE(cache.find(device, problem, Path::Fp32));
        EXPECT_FALSE(cache.find(newDriver, problem, Path::Fp32));
        EXPECT_FALSE(cache.find(otherUuid, problem, Path::Fp32));
        EXPECT_FALSE(cache.find(otherDevice, problem, Path::Fp32));
        // Saving for the new driver keeps the old driver's entry in the file.
        cache.put(newDriver, problem, TuningEntry{fp32Config(64, 64, 4, 4), 2.0, "", ""});
        cache.save();
    }
    TuningCache cache(dir.path());
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.find(device, problem, Path::Fp32)->config.bn, 32u);
    EXPECT_EQ(cache.find(newDriver, problem, Path::Fp32)->config.bn, 64u);
}

// Not a tuning cache at all: reported, ignored, and moved aside (kept) by the next save. Newer
// formats and malformed entries: tuning_cache_robust_test.cpp.
TEST(TuningCache, CorruptFileIsReportedIgnoredAndMovedAside) {
    const DeviceInfo device = fakeDevice();
    const ConvProblem problem = smallProblem();
    for (const std::string& text :
         {std::string("{ this is not JSON"), std::string("[1, 2, 3]"),
          std::string("{\"format\": \"something else\", \"version\": 2, \"devices\": {}}"),
          std::string("{\"format\": \"vkconv tuning cache\", \"version\": 2, \"devices\": [1]}")}) {
        SCOPED_TRACE(text);
        TempDir dir;
        writeText(dir.file("tuning.json"), text);
        std::vector<std::string> warnings;
        TuningCache cache(dir.path(), [&](const std::string& w) { warnings.push_back(w); });
        ASSERT_EQ(warnings.size(), 1u);
        EXPECT_NE(warnings[0].find("corrupt"), std::string::npos) << warnings[0];
        ASSERT_EQ(cache.notes().size(), 1u);
        EXPECT_EQ(cache.size(), 0u);
        EXPECT_FALSE(cache.find(device, problem, Path::Fp32));
        cache.put(device, problem, TuningEntry{fp32Config(), 1.0, "", ""});
        cache.save();
        ASSERT_EQ(warnings.size(), 2u);
        EXPECT_NE(warnings[1].find("kept as"), std::string::npos) << warnings[1];
        const std::string aside = warnings[1].substr(warnings[1].find("kept as ") + 8,
                                                     warnings[1].find(", and") - warnings[1].find("kept as ") - 8);
        EXPECT_EQ(readText(aside), text) << "the unreadable file must be kept, byte for byte: " << aside;
        TuningCache reread(dir.path(), [&](const std::string& w) { ADD_FAILURE() << w; });
        EXPECT_TRUE(reread.notes().empty());
        EXPECT_TRUE(reread.find(device, problem, Path::Fp32));
    }
}

TEST(TuningCache, EntryThatCannotRunIsIgnored) {
    TempDir dir;
    DeviceInfo device = fakeDevice();
    const ConvProblem problem = smallProblem();
    TuningCache cache(dir.path());
    cache.put(device, problem, TuningEntry{fp32Config(128, 64, 1, 1), 1.0, "", ""});  // 8192 threads
    std::string why;
    EXPECT_FALSE(cache.find(device, problem, Path::Fp32, &why));
    EXPECT_NE(why.find("cannot run here"), std::string::npos) << why;
    // An entry that carries the diagnostics' parts-left-out mask (which configurations once held)
    // is refused, naming the field.
    cache.put(device, problem, TuningEntry{fp32Config(), 1.0, "", ""});
    cache.save();
    {
        nlohmann::json doc = nlohmann::json::parse(test::readText(dir.file("tuning.json")));
        doc["devices"][deviceKey(device)]["entries"][problemKey(problem, Path::Fp32)]["config"]["debugSkip"] = 1;
        test::writeText(dir.file("tuning.json"), doc.dump(2));
    }
    EXPECT_FALSE(TuningCache(dir.path()).find(device, problem, Path::Fp32, &why));
    EXPECT_NE(why.find("config.debugSkip = 1: is not a field of the fp32-gemm kernel"), std::string::npos) << why;
}

// Two caches read before either saved: the second save merges, never drops the first's entry.
// (Saves that really run at the same time: tuning_cache_robust_test.cpp.)
TEST(TuningCache, InterleavedSavesMerge) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    ConvProblem a = smallProblem(), b = smallProblem();
    b.batch = 7;
    TuningCache first(dir.path()), second(dir.path());
    first.put(device, a, TuningEntry{fp32Config(), 1.0, "", ""});
    second.put(device, b, TuningEntry{fp32Config(), 2.0, "", ""});
    first.save();
    second.save();  // read before `first` saved; must not drop its entry
    TuningCache merged(dir.path());
    EXPECT_TRUE(merged.find(device, a, Path::Fp32));
    EXPECT_TRUE(merged.find(device, b, Path::Fp32));
}

TEST(TuningCache, FolderFromEnvironment) {
    const char* saved = std::getenv("VKCONV_CACHE_DIR");
    const std::string restore = saved ? saved : "";
    setenv("VKCONV_CACHE_DIR", "/tmp/somewhere", 1);
    EXPECT_EQ(resolveCacheDir(), "/tmp/somewhere");
    EXPECT_EQ(resolveCacheDir("/explicit"), "/explicit");
    unsetenv("VKCONV_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(resolveCacheDir(), "/tmp/xdg/vkconv");
    unsetenv("XDG_CACHE_HOME");
    if (saved) setenv("VKCONV_CACHE_DIR", restore.c_str(), 1);
    EXPECT_EQ(TuningCache("/explicit/dir").file(), "/explicit/dir/tuning.json");
}

TEST(PipelineCacheFile, ValidatedBeforeUse) {
    using namespace detail;
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const std::string path = dir.file(pipelineCacheFileName(device));
    EXPECT_EQ(pipelineCacheFileName(device),
              "pipelines-10de-2335-abababababababababababababababab.bin");
    // A driver blob: the Vulkan header for this device, then some payload.
    VkPipelineCacheHeaderVersionOne header{};
    header.headerSize = sizeof header;
    header.headerVersion = VK_PIPELINE_CACHE_HEADER_VERSION_ONE;
    header.vendorID = device.vendorId;
    header.deviceID = device.deviceId;
    std::copy(device.pipelineCacheUUID.begin(), device.pipelineCacheUUID.end(), header.pipelineCacheUUID);
    const std::string blob = std::string(reinterpret_cast<const char*>(&header), sizeof header) + "compiled code";

    std::string note;
    EXPECT_EQ(loadPipelineCacheData(path, device, note), "");
    EXPECT_NE(note.find("no file"), std::string::npos) << note;
    savePipelineCacheData(path, device, blob);
    EXPECT_EQ(loadPipelineCacheData(path, device, note), blob);
    EXPECT_NE(note.find("warm"), std::string::npos) << note;

    EXPECT_EQ(loadPipelineCacheData(path, fakeDevice(0x01020399), note), "") << "another driver version";
    DeviceInfo otherUuid = fakeDevice(0x01020304, 0x11);
    EXPECT_EQ(loadPipelineCacheData(path, otherUuid, note), "") << "another pipelineCacheUUID";
    EXPECT_NE(note.find("ignored"), std::string::npos) << note;

    const std::string good = readText(path);
    std::string damaged = good;
    damaged[damaged.size() - 3] ^= 0x40;
    writeText(path, damaged);
    EXPECT_EQ(loadPipelineCacheData(path, device, note), "");
    EXPECT_NE(note.find("damaged"), std::string::npos) << note;
    writeText(path, good.substr(0, good.size() - 5));
    EXPECT_EQ(loadPipelineCacheData(path, device, note), "");
    EXPECT_NE(note.find("truncated"), std::string::npos) << note;
    writeText(path, "garbage");
    EXPECT_EQ(loadPipelineCacheData(path, device, note), "");
}

// On each real device: an entry in the tuning cache decides the configuration of a Conv2d
// planned without one, unless ConvOptions::useTuningCache is off.
class TuningCacheOnDevice : public ::testing::TestWithParam<int> {};

TEST_P(TuningCacheOnDevice, Conv2dUsesTheEntry) {
    if (GetParam() < 0) FAIL() << test::listDevicesError();
    test::TuningDeviceSetup s(GetParam());
    ASSERT_GE(s.ranked.size(), 2u);
    const KernelConfig tuned = s.tuned();

    EXPECT_EQ(Conv2d(s.context, s.problem, s.weight, s.bias).config(), s.ranked[0].config);
    {
        TuningCache cache(s.dir.path());
        cache.put(s.context.device(), s.problem, TuningEntry{tuned, 0.5, "", "test"});
        cache.save();
    }
    Conv2d conv(s.context, s.problem, s.weight, s.bias);
    EXPECT_EQ(conv.config(), tuned);
    EXPECT_NE(conv.describe().find("configuration from the tuning cache (measured 0.5 ms"), std::string::npos)
        << conv.describe();
    ConvOptions off;
    off.useTuningCache = false;
    EXPECT_EQ(Conv2d(s.context, s.problem, s.weight, s.bias, off).config(), s.ranked[0].config);

    // A corrupt file: the heuristic decides, and describe() says why.
    writeText(s.dir.file("tuning.json"), "{ corrupt");
    Conv2d fallback(s.context, s.problem, s.weight, s.bias);
    EXPECT_EQ(fallback.config(), s.ranked[0].config);
    EXPECT_NE(fallback.describe().find("corrupt"), std::string::npos) << fallback.describe();
}

INSTANTIATE_TEST_SUITE_P(Devices, TuningCacheOnDevice, ::testing::ValuesIn(test::testDeviceIndices()));

}  // namespace
}  // namespace vkconv
