// measureCopyBandwidth: two device-local buffers, one command buffer of timestamped copies made
// by a compute shader (copy_buffer.comp), the way the conv kernels move data.
#include "vkconv/copy_bandwidth.hpp"

#include <algorithm>

#include "runtime/buffer.hpp"
#include "runtime/pipeline.hpp"
#include "runtime/timestamps.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {

CopyBandwidth measureCopyBandwidth(const Context& context, uint64_t bytes, int warmup,
                                   int iterations) {
    using namespace detail;
    bytes = bytes / 16 * 16;  // the shader copies 16-byte words
    if (bytes == 0) throw invalidArgument("bytes", bytes, "must be >= 16");
    if (warmup < 0) throw invalidArgument("warmup", warmup, "must be >= 0");
    if (iterations < 1) throw invalidArgument("iterations", iterations, "must be >= 1");
    ContextImpl& ctx = *context.impl();
    TimestampPairs timestamps(ctx, static_cast<uint32_t>(iterations));

    if (bytes > ctx.info.maxStorageBufferRange || bytes / 16 > 0xFFFFFFFFull)
        throw invalidArgument("bytes", bytes,
                              "exceeds the device's maxStorageBufferRange (" +
                                  std::to_string(ctx.info.maxStorageBufferRange) + ")");
    Buffer src(ctx, bytes, Buffer::Kind::DeviceLocal);
    Buffer dst(ctx, bytes, Buffer::Kind::DeviceLocal);
    // Touch both buffers first so that no copy pays for first-use page mapping.
    fillBuffer(ctx, src, 0x3f800000u);
    fillBuffer(ctx, dst, 0);

    PipelineCache& pipelines = ctx.pipelines();
    PipelineKey key;
    key.shader = "copy_buffer";
    auto pipeline = pipelines.get(key);
    UniqueDescriptorPool ownedPool = pipelines.makeDescriptorPool(1);
    VkDescriptorPool pool = ownedPool.get();
    VkDescriptorSetLayout layout = pipelines.setLayout();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set;
    VKCONV_CHECK(vkAllocateDescriptorSets(ctx.device, &alloc, &set));
    VkDescriptorBufferInfo infos[2] = {{src.handle(), 0, bytes}, {dst.handle(), 0, bytes}};
    VkWriteDescriptorSet writes[2];
    for (int b = 0; b < 2; ++b) {
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstSet = set;
        writes[b].dstBinding = b == 0 ? 0 : 3;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(ctx.device, 2, writes, 0, nullptr);

    const uint32_t words = static_cast<uint32_t>(bytes / 16);
    const uint32_t groups = std::max<uint32_t>(
        1, std::min<uint64_t>({(uint64_t(words) + 255) / 256, 65535, ctx.info.maxWorkGroupCount[0]}));
    uint32_t push[PipelineCache::kPushConstantBytes / 4] = {words};
    ctx.submitAndWait([&](VkCommandBuffer cmd) {
        timestamps.reset(cmd);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1, &set,
                                0, nullptr);
        vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        for (int i = 0; i < warmup + iterations; ++i) {
            barrierBeforeCompute(cmd);
            const int t = i - warmup;
            if (t >= 0) timestamps.begin(cmd, uint32_t(t));
            vkCmdDispatch(cmd, groups, 1, 1);
            if (t >= 0) timestamps.end(cmd, uint32_t(t));
        }
    });
    CopyBandwidth result;
    result.bytes = bytes;
    result.iterations = iterations;
    result.ms = timestamps.milliseconds();
    const TimingStats t = summarizeTimes(result.ms);
    result.minMs = t.minMs;
    result.maxMs = t.maxMs;
    result.medianMs = t.medianMs;
    result.p10Ms = t.p10Ms;
    result.p90Ms = t.p90Ms;
    result.spread = t.spread;
    // A copy too fast for the timer's resolution reads as 0 ms: report no bandwidth rather
    // than an infinite one.
    const double moved = 2.0 * double(bytes);
    result.gbps = result.medianMs > 0 ? moved / (result.medianMs * 1e-3) / 1e9 : 0;
    result.peakGbps = result.minMs > 0 ? moved / (result.minMs * 1e-3) / 1e9 : 0;
    return result;
}

}  // namespace vkconv
