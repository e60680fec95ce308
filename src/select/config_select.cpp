#include "select/config_select.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/kernel_family.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

double heuristicCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return familyOf(c).cost(c, d, p);
}

namespace {

// The family of `path` that ranks first for the problem (KernelFamily::priority) and has a
// configuration that fits, if any: on thin groups the fp32 path's grouped direct kernel.
const KernelFamily* leadingFamily(Path path, const DeviceInfo& d, const ConvProblem& p) {
    for (const KernelFamily* family : kernelFamilies()) {
        if (family->priority(p) <= 0) continue;
        std::vector<KernelConfig> configs;
        family->addCandidates(path, d, p, configs);
        for (const KernelConfig& c : configs)
            if (canImplement(c, d, p).empty()) return family;
    }
    return nullptr;
}

}  // namespace

PathChoice choosePath(Precision precision, const DeviceInfo& d, const ConvProblem& p) {
    PathChoice choice;
    if (precision == Precision::Fp32) {
        choice.path = Path::Fp32;
        choice.why = "precision fp32 requested";
        return choice;
    }
    if (p.inputFormat.type == DataType::BF16 || p.outputFormat.type == DataType::BF16) {
        choice.path = Path::Fp32;
        choice.why = "bf16 tensors run through fp32 arithmetic (vkconv has no bf16 kernel yet)";
        return choice;
    }
    // Depthwise and other thin groups: a matrix-unit tile would be mostly padding along N. On the
    // H200 the fp32 kernel ran MobileNet's depthwise layers 1.6x faster. With 8 output channels a
    // group the grouped direct kernel still led: ResNeXt-50's grouped 3x3 at 28x28, batch 32,
    // 0.054 ms against the matrix tiles' 0.084, 0.076 against 0.086 at stride 2; with 16 the tiles
    // led, 0.041 against 0.051 (H100 sweep, docs/performance.md). Only where it has a tile for the
    // problem: without one (kernels past its weight budget, 13x13 and up) fp32 would mean the
    // GEMM kernel, which the tiles beat.
    const KernelFamily* lead = p.gemmN() < 16 ? leadingFamily(Path::Fp32, d, p) : nullptr;
    if (p.gemmN() < 8 || lead) {
        choice.path = Path::Fp32;
        choice.why = "fast requested, but each group has only " + std::to_string(p.gemmN()) + " output channel(s), " +
                     (p.gemmN() < 8 ? std::string("too few for matrix-unit tiles")
                                    : std::string("which the ") + lead->name() + " kernel runs faster than matrix-unit tiles") +
                     "; using fp32";
        return choice;
    }
    if (anyCandidateFits(Path::CoopMatF16, d, p)) {
        choice.path = Path::CoopMatF16;
        choice.why = std::string("fast: ") + toString(Path::CoopMatF16) + " is the best path the device has";
        return choice;
    }
    choice.path = Path::Fp32;
    // Say why in terms of the (possibly profiled) device, so that a profile or a driver quirk that
    // removed the fast path is named: the device, and the first reason a configuration was refused.
    const std::string device = "'" + d.name + "'";
    if (!d.coopMatKhr) {
        choice.why = "fast requested, but " + device + " has no VK_KHR_cooperative_matrix; using fp32";
        return choice;
    }
    const std::string refused = firstCandidateRefusal(Path::CoopMatF16, d, p);
    choice.why = "fast requested, but no cooperative-matrix configuration fits " + device + " (" +
                 (refused.empty() ? "it lists no f16 shape with f32 accumulation" : "e.g. " + refused) +
                 "); using fp32";
    return choice;
}

ConfigChoice selectConfig(Path path, const DeviceInfo& d, const ConvProblem& p) {
    ConfigChoice choice;
    for (const auto& c : candidateConfigs(path, d, p)) choice.weighed.push_back({c, heuristicCost(c, d, p)});
    if (choice.weighed.empty())
        throw Error(Error::Kind::Unsupported, std::string("no ") + toString(path) +
                                                  " configuration fits device '" + d.name +
                                                  "' for " + p.str());
    // Families that rank first for the problem (KernelFamily::priority) lead, whatever the costs;
    // then those that read the input as it is, ahead of those that need it converted first (a
    // pass of its own over the input, which no cost model counts); within a rank, the cheapest
    // first, ties in candidate order.
    std::vector<int> priority;
    for (const auto& [config, cost] : choice.weighed) {
        const KernelFamily& family = familyOf(config);
        priority.push_back(2 * family.priority(p) + (family.readsInput(config, p.inputFormat) ? 1 : 0));
    }
    std::vector<size_t> order(choice.weighed.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (priority[a] != priority[b]) return priority[a] > priority[b];
        return choice.weighed[a].second < choice.weighed[b].second;
    });
    std::vector<std::pair<KernelConfig, double>> sorted;
    for (size_t i : order) sorted.push_back(std::move(choice.weighed[i]));
    choice.weighed = std::move(sorted);
    choice.config = choice.weighed.front().first;
    return choice;
}

}  // namespace vkconv::detail
