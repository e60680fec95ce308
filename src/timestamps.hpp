// GPU timing with timestamp queries: one (begin, end) pair per timed region, all recorded into
// one command buffer and read back together. Used by Conv2d::time and measureCopyBandwidth.
#pragma once

#include <vector>

#include "context_impl.hpp"

namespace vkconv::detail {

class TimestampPairs {
public:
    // Throws Error(Unsupported) when the device's compute queue has no timestamps.
    TimestampPairs(ContextImpl& context, uint32_t pairs);

    void reset(VkCommandBuffer cmd) const;  // record before the first begin()
    void begin(VkCommandBuffer cmd, uint32_t pair) const;
    void end(VkCommandBuffer cmd, uint32_t pair) const;

    // After the submission completed: each pair's duration in milliseconds.
    std::vector<double> milliseconds() const;

private:
    ContextImpl& context_;
    uint32_t pairs_;
    UniqueQueryPool pool_;
};

}  // namespace vkconv::detail
