// The fp32 grouped direct kernel (conv2d_grouped_direct.comp) for groups of few channels.
#pragma once

#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

class GroupedDirectFamily final : public KernelFamily {
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
    int priority(const ConvProblem& problem) const override;
    std::string note(const ConvProblem& problem) const override;
};

}  // namespace vkconv::detail
