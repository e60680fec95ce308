// measureCopyBandwidth: two device-local buffers, one command buffer of timestamped copies.
#include "vkconv/copy_bandwidth.hpp"

#include <algorithm>

#include "buffer.hpp"

namespace vkconv {

namespace {

// Linear interpolation between the two nearest ranks (numpy's default), on sorted values.
double percentile(const std::vector<double>& sorted, double q) {
    const double pos = q * double(sorted.size() - 1);
    const size_t lo = size_t(pos), hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

void transferBarrier(VkCommandBuffer cmd) {
    // Each copy rewrites the destination: order it after the previous copy (write after write)
    // so that every timed copy runs alone.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace

CopyBandwidth measureCopyBandwidth(const Context& context, uint64_t bytes, int warmup,
                                   int iterations) {
    using namespace detail;
    if (bytes == 0) throw invalidArgument("bytes", bytes, "must be > 0");
    if (warmup < 0) throw invalidArgument("warmup", warmup, "must be >= 0");
    if (iterations < 1) throw invalidArgument("iterations", iterations, "must be >= 1");
    ContextImpl& ctx = *context.impl();
    if (ctx.info.timestampPeriodNs <= 0)
        throw Error(Error::Kind::Unsupported, "device has no compute-queue timestamps");

    Buffer src(ctx, bytes, Buffer::Kind::DeviceLocal);
    Buffer dst(ctx, bytes, Buffer::Kind::DeviceLocal);
    // Touch both buffers first so that no copy pays for first-use page mapping.
    fillBuffer(ctx, src, 0x3f800000u);
    fillBuffer(ctx, dst, 0);

    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2 * static_cast<uint32_t>(iterations);
    VkQueryPool q;
    VKCONV_CHECK(vkCreateQueryPool(ctx.device, &info, nullptr, &q));
    UniqueQueryPool queries(ctx.device, q);

    const VkBufferCopy region{0, 0, bytes};
    ctx.submitAndWait([&](VkCommandBuffer cmd) {
        vkCmdResetQueryPool(cmd, q, 0, info.queryCount);
        for (int i = 0; i < warmup + iterations; ++i) {
            transferBarrier(cmd);
            const int t = i - warmup;
            if (t >= 0) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, q, 2 * t);
            vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
            if (t >= 0) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, q, 2 * t + 1);
        }
    });
    std::vector<uint64_t> stamps(info.queryCount);
    VKCONV_CHECK(vkGetQueryPoolResults(ctx.device, q, 0, info.queryCount, stamps.size() * 8,
                                       stamps.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    const uint64_t mask =
        ctx.info.timestampValidBits >= 64 ? ~0ull : (1ull << ctx.info.timestampValidBits) - 1;

    CopyBandwidth result;
    result.bytes = bytes;
    result.iterations = iterations;
    for (int i = 0; i < iterations; ++i)
        result.ms.push_back(double((stamps[2 * i + 1] - stamps[2 * i]) & mask) *
                            ctx.info.timestampPeriodNs * 1e-6);
    std::vector<double> sorted = result.ms;
    std::sort(sorted.begin(), sorted.end());
    result.minMs = sorted.front();
    result.maxMs = sorted.back();
    result.medianMs = percentile(sorted, 0.5);
    result.p10Ms = percentile(sorted, 0.1);
    result.p90Ms = percentile(sorted, 0.9);
    result.spread = result.medianMs > 0 ? (result.p90Ms - result.p10Ms) / result.medianMs : 0;
    // A copy too fast for the timer's resolution reads as 0 ms: report no bandwidth rather
    // than an infinite one.
    const double moved = 2.0 * double(bytes);
    result.gbps = result.medianMs > 0 ? moved / (result.medianMs * 1e-3) / 1e9 : 0;
    result.peakGbps = result.minMs > 0 ? moved / (result.minMs * 1e-3) / 1e9 : 0;
    return result;
}

}  // namespace vkconv
