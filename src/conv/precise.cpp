#include "conv/precise.hpp"

#include <cmath>

#include "conv/diagnostics.hpp"
#include "kernels/channels_last/channels_last_params.hpp"
#include "runtime/vk_util.hpp"
#include "select/config_select.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

constexpr float kLowScale = 2048.0f;  // 2^11: the low part of an fp16 split, as a normal fp16 number

// The channels-last configuration the parts run: the heuristic's best of that family.
std::optional<KernelConfig> channelsLastConfig(const DeviceInfo& device, const ConvProblem& p) {
    std::optional<KernelConfig> best;
    double bestCost = 0;
    for (const KernelConfig& c : candidateConfigs(Path::CoopMatF16, device, p)) {
        if (!c.is<ChannelsLastNhwcKernel>()) continue;
        const double cost = heuristicCost(c, device, p);
        if (!best || cost < bestCost) best = c, bestCost = cost;
    }
    return best;
}

}  // namespace

std::unique_ptr<PrecisePlan> planPrecise(const Context& context, const ConvProblem& problem, const float* weight,
                                         const float* bias, const ConvOptions& options, std::string& why) {
    const DeviceInfo& device = context.device();
    if (problem.inputFormat.type == DataType::BF16 || problem.outputFormat.type == DataType::BF16) {
        why = "bf16 tensors run through fp32 arithmetic (vkconv has no bf16 kernel yet)";
        return nullptr;
    }
    if (problem.outputFormat.type != DataType::F32) {
        why = "an fp16 output is rounded to fp16 (2^-11), which bounds the error whatever the precision";
        return nullptr;
    }
    if (problem.groups != 1) {
        why = "precise runs on the channels-last kernel, which serves groups = 1 only";
        return nullptr;
    }
    const uint64_t n = uint64_t(problem.weightElements());
    std::vector<float> high(n), low(n);
    for (uint64_t i = 0; i < n; ++i) {
        if (!(std::fabs(weight[i]) <= 65504.0f)) {
            why = "weight[" + std::to_string(i) + "] = " + std::to_string(weight[i]) + " is beyond fp16's range";
            return nullptr;
        }
        high[i] = floatFromHalf(halfFromFloat(weight[i]));
        low[i] = floatFromHalf(halfFromFloat((weight[i] - high[i]) * kLowScale));
    }
    // The parts' problems: the first adds bias and residual, the middle ones add into the
    // output, the last applies the activation.
    const bool halfInput = problem.inputFormat.type == DataType::F16;
    const int partCount = halfInput ? 2 : 3;
    auto partProblem = [&](int part) {
        ConvProblem p = problem;
        Epilogue& e = p.epilogue;
        const bool first = part == 0, last = part == partCount - 1;
        if (!first) {
            p.bias = false;
            e.alpha = problem.epilogue.alpha / kLowScale;
            e.residual = true;  // the output so far
            e.beta = 1.0f;
        }
        if (!last) e.activation = Activation::Identity;
        return p;
    };
    const std::optional<KernelConfig> config = channelsLastConfig(device, partProblem(0));
    if (!config) {
        why = device.coopMatKhr ? "no channels-last configuration fits the problem on this device"
                                : "the device has no VK_KHR_cooperative_matrix";
        return nullptr;
    }
    auto plan = std::make_unique<PrecisePlan>();
    ConvOptions partOptions = options;
    partOptions.precision = Precision::Fast;
    partOptions.config = config;
    partOptions.ownWorkspace = true;  // the parts run one after another, each with its own
    // (x_h, W_h), (x_h, W_l), (x_l, W_h): the packing pass splits x (INPUT_PART 1, 2); an fp16
    // input is its own high part.
    const struct {
        const std::vector<float>* weight;
        uint32_t inputPart;
    } parts[] = {{&high, halfInput ? 0u : 1u}, {&low, halfInput ? 0u : 1u}, {&high, 2u}};
    for (int i = 0; i < partCount; ++i) {
        BuildVariant variant;
        variant.inputPart = parts[i].inputPart;
        const ConvProblem p = partProblem(i);
        plan->parts.emplace_back(context, p, parts[i].weight->data(), p.bias ? bias : nullptr, partOptions, variant);
    }
    plan->describe = "precise: " + std::to_string(partCount) + " passes of " + config->str() +
                     " (x_h W_h + 2^-11 (x_h W_l" + (halfInput ? "" : " + x_l W_h") +
                     "), fp32 accumulation; inputs beyond +-65504 give NaN)";
    return plan;
}

void recordPrecise(const PrecisePlan& plan, VkCommandBuffer cmd, const Tensor& input, Tensor& output,
                   const Tensor* residual) {
    for (size_t i = 0; i < plan.parts.size(); ++i) {
        Conv2d& part = const_cast<Conv2d&>(plan.parts[i]);
        if (i == 0) {
            if (residual)
                part.record(cmd, input, output, *residual);
            else
                part.record(cmd, input, output);
        } else {
            barrierBeforeCompute(cmd);  // the output so far, written, then read as the residual
            part.record(cmd, input, output, output);
        }
    }
}

}  // namespace vkconv::detail
