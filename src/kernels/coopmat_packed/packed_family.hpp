// The cooperative-matrix GEMM with the packed-input loader (conv2d_coopmat_packed_breg.comp): a
// pre-pass packs the input as fp16 with the stride folded into the channels; B stays in registers.
#pragma once

#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

class CoopMatPackedFamily final : public KernelFamily {
public:
    const char* name() const override;
    bool owns(const KernelConfig& config) const override;
    void addCandidates(Path path, const DeviceInfo& device, const ConvProblem& problem,
                       std::vector<KernelConfig>& out) const override;
    std::string canImplement(const KernelConfig& config, const DeviceInfo& device,
                             const ConvProblem& problem) const override;
    uint32_t threads(const KernelConfig& config) const override;
    uint32_t sharedMemoryBytes(const KernelConfig& config, const ConvProblem& problem) const override;
    double cost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem) const override;
    TileShape tileShape(const KernelConfig& config, const ConvProblem& problem) const override;
    PreparedKernel prepare(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem,
                           const float* weight) const override;
    std::vector<std::string> shaders(const KernelConfig& config) const override;
    std::string describe(const KernelConfig& config) const override;
    std::string tileKey(const KernelConfig& config) const override;
    NeighbourKinds neighbours(const KernelConfig& config, const DeviceInfo& device) const override;
};

}  // namespace vkconv::detail
