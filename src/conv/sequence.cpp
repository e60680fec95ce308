// Sequence: convolutions recorded into one command buffer of its own, with the barriers their
// dependencies need, submitted to the Context's queue.
#include "vkconv/sequence.hpp"

#include <cmath>
#include <vector>

#include "runtime/context_impl.hpp"
#include "runtime/tensor_impl.hpp"
#include "runtime/timestamps.hpp"
#include "runtime/vk_util.hpp"
#include "vkconv/error.hpp"

namespace vkconv {
namespace detail {

struct SequenceImpl {
    std::shared_ptr<ContextImpl> context;
    UniqueCommandPool pool;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    UniqueFence fence;
    bool ended = false, inFlight = false;
    size_t convolutions = 0, barriers = 0;
    // Since the last barrier: the tensors the recorded convolutions read and wrote (kept alive,
    // with every other recorded one, by `tensors`).
    std::vector<const TensorImpl*> reads, writes;
    std::vector<std::shared_ptr<TensorImpl>> tensors;  // kept alive for the submissions
    std::unique_ptr<TimestampPairs> timestamps;  // around the whole command buffer, where the queue has them

    static bool touches(const std::vector<const TensorImpl*>& set, const TensorImpl& t) {
        for (const TensorImpl* s : set)
            if (s->overlaps(t)) return true;
        return false;
    }
};

}  // namespace detail

Sequence::Sequence(const Context& context) : impl_(std::make_unique<detail::SequenceImpl>()) {
    using namespace detail;
    auto& s = *impl_;
    s.context = context.impl();
    VkDevice device = s.context->device;
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = s.context->queueFamily;
    VkCommandPool pool;
    VKCONV_CHECK(vkCreateCommandPool(device, &poolInfo, nullptr, &pool));
    s.pool = UniqueCommandPool(device, pool);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VKCONV_CHECK(vkAllocateCommandBuffers(device, &alloc, &s.cmd));
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f;
    VKCONV_CHECK(vkCreateFence(device, &fenceInfo, nullptr, &f));
    s.fence = UniqueFence(device, f);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKCONV_CHECK(vkBeginCommandBuffer(s.cmd, &begin));
    try {
        s.timestamps = std::make_unique<TimestampPairs>(*s.context, 1);
        s.timestamps->reset(s.cmd);
        s.timestamps->begin(s.cmd, 0);
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;  // no timestamps on this queue: gpuMs() is NaN
    }
    // Whatever the host uploaded before the first submission is visible to the first dispatch.
    memoryBarrier(s.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

namespace {

// Before the command buffer, its pool and fence are destroyed: the GPU is done with them.
void settle(detail::SequenceImpl* s) {
    if (!s || !s->inFlight) return;
    VkFence f = s->fence.get();
    vkWaitForFences(s->context->device, 1, &f, VK_TRUE, UINT64_MAX);
    s->inFlight = false;
}

}  // namespace

Sequence::~Sequence() { settle(impl_.get()); }

Sequence::Sequence(Sequence&&) noexcept = default;

Sequence& Sequence::operator=(Sequence&& o) noexcept {
    if (this != &o) {
        settle(impl_.get());
        impl_ = std::move(o.impl_);
    }
    return *this;
}

Sequence& Sequence::record(Conv2d& conv, const Tensor& input, Tensor& output) {
    return recordWith(conv, input, output, nullptr);
}

Sequence& Sequence::record(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor& residual) {
    return recordWith(conv, input, output, &residual);
}

Sequence& Sequence::recordWith(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor* residual) {
    using namespace detail;
    auto& s = *impl_;
    if (s.ended)
        throw invalidArgument("record", "after submit()", "a submitted Sequence runs as recorded; make another for more");
    if (input.impl().context != s.context)
        throw invalidArgument("input", "tensor", "belongs to another Context than the Sequence's");
    const TensorImpl &in = input.impl(), &out = output.impl();
    const bool hasZ = residual != nullptr;
    const TensorImpl* z = hasZ ? &residual->impl() : nullptr;
    // Read after write, write after read, write after write: a barrier, and the slate is clean.
    const bool hazard = SequenceImpl::touches(s.writes, in) || (hasZ && SequenceImpl::touches(s.writes, *z)) ||
                        SequenceImpl::touches(s.writes, out) || SequenceImpl::touches(s.reads, out);
    if (hazard) {
        barrierBeforeCompute(s.cmd);
        ++s.barriers;
        s.reads.clear();
        s.writes.clear();
    }
    if (hasZ)
        conv.record(s.cmd, input, output, *residual);
    else
        conv.record(s.cmd, input, output);
    s.reads.push_back(&in);
    if (hasZ) s.reads.push_back(z);
    s.writes.push_back(&out);
    s.tensors.push_back(input.sharedImpl());
    s.tensors.push_back(output.sharedImpl());
    if (hasZ) s.tensors.push_back(residual->sharedImpl());
    ++s.convolutions;
    return *this;
}

size_t Sequence::size() const { return impl_->convolutions; }

double Sequence::gpuMs() const {
    const auto& s = *impl_;
    if (!s.timestamps || s.inFlight || !s.ended) return std::nan("");
    return s.timestamps->milliseconds()[0];
}
size_t Sequence::barriers() const { return impl_->barriers; }

void Sequence::submit() {
    using namespace detail;
    auto& s = *impl_;
    if (!s.ended) {
        // Its results are visible to whatever the host or a later submission does next.
        memoryBarrier(s.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT);
        if (s.timestamps) s.timestamps->end(s.cmd, 0);
        VKCONV_CHECK(vkEndCommandBuffer(s.cmd));
        s.ended = true;
    }
    wait();  // a command buffer is submitted again only once it has finished
    VkFence f = s.fence.get();
    VKCONV_CHECK(vkResetFences(s.context->device, 1, &f));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &s.cmd;
    {
        // The queue is the Context's: its submissions are serialised with every other's.
        std::lock_guard<std::mutex> lock(s.context->submitMutex);
        VKCONV_CHECK(vkQueueSubmit(s.context->queue, 1, &submit, f));
    }
    s.inFlight = true;
}

void Sequence::wait() {
    auto& s = *impl_;
    if (!s.inFlight) return;
    VkFence f = s.fence.get();
    const uint64_t timeoutNs = 600ull * 1000 * 1000 * 1000;
    const VkResult r = vkWaitForFences(s.context->device, 1, &f, VK_TRUE, timeoutNs);
    if (r == VK_TIMEOUT) throw Error(Error::Kind::Vulkan, "the Sequence did not finish within 600 s (device hang?)");
    s.inFlight = false;
    detail::check(r, "vkWaitForFences (Sequence)");
}

}  // namespace vkconv
