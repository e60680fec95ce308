// Kernel configurations: the workgroup tile every kernel has, and each kernel's own parameters.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/tensor_format.hpp"

namespace vkconv {

enum class Path {
    Fp32,        // portable: fp32 FMA, no extension needed
    CoopMatF16,  // VK_KHR_cooperative_matrix, fp16 operands, fp32 accumulation
};
const char* toString(Path path);
Path pathFromString(const std::string& name);  // "fp32", "coopmat-f16"

// What the caller asks for. Fast means the cooperative-matrix path where the device has one,
// falling back to fp32 on devices without one.
// Fast: fp16 operands with fp32 accumulation on the matrix units where the device has them.
// Fp32: the fp32 kernels. Precise: fp32 accuracy on the matrix units (docs/precision in README):
// each fp32 operand split into an fp16 high part and a scaled fp16 low part, three products
// accumulated in fp32; where it cannot run, fp32, and describe() says why.
enum class Precision { Fast, Fp32, Precise };
const char* toString(Precision precision);
Precision precisionFromString(const std::string& name);  // "fast", "fp32", "precise"

// Each kernel's own parameters, beside the workgroup tile every kernel has (KernelConfig). A
// configuration holds exactly one of them (KernelConfig::params), so it carries no field its
// kernel ignores. docs/architecture.md describes the kernels.

// fp32-gemm: the implicit-GEMM tile in fp32 FMA; each thread computes tm x tn outputs. Any problem.
struct Fp32GemmKernel {
    static constexpr const char* kName = "fp32-gemm";
    uint32_t tm = 4, tn = 4;
};

// grouped-direct (fp32): groups with few channels (depthwise, channel multipliers, groups of up to
// 16 channels). A workgroup of threadsW x threadsH threads computes rows x vecW outputs each (down
// a column x along a row) for `channels` output channels of one group; with groups > 1, that many
// groups side by side (each its own threadsW x threadsH threads), and groupSteps such sets of
// groups one after another. fromMemory: each thread reads its input window and weights straight
// from memory instead of the workgroup staging them in shared memory.
struct GroupedDirectKernel {
    static constexpr const char* kName = "grouped-direct";
    uint32_t threadsW = 0, threadsH = 0, vecW = 1, rows = 1, channels = 1;
    uint32_t groups = 1, groupSteps = 1;
    bool fromMemory = false;
};

// What every cooperative-matrix kernel has: subgroups ("warps") along M and N, the instruction
// shape, the shared-memory pipeline depth.
struct CoopMatTiling {
    uint32_t warpsM = 2, warpsN = 2;
    uint32_t mmaM = 16, mmaN = 16, mmaK = 16;
    uint32_t stages = 2;
};

// coopmat-gather: each A element read from the NCHW input with index arithmetic. Any problem.
// sLanes: consecutive threads take sLanes consecutive kernel taps of one output pixel (S padded to
// a multiple of sLanes); bGlobal: B fragments straight from the packed weights, not through
// shared memory.
struct CoopMatGatherKernel : CoopMatTiling {
    static constexpr const char* kName = "coopmat-gather";
    uint32_t sLanes = 1;
    bool bGlobal = false;
};

// coopmat-packed: a pre-pass packs the input as fp16 NHWC with the stride folded into the
// channels; each workgroup copies one contiguous window of it to shared memory and loads A
// fragments from there; each subgroup keeps its B columns in registers for the whole K, across
// tilesPerWorkgroup M tiles. Groups 1, dilation 1, windows that fit shared memory.
struct CoopMatPackedKernel : CoopMatTiling {
    static constexpr const char* kName = "coopmat-packed";
    uint32_t tilesPerWorkgroup = 1;
};

// The channels-last kernel's parameters. tapsInner: the GEMM K walks the kernel taps inside each
// BK-channel slice ((c / BK, r, s, c % BK)) instead of the channels inside each tap, so that the
// slices that read the same pixels' channels follow one another. fragmentPrefetch (NHWC input
// only): each subgroup holds a K slice's fragments in registers across the barrier and loads the
// next slice's while it multiplies this one. splitK: where the M x N tiles are too few to fill
// the GPU, splitK workgroups share each tile's K slices, each writing fp32 partial sums to a
// workspace that a second pass adds in a fixed order (deterministic); 1 = no split.
struct ChannelsLastTiling : CoopMatTiling {
    bool tapsInner = false;
    bool fragmentPrefetch = false;
    uint32_t splitK = 1;
};
// channels-last-nhwc: a pre-pass packs the input as fp16 channels-last (C padded to BK); each K
// slice is one kernel tap and BK channels. Groups 1, any size, stride, dilation.
struct ChannelsLastNhwcKernel : ChannelsLastTiling {
    static constexpr const char* kName = "channels-last-nhwc";
};
// channels-last-nchw: the channels-last kernel reading the fp32 NCHW input directly, for
// convolutions without padding (groups 1, any kernel, stride and dilation); no pre-pass.
struct ChannelsLastNchwKernel : ChannelsLastTiling {
    static constexpr const char* kName = "channels-last-nchw";
};

using KernelParams = std::variant<Fp32GemmKernel, GroupedDirectKernel, CoopMatGatherKernel, CoopMatPackedKernel,
                                  ChannelsLastNhwcKernel, ChannelsLastNchwKernel>;

// A kernel configuration, in CUTLASS's implicit-GEMM vocabulary: the path (operand types), the
// threadblock (workgroup) tile BM x BN x BK, the subgroup size it is built for, and the kernel
// with its own parameters. The default is the fp32 GEMM tile.
struct KernelConfig {
    Path path = Path::Fp32;
    uint32_t bm = 64, bn = 64, bk = 8;  // workgroup tile
    uint32_t subgroupSize = 0;          // the size the kernel is built for; 0 = the device's default
    KernelParams params = Fp32GemmKernel{};

