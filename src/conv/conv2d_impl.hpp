// Conv2dImpl: what a planned Conv2d holds (its configuration, pipelines, packed weights and the
// passes' workspaces), its plans per batch size, and the descriptor sets of the tensors it has
// been given. conv2d.cpp plans and builds it; conv2d_record.cpp binds tensors and records the
// dispatches.
#pragma once

#include <array>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conv/precise.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "problem/conv_plan.hpp"
#include "runtime/pipeline.hpp"
#include "runtime/tensor_impl.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv::detail {

// What a batch of one size runs: its chunks and dispatches, and the pre-passes' grids per chunk.
struct BatchPlan {
    int64_t batch = 0;
    ExecutionPlan plan;
    std::vector<std::array<uint32_t, 2>> convertGrid, packGrid;
    std::vector<uint32_t> reduceGroups;
};

// The descriptor sets of one batch plan with one (input, output, residual) triple, made once
// and never updated: a command buffer that recorded them stays valid while the tensors live.
// Dropped once a tensor of it is gone.
struct BoundSets {
    const BatchPlan* plan = nullptr;
    std::weak_ptr<TensorImpl> input, output, residual;
    uint64_t inputId = 0, outputId = 0, residualId = 0;
    UniqueDescriptorPool pool;
    LiveToken poolLive;
    std::vector<VkDescriptorSet> sets, convertSets, packSets, reduceSets;
    bool expired() const { return input.expired() || output.expired() || (residualId && residual.expired()); }
};

struct Conv2dImpl {
    std::shared_ptr<ContextImpl> context;
    ConvProblem problem;  // planned for problem.batch images: any batch from 1 to it runs
    KernelConfig config;
    std::string why;  // how the path and configuration were chosen
    ExecutionPlan plan;  // the planned batch's (the workspaces are sized for it)
    std::shared_ptr<ComputePipeline> pipeline;
    Buffer weights, bias;
    uint64_t uniformWeightBytes = 0;  // PreparedKernel::uniformWeightBytes
    uint32_t debugSkip = 0;           // diagnostics: the parts left out (conv/diagnostics.hpp)

    // An input the kernel's loader cannot read as it is (KernelFamily::readsInput): the pass that
    // rewrites each chunk's input as fp32 NCHW into the workspace's converted region first, which
    // the passes after it read in the input's place.
    std::shared_ptr<ComputePipeline> convertPipeline;

    // Packed loader only: the pass that packs each chunk's input into the packed region before
    // the conv reads it, and its workgroups for a chunk of so many images.
    std::shared_ptr<ComputePipeline> packPipeline;
    std::function<uint64_t(uint64_t images)> packWorkgroups;

    // Split-K only: the pass that adds each chunk's partial sums (which the conv writes to the
    // partials region in place of the output) into the output, and its workgroups for a chunk.
    std::shared_ptr<ComputePipeline> reducePipeline;
    std::function<uint32_t(uint64_t outputValues)> reduceWorkgroups;

    // The passes' workspace: the packed input, the partial sums and the converted input, each at
    // an aligned offset of one range (Conv2d::workspaceBytes). vkconv's own buffer, or the
    // caller's (Conv2d::useWorkspace), which several Conv2ds may share.
    struct Region {
        uint64_t at = 0, bytes = 0;
    };
    Region packedRegion, partialsRegion, convertedRegion;
    uint64_t workspaceBytes = 0;
    Buffer ownWorkspace;
    VkBuffer workspace = VK_NULL_HANDLE;
    uint64_t workspaceOffset = 0;
    std::shared_ptr<TensorImpl> workspaceTensor;  // the caller's, kept alive
    VkDescriptorBufferInfo workspaceInfo(const Region& r) const {
        return {workspace, workspaceOffset + r.at, r.bytes ? r.bytes : 16};
    }

    // The plans by batch (the planned batch's made at construction, smaller ones when first
    // run) and the descriptor sets of the tensors given; under `mutex`.
    std::mutex mutex;
    std::map<int64_t, BatchPlan> batchPlans;
    std::list<BoundSets> bound;

    // Precision::Precise: the parts that run in this Conv2d's place (conv/precise.hpp); null
    // otherwise.
    std::unique_ptr<PrecisePlan> precise;

    bool hasWorkspaces() const { return convertPipeline || packPipeline || reducePipeline; }
    // What run, record and time record for these tensors (a barrier comes before, the caller's:
    // run and time record one before every run, record() one where a workspace is reused): the
    // passes of this Conv2d, or of its precise parts.
    std::function<void(VkCommandBuffer)> recorder(const Tensor& input, Tensor& output, const Tensor* residual);
    BatchPlan makeBatchPlan(int64_t batch) const;

    // Checks the tensors against the problem (any batch from 1 to the planned one, the same in
    // all three) and returns the descriptor sets to record them with; the residual is required
    // where the problem's epilogue has one, and refused elsewhere.
    const BoundSets& prepare(const Tensor& input, const Tensor& output, const Tensor* residual);
    // The dispatches and the barriers between them; the caller's barrier comes before.
    void record(VkCommandBuffer cmd, const BoundSets& sets) const;

private:
    const BatchPlan& batchPlan(int64_t batch);
    const BoundSets& bind(const BatchPlan& plan, const std::shared_ptr<TensorImpl>& input,
                          const std::shared_ptr<TensorImpl>& output, const std::shared_ptr<TensorImpl>& residual);
    // The passes that rewrite chunk `chunk`'s input before the conv reads it (conversion,
    // packing), with their barriers; `fenced`: a barrier was just recorded, so the earlier
    // chunk's reads of what they overwrite need no other.
    void recordInputPasses(VkCommandBuffer cmd, const BoundSets& sets, uint32_t chunk, const ChunkParams& params,
                           bool fenced) const;
};

// The chunks and dispatches of `config` (a configuration canImplement accepted) for the problem.
ExecutionPlan planFor(const ConvProblem& problem, const DeviceInfo& device, const KernelConfig& config);

// A pre-pass's workgroups as an X x Y grid within the device's limits.
std::array<uint32_t, 2> gridFor(uint64_t groups, const DeviceInfo& device, const char* what);

}  // namespace vkconv::detail
