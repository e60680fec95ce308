// ResNet-50's trunk as vkconv runs it: torchvision's resnet50 (v1.5: the stride in each
// bottleneck's 3x3) from the stem to layer4, its 53 convolutions with batch norm folded into
// the weights (foldBatchNorm) and ReLU and the residual adds fused into their epilogues. Weights
// come from a seeded torchvision-style initialisation (kaiming normal, fan_out, for the convs;
// batch norm at its initial gamma 1, beta 0, mean 0, var 1), so nothing is downloaded.
//
// The stem's 3x3 stride-2 max-pool runs on the host between the stem conv and the rest
// (maxPool3x3s2): it is left out of the trunk's single submission, which holds the other 52
// convolutions, and out of its time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/sequence.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::bench {

struct TrunkConv {
    std::string name;  // "layer2.0.conv2", "layer3.0.downsample"
    ConvProblem problem;
    int input = 0, output = 0, residual = -1;  // activation indices; -1: no residual
};

struct ResNetTrunk {
    // Logical (N, C, H, W) shapes: 0 the image, 1 the stem conv's output, 2 the max-pool's, then
    // each conv's output; the last is the trunk's output (N, 2048, H/32, W/32).
    std::vector<std::array<int64_t, 4>> activations;
    std::vector<TrunkConv> convs;  // convs[0] is the stem (0 -> 1); the rest read 2 onwards
};

// The trunk for `batch` images of `image` x `image` pixels, every tensor in `format`.
ResNetTrunk resnet50Trunk(int64_t batch, int64_t image, TensorFormat format);

struct FoldedWeights {
    std::vector<float> weight, bias;  // KCRS, K
};
std::vector<FoldedWeights> resnet50Weights(const ResNetTrunk& trunk, uint64_t seed);

// 3x3, stride 2, padding 1 max-pool of an NCHW tensor (padding never wins).
std::vector<float> maxPool3x3s2(const std::vector<float>& nchw, const std::array<int64_t, 4>& shape);

// The trunk's output for the first `images` images of `image` (NCHW floats) by the CPU
// reference, layer by layer in double, each layer's output rounded to what the trunk's tensors
// hold (fp32, or fp16 where they are fp16) before the next layer reads it.
std::vector<double> resnet50Reference(const ResNetTrunk& trunk, const std::vector<FoldedWeights>& weights,
                                      const std::vector<float>& image, int64_t images);

// The trunk's Conv2ds and tensors on one Context, and its two Sequences: the stem conv, and the
// other 52 convolutions in one submission.
class ResNetRunner {
public:
    ResNetRunner(const Context& context, const ResNetTrunk& trunk, const std::vector<FoldedWeights>& weights,
                 const ConvOptions& options);
    // image: NCHW floats. Runs the stem, pools on the host, runs the trunk; returns its output as
    // NCHW floats.
    std::vector<float> run(const std::vector<float>& image);
    Sequence& stem() { return stem_; }
    Sequence& trunk() { return trunk_; }
    const std::vector<Conv2d>& convs() const { return convs_; }
    double planMs() const { return planMs_; }    // building the 53 Conv2ds (from up to 16 threads)
    double recordMs() const { return recordMs_; }  // recording the trunk's Sequence (CPU)

private:
    const ResNetTrunk& net_;
    std::vector<Tensor> acts_;
    std::vector<Conv2d> convs_;
    Sequence stem_, trunk_;
    double planMs_ = 0, recordMs_ = 0;
};

}  // namespace vkconv::bench
