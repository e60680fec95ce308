#include "resnet50.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <thread>

#include "vkconv/batch_norm.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::bench {

ResNetTrunk resnet50Trunk(int64_t batch, int64_t image, TensorFormat format) {
    if (image < 32 || image % 32) throw invalidArgument("image", image, "ResNet-50's trunk needs a multiple of 32, at least 32");
    ResNetTrunk t;
    auto add = [&](const std::string& name, int input, int64_t k, int64_t kernel, int64_t stride, bool relu, int residual,
                   int output = -1) {
        const auto& in = t.activations[size_t(input)];
        ConvProblem p;
        p.batch = batch, p.inChannels = in[1], p.height = in[2], p.width = in[3], p.outChannels = k;
        p.kernelH = p.kernelW = kernel, p.strideH = p.strideW = stride, p.padH = p.padW = kernel / 2;
        p.bias = true;  // batch norm's shift, folded
        p.inputFormat = p.outputFormat = format;
        if (relu) p.epilogue.activation = Activation::Relu;
        p.epilogue.residual = residual >= 0;
        if (output < 0) {
            t.activations.push_back({batch, k, p.outHeight(), p.outWidth()});
            output = int(t.activations.size()) - 1;
        }
        t.convs.push_back({name, p, input, output, residual});
        return output;
    };
    t.activations.push_back({batch, 3, image, image});
    add("conv1", 0, 64, 7, 2, true, -1);
    t.activations.push_back({batch, 64, image / 4, image / 4});  // 2: the max-pool's output
    int x = 2;
    const int blocks[] = {3, 4, 6, 3};
    for (int layer = 0; layer < 4; ++layer) {
        const int64_t width = 64 << layer, out = width * 4;
        for (int b = 0; b < blocks[layer]; ++b) {
            const std::string name = "layer" + std::to_string(layer + 1) + "." + std::to_string(b) + ".";
            const int64_t stride = b == 0 && layer > 0 ? 2 : 1;
            int identity = x;
            if (b == 0) identity = add(name + "downsample", x, out, 1, stride, false, -1);
            const int a = add(name + "conv1", x, width, 1, 1, true, -1);
            const int c = add(name + "conv2", a, width, 3, stride, true, -1);
            x = add(name + "conv3", c, out, 1, 1, true, identity);
        }
    }
    return t;
}

std::vector<FoldedWeights> resnet50Weights(const ResNetTrunk& trunk, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<FoldedWeights> out;
    for (const TrunkConv& c : trunk.convs) {
        const ConvProblem& p = c.problem;
        // torchvision: kaiming_normal_(mode="fan_out", nonlinearity="relu"); batch norm weight 1,
        // bias 0, running mean 0, running var 1, eps 1e-5.
        const double fanOut = double(p.outChannels * p.kernelH * p.kernelW);
        std::normal_distribution<float> normal(0.0f, float(std::sqrt(2.0 / fanOut)));
        std::vector<float> w(size_t(p.weightElements()));
        for (float& v : w) v = normal(rng);
        const std::vector<float> ones(size_t(p.outChannels), 1.0f), zeros(size_t(p.outChannels), 0.0f);
        FoldedConv f = foldBatchNorm(w, {}, ones, zeros, zeros, ones, 1e-5);
        out.push_back({std::move(f.weight), std::move(f.bias)});
    }
    return out;
}

std::vector<float> maxPool3x3s2(const std::vector<float>& in, const std::array<int64_t, 4>& s) {
    const int64_t oh = (s[2] + 1) / 2, ow = (s[3] + 1) / 2;
    std::vector<float> out(size_t(s[0] * s[1] * oh * ow));
    for (int64_t n = 0; n < s[0] * s[1]; ++n)
        for (int64_t y = 0; y < oh; ++y)
            for (int64_t x = 0; x < ow; ++x) {
                float m = -std::numeric_limits<float>::infinity();
                for (int64_t dy = -1; dy <= 1; ++dy)
                    for (int64_t dx = -1; dx <= 1; ++dx) {
                        const int64_t iy = 2 * y + dy, ix = 2 * x + dx;
                        if (iy >= 0 && iy < s[2] && ix >= 0 && ix < s[3]) m = std::max(m, in[size_t((n * s[2] + iy) * s[3] + ix)]);
                    }
                out[size_t((n * oh + y) * ow + x)] = m;
            }
    return out;
}

