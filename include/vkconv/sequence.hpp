// Sequence: many convolutions recorded into one command buffer and submitted at once, as an
// inference engine runs a network (Kompute's Sequence: record, eval, evalAsync / evalAwait).
//
//   vkconv::Sequence seq(ctx);
//   seq.record(conv1, x, a).record(conv2, a, b).record(conv3, b, y, x);  // y = conv3(b) + x
//   seq.submit();   // returns at once
//   ...             // host work
//   seq.wait();     // vkconv::Error if the GPU failed (device lost)
//   seq.eval();     // again: the same commands, not recorded anew
//
// A barrier goes between two convolutions only where the later one reads memory an earlier one
// wrote, or writes memory an earlier one read or wrote, since the last barrier: independent
// convolutions (two branches of a block) run without one between them. The tensors and the
// Conv2ds must outlive the Sequence's last submission; the Sequence keeps the tensors' memory.
#pragma once

#include <cstddef>
#include <memory>

#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv {

namespace detail {
struct SequenceImpl;
}

class Sequence {
public:
    explicit Sequence(const Context& context);
    ~Sequence();  // waits for a submission still running (errors are not reported here)
    Sequence(Sequence&&) noexcept;
    Sequence& operator=(Sequence&&) noexcept;

    // Appends output = conv(input) (with the residual where conv's epilogue has one), checked as
    // Conv2d::run checks; refused once the Sequence has been submitted.
    Sequence& record(Conv2d& conv, const Tensor& input, Tensor& output);
    Sequence& record(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor& residual);

    size_t size() const;      // convolutions recorded
    size_t barriers() const;  // barriers the dependencies between them needed
    // The GPU time of the last submission, from timestamps around the whole command buffer, in
    // milliseconds; NaN before a submission has been waited for, or where the queue has none.
    double gpuMs() const;

    // Ends the recording (the first time) and submits it; returns without waiting. A second
    // submit() waits for the first to finish before submitting again.
    void submit();
    // Waits for the last submission; a failure the GPU reports (device lost, out of memory) is a
    // vkconv::Error here. Returns at once when nothing is running.
    void wait();
    void eval() { submit(); wait(); }

private:
    Sequence& recordWith(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor* residual);
    std::unique_ptr<detail::SequenceImpl> impl_;
};

}  // namespace vkconv
