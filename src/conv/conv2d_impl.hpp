// Conv2dImpl: what a planned Conv2d holds (its configuration, plan, pipelines, packed weights and
// the passes' workspaces) and the per-tensor state it records with (descriptor sets per chunk).
// conv2d.cpp plans and builds it; conv2d_record.cpp binds tensors and records the dispatches.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "problem/conv_plan.hpp"
#include "runtime/pipeline.hpp"
#include "runtime/tensor_impl.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv::detail {

struct Conv2dImpl {
    std::shared_ptr<ContextImpl> context;
    ConvProblem problem;
    KernelConfig config;
    std::string why;  // how the path and configuration were chosen
    ExecutionPlan plan;
    std::shared_ptr<ComputePipeline> pipeline;
    Buffer weights, bias;
    uint64_t uniformWeightBytes = 0;  // PreparedKernel::uniformWeightBytes
    uint32_t debugSkip = 0;           // diagnostics: the parts left out (conv/diagnostics.hpp)

    // An input the kernel's loader cannot read as it is (KernelFamily::readsInput): the pass that
    // rewrites each chunk's input as fp32 NCHW into `convertedInput` first, which the passes
    // after it read in the input's place, and its grid per chunk.
    std::shared_ptr<ComputePipeline> convertPipeline;
    Buffer convertedInput;
    std::vector<std::array<uint32_t, 2>> convertGrid;

    // Packed loader only: the pass that packs each chunk's input into `packedInput` before the
    // conv reads it, its grid per chunk, and its descriptor sets.
    std::shared_ptr<ComputePipeline> packPipeline;
    Buffer packedInput;
    std::vector<std::array<uint32_t, 2>> packGrid;

    // Split-K only: the pass that adds each chunk's partial sums (which the conv writes to
    // `partials` in place of the output) into the output, and its workgroups per chunk.
    std::shared_ptr<ComputePipeline> reducePipeline;
    Buffer partials;
    std::vector<uint32_t> reduceGroups;

    // Descriptor sets for the last (input, output) pair; rebuilt when the tensors change.
    UniqueDescriptorPool pool;
    LiveToken poolLive;
    std::vector<VkDescriptorSet> sets, convertSets, packSets, reduceSets;
    uint64_t boundInput = 0, boundOutput = 0, boundResidual = 0;

    // Checks the tensors against the problem and binds them (descriptor sets per chunk); the
    // residual is required where the problem's epilogue has one, and refused elsewhere.
    void prepare(const Tensor& input, const Tensor& output, const Tensor* residual);
    void bindTensors(const TensorImpl& input, const TensorImpl& output, const TensorImpl* residual);
    void record(VkCommandBuffer cmd) const;

private:
    // The passes that rewrite chunk `chunk`'s input before the conv reads it (conversion,
    // packing), with their barriers; `fenced`: a barrier was just recorded, so the earlier
    // chunk's reads of what they overwrite need no other.
    void recordInputPasses(VkCommandBuffer cmd, uint32_t chunk, const ChunkParams& params, bool fenced) const;
};

// The chunks and dispatches of `config` (a configuration canImplement accepted) for the problem.
ExecutionPlan planFor(const ConvProblem& problem, const DeviceInfo& device, const KernelConfig& config);

}  // namespace vkconv::detail
