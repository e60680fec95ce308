// Compute pipelines of the conv kernels, and the per-context cache that builds each one once.
// All conv kernels share one interface: four storage buffers (input, packed weights, bias,
// output) and the ChunkParams push constants; so one descriptor-set layout and one pipeline
// layout serve them all.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/context_impl.hpp"

namespace vkconv::detail {

// The SPIR-V of a shader embedded at build time (src/kernels/*/*.comp), by file stem.
struct SpirvBlob {
    const uint32_t* words;
    size_t wordCount;
};
SpirvBlob embeddedShader(const std::string& name);  // throws Internal if absent

struct PipelineKey {
    std::string shader;              // embedded shader name
    std::vector<uint8_t> specData;   // the kernel's spec struct, bytes
    std::vector<VkSpecializationMapEntry> entries;
    uint32_t requiredSubgroupSize = 0;  // 0: the driver's choice
    bool fullSubgroups = false;

    std::string cacheKey() const;  // content key: shader name, spec bytes, subgroup options
};

// The key of `shader` specialized by a kernel's spec struct (src/kernel_specs.hpp), whose
// static entries() maps it to the shader's constant ids.
template <typename Spec>
PipelineKey pipelineKey(const std::string& shader, const Spec& spec) {
    PipelineKey key;
    key.shader = shader;
    key.specData.resize(sizeof spec);
    std::memcpy(key.specData.data(), &spec, sizeof spec);
    key.entries = Spec::entries();
    return key;
}

// Sets specialization constant `id` of the key to `value` (a 32-bit constant the key maps);
// throws vkconv::Error(Internal) if the key has none of that id.
void setSpecConstant(PipelineKey& key, uint32_t id, uint32_t value);

class ComputePipeline {
public:
    ComputePipeline(ContextImpl& context, VkPipelineLayout layout, VkPipelineCache cache,
                    const PipelineKey& key);
    VkPipeline handle() const { return pipeline_.get(); }

private:
    UniquePipeline pipeline_;
    LiveToken live_;
};

// The driver's statistics of `pipeline` ("name value" lines per executable), or "" when the
// context does not capture them (ContextOptions::pipelineStatistics).
std::string pipelineStatistics(ContextImpl& context, VkPipeline pipeline);

// One statistic's value as pipelineStatistics writes it: the driver's number, and what it means
// where a driver's number hides it. NVIDIA's driver (580) reports "Local Memory Size" as 2^36
// plus the bytes of local memory a thread uses (spilled registers, or private arrays the
// compiler could not keep in registers): 68719476736 is none, 68719477056 is 320 bytes, which
// took a grouped direct tile from 0.199 to 0.366 ms (bench/RESULTS.md).
std::string statisticValueText(const std::string& name, uint64_t value);

class PipelineCache {
public:
    // Storage buffers 0..3 (input, weights, bias, output), then the weights again as a uniform
    // buffer (kUniformWeights), for kernels whose subgroups read one set of weights: there a
    // GPU can keep them in registers the whole subgroup shares; then the epilogue's residual
    // (kResidual, a storage buffer: fused_epilogue.glsl).
    static constexpr uint32_t kBindings = 4;
    static constexpr uint32_t kUniformWeights = 4;
    static constexpr uint32_t kResidual = 5;
    static constexpr uint32_t kPushConstantBytes = 20;

    // Loads the persistent cache file (include/vkconv/pipeline_cache.hpp) when the context has
    // one; the destructor saves it if pipelines were built, ignoring write errors.
    explicit PipelineCache(ContextImpl& context);
    ~PipelineCache();
    // The pipeline of `key`: the one in use if a caller still holds it, else built (from the
    // VkPipelineCache, so a rebuild is cheap). Only weak references are kept here: a pipeline
    // lives as long as the Conv2d objects that use it, so that a sweep over hundreds of
    // configurations does not keep every one of them on the device. Several threads may call it
    // at once: each builds outside the lock, and callers of one key share one pipeline.
    std::shared_ptr<ComputePipeline> get(const PipelineKey& key);

    // Persistence: save() returns the file written ("" when not persistent); throws Error(Io).
    std::string save();
    const std::string& file() const { return file_; }
    uint64_t loadedBytes() const { return loadedBytes_; }
    const std::string& loadNote() const { return loadNote_; }

    VkDescriptorSetLayout setLayout() const { return setLayout_.get(); }
    // A pool for `sets` descriptor sets of that layout (its storage and uniform bindings).
    UniqueDescriptorPool makeDescriptorPool(uint32_t sets) const;
    VkPipelineLayout layout() const { return layout_.get(); }
    VkPipelineCache vkCache() const { return cache_.get(); }
    size_t size() const;  // pipelines alive now

private:
    ContextImpl& context_;
    UniqueDescriptorSetLayout setLayout_;
    UniquePipelineLayout layout_;
    UniquePipelineCache cache_;
    mutable std::mutex mutex_;
    std::map<std::string, std::weak_ptr<ComputePipeline>> pipelines_;
    std::string file_, loadNote_;
    uint64_t loadedBytes_ = 0;
    bool built_ = false;  // a pipeline was created since the load or the last save
};

}  // namespace vkconv::detail
