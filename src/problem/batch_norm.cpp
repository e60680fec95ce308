// foldBatchNorm (include/vkconv/batch_norm.hpp).
#include "vkconv/batch_norm.hpp"

#include <cmath>
#include <string>

#include "vkconv/error.hpp"

namespace vkconv {

FoldedConv foldBatchNorm(const std::vector<float>& weight, const std::vector<float>& bias,
                         const std::vector<float>& gamma, const std::vector<float>& beta,
                         const std::vector<float>& mean, const std::vector<float>& var, double eps) {
    const size_t k = gamma.size();
    if (k == 0) throw invalidArgument("gamma size", 0, "expected one value per output channel");
    const std::pair<const char*, const std::vector<float>*> perChannel[] = {
        {"beta", &beta}, {"mean", &mean}, {"var", &var}, {"bias", &bias}};
    for (const auto& [name, values] : perChannel) {
        if (values == &bias && bias.empty()) continue;
        if (values->size() != k)
            throw invalidArgument(std::string(name) + " size", values->size(),
                                  "expected " + std::to_string(k) + " (gamma's size: the output channels)");
    }
    if (weight.empty() || weight.size() % k != 0)
        throw invalidArgument("weight size", weight.size(),
                              "expected a positive multiple of the " + std::to_string(k) + " output channels (KCRS)");
    if (!std::isfinite(eps) || eps < 0) throw invalidArgument("eps", eps, "must be finite and >= 0");
    const std::pair<const char*, const std::vector<float>*> all[] = {
        {"weight", &weight}, {"bias", &bias}, {"gamma", &gamma}, {"beta", &beta}, {"mean", &mean}, {"var", &var}};
    for (const auto& [name, values] : all)
        for (size_t i = 0; i < values->size(); ++i)
            if (!std::isfinite((*values)[i]))
                throw invalidArgument(std::string(name) + "[" + std::to_string(i) + "]", (*values)[i], "must be finite");

    const size_t perOutput = weight.size() / k;
    FoldedConv out;
    out.weight.resize(weight.size());
    out.bias.resize(k);
    for (size_t c = 0; c < k; ++c) {
        const double denominator = double(var[c]) + eps;
        if (!(denominator > 0))
            throw invalidArgument("var[" + std::to_string(c) + "]", var[c], "var + eps must be > 0");
        const double scale = double(gamma[c]) / std::sqrt(denominator);
        for (size_t i = 0; i < perOutput; ++i)
            out.weight[c * perOutput + i] = float(double(weight[c * perOutput + i]) * scale);
        const double b = bias.empty() ? 0.0 : double(bias[c]);
        out.bias[c] = float((b - double(mean[c])) * scale + double(beta[c]));
    }
    return out;
}

}  // namespace vkconv
