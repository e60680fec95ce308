// GPU timing with timestamp queries: one (begin, end) pair per timed region, all recorded into
// one command buffer and read back together. Used by Conv2d::time and measureCopyBandwidth.
#pragma once

#include <vector>

#include "runtime/context_impl.hpp"

namespace vkconv::detail {

class TimestampPairs {
public:
    // Throws Error(Unsupported) when the device's compute queue has no timestamps.
    TimestampPairs(ContextImpl& context, uint32_t pairs);

    void reset(VkCommandBuffer cmd) const;  // record before the first begin()
    // begin() is written once every earlier command has finished (BOTTOM_OF_PIPE): a timestamp
    // at TOP_OF_PIPE may be written while the previous run is still executing, and the interval
    // would then include that run's tail.
    void begin(VkCommandBuffer cmd, uint32_t pair) const;
    void end(VkCommandBuffer cmd, uint32_t pair) const;

    // After the submission completed: each pair's duration in milliseconds.
    std::vector<double> milliseconds() const;

private:
    ContextImpl& context_;
    uint32_t pairs_;
    UniqueQueryPool pool_;
    LiveToken live_;
};

}  // namespace vkconv::detail
