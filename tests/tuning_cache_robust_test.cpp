// The tuning cache cannot poison a run: entries of another vkconv version, other kernel code or
// another profile are not used (and say why); a hand-edited configuration is refused by name,
// never wrapped; nothing on disk is lost to a malformed entry, an unreadable file, a newer format
// or two saves at the same time.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "select/config_select.hpp"    // src/: candidate configurations of each loader
#include "select/kernel_identity.hpp"  // src/: the SPIR-V hash an entry records
#include "kernels/common/prepared_kernel.hpp"          // src/: the shaders each kernel's prepare function names
#include "kernels/channels_last/nchw_input.hpp"
#include "kernels/channels_last/nhwc_input.hpp"
#include "kernels/coopmat_packed/packed_input.hpp"
#include "temp_dir.hpp"
#include "test_devices.hpp"
#include "tuning_device_setup.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"
#include "vkconv/version.hpp"

namespace vkconv {
namespace {

using nlohmann::json;
using test::readText;
using test::TempDir;
using test::writeText;

// Saves one fp32 entry, then rewrites the named field of it in the file.
void saveThenEdit(const TempDir& dir, const DeviceInfo& device, const ConvProblem& problem,
                  const char* field, const json& value) {
    TuningCache cache(dir.path());
    cache.put(device, problem, TuningEntry{fp32Config(), 1.0, "", ""});
    cache.save();
    json doc = json::parse(readText(dir.file("tuning.json")));
    doc["devices"][deviceKey(device)]["entries"][problemKey(problem, Path::Fp32)][field] = value;
    writeText(dir.file("tuning.json"), doc.dump(2));
}

TEST(TuningCacheRobust, EntryRecordsVersionAndKernelCode) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    TuningCache cache(dir.path());
    cache.put(device, smallProblem(), TuningEntry{fp32Config(), 1.0, "", ""});
    const auto entry = cache.find(device, smallProblem(), Path::Fp32);
    ASSERT_TRUE(entry);
    EXPECT_EQ(entry->vkconvVersion, version());
    EXPECT_EQ(entry->spirvHash, detail::kernelSpirvHash(fp32Config()));
    EXPECT_EQ(entry->spirvHash.rfind("fnv1a64:", 0), 0u) << entry->spirvHash;
    // The fp32 and the cooperative-matrix kernels are different code.
    KernelConfig coopMat;
    coopMat.path = Path::CoopMatF16;
    coopMat.params = CoopMatGatherKernel{};
    EXPECT_NE(detail::kernelSpirvHash(coopMat), entry->spirvHash);
}

TEST(TuningCacheRobust, EntryOfAnotherVersionOrKernelCodeIsNotUsed) {
    const DeviceInfo device = fakeDevice();
    const ConvProblem problem = smallProblem();
    struct Edit {
        const char* field;
        json value;
        const char* why;
    };
    for (const Edit& edit : {Edit{"vkconv", "0.0.1", "measured with vkconv 0.0.1"},
                             Edit{"spirv", "fnv1a64:0000000000000000", "other kernel code"}}) {
        SCOPED_TRACE(edit.field);
        TempDir dir;
        saveThenEdit(dir, device, problem, edit.field, edit.value);
        TuningCache cache(dir.path());
        std::string why;
        EXPECT_FALSE(cache.find(device, problem, Path::Fp32, &why));
        EXPECT_NE(why.find(edit.why), std::string::npos) << why;
        EXPECT_NE(why.find("ignored"), std::string::npos) << why;
    }
    // A version-1 entry (before entries recorded either): unknown code, not used.
    TempDir dir;
    saveThenEdit(dir, device, problem, "vkconv", "");
    std::string why;
    EXPECT_FALSE(TuningCache(dir.path()).find(device, problem, Path::Fp32, &why));
    EXPECT_NE(why.find("unknown version"), std::string::npos) << why;
}

TEST(TuningCacheRobust, EntryMadeUnderAProfileIsNotUsedWithoutIt) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const DeviceInfo profiled = applyProfile(device, DeviceProfile::byName("vulkan-minimum"));
    EXPECT_EQ(profiled.profile, "vulkan-minimum");
    EXPECT_NE(deviceKey(profiled), deviceKey(device));
    const ConvProblem problem = smallProblem();
    {
        TuningCache cache(dir.path());
        cache.put(profiled, problem, TuningEntry{fp32Config(32, 16), 1.0, "", ""});
        cache.save();
    }
    TuningCache cache(dir.path());
    EXPECT_TRUE(cache.find(profiled, problem, Path::Fp32));
    std::string why;
    EXPECT_FALSE(cache.find(device, problem, Path::Fp32, &why));
    EXPECT_NE(why.find("under profile 'vulkan-minimum'"), std::string::npos) << why;
}