    template <class Kernel>
    bool is() const { return std::holds_alternative<Kernel>(params); }
    // The kernel's parameters; throws vkconv::Error (InvalidArgument) naming both kernels when
    // the configuration is another kernel's.
    template <class Kernel>
    Kernel& as() {
        if (Kernel* k = std::get_if<Kernel>(&params)) return *k;
        throwOtherKernel(Kernel::kName);
    }
    template <class Kernel>
    const Kernel& as() const {
        if (const Kernel* k = std::get_if<Kernel>(&params)) return *k;
        throwOtherKernel(Kernel::kName);
    }
    // The cooperative-matrix part, or nullptr for an fp32 kernel.
    const CoopMatTiling* coopMat() const;
    CoopMatTiling* coopMat();
    // The split-K factor: the channels-last kernel's splitK, 1 for every other kernel.
    uint32_t splits() const;

    uint32_t threads() const;           // workgroup size
    uint32_t sharedMemoryBytes(const ConvProblem& problem) const;  // shared memory the kernel declares
    // e.g. "coopmat-f16 128x96x32 warps 4x2 mma 16x16x16 stages 2 sg32" (" split-k S" with splitK),
    // "fp32 grouped-direct 16x64 thread 4x2 k1 threads 32x4" (output tile rows x columns, outputs a
    // thread computes down x along, output channels a workgroup computes, threads along W x H a
    // group; then " groups G" and " serial S" where groups, groupSteps are above 1, and
    // " from-memory" with fromMemory)
    std::string str() const;
    // The kernel that runs it: "fp32-gemm", "grouped-direct", "coopmat-gather", "coopmat-packed",
    // "channels-last-nhwc" or "channels-last-nchw" (its parameters' kName).
    const char* kernel() const;

    bool operator==(const KernelConfig& o) const { return str() == o.str(); }

private:
    [[noreturn]] void throwOtherKernel(const char* wanted) const;
};

// The relative-error bound the tests hold a path to (‖out − ref‖ / ‖ref‖, on inputs like
// alexnet1's: uniform in [-1, 1]).
double errorBound(Path path);
// The per-element bound beside it: max |out - ref| / RMS(ref) (maxElementError in reference.hpp).
double elementErrorBound(Path path);
// The same for an output of `output`'s type: an fp16 output's rounding (2^-11 of each value)
// bounds every path at fp16's bounds (1e-3, 1e-2 an element).
double errorBound(Path path, const TensorFormat& output);
double elementErrorBound(Path path, const TensorFormat& output);

// CUTLASS's can_implement: empty if `config` can run `problem` on `device`, else the reason.
std::string canImplement(const KernelConfig& config, const DeviceInfo& device,
                         const ConvProblem& problem);

}  // namespace vkconv
