#include "runtime/timestamps.hpp"

namespace vkconv::detail {

TimestampPairs::TimestampPairs(ContextImpl& context, uint32_t pairs)
    : context_(context), pairs_(pairs), live_(context.live.queryPools) {
    if (context.info.timestampPeriodNs <= 0)
        throw Error(Error::Kind::Unsupported, "device has no compute-queue timestamps");
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2 * pairs;
    VkQueryPool pool;
    VKCONV_CHECK(vkCreateQueryPool(context.device, &info, nullptr, &pool));
    pool_ = UniqueQueryPool(context.device, pool);
}

void TimestampPairs::reset(VkCommandBuffer cmd) const {
    vkCmdResetQueryPool(cmd, pool_.get(), 0, 2 * pairs_);
}

void TimestampPairs::begin(VkCommandBuffer cmd, uint32_t pair) const {
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_.get(), 2 * pair);
}

void TimestampPairs::end(VkCommandBuffer cmd, uint32_t pair) const {
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_.get(), 2 * pair + 1);
}

std::vector<double> TimestampPairs::milliseconds() const {
    std::vector<uint64_t> stamps(2 * pairs_);
    VKCONV_CHECK(vkGetQueryPoolResults(context_.device, pool_.get(), 0, 2 * pairs_,
                                       stamps.size() * 8, stamps.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    // Only the low timestampValidBits bits count; the difference wraps within them.
    const uint32_t bits = context_.info.timestampValidBits;
    const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    std::vector<double> ms;
    for (uint32_t i = 0; i < pairs_; ++i)
        ms.push_back(double((stamps[2 * i + 1] - stamps[2 * i]) & mask) *
                     context_.info.timestampPeriodNs * 1e-6);
    return ms;
}

}  // namespace vkconv::detail
