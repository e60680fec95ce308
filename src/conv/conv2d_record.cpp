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

void checkTensor(const char* field, const TensorImpl& t, const std::array<int64_t, 4>& want,
                 const TensorFormat& format, const ContextImpl* context) {
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

void Conv2dImpl::prepare(const Tensor& input, const Tensor& output, const Tensor* residual) {
    checkTensor("input", input.impl(), problem.inputShape(), problem.inputFormat, context.get());
    checkTensor("output", output.impl(), problem.outputShape(), problem.outputFormat, context.get());
    // The kernels read the input while other workgroups write the output: the same tensor for
    // both would race and give a silently wrong result.
    if (input.impl().id == output.impl().id)
        throw invalidArgument("output", "the input tensor", "must be a different tensor from the input (no in-place conv)");
    if (problem.epilogue.residual && !residual)
        throw invalidArgument("residual", "none", "the problem's epilogue adds a residual: pass a tensor of the output's shape");
    if (!problem.epilogue.residual && residual)
        throw invalidArgument("residual", "a tensor", "the problem's epilogue has no residual (epilogue.residual is false)");
    if (residual) {
        checkTensor("residual", residual->impl(), problem.outputShape(), problem.outputFormat, context.get());
        // Each output element's residual is read by the invocation that then writes it, so the
        // output itself may be the residual; the input, read by every workgroup, may not.
        if (residual->impl().id == input.impl().id)
            throw invalidArgument("residual", "the input tensor", "must not be the input (the output itself may be)");
    }
    bindTensors(input.impl(), output.impl(), residual ? &residual->impl() : nullptr);
}


void Conv2dImpl::bindTensors(const TensorImpl& input, const TensorImpl& output, const TensorImpl* residual) {
    const uint64_t residualId = residual ? residual->id : 0;
    if (!sets.empty() && boundInput == input.id && boundOutput == output.id && boundResidual == residualId) return;
    VkDevice device = context->device;
    const bool converted = convertPipeline != nullptr, packed = packPipeline != nullptr,
               split = reducePipeline != nullptr;
    const size_t chunks = plan.chunks.size();
    const size_t setsPerChunk = 1 + size_t(converted) + size_t(packed) + size_t(split);
    if (!pool) {
        pool = context->pipelines().makeDescriptorPool(static_cast<uint32_t>(chunks * setsPerChunk));
        poolLive = LiveToken(context->live.descriptorPools);
    } else {
        VKCONV_CHECK(vkResetDescriptorPool(device, pool.get(), 0));
    }
    std::vector<VkDescriptorSet> all(chunks * setsPerChunk, VK_NULL_HANDLE);
    std::vector<VkDescriptorSetLayout> layouts(all.size(), context->pipelines().setLayout());
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool.get();
    alloc.descriptorSetCount = static_cast<uint32_t>(all.size());
    alloc.pSetLayouts = layouts.data();
    VKCONV_CHECK(vkAllocateDescriptorSets(device, &alloc, all.data()));
    auto take = [&, next = all.begin()](bool used) mutable {
        std::vector<VkDescriptorSet> part;
        if (used) part.assign(next, next + chunks), next += chunks;
        return part;
    };
    sets = take(true);
    convertSets = take(converted);
    packSets = take(packed);
    reduceSets = take(split);

    // The weights as a uniform buffer too (binding 4), written only where the kernel reads them so.
    const VkDescriptorBufferInfo uniformWeights{weights.handle(), 0, uniformWeightBytes};
    // The residual (binding 5) is bound like the output, chunk by chunk, so that an element's
    // index is the same in both; without one, the output's range stands in (never read).
    auto write = [&](VkDescriptorSet set, const VkDescriptorBufferInfo (&infos)[4], const VkDescriptorBufferInfo& z) {
        VkWriteDescriptorSet writes[6];
        uint32_t count = 0;
        for (uint32_t b = 0; b < 6; ++b) {
            if (b == PipelineCache::kUniformWeights && !uniformWeightBytes) continue;
            VkWriteDescriptorSet& w = writes[count++];
            w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = set;
            w.dstBinding = b;
            w.descriptorCount = 1;
            w.descriptorType = b == PipelineCache::kUniformWeights ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = b < 4 ? &infos[b] : b == PipelineCache::kUniformWeights ? &uniformWeights : &z;
        }
        vkUpdateDescriptorSets(device, count, writes, 0, nullptr);
    };
    for (size_t i = 0; i < chunks; ++i) {
        const ChunkBinding& chunk = plan.chunks[i];
        const VkDescriptorBufferInfo inputInfo{input.buffer.handle(), chunk.input.offset, chunk.input.range};
        const VkDescriptorBufferInfo convertedInfo{convertedInput.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo packedInfo{packedInput.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo weightInfo{weights.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo biasInfo{bias.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo outputInfo{output.buffer.handle(), chunk.output.offset, chunk.output.range};
        const VkDescriptorBufferInfo partialsInfo{partials.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo residualInfo =
            residual ? VkDescriptorBufferInfo{residual->buffer.handle(), chunk.output.offset, chunk.output.range} : outputInfo;
        // Each pass reads binding 0 and writes binding 3. The input passes in order: the
        // conversion reads the chunk's input and writes the converted input; the packing pass
        // reads whichever of them the conv would have read, and writes the packed input; the
        // conv reads the last of these. With split-K the conv writes the partials, and the
        // reduce pass reads them and writes the output.
        const VkDescriptorBufferInfo& convInput = converted ? convertedInfo : inputInfo;
        if (converted) write(convertSets[i], {inputInfo, weightInfo, biasInfo, convertedInfo}, residualInfo);
        if (packed) write(packSets[i], {convInput, weightInfo, biasInfo, packedInfo}, residualInfo);
        write(sets[i], {packed ? packedInfo : convInput, weightInfo, biasInfo, split ? partialsInfo : outputInfo},
              residualInfo);
        if (split) write(reduceSets[i], {partialsInfo, weightInfo, biasInfo, outputInfo}, residualInfo);
    }
    boundInput = input.id;
    boundOutput = output.id;
    boundResidual = residualId;
}

void Conv2dImpl::recordInputPasses(VkCommandBuffer cmd, uint32_t chunk, const ChunkParams& params, bool fenced) const {
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
    if (convertPipeline) pass(*convertPipeline, convertSets[chunk], convertGrid[chunk], params);
    if (packPipeline) {
        ChunkParams packed = params;
        if (convertPipeline) packed.inOffset = 0;  // the converted images start at element 0
        pass(*packPipeline, packSets[chunk], packGrid[chunk], packed);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
}

void Conv2dImpl::record(VkCommandBuffer cmd) const {
    PipelineCache& pipelines = context->pipelines();
    const bool inputPasses = convertPipeline || packPipeline;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
    uint32_t boundChunk = UINT32_MAX;  // also: a barrier has just been recorded (the caller's, or the reduce's)
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const Dispatch& d = plan.dispatches[i];
        ChunkParams params = d.params;
        if (convertPipeline) params.inOffset = 0;  // the conv reads the converted images
        if (inputPasses && d.chunk != boundChunk) recordInputPasses(cmd, d.chunk, d.params, boundChunk == UINT32_MAX);
        if (packPipeline && (debugSkip & 8u)) {  // diagnostics: time the packing alone
            boundChunk = d.chunk;
            continue;
        }
        if (d.chunk != boundChunk) {
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1,
                                    &sets[d.chunk], 0, nullptr);
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
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1,
                                    &reduceSets[d.chunk], 0, nullptr);
            vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(ChunkParams), &params);
            vkCmdDispatch(cmd, reduceGroups[d.chunk], 1, 1);
            if (i + 1 < plan.dispatches.size()) {
                barrierBeforeCompute(cmd);
                vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
                boundChunk = UINT32_MAX;  // the next chunk binds its own set
            }
        }
    }
}

}  // namespace vkconv::detail
