// Epilogue (include/vkconv/epilogue.hpp): names, validation, and the reference's arithmetic.
#include "vkconv/epilogue.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "vkconv/error.hpp"

namespace vkconv {

namespace {

constexpr std::pair<Activation, const char*> kNames[] = {
    {Activation::Identity, "identity"}, {Activation::Relu, "relu"},       {Activation::Relu6, "relu6"},
    {Activation::Clamp, "clamp"},       {Activation::LeakyRelu, "leaky_relu"}, {Activation::Sigmoid, "sigmoid"},
    {Activation::Silu, "silu"},         {Activation::GeluErf, "gelu"},    {Activation::GeluTanh, "gelu_tanh"},
    {Activation::HardSwish, "hardswish"}};

}  // namespace

const char* toString(Activation activation) {
    for (const auto& [a, name] : kNames)
        if (a == activation) return name;
    return "?";
}

Activation activationFromString(const std::string& name, const std::string& field) {
    std::string known;
    for (const auto& [a, n] : kNames) {
        if (name == n) return a;
        known += (known.empty() ? "" : ", ") + std::string(n);
    }
    throw invalidArgument(field, name, "expected one of " + known);
}

void Epilogue::validate() const {
    bool known = false;
    for (const auto& [a, n] : kNames) known |= a == activation;
    if (!known) throw invalidArgument("epilogue.activation", int(activation), "is not an Activation");
    for (const auto& [field, value] : {std::pair<const char*, float>{"epilogue.alpha", alpha}, {"epilogue.beta", beta},
                                       {"epilogue.lower", lower}, {"epilogue.upper", upper}, {"epilogue.slope", slope}})
        if (!std::isfinite(value)) throw invalidArgument(field, value, "must be finite");
    if (activation == Activation::Clamp && lower > upper)
    {
        std::ostringstream s;
        s << "must be at most epilogue.upper = " << upper;
        throw invalidArgument("epilogue.lower", lower, s.str());
    }
}

bool Epilogue::isDefault() const { return str().empty(); }

std::string Epilogue::str() const {
    std::ostringstream s;
    s.precision(9);  // a float's value exactly
    auto word = [&](const std::string& w) { s << (s.tellp() > 0 ? " " : "") << w; };
    if (activation != Activation::Identity) {
        word(toString(activation));
        if (activation == Activation::Clamp) s << "(" << lower << "," << upper << ")";
        if (activation == Activation::LeakyRelu) s << "(" << slope << ")";
    }
    if (alpha != 1.0f) {
        word("alpha=");
        s << alpha;
    }
    if (residual) {
        word("residual");
        if (beta != 1.0f) s << " beta=" << beta;
    }
    return s.str();
}

double Epilogue::apply(double sum, double bias, double z) const {
    double v = double(alpha) * sum + bias + (residual ? double(beta) * z : 0.0);
    switch (activation) {
        case Activation::Identity: return v;
        case Activation::Relu: return std::max(v, 0.0);
        case Activation::Relu6: return std::clamp(v, 0.0, 6.0);
        case Activation::Clamp: return std::clamp(v, double(lower), double(upper));
        case Activation::LeakyRelu: return v >= 0 ? v : double(slope) * v;
        case Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-v));
        case Activation::Silu: return v / (1.0 + std::exp(-v));
        case Activation::GeluErf: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        case Activation::GeluTanh:
            return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        case Activation::HardSwish: return v * std::clamp(v + 3.0, 0.0, 6.0) / 6.0;
    }
    return v;
}

}  // namespace vkconv