std::vector<double> resnet50Reference(const ResNetTrunk& net, const std::vector<FoldedWeights>& w,
                                      const std::vector<float>& image, int64_t images) {
    const DataType type = net.convs.front().problem.outputFormat.type;
    std::vector<std::vector<float>> acts(net.activations.size());
    const auto& in = net.activations[0];
    acts[0].assign(image.begin(), image.begin() + images * in[1] * in[2] * in[3]);
    std::vector<double> last;
    for (size_t i = 0; i < net.convs.size(); ++i) {
        const TrunkConv& c = net.convs[i];
        ConvProblem p = c.problem;
        p.batch = images;
        p.inputFormat = p.outputFormat = {};
        last = referenceConv2d(p, acts[size_t(c.input)].data(), w[i].weight.data(), w[i].bias.data(), 0, -1,
                               c.residual >= 0 ? acts[size_t(c.residual)].data() : nullptr);
        acts[size_t(c.output)] = heldAs(std::vector<float>(last.begin(), last.end()), type);
        if (i == 0) {
            auto pooled = net.activations[1];
            pooled[0] = images;
            acts[2] = maxPool3x3s2(acts[1], pooled);
        }
    }
    return last;
}

namespace {
double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

ResNetRunner::ResNetRunner(const Context& context, const ResNetTrunk& trunk, const std::vector<FoldedWeights>& weights,
                           const ConvOptions& options)
    : net_(trunk), stem_(context), trunk_(context) {
    const TensorFormat format = trunk.convs.front().problem.inputFormat;
    for (const auto& s : trunk.activations) acts_.emplace_back(context, std::vector<int64_t>(s.begin(), s.end()), format);
    // Planned from several threads at once: a Context may be, and its pipeline cache compiles
    // different pipelines in parallel (the 53 convolutions have about 20 different problems).
    const auto planStart = std::chrono::steady_clock::now();
    const size_t n = trunk.convs.size();
    std::vector<std::optional<Conv2d>> planned(n);
    std::vector<std::string> errors(n);
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next++) < n;) {
            try {
                planned[i].emplace(context, trunk.convs[i].problem, weights[i].weight, weights[i].bias, options);
            } catch (const std::exception& e) {
                errors[i] = trunk.convs[i].name + ": " + e.what();
            }
        }
    };
    const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    for (const std::string& e : errors)
        if (!e.empty()) throw Error(Error::Kind::Unsupported, "planning ResNet-50's trunk: " + e);
    convs_.reserve(n);
    for (auto& c : planned) convs_.push_back(std::move(*c));
    planMs_ = msSince(planStart);
    stem_.record(convs_[0], acts_[0], acts_[1]);
    const auto recordStart = std::chrono::steady_clock::now();
    for (size_t i = 1; i < trunk.convs.size(); ++i) {
        const TrunkConv& c = trunk.convs[i];
        if (c.residual >= 0)
            trunk_.record(convs_[i], acts_[size_t(c.input)], acts_[size_t(c.output)], acts_[size_t(c.residual)]);
        else
            trunk_.record(convs_[i], acts_[size_t(c.input)], acts_[size_t(c.output)]);
    }
    recordMs_ = msSince(recordStart);
}

std::vector<float> ResNetRunner::run(const std::vector<float>& image) {
    acts_[0].uploadNchw(image);
    stem_.eval();
    acts_[2].uploadNchw(maxPool3x3s2(acts_[1].downloadNchw(), net_.activations[1]));
    trunk_.eval();
    return acts_.back().downloadNchw();
}

}  // namespace vkconv::bench