TEST(TuningCacheRobust, HandEditedConfigIsRefusedByNameNotWrapped) {
    const DeviceInfo device = fakeCoopMatDevice(/*mesaLike=*/false);
    const ConvProblem problem = smallProblem();
    KernelConfig c = detail::selectConfig(Path::CoopMatF16, device, problem).config;
    ASSERT_EQ(canImplement(c, device, problem), "");
    // 2^28 x 2^4 x 32 threads: 2^37, which wraps to 0 in 32 bits.
    c.coopMat()->warpsM = 1u << 28, c.coopMat()->warpsN = 16;
    EXPECT_THROW(c.threads(), Error);
    EXPECT_NE(canImplement(c, device, problem).find("warpsM = 268435456"), std::string::npos)
        << canImplement(c, device, problem);
    TempDir dir;
    TuningCache cache(dir.path());
    cache.put(device, problem, TuningEntry{c, 1.0, "", ""});
    std::string why;
    EXPECT_FALSE(cache.find(device, problem, Path::CoopMatF16, &why));
    EXPECT_NE(why.find("cannot run here"), std::string::npos) << why;
    // Shared memory: a BK that makes the stage product wrap 32 bits.
    KernelConfig big = fp32Config();
    big.bk = 1u << 30;
    EXPECT_NE(canImplement(big, device, problem), "");
}

// Saves an fp32 entry for each problem in a fresh cache under `dir`, and returns the file's JSON
// for the test to edit.
json savedWithEntries(const TempDir& dir, const DeviceInfo& device, const std::vector<ConvProblem>& problems) {
    {
        TuningCache cache(dir.path());
        for (const ConvProblem& p : problems) cache.put(device, p, TuningEntry{fp32Config(), 1.0, "", ""});
        cache.save();
    }
    return json::parse(readText(dir.file("tuning.json")));
}

TEST(TuningCacheRobust, MalformedEntryIsIgnoredAndKept) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const ConvProblem good = smallProblem();
    ConvProblem bad = smallProblem();
    bad.batch = 5;
    json doc = savedWithEntries(dir, device, {good, bad});
    doc["devices"][deviceKey(device)]["entries"][problemKey(bad, Path::Fp32)]["config"]["bm"] = "sixty-four";
    doc["devices"]["another-device"] = "not an object";
    writeText(dir.file("tuning.json"), doc.dump(2));

    TuningCache cache(dir.path(), [](const std::string& w) { ADD_FAILURE() << "unexpected warning: " << w; });
    EXPECT_TRUE(cache.notes().empty());
    EXPECT_TRUE(cache.find(device, good, Path::Fp32)) << "one malformed entry must not hide the others";
    std::string why;
    EXPECT_FALSE(cache.find(device, bad, Path::Fp32, &why));
    EXPECT_NE(why.find("malformed"), std::string::npos) << why;
    EXPECT_NE(why.find("config.bm"), std::string::npos) << why;
    ConvProblem added = smallProblem();
    added.batch = 9;
    cache.put(device, added, TuningEntry{fp32Config(), 1.0, "", ""});
    cache.save();
    const std::string after = readText(dir.file("tuning.json"));
    EXPECT_NE(after.find("sixty-four"), std::string::npos) << "the malformed entry was dropped";
    EXPECT_NE(after.find("not an object"), std::string::npos) << "the malformed device was dropped";
    TuningCache reread(dir.path());
    EXPECT_TRUE(reread.find(device, good, Path::Fp32));
    EXPECT_TRUE(reread.find(device, added, Path::Fp32));
}

