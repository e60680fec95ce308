// ResNet-50's trunk end to end (bench/resnet50.hpp): the stem and all 16 bottleneck blocks, 53
// convolutions with batch norm folded and ReLU and the residual adds fused, the 52 after the
// max-pool in one Sequence; against the chain of double-precision references
// (bench::resnet50Reference: each layer's reference on the previous one's output, the max-pool
// on the host), at 32 x 32 pixels.
// fp32 NCHW on the fp32 path; fp16 NHWC on the fast path where the device has cooperative
// matrices. The bound is the whole trunk's: each layer's own error compounds over 53 layers.
#include <gtest/gtest.h>

#include <cmath>

#include "resnet50.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::test {
namespace {

void checkTrunk(const Context& ctx, TensorFormat format, Precision precision, double bound) {
    const bench::ResNetTrunk net = bench::resnet50Trunk(1, 32, format);
    ASSERT_EQ(net.convs.size(), 53u);
    const std::vector<bench::FoldedWeights> weights = bench::resnet50Weights(net, 2026);
    ConvOptions options;
    options.precision = precision;
    bench::ResNetRunner runner(ctx, net, weights, options);
    EXPECT_EQ(runner.trunk().size(), 52u);
    const std::vector<float> image = randomValues(2027, 3 * 32 * 32);
    const std::vector<float> got = runner.run(image);
    const std::vector<double> ref = bench::resnet50Reference(net, weights, image, 1);
    const double error = relativeError(got.data(), ref);
    std::cout << "[ resnet50 ] " << format.str() << " " << toString(precision) << ": trunk relative error " << error
              << " over " << got.size() << " outputs; " << runner.trunk().barriers() << " barriers in the trunk's "
              << runner.trunk().size() << " convolutions\n";
    EXPECT_LE(error, bound);
    // Block by block: within a block conv1 and the downsample read the same input, so the 4
    // first blocks of a layer save a barrier each.
    EXPECT_LT(runner.trunk().barriers(), runner.trunk().size());
}

TEST(ResNet50, TrunkFp32MatchesTheReferenceChain) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    checkTrunk(*sharedContext(device).context, {}, Precision::Fp32, 1e-5);  // 1.2e-6 on Mesa 25 and 26
}

TEST(ResNet50, TrunkFp16NhwcMatchesTheReferenceChain) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    VKCONV_NEED_COOPMAT(ctx.device(), "the fast path is fp32 there");
    // Each layer's fp16 operands and fp16 output (about 3e-4 each) compound over the 53: on Mesa
    // 26 the trunk's error is 1.3e-3.
    checkTrunk(ctx, {DataType::F16, Layout::NHWC}, Precision::Fast, 5e-3);
}

}  // namespace
}  // namespace vkconv::test
