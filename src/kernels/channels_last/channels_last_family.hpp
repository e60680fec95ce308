// The channels-last cooperative-matrix kernel (conv2d_channels_last.comp), one kernel with two A
// loaders, each a family: NHWC, where a pre-pass packs the input as fp16 channels-last (any
// problem of one group), and NCHW, which reads the fp32 NCHW input directly (convolutions
// without padding). Both split K over workgroups where the grid is too small (split_k.hpp).
#pragma once

#include "kernels/kernel_family.hpp"

namespace vkconv::detail {

class ChannelsLastFamily : public KernelFamily {
public:
    void addCandidates(Path path, const DeviceInfo& device, const ConvProblem& problem,
                       std::vector<KernelConfig>& out) const override;
    std::string canImplement(const KernelConfig& config, const DeviceInfo& device,
                             const ConvProblem& problem) const override;
    uint32_t threads(const KernelConfig& config) const override;
    TileShape tileShape(const KernelConfig& config, const ConvProblem& problem) const override;
    std::string tileKey(const KernelConfig& config) const override;
    NeighbourKinds neighbours(const KernelConfig& config, const DeviceInfo& device) const override;

protected:
    virtual ALoader loader() const = 0;
    // Whether the loader serves the problem at all (before any configuration).
    virtual bool serves(const ConvProblem& problem) const = 0;
    // The loader's own rules, checked after the device's support.
    virtual std::string loaderRules(const KernelConfig& config, const DeviceInfo& device,
                                    const ConvProblem& problem) const = 0;
    virtual uint64_t workspacePerImage(const KernelConfig& config, const ConvProblem& problem) const = 0;
    PreparedKernel withReducePass(PreparedKernel kernel, const KernelConfig& config, const DeviceInfo& device,
                                  const ConvProblem& problem) const;
};

class ChannelsLastNhwcFamily final : public ChannelsLastFamily {
public:
    const char* name() const override;
    bool owns(const KernelConfig& config) const override;
    uint32_t sharedMemoryBytes(const KernelConfig& config, const ConvProblem& problem) const override;
    double cost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem) const override;
    PreparedKernel prepare(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem,
                           const float* weight) const override;
    std::vector<std::string> shaders(const KernelConfig& config) const override;
    std::string describe(const KernelConfig& config) const override;

protected:
    ALoader loader() const override { return ALoader::Nhwc; }
    bool serves(const ConvProblem& problem) const override;
    std::string loaderRules(const KernelConfig& config, const DeviceInfo& device,
                            const ConvProblem& problem) const override;
    uint64_t workspacePerImage(const KernelConfig& config, const ConvProblem& problem) const override;
};

class ChannelsLastNchwFamily final : public ChannelsLastFamily {
public:
    const char* name() const override;
    bool owns(const KernelConfig& config) const override;
    uint32_t sharedMemoryBytes(const KernelConfig& config, const ConvProblem& problem) const override;
    double cost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem) const override;
    PreparedKernel prepare(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem,
                           const float* weight) const override;
    std::vector<std::string> shaders(const KernelConfig& config) const override;
    std::string describe(const KernelConfig& config) const override;

protected:
    ALoader loader() const override { return ALoader::Nchw; }
    bool serves(const ConvProblem& problem) const override;
    std::string loaderRules(const KernelConfig& config, const DeviceInfo& device,
                            const ConvProblem& problem) const override;
    uint64_t workspacePerImage(const KernelConfig&, const ConvProblem&) const override { return 0; }
};

}  // namespace vkconv::detail