// vkconv once had a shared-memory patch loader ("aLoader": "patch", with "tileH" and "tileW"),
// in configurations of the flat form (format 2): such an entry is refused as an older vkconv's,
// and an entry of today's form that carries those fields is refused by the field's name; neither
// hides the entries beside it.
TEST(TuningCacheRobust, RemovedPatchLoaderIsRefusedByName) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    const ConvProblem good = smallProblem();
    ConvProblem flat = smallProblem(), withTiles = smallProblem();
    flat.batch = 5, withTiles.batch = 6;
    json doc = savedWithEntries(dir, device, {good, flat, withTiles});
    json& entries = doc["devices"][deviceKey(device)]["entries"];
    json& old = entries[problemKey(flat, Path::Fp32)]["config"];
    old.erase("kernel");
    old["aLoader"] = "patch", old["tileH"] = 2, old["tileW"] = 55;
    entries[problemKey(withTiles, Path::Fp32)]["config"]["tileH"] = 2;
    writeText(dir.file("tuning.json"), doc.dump(2));

    TuningCache cache(dir.path());
    EXPECT_TRUE(cache.find(device, good, Path::Fp32));
    std::string why;
    EXPECT_FALSE(cache.find(device, flat, Path::Fp32, &why));
    EXPECT_NE(why.find("written by an older vkconv"), std::string::npos) << why;
    EXPECT_FALSE(cache.find(device, withTiles, Path::Fp32, &why));
    EXPECT_NE(why.find("config.tileH = 2: is not a field of the fp32-gemm kernel"), std::string::npos) << why;
}

TEST(TuningCacheRobust, NewerFormatIsIgnoredAndNeverOverwritten) {
    TempDir dir;
    const std::string newer =
        "{\"format\": \"vkconv tuning cache\", \"version\": 99, \"devices\": {}, \"future\": true}";
    writeText(dir.file("tuning.json"), newer);
    std::vector<std::string> warnings;
    TuningCache cache(dir.path(), [&](const std::string& w) { warnings.push_back(w); });
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("newer"), std::string::npos) << warnings[0];
    cache.put(fakeDevice(), smallProblem(), TuningEntry{fp32Config(), 1.0, "", ""});
    try {
        cache.save();
        ADD_FAILURE() << "saving over a newer format must fail";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Io);
        EXPECT_NE(std::string(e.what()).find("not overwritten"), std::string::npos) << e.what();
    }
    EXPECT_EQ(readText(dir.file("tuning.json")), newer);
}

// Eight writers, each with its own cache read before any saved, released at once and saving
// several problems each: under the file lock every entry ends up in the file. (Without it, the
// read-merge-write of one writer overwrites another's.)
TEST(TuningCacheRobust, ConcurrentSavesAllLand) {
    TempDir dir;
    const DeviceInfo device = fakeDevice();
    constexpr int kWriters = 8, kProblemsEach = 6;
    std::vector<TuningCache> caches;
    for (int w = 0; w < kWriters; ++w) caches.emplace_back(dir.path());
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> writers;
    std::atomic<int> failures{0};
    for (int w = 0; w < kWriters; ++w)
        writers.emplace_back([&, w] {
            ++ready;
            while (!go.load()) std::this_thread::yield();
            try {
                for (int i = 0; i < kProblemsEach; ++i) {
                    ConvProblem p = smallProblem();
                    p.batch = 1 + w * kProblemsEach + i;
                    caches[size_t(w)].put(device, p, TuningEntry{fp32Config(), 1.0 + w, "", ""});
                    caches[size_t(w)].save();
                }
            } catch (const std::exception&) {
                ++failures;
            }
        });
    while (ready.load() < kWriters) std::this_thread::yield();
    go = true;
    for (auto& t : writers) t.join();
    EXPECT_EQ(failures.load(), 0);
    TuningCache merged(dir.path());
    EXPECT_EQ(merged.size(), size_t(kWriters * kProblemsEach));
    for (int b = 1; b <= kWriters * kProblemsEach; ++b) {
        ConvProblem p = smallProblem();
        p.batch = b;
        EXPECT_TRUE(merged.find(device, p, Path::Fp32)) << "batch " << b << " was lost";
    }
}

