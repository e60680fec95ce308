#include "runtime/pipeline.hpp"

#include <algorithm>
#include <sstream>

#include "runtime/pipeline_cache_file.hpp"

namespace vkconv::detail {

std::string PipelineKey::cacheKey() const {
    std::ostringstream s;
    s << shader << "|sg" << requiredSubgroupSize << (fullSubgroups ? "f" : "") << "|";
    static const char* hex = "0123456789abcdef";
    for (uint8_t b : specData) s << hex[b >> 4] << hex[b & 15];
    return s.str();
}

ComputePipeline::ComputePipeline(ContextImpl& ctx, VkPipelineLayout layout, VkPipelineCache cache,
                                 const PipelineKey& key)
    : live_(ctx.live.pipelines) {
    SpirvBlob spirv = embeddedShader(key.shader);
    VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = spirv.wordCount * 4;
    moduleInfo.pCode = spirv.words;
    VkShaderModule module;
    VKCONV_CHECK(vkCreateShaderModule(ctx.device, &moduleInfo, nullptr, &module));
    UniqueShaderModule ownedModule(ctx.device, module);

    // Map entries in constantID order. Vulkan allows any order, but the Khronos validation layer
    // (Debian 13's) then resolves some constants to the wrong entries and reports cooperative
    // matrices of shapes the kernel never uses (e.g. MMA_M taken from WARPS_N).
    std::vector<VkSpecializationMapEntry> entries = key.entries;
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.constantID < b.constantID; });
    VkSpecializationInfo spec{};
    spec.mapEntryCount = static_cast<uint32_t>(entries.size());
    spec.pMapEntries = entries.data();
    spec.dataSize = key.specData.size();
    spec.pData = key.specData.data();

    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    VkPipelineShaderStageCreateInfo stage{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    stage.module = module;
    stage.pName = "main";
    stage.pSpecializationInfo = &spec;
    if (key.requiredSubgroupSize) {
        subgroupSize.requiredSubgroupSize = key.requiredSubgroupSize;
        stage.pNext = &subgroupSize;
    }
    if (key.fullSubgroups) stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;

    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = stage;
    info.layout = layout;
    if (ctx.captureStatistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipeline pipeline;
    VkResult r = vkCreateComputePipelines(ctx.device, cache, 1, &info, nullptr, &pipeline);
    if (r != VK_SUCCESS)
        throw Error(Error::Kind::Vulkan, "vkCreateComputePipelines failed for " + key.shader +
                                             ": " + resultName(r));
    pipeline_ = UniquePipeline(ctx.device, pipeline);
}

std::string statisticValueText(const std::string& name, uint64_t value) {
    constexpr uint64_t kNvidiaLocalMemoryBase = uint64_t(1) << 36;
    std::string text = std::to_string(value);
    if (name == "Local Memory Size" && value >= kNvidiaLocalMemoryBase && value - kNvidiaLocalMemoryBase < (uint64_t(1) << 32))
        text += " (" + std::to_string(value - kNvidiaLocalMemoryBase) + " B local a thread)";
    return text;
}

std::string pipelineStatistics(ContextImpl& ctx, VkPipeline pipeline) {
    if (!ctx.captureStatistics) return "";
    auto getProperties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(ctx.device, "vkGetPipelineExecutablePropertiesKHR"));
    auto getStatistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(ctx.device, "vkGetPipelineExecutableStatisticsKHR"));
    if (!getProperties || !getStatistics) return "";
    VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    info.pipeline = pipeline;
    uint32_t n = 0;
    getProperties(ctx.device, &info, &n, nullptr);
    std::vector<VkPipelineExecutablePropertiesKHR> executables(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
    getProperties(ctx.device, &info, &n, executables.data());
    std::string out;
    for (uint32_t e = 0; e < n; ++e) {
        VkPipelineExecutableInfoKHR exe{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        exe.pipeline = pipeline;
        exe.executableIndex = e;
        uint32_t m = 0;
        getStatistics(ctx.device, &exe, &m, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(m, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        getStatistics(ctx.device, &exe, &m, stats.data());
        out += std::string(executables[e].name) + ":";
        for (const auto& s : stats) {
            out += std::string(" ") + s.name + "=";
            switch (s.format) {
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: out += s.value.b32 ? "true" : "false"; break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: out += std::to_string(s.value.i64); break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: out += statisticValueText(s.name, s.value.u64); break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: out += std::to_string(s.value.f64); break;
                default: out += "?";
            }
        }
        out += "\n";
    }
    return out;
}

PipelineCache::PipelineCache(ContextImpl& ctx) : context_(ctx) {
    VkDescriptorSetLayoutBinding bindings[kBindings + 2];
    for (uint32_t i = 0; i < kBindings; ++i)
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    bindings[kUniformWeights] = {kUniformWeights, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    bindings[kResidual] = {kResidual, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = kBindings + 2;
    setInfo.pBindings = bindings;
    VkDescriptorSetLayout setLayout;
    VKCONV_CHECK(vkCreateDescriptorSetLayout(ctx.device, &setInfo, nullptr, &setLayout));
    setLayout_ = UniqueDescriptorSetLayout(ctx.device, setLayout);

    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    VKCONV_CHECK(vkCreatePipelineLayout(ctx.device, &layoutInfo, nullptr, &layout));
    layout_ = UniquePipelineLayout(ctx.device, layout);

    VkPipelineCacheCreateInfo cacheInfo{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    std::string initial;
    if (ctx.persistPipelineCache && !ctx.cacheDir.empty()) {
        file_ = ctx.cacheDir + "/" + pipelineCacheFileName(ctx.hardware);
        initial = loadPipelineCacheData(file_, ctx.hardware, loadNote_);
    } else {
        loadNote_ = ctx.persistPipelineCache ? "not persistent: no cache folder" : "not persistent: turned off";
    }
    cacheInfo.initialDataSize = initial.size();
    cacheInfo.pInitialData = initial.empty() ? nullptr : initial.data();
    VkPipelineCache cache;
    VkResult r = vkCreatePipelineCache(ctx.device, &cacheInfo, nullptr, &cache);
    if (r != VK_SUCCESS && !initial.empty()) {
        // The driver refused the saved data: start empty rather than fail.
        loadNote_ = "cold: " + file_ + " refused by the driver (" + resultName(r) + ")";
        initial.clear();
        cacheInfo.initialDataSize = 0;
        cacheInfo.pInitialData = nullptr;
        r = vkCreatePipelineCache(ctx.device, &cacheInfo, nullptr, &cache);
    }
    check(r, "vkCreatePipelineCache");
    cache_ = UniquePipelineCache(ctx.device, cache);
    if (!initial.empty()) {
        // A driver ignores data it does not recognise without an error: what it gives back says
        // whether it kept anything. Only the Vulkan header back means the payload (which passed
        // vkconv's header and checksum) held nothing the driver could use.
        size_t kept = 0;
        check(vkGetPipelineCacheData(ctx.device, cache, &kept, nullptr), "vkGetPipelineCacheData");
        if (kept <= sizeof(VkPipelineCacheHeaderVersionOne)) {
            loadNote_ = "cold: " + file_ + " held " + std::to_string(initial.size()) +
                        " bytes the driver did not recognise as pipelines; ignored, replaced on save";
            initial.clear();
        }
    }
    loadedBytes_ = initial.size();
}

UniqueDescriptorPool PipelineCache::makeDescriptorPool(uint32_t sets) const {
    const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * (kBindings + 1)},
                                          {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, sets}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = sets;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool;
    VKCONV_CHECK(vkCreateDescriptorPool(context_.device, &info, nullptr, &pool));
    return UniqueDescriptorPool(context_.device, pool);
}

PipelineCache::~PipelineCache() {
    try {
        save();
    } catch (...) {
        // Best effort: savePipelineCache() is the way to see write errors.
    }
}

std::string PipelineCache::save() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (file_.empty()) return "";
    if (!built_) return file_;
    size_t size = 0;
    VKCONV_CHECK(vkGetPipelineCacheData(context_.device, cache_.get(), &size, nullptr));
    std::string data(size, '\0');
    VKCONV_CHECK(vkGetPipelineCacheData(context_.device, cache_.get(), &size, data.data()));
    data.resize(size);
    savePipelineCacheData(file_, context_.hardware, data);
    built_ = false;
    return file_;
}

std::shared_ptr<ComputePipeline> PipelineCache::get(const PipelineKey& key) {
    const std::string k = key.cacheKey();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = pipelines_.find(k);
        if (it != pipelines_.end())
            if (std::shared_ptr<ComputePipeline> alive = it->second.lock()) return alive;
    }
    // Built outside the lock, so that threads planning different configurations compile at once
    // (the VkPipelineCache synchronizes itself: it is not created externally synchronized). Where
    // two threads built the same key, the first one stored is shared and the other dropped.
    auto pipeline = std::make_shared<ComputePipeline>(context_, layout_.get(), cache_.get(), key);
    std::lock_guard<std::mutex> lock(mutex_);
    // Forget the pipelines nobody holds any more, so that the map stays as small as what is alive.
    for (auto e = pipelines_.begin(); e != pipelines_.end();)
        e = e->second.expired() ? pipelines_.erase(e) : std::next(e);
    std::weak_ptr<ComputePipeline>& slot = pipelines_[k];
    if (std::shared_ptr<ComputePipeline> stored = slot.lock()) return stored;
    slot = pipeline;
    built_ = true;
    return pipeline;
}

size_t PipelineCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const auto& e : pipelines_) n += e.second.expired() ? 0 : 1;
    return n;
}

void setSpecConstant(PipelineKey& key, uint32_t id, uint32_t value) {
    for (const VkSpecializationMapEntry& e : key.entries)
        if (e.constantID == id && e.size == sizeof value && e.offset + sizeof value <= key.specData.size()) {
            std::memcpy(key.specData.data() + e.offset, &value, sizeof value);
            return;
        }
    throw Error(Error::Kind::Internal, key.shader + " has no 32-bit specialization constant " + std::to_string(id));
}

}  // namespace vkconv::detail
