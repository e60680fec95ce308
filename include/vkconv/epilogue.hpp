// The fused epilogue of a convolution, in cuDNN's form, computed in fp32 on the conv's sums
// before the one store of each output:
//   y = act(alpha * conv(x) + bias + beta * z)
// z (the residual) is a tensor of the output's shape passed to Conv2d::run; it may be the output
// tensor itself (an in-place residual add), never the input.
#pragma once

#include <string>

namespace vkconv {

enum class Activation {
    Identity,
    Relu,       // max(v, 0)
    Relu6,      // clamp(v, 0, 6)
    Clamp,      // clamp(v, lower, upper)
    LeakyRelu,  // v >= 0 ? v : slope * v
    Sigmoid,    // 1 / (1 + exp(-v))
    Silu,       // v * sigmoid(v)
    GeluErf,    // 0.5 v (1 + erf(v / sqrt 2)): PyTorch's gelu
    GeluTanh,   // 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))): gelu(approximate="tanh")
    HardSwish,  // v * clamp(v + 3, 0, 6) / 6
};
// "identity", "relu", "relu6", "clamp", "leaky_relu", "sigmoid", "silu", "gelu", "gelu_tanh",
// "hardswish"
const char* toString(Activation activation);
// Throws InvalidArgument naming `field` (the caller's name for the argument) and the value.
Activation activationFromString(const std::string& name, const std::string& field = "activation");

struct Epilogue {
    Activation activation = Activation::Identity;
    float alpha = 1.0f;       // scales the conv's sums (not the bias)
    bool residual = false;    // z: Conv2d::run takes it
    float beta = 1.0f;        // scales z
    float lower = 0.0f, upper = 6.0f;  // Clamp's bounds
    float slope = 0.01f;      // LeakyRelu's (PyTorch's default)

    // Throws vkconv::Error (InvalidArgument) naming the field: a non-finite scalar, lower > upper.
    void validate() const;
    // Whether it is the bias add alone (the default).
    bool isDefault() const;
    // "" for the default, else e.g. "relu residual beta=0.5" (part of ConvProblem::str()).
    std::string str() const;
    // The epilogue on one conv sum (the CPU reference's, in double): act(alpha*sum + bias + beta*z).
    double apply(double sum, double bias, double z) const;
};

}  // namespace vkconv