// The shaders kernelShaders() names (and hashes) are the ones each kernel's prepare function
// builds its pipelines from.
TEST(TuningCacheRobust, KernelShadersMatchThePreparedPipelines) {
    const DeviceInfo device = fakeCoopMatDevice(/*mesaLike=*/false);
    const ConvProblem problem = smallProblem();
    const std::vector<float> weight(size_t(problem.weightElements()), 0.5f);
    auto names = [](const KernelConfig& c) { return detail::kernelShaders(c); };
    const KernelConfig fp32 = detail::selectConfig(Path::Fp32, device, problem).config;
    EXPECT_EQ(names(fp32), std::vector<std::string>{detail::prepareFp32Kernel(problem, fp32, weight.data()).pipeline.shader});
    bool gather = false, packed = false, nhwc = false;
    for (const KernelConfig& c : detail::candidateConfigs(Path::CoopMatF16, device, problem)) {
        if (c.is<CoopMatGatherKernel>() && !gather) {
            gather = true;
            EXPECT_EQ(names(c), std::vector<std::string>{detail::prepareCoopMatKernel(problem, c, weight.data()).pipeline.shader});
        }
        if (c.is<CoopMatPackedKernel>() && !packed) {
            packed = true;
            const detail::PreparedKernel k = detail::preparePackedCoopMatKernel(problem, c, weight.data());
            EXPECT_EQ(names(c), (std::vector<std::string>{k.packInput->shader, k.pipeline.shader}));
        }
        if (c.is<ChannelsLastNhwcKernel>() && !nhwc) {
            nhwc = true;
            const detail::PreparedKernel k = detail::prepareNhwcCoopMatKernel(problem, c, weight.data());
            EXPECT_EQ(names(c), (std::vector<std::string>{k.packInput->shader, k.pipeline.shader}));
        }
    }
    EXPECT_TRUE(gather && packed && nhwc) << "the fake device offers every loader for this problem";
    // The NCHW loader serves convolutions without padding only: a 1x1 here.
    ConvProblem pointwise = problem;
    pointwise.kernelH = pointwise.kernelW = 1, pointwise.padH = pointwise.padW = 0;
    bool nchw = false;
    for (const KernelConfig& c : detail::candidateConfigs(Path::CoopMatF16, device, pointwise))
        if (c.is<ChannelsLastNchwKernel>() && !nchw) {
            nchw = true;
            const detail::PreparedKernel k = detail::prepareNchwCoopMatKernel(pointwise, c, weight.data());
            EXPECT_FALSE(k.packInput) << "the NCHW loader has no packing pass";
            EXPECT_EQ(names(c), std::vector<std::string>{k.pipeline.shader});
        }
    EXPECT_TRUE(nchw) << "the fake device offers the NCHW loader for a 1x1 problem";
}

// On each real device: a Conv2d planned without a configuration does not use an entry of another
// vkconv version, nor one made under a profile, and describe() says why.
class TuningCacheRobustOnDevice : public ::testing::TestWithParam<int> {};

TEST_P(TuningCacheRobustOnDevice, PlainRunIgnoresForeignEntries) {
    if (GetParam() < 0) FAIL() << test::listDevicesError();
    test::TuningDeviceSetup s(GetParam());
    ASSERT_GE(s.ranked.size(), 2u);
    const KernelConfig tuned = s.tuned();

    DeviceInfo profiled = s.context.device();
    profiled.profile = "vulkan-minimum";
    {
        TuningCache cache(s.dir.path());
        cache.put(profiled, s.problem, TuningEntry{tuned, 0.5, "", "test"});
        cache.save();
    }
    Conv2d underProfile(s.context, s.problem, s.weight, s.bias);
    EXPECT_EQ(underProfile.config(), s.ranked[0].config);
    EXPECT_NE(underProfile.describe().find("under profile 'vulkan-minimum'"), std::string::npos)
        << underProfile.describe();

    {
        TuningCache cache(s.dir.path());
        cache.put(s.context.device(), s.problem, TuningEntry{tuned, 0.5, "", "test"});
        cache.save();
    }
    json doc = json::parse(readText(s.dir.file("tuning.json")));
    doc["devices"][deviceKey(s.context.device())]["entries"][problemKey(s.problem, s.path)]["vkconv"] = "0.0.1";
    writeText(s.dir.file("tuning.json"), doc.dump(2));
    Conv2d oldVersion(s.context, s.problem, s.weight, s.bias);
    EXPECT_EQ(oldVersion.config(), s.ranked[0].config);
    EXPECT_NE(oldVersion.describe().find("measured with vkconv 0.0.1"), std::string::npos) << oldVersion.describe();
}

INSTANTIATE_TEST_SUITE_P(Devices, TuningCacheRobustOnDevice, ::testing::ValuesIn(test::testDeviceIndices()));

}  // namespace
}  // namespace vkconv
