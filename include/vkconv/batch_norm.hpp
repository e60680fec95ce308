// Folding an inference-mode batch norm into the convolution before it, as PyTorch's
// torch.nn.utils.fusion.fuse_conv_bn_weights does (fuse_conv_bn_eval):
//   scale_k = gamma_k / sqrt(var_k + eps)
//   W'_k    = W_k * scale_k                (every weight of output channel k)
//   b'_k    = (b_k - mean_k) * scale_k + beta_k
// computed in double and rounded to fp32 once.
#pragma once

#include <vector>

namespace vkconv {

struct FoldedConv {
    std::vector<float> weight;  // KCRS, as the weights given
    std::vector<float> bias;    // K
};

// weight: KCRS (any C/groups x R x S per output channel); bias: K values, or empty for a conv
// without bias (then b = 0); gamma, beta, mean, var: K values each. Throws vkconv::Error
// (InvalidArgument) naming the argument: sizes that disagree, a non-finite value, var + eps <= 0.
FoldedConv foldBatchNorm(const std::vector<float>& weight, const std::vector<float>& bias,
                         const std::vector<float>& gamma, const std::vector<float>& beta,
                         const std::vector<float>& mean, const std::vector<float>& var, double eps = 1e-5);

}  // namespace vkconv
