// Conv2dImpl's recording side: the descriptor sets of each chunk for an (input, output) pair,
// and the command sequence of a run (the packing pass, the conv's dispatches, split-K's reduce
// pass, and the barriers between them).
#include <sstream>

#include "conv/conv2d_impl.hpp"
#include "runtime/vk_util.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

std::string shapeString(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
    o << "]";
    return o.str();
}

// The tensor's shape against the problem's, with the batch `batch` (the first tensor's), and its
// format and context.
void checkTensor(const char* field, const TensorImpl& t, std::array<int64_t, 4> want, int64_t batch,
                 const TensorFormat& format, const ContextImpl* context) {
    want[0] = batch;
    std::vector<int64_t> expected(want.begin(), want.end());
    if (t.shape != expected)
        throw invalidArgument(std::string(field) + " shape", shapeString(t.shape),
                              "expected " + shapeString(expected));
    if (t.format != format)
        throw invalidArgument(std::string(field) + " format", t.format.str(),
                              "the problem's is " + format.str());
    if (t.context.get() != context)
        throw invalidArgument(field, "tensor", "belongs to another Context");
}

}  // namespace

const BoundSets& Conv2dImpl::prepare(const Tensor& input, const Tensor& output, const Tensor* residual) {
    const TensorImpl& in = input.impl();
    // Any batch from 1 to the planned one, the same for every tensor.
    const int64_t batch = in.shape.size() == 4 ? in.shape[0] : problem.batch;
    if (batch < 1 || batch > problem.batch)
        throw invalidArgument("input shape", shapeString(in.shape),
                              "batch " + std::to_string(batch) + " is outside 1.." + std::to_string(problem.batch) +
                                  " (this Conv2d was planned for " + std::to_string(problem.batch) + " images)");
    checkTensor("input", in, problem.inputShape(), batch, problem.inputFormat, context.get());
    checkTensor("output", output.impl(), problem.outputShape(), batch, problem.outputFormat, context.get());
    // The kernels read the input while other workgroups write the output: memory they share
    // would race and give a silently wrong result.
    if (in.overlaps(output.impl()))
        throw invalidArgument("output", in.id == output.impl().id ? "the input tensor" : "memory of the input",
                              "must not overlap the input (no in-place conv)");
    if (problem.epilogue.residual && !residual)
        throw invalidArgument("residual", "none", "the problem's epilogue adds a residual: pass a tensor of the output's shape");
    if (!problem.epilogue.residual && residual)
        throw invalidArgument("residual", "a tensor", "the problem's epilogue has no residual (epilogue.residual is false)");
    if (residual) {
        const TensorImpl& z = residual->impl();
        checkTensor("residual", z, problem.outputShape(), batch, problem.outputFormat, context.get());
        // Each output element's residual is read by the invocation that then writes it, so the
        // output itself may be the residual; the input, read by every workgroup, may not, and
        // neither may memory that only partly overlaps the output.
        if (z.overlaps(in))
            throw invalidArgument("residual", z.id == in.id ? "the input tensor" : "memory of the input",
                                  "must not be the input (the output itself may be)");
        const TensorImpl& out = output.impl();
        if (z.overlaps(out) && !(z.buffer == out.buffer && z.offset == out.offset))
            throw invalidArgument("residual", "memory partly overlapping the output",
                                  "must be the output's exact bytes or not overlap them");
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (workspaceBytes && workspace == VK_NULL_HANDLE)
        throw invalidArgument("workspace", "none", "this Conv2d takes the caller's (ConvOptions::ownWorkspace is false): "
                                                   "give one of workspaceBytes() = " + std::to_string(workspaceBytes) +
                                                   " bytes with useWorkspace() first");
    return bind(batchPlan(batch), input.sharedImpl(), output.sharedImpl(), residual ? residual->sharedImpl() : nullptr);
}

const BatchPlan& Conv2dImpl::batchPlan(int64_t batch) {
    auto it = batchPlans.find(batch);
    if (it == batchPlans.end()) it = batchPlans.emplace(batch, makeBatchPlan(batch)).first;
    return it->second;
}

const BoundSets& Conv2dImpl::bind(const BatchPlan& batch, const std::shared_ptr<TensorImpl>& inputPtr,
                                  const std::shared_ptr<TensorImpl>& outputPtr,
                                  const std::shared_ptr<TensorImpl>& residualPtr) {
    const TensorImpl &input = *inputPtr, &output = *outputPtr;
    const TensorImpl* residual = residualPtr.get();
    const uint64_t residualId = residual ? residual->id : 0;
    bound.remove_if([](const BoundSets& b) { return b.expired(); });
    for (const BoundSets& b : bound)
        if (b.plan == &batch && b.inputId == input.id && b.outputId == output.id && b.residualId == residualId) return b;

    VkDevice device = context->device;
    const bool converted = convertPipeline != nullptr, packed = packPipeline != nullptr,
               split = reducePipeline != nullptr;
    const ExecutionPlan& plan = batch.plan;
    const size_t chunks = plan.chunks.size();
    const size_t setsPerChunk = 1 + size_t(converted) + size_t(packed) + size_t(split);
    BoundSets& b = bound.emplace_back();
    b.plan = &batch;
    // Weak references tell when a tensor is gone, and with it any use of these sets.
    b.input = inputPtr, b.output = outputPtr, b.residual = residualPtr;
    b.inputId = input.id, b.outputId = output.id, b.residualId = residualId;
    b.pool = context->pipelines().makeDescriptorPool(static_cast<uint32_t>(chunks * setsPerChunk));
    b.poolLive = LiveToken(context->live.descriptorPools);
    std::vector<VkDescriptorSet> all(chunks * setsPerChunk, VK_NULL_HANDLE);
    std::vector<VkDescriptorSetLayout> layouts(all.size(), context->pipelines().setLayout());
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = b.pool.get();
    alloc.descriptorSetCount = static_cast<uint32_t>(all.size());
    alloc.pSetLayouts = layouts.data();
    VKCONV_CHECK(vkAllocateDescriptorSets(device, &alloc, all.data()));
    auto take = [&, next = all.begin()](bool used) mutable {
        std::vector<VkDescriptorSet> part;
        if (used) part.assign(next, next + chunks), next += chunks;
        return part;
    };
    b.sets = take(true);
    b.convertSets = take(converted);
    b.packSets = take(packed);
    b.reduceSets = take(split);

    // The weights as a uniform buffer too (binding 4), written only where the kernel reads them so.
    const VkDescriptorBufferInfo uniformWeights{weights.handle(), 0, uniformWeightBytes};
    // The residual (binding 5) is bound like the output, chunk by chunk, so that an element's
    // index is the same in both; without one, the output's range stands in (never read).
    auto write = [&](VkDescriptorSet set, const VkDescriptorBufferInfo (&infos)[4], const VkDescriptorBufferInfo& z) {
        VkWriteDescriptorSet writes[6];
        uint32_t count = 0;
        for (uint32_t k = 0; k < 6; ++k) {
            if (k == PipelineCache::kUniformWeights && !uniformWeightBytes) continue;
            VkWriteDescriptorSet& w = writes[count++];
            w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = set;
            w.dstBinding = k;
            w.descriptorCount = 1;
            w.descriptorType = k == PipelineCache::kUniformWeights ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = k < 4 ? &infos[k] : k == PipelineCache::kUniformWeights ? &uniformWeights : &z;
        }
        vkUpdateDescriptorSets(device, count, writes, 0, nullptr);
    };
    for (size_t i = 0; i < chunks; ++i) {
        const ChunkBinding& chunk = plan.chunks[i];
        // The plan's offsets are the tensor's; a tensor's own offset in its buffer adds to them
        // (a multiple of the alignment: Tensor::wrap and view check it).
        const VkDescriptorBufferInfo inputInfo{input.buffer, input.offset + chunk.input.offset, chunk.input.range};
        const VkDescriptorBufferInfo convertedInfo = workspaceInfo(convertedRegion);
        const VkDescriptorBufferInfo packedInfo = workspaceInfo(packedRegion);
        const VkDescriptorBufferInfo weightInfo{weights.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo biasInfo{bias.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo outputInfo{output.buffer, output.offset + chunk.output.offset, chunk.output.range};
        const VkDescriptorBufferInfo partialsInfo = workspaceInfo(partialsRegion);
        const VkDescriptorBufferInfo residualInfo =
            residual ? VkDescriptorBufferInfo{residual->buffer, residual->offset + chunk.output.offset, chunk.output.range}
                     : outputInfo;
        // Each pass reads binding 0 and writes binding 3. The input passes in order: the
        // conversion reads the chunk's input and writes the converted input; the packing pass
        // reads whichever of them the conv would have read, and writes the packed input; the
        // conv reads the last of these. With split-K the conv writes the partials, and the
        // reduce pass reads them and writes the output.
        const VkDescriptorBufferInfo& convInput = converted ? convertedInfo : inputInfo;
        if (converted) write(b.convertSets[i], {inputInfo, weightInfo, biasInfo, convertedInfo}, residualInfo);
        if (packed) write(b.packSets[i], {convInput, weightInfo, biasInfo, packedInfo}, residualInfo);
        write(b.sets[i], {packed ? packedInfo : convInput, weightInfo, biasInfo, split ? partialsInfo : outputInfo},
              residualInfo);
        if (split) write(b.reduceSets[i], {partialsInfo, weightInfo, biasInfo, outputInfo}, residualInfo);
    }
    return b;
}

void Conv2dImpl::recordInputPasses(VkCommandBuffer cmd, const BoundSets& b, uint32_t chunk, const ChunkParams& params,
                                   bool fenced) const {
    PipelineCache& pipelines = context->pipelines();
    // The barrier before each pass keeps the previous chunk's reads of what it overwrites ahead
    // of it; the one after makes what it wrote visible to the next pass.
    auto pass = [&](const ComputePipeline& pipeline, VkDescriptorSet set, const std::array<uint32_t, 2>& grid,
                    const ChunkParams& pushed) {
        if (!fenced) barrierBeforeCompute(cmd);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1, &set, 0, nullptr);
        vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(ChunkParams), &pushed);
        vkCmdDispatch(cmd, grid[0], grid[1], 1);
        barrierBeforeCompute(cmd);
        fenced = true;  // the next pass follows this one's barrier
    };
    if (convertPipeline) pass(*convertPipeline, b.convertSets[chunk], b.plan->convertGrid[chunk], params);
    if (packPipeline) {
        ChunkParams packed = params;
        if (convertPipeline) packed.inOffset = 0;  // the converted images start at element 0
        pass(*packPipeline, b.packSets[chunk], b.plan->packGrid[chunk], packed);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
}

void Conv2dImpl::record(VkCommandBuffer cmd, const BoundSets& b) const {
    PipelineCache& pipelines = context->pipelines();
    const ExecutionPlan& plan = b.plan->plan;
    const bool inputPasses = convertPipeline || packPipeline;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
    uint32_t boundChunk = UINT32_MAX;  // also: a barrier has just been recorded (the caller's, or the reduce's)
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const Dispatch& d = plan.dispatches[i];
        ChunkParams params = d.params;
        if (convertPipeline) params.inOffset = 0;  // the conv reads the converted images
        if (inputPasses && d.chunk != boundChunk) recordInputPasses(cmd, b, d.chunk, d.params, boundChunk == UINT32_MAX);
        if (packPipeline && (debugSkip & 8u)) {  // diagnostics: time the packing alone
            boundChunk = d.chunk;
            continue;
        }
        if (d.chunk != boundChunk) {
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1, &b.sets[d.chunk], 0,
                                    nullptr);
            boundChunk = d.chunk;
        }
        vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(ChunkParams), &params);
        vkCmdDispatch(cmd, d.groupsX, d.groupsY, d.groupsZ);
        const bool lastOfChunk = i + 1 == plan.dispatches.size() || plan.dispatches[i + 1].chunk != d.chunk;
        if (reducePipeline && lastOfChunk) {
            // Split-K: once every split of the chunk is written, add them into the output. The
            // barrier after it keeps the next chunk's partial stores behind this pass's reads.
            barrierBeforeCompute(cmd);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, reducePipeline->handle());
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1, &b.reduceSets[d.chunk],
                                    0, nullptr);
            vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(ChunkParams), &params);
            vkCmdDispatch(cmd, b.plan->reduceGroups[d.chunk], 1, 1);
            if (i + 1 < plan.dispatches.size()) {
                barrierBeforeCompute(cmd);
                vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
                boundChunk = UINT32_MAX;  // the next chunk binds its own set
            }
        }
    }
}

}  // namespace vkconv::detail
