// KernelFamily: everything vkconv knows about one kernel, behind one interface. A family owns its
// configurations (which configurations are its, which of them it enumerates for a problem, which
// can run where, their threads and shared memory, their estimated cost, how they tile a problem),
// and builds what a Conv2d runs (pipelines, packed weights, pre-passes). Selection, the sweep,
// kernel-lab, describe() and the tuning cache go through the registry below and never ask which
// kernel a configuration has. Adding a kernel is a folder under src/kernels/ and a line in
// registry.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/prepared_kernel.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// How a configuration's workgroups tile a problem, as planExecution (problem/conv_plan.hpp) needs
// it: the tile, whether tiles stay within an image, the groups one workgroup computes, and the
// workspace a pre-pass writes per image (and past the last).
struct TileShape {
    uint32_t tileM = 0, tileN = 0;
    uint32_t tilesPerImage = 0;  // 0: tiles are tileM consecutive GEMM rows and may span images
    uint32_t groupsPerWorkgroup = 1;
    uint32_t tilesPerWorkgroup = 1;  // M tiles one workgroup takes in turn
    uint64_t workspacePerImage = 0, workspaceTail = 0;
    // Split-K: the workgroups along Z a tile's K is split over, and the bytes of partial sums
    // they write per image, which the kernel's reduce pass adds into the output.
    uint32_t splits = 1;
    uint64_t partialsPerImage = 0;
};

// Neighbours of a configuration for the sweep's micro-tuning (nearbyConfigs): kinds of neighbour,
// most wanted first, each with how many of it are taken before the rest compete on cost.
using NeighbourKinds = std::vector<std::pair<std::vector<KernelConfig>, size_t>>;

class KernelFamily {
public:
    virtual ~KernelFamily() = default;

    // "fp32-gemm", "grouped-direct", "coopmat-gather", "coopmat-packed", "channels-last-nhwc",
    // "channels-last-nchw".
    virtual const char* name() const = 0;
    // Whether `config` is one of this family's.
    virtual bool owns(const KernelConfig& config) const = 0;

    // The family's configurations of `path` for the problem on the device, appended to `out`
    // (none where it has no kernel for the path). canImplement filters them afterwards.
    virtual void addCandidates(Path path, const DeviceInfo& device, const ConvProblem& problem,
                               std::vector<KernelConfig>& out) const = 0;
    // The family's own rules ("" if `config` can run `problem` on `device`, else why). The
    // library-wide checks (a valid problem, every field in range) have run before.
    virtual std::string canImplement(const KernelConfig& config, const DeviceInfo& device,
                                     const ConvProblem& problem) const = 0;
    // Whether the kernel's loader reads an input of `format` as it is (fp32 NCHW only, unless
    // the family says more). Where it does not, Conv2d converts the input first
    // (kernels/common/tensor_io.hpp), and selection prefers a family of the path that does.
    virtual bool readsInput(const KernelConfig&, const TensorFormat& format) const { return format.isDefault(); }
    virtual uint32_t threads(const KernelConfig& config) const = 0;
    // The shared memory the kernel declares for `config` over `problem`.
    virtual uint32_t sharedMemoryBytes(const KernelConfig& config, const ConvProblem& problem) const = 0;
    // Estimated relative cost (lower is better); comparable across the families of a path.
    virtual double cost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem) const = 0;
    // Families that rank ahead of the rest of their path for a problem, whatever the costs: the
    // grouped direct kernel on the grouped problems it serves (0 for the others).
    virtual int priority(const ConvProblem&) const { return 0; }

    // The GEMM's BM x BN tile over consecutive rows, unless the family tiles otherwise.
    virtual TileShape tileShape(const KernelConfig& config, const ConvProblem&) const {
        TileShape t;
        t.tileM = config.bm, t.tileN = config.bn;
        return t;
    }
    // Pipelines and packed weights (KCRS fp32 in).
    virtual PreparedKernel prepare(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem,
                                   const float* weight) const = 0;
    // The embedded shaders `config` runs, in order (the tuning cache hashes their SPIR-V).
    virtual std::vector<std::string> shaders(const KernelConfig& config) const = 0;
    // "coopmat-f16 128x96x32 warps 4x2 mma 16x16x16 stages 2 nhwc sg32" (KernelConfig::str()).
    virtual std::string describe(const KernelConfig& config) const = 0;
    // What describe() adds about the problem on this kernel ("" for nothing).
    virtual std::string note(const ConvProblem&) const { return ""; }
    // The sweep's notion of one workgroup tile: configurations with the same key differ only in
    // layout, instruction shape, depth or subgroup size.
    virtual std::string tileKey(const KernelConfig& config) const = 0;
    virtual NeighbourKinds neighbours(const KernelConfig& config, const DeviceInfo& device) const = 0;
    // The DEBUG_SKIP bits the kernel's shaders know (conv/diagnostics.hpp); 0: none.
    virtual uint32_t diagnosticParts() const { return 0x7f; }
};

// The families, in the order their candidates are listed (ties in cost go to the earlier one).
const std::vector<const KernelFamily*>& kernelFamilies();
// The family a configuration belongs to; throws vkconv::Error(InvalidArgument) for one no
// family owns.
const KernelFamily& familyOf(const KernelConfig& config);

}  // namespace vkconv::detail
