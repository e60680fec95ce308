// A kernel configuration, in CUTLASS's implicit-GEMM vocabulary: which path (shader), the
// threadblock (workgroup) tile BM x BN x BK, and how the workgroup's threads split it: a per-thread
// micro-tile for the fp32 path; subgroups ("warps") along M and N, the cooperative-matrix
// instruction shape and the shared-memory pipeline depth for the cooperative-matrix path.
#pragma once

#include <cstdint>
#include <string>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"

namespace vkconv {

enum class Path {
    Fp32,         // portable: fp32 FMA, no extension needed
    CoopMatF16,   // VK_KHR_cooperative_matrix, fp16 operands, fp32 accumulation
    CoopMatBF16,  // VK_KHR_cooperative_matrix, bf16 operands, fp32 accumulation
};
const char* toString(Path path);
Path pathFromString(const std::string& name);  // "fp32", "coopmat-f16", "coopmat-bf16"

// What the caller asks for. Fast means the best cooperative-matrix path the device has (fp16
// operands, else bf16), falling back to fp32 on devices without one.
enum class Precision { Fast, Fp32 };
const char* toString(Precision precision);

// How the cooperative-matrix kernel fills its A tile (the im2col operand).
enum class ALoader {
    Gather,  // each element read from the NCHW input with index arithmetic: any problem
    // A pre-pass packs the input as fp16 NHWC with the stride folded into the channels; each
    // workgroup copies one contiguous window of it to shared memory and loads A fragments from
    // there as strided matrices. Groups 1, dilation 1, windows that fit shared memory.
    Packed,
    // A pre-pass packs the input as fp16 channels-last (C padded to BK); each K slice is one
    // kernel tap and BK channels, so a tile row is BK contiguous halves: 16-byte loads, one
    // bounds check per row and tap. The general kernel: groups 1, any size, stride, dilation.
    Nhwc,
    // The channels-last kernel reading the fp32 NCHW input directly, for convolutions without
    // padding (groups 1, any kernel, stride and dilation): a K slice is BK channels at one tap,
    // loaded 4 pixels a channel; no pre-pass.
    Nchw,
};
Precision precisionFromString(const std::string& name);  // "fast", "fp32"

// Which fp32 kernel a Path::Fp32 configuration runs.
enum class Fp32Kernel {
    Gemm,           // the implicit-GEMM tile (bm x bn x bk, thread tm x tn): any problem
    // The grouped direct kernel for groups with few channels (depthwise, channel multipliers,
    // groups of up to 16 channels): a spatial tile of a few output channels per workgroup,
    // input staged once in shared memory, weights in registers (shaders/conv2d_grouped_direct.comp).
    GroupedDirect,
};

struct KernelConfig {
    Path path = Path::Fp32;
    uint32_t bm = 64, bn = 64, bk = 8;  // workgroup tile
    // fp32 path: each thread computes tm x tn outputs.
    uint32_t tm = 4, tn = 4;
    // cooperative-matrix path: subgroups along M and N, instruction shape, pipeline stages.
    uint32_t warpsM = 2, warpsN = 2;
    uint32_t mmaM = 16, mmaN = 16, mmaK = 16;
    uint32_t stages = 2;
    ALoader aLoader = ALoader::Gather;
    // Channels-last loader: the GEMM K walks the kernel taps inside each BK-channel slice
    // ((c / BK, r, s, c % BK)) instead of the channels inside each tap ((r, s, c)), so that the
    // R x S slices that read the same input pixels' channels follow one another (cache reuse).
    bool tapsInner = false;
    // Channels-last loader: each subgroup holds a K slice's fragments in registers across the
    // barrier and loads the next slice's while it multiplies this one (shared-memory loads and
    // matrix work overlap), at the cost of a warp tile's fragments in registers.
    bool fragmentPrefetch = false;
    bool bGlobal = false;  // B fragments straight from the packed weights, not through shared memory
    // Channels-last and NCHW loaders (split-K): where the M x N tiles are too few to fill the GPU,
    // splitK workgroups share each tile's K slices, each writing its fp32 partial sums to a
    // workspace, and a second pass adds the splits in a fixed order (deterministic) into the
    // output. 1 = no split. The K slices must divide evenly among the splits.
    uint32_t splitK = 1;
    // Gather loader: consecutive threads take sLanes consecutive kernel taps of one output pixel
    // (S is padded to a multiple of sLanes in the K ordering); sLanes = stride keeps a strided
    // convolution's loads contiguous. 1 = one tap per thread, consecutive pixels.
    uint32_t sLanes = 1;
    // Packed loader: each workgroup computes tilesPerWorkgroup M tiles (its subgroups keep B in
    // registers across them).
    uint32_t tilesPerWorkgroup = 1;
    uint32_t subgroupSize = 0;  // the size the kernel is built for; 0 = the device's default
    // fp32 path: the GEMM tile above, or the grouped direct kernel with its own tile: a workgroup
    // of directThreadsW x directThreadsH threads computes directRows x directVecW outputs each
    // (down a column x along a row), for directChannels output channels of one group; with
    // directGroups > 1, that many groups side by side (each its own directThreadsW x
    // directThreadsH threads), and directGroupSteps such sets of groups one after another.
    // directFromMemory: each thread reads its input window and weights straight from memory
    // instead of the workgroup staging them in shared memory (no input staging, no barrier before
    // the arithmetic; whole small planes still leave through shared memory as one run).
    Fp32Kernel fp32Kernel = Fp32Kernel::Gemm;
    uint32_t directThreadsW = 0, directThreadsH = 0, directVecW = 1, directRows = 1, directChannels = 1;
    uint32_t directGroups = 1, directGroupSteps = 1;
    bool directFromMemory = false;

    uint32_t threads() const;           // workgroup size
    uint32_t sharedMemoryBytes(const ConvProblem& problem) const;  // shared memory the kernel declares
    // e.g. "coopmat-f16 128x96x32 warps 4x2 mma 16x16x16 stages 2 sg32" (" split-k S" with splitK),
    // "fp32 grouped-direct 16x64 thread 4x2 k1 threads 32x4" (output tile rows x columns, outputs a
    // thread computes down x along, output channels a workgroup computes, threads along W x H a
    // group; then " groups G" and " serial S" where directGroups, directGroupSteps are above 1,
    // and " from-memory" with directFromMemory)
    std::string str() const;
    // The kernel that runs it: "fp32-gemm", "grouped-direct", "coopmat-gather", "coopmat-packed"
    // (B held in registers: each subgroup its MMA_N columns for the whole K), "channels-last-nhwc"
    // or "channels-last-nchw" (docs/architecture.md).
    const char* kernel() const;

    bool operator==(const KernelConfig& o) const { return str() == o.str(); }
};

// The relative-error bound the tests hold a path to (‖out − ref‖ / ‖ref‖, on inputs like
// alexnet1's: uniform in [-1, 1]).
double errorBound(Path path);
// The per-element bound beside it: max |out - ref| / RMS(ref) (maxElementError in reference.hpp).
double elementErrorBound(Path path);

// CUTLASS's can_implement: empty if `config` can run `problem` on `device`, else the reason.
std::string canImplement(const KernelConfig& config, const DeviceInfo& device,
                         const ConvProblem& problem);

}  // namespace vkconv
