// Loading, validating and saving the persistent pipeline cache, and its public API.
#include "runtime/pipeline_cache_file.hpp"

#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>

#include "runtime/cache_files.hpp"
#include "runtime/pipeline.hpp"
#include "vkconv/pipeline_cache.hpp"

namespace vkconv {
namespace detail {

namespace {

constexpr char kMagic[8] = {'V', 'K', 'C', 'O', 'N', 'V', 'P', 'C'};
constexpr uint32_t kFormatVersion = 1;

// magic[8] | format version u32 | driver version u32 | payload bytes u64 | FNV-1a 64 of payload u64
struct FileHeader {
    char magic[8];
    uint32_t formatVersion;
    uint32_t driverVersion;
    uint64_t payloadBytes;
    uint64_t payloadHash;
};
static_assert(sizeof(FileHeader) == 32, "packed layout");

uint64_t fnv1a(const char* data, size_t size) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ uint8_t(data[i])) * 0x100000001b3ull;
    return h;
}

// Why the driver's data does not belong to `hw` ("" if it does).
std::string checkDriverHeader(const char* data, size_t size, const DeviceInfo& hw) {
    VkPipelineCacheHeaderVersionOne h;
    if (size < sizeof h) return "shorter than a Vulkan pipeline-cache header";
    std::memcpy(&h, data, sizeof h);
    if (h.headerSize < sizeof h || h.headerSize > size) return "bad Vulkan header size";
    if (h.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "unknown Vulkan header version";
    if (h.vendorID != hw.vendorId || h.deviceID != hw.deviceId) return "made by another device";
    if (std::memcmp(h.pipelineCacheUUID, hw.pipelineCacheUUID.data(), VK_UUID_SIZE) != 0)
        return "made by another driver (pipelineCacheUUID differs)";
    return "";
}

}  // namespace

std::string pipelineCacheFileName(const DeviceInfo& hw) {
    char ids[32];
    std::snprintf(ids, sizeof ids, "%04x-%04x-", hw.vendorId, hw.deviceId);
    return "pipelines-" + std::string(ids) + hexBytes(hw.pipelineCacheUUID.data(), hw.pipelineCacheUUID.size()) +
           ".bin";
}

std::string loadPipelineCacheData(const std::string& path, const DeviceInfo& hw, std::string& note) {
    std::string file;
    if (!readWholeFile(path, file)) {
        note = "cold: no file yet (" + path + ")";
        return "";
    }
    auto ignored = [&](const std::string& why) {
        note = "cold: " + path + " " + why + "; ignored, replaced on save";
        return std::string();
    };
    FileHeader h;
    if (file.size() < sizeof h) return ignored("is truncated");
    std::memcpy(&h, file.data(), sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return ignored("is not a vkconv pipeline cache");
    if (h.formatVersion != kFormatVersion) return ignored("has another format version");
    if (h.driverVersion != hw.driverVersion) return ignored("was made by another driver version");
    if (h.payloadBytes != file.size() - sizeof h) return ignored("is truncated or padded");
    const char* payload = file.data() + sizeof h;
    if (fnv1a(payload, size_t(h.payloadBytes)) != h.payloadHash) return ignored("is damaged (checksum)");
    if (std::string why = checkDriverHeader(payload, size_t(h.payloadBytes), hw); !why.empty())
        return ignored("was " + why);
    VkPipelineCacheHeaderVersionOne driverHeader;
    std::memcpy(&driverHeader, payload, sizeof driverHeader);
    if (driverHeader.headerSize == h.payloadBytes) {
        note = "cold: " + path + " holds no pipelines (this driver keeps none in a pipeline cache)";
        return "";
    }
    note = "warm: loaded " + std::to_string(h.payloadBytes) + " bytes from " + path;
    return std::string(payload, size_t(h.payloadBytes));
}

void savePipelineCacheData(const std::string& path, const DeviceInfo& hw, const std::string& data) {
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.formatVersion = kFormatVersion;
    h.driverVersion = hw.driverVersion;
    h.payloadBytes = data.size();
    h.payloadHash = fnv1a(data.data(), data.size());
    std::string file(reinterpret_cast<const char*>(&h), sizeof h);
    file += data;
    writeFileAtomically(path, file);
}

}  // namespace detail

PipelineCacheStatus pipelineCacheStatus(const Context& context) {
    detail::PipelineCache& cache = context.impl()->pipelines();
    PipelineCacheStatus s;
    s.file = cache.file();
    s.persistent = !s.file.empty();
    s.loadedBytes = cache.loadedBytes();
    s.pipelines = cache.size();
    s.note = cache.loadNote();
    return s;
}

std::string savePipelineCache(const Context& context) { return context.impl()->pipelines().save(); }

}  // namespace vkconv
