#include "problem/conv_plan.hpp"

#include <algorithm>

#include "runtime/checked_math.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

// Largest range vkconv binds: the device's limit, capped so that element indices inside one
// range stay far from 2^32 in the shaders' 32-bit arithmetic.
uint64_t usableRange(const DeviceInfo& d) {
    return std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31);
}

BufferRange alignedRange(uint64_t firstByte, uint64_t bytes, uint64_t alignment, uint32_t unit,
                         uint32_t& elementOffset) {
    const uint64_t offset = firstByte / alignment * alignment;
    elementOffset = static_cast<uint32_t>((firstByte - offset) / unit);
    return {offset, bytes + (firstByte - offset)};
}

}  // namespace

ExecutionPlan planExecution(const ConvProblem& p, const DeviceInfo& d, uint32_t bm, uint32_t bn,
                            uint32_t tilesPerImage, uint64_t workspacePerImage, uint64_t workspaceTail,
                            uint32_t tilesPerWorkgroup, uint32_t groupsPerWorkgroup) {
    // Callers validate the problem and the configuration first; these checks keep a caller that
    // did not from dividing by zero or wrapping a size (every product below is checked).
    p.validate();
    if (bm == 0) throw invalidArgument("config.bm", bm, "must be >= 1");
    if (bn == 0) throw invalidArgument("config.bn", bn, "must be >= 1");
    if (tilesPerWorkgroup == 0) throw invalidArgument("config.tilesPerWorkgroup", tilesPerWorkgroup, "must be >= 1");
    if (groupsPerWorkgroup == 0) throw invalidArgument("groupsPerWorkgroup", groupsPerWorkgroup, "must be >= 1");
    for (int i = 0; i < 3; ++i)
        if (d.maxWorkGroupCount[i] == 0)
            throw Error(Error::Kind::Unsupported, "device's maxComputeWorkGroupCount[" + std::to_string(i) + "] is 0");
    if (d.minStorageBufferOffsetAlignment > (1u << 16))
        throw Error(Error::Kind::Unsupported, "device's minStorageBufferOffsetAlignment " +
                                                  std::to_string(d.minStorageBufferOffsetAlignment) + " is above 65536");
    const uint64_t align = std::max<uint64_t>(d.minStorageBufferOffsetAlignment, 4);
    const uint64_t maxRange = usableRange(d);
    const auto bytes = [](const char* what, std::initializer_list<int64_t> factors) {
        const auto n = checkedProduct(factors, int64_t(1) << 60);
        if (!n) throw invalidArgument(what, "too large", "exceeds 2^60 elements");
        return uint64_t(*n) * 4;
    };
    const uint64_t inImage = bytes("in_channels*height*width", {p.inChannels, p.height, p.width});
    const uint64_t outImage = bytes("out_channels*out_height*out_width", {p.outChannels, p.outHeight(), p.outWidth()});
    // Worst case the aligned-down offset adds (align - 4) bytes in front of the chunk.
    const uint64_t slack = align - 4;
    if (inImage + slack > maxRange)
        throw Error(Error::Kind::Unsupported,
                    "one input image is " + std::to_string(inImage) +
                        " bytes, more than the device's maxStorageBufferRange (" +
                        std::to_string(maxRange) + "); vkconv splits by whole images");
    if (outImage + slack > maxRange)
        throw Error(Error::Kind::Unsupported,
                    "one output image is " + std::to_string(outImage) +
                        " bytes, more than the device's maxStorageBufferRange (" +
                        std::to_string(maxRange) + "); vkconv splits by whole images");

    if (workspacePerImage && workspacePerImage + workspaceTail > maxRange)
        throw Error(Error::Kind::Unsupported,
                    "one image's packed input is " + std::to_string(workspacePerImage + workspaceTail) +
                        " bytes, more than the device's maxStorageBufferRange (" +
                        std::to_string(maxRange) + ")");

    const uint64_t pixels = uint64_t(p.outHeight()) * uint64_t(p.outWidth());
    // One image's GEMM rows (and a tile of overshoot) must fit the shaders' 32-bit row indices.
    if (pixels + bm > (1ull << 31))
        throw Error(Error::Kind::Unsupported, "one output image has " + std::to_string(pixels) +
                                                  " pixels; with a tile of " + std::to_string(bm) +
                                                  " rows that exceeds the kernels' 32-bit row indices");
    const uint64_t nTileCount = (uint64_t(p.gemmN()) + bn - 1) / bn;
    if (nTileCount > d.maxWorkGroupCount[1])
        throw Error(Error::Kind::Unsupported, std::to_string(nTileCount) +
                                                  " N tiles exceed the device's maxComputeWorkGroupCount[1] (" +
                                                  std::to_string(d.maxWorkGroupCount[1]) + ")");
    uint64_t perChunk = std::min((maxRange - slack) / inImage, (maxRange - slack) / outImage);
    // Keep each chunk's GEMM row count within 32 bits with room for a tile of overshoot.
    perChunk = std::min<uint64_t>(perChunk, ((1ull << 31) - bm) / pixels);
    if (workspacePerImage) perChunk = std::min(perChunk, (maxRange - workspaceTail) / workspacePerImage);
    perChunk = std::max<uint64_t>(1, std::min<uint64_t>(perChunk, p.batch));
    if (tilesPerImage && uint64_t(tilesPerImage) * perChunk > (1ull << 32))
        throw Error(Error::Kind::Unsupported, "a chunk's M tiles exceed 32 bits");

    // The plan is recorded into command buffers: a grid limit far below the problem (a profile
    // with a tiny maxComputeWorkGroupCount) must not turn into millions of dispatches.
    const uint64_t chunks = (uint64_t(p.batch) + perChunk - 1) / perChunk;
    const uint64_t maxTilesPerChunk = tilesPerImage ? perChunk * tilesPerImage : (perChunk * pixels + bm - 1) / bm;
    // Workgroups along Z: groups, or blocks of groupsPerWorkgroup of them.
    const uint64_t groupBlocks = (uint64_t(p.groups) + groupsPerWorkgroup - 1) / groupsPerWorkgroup;
    const uint64_t dispatchesPerChunk =
        ((maxTilesPerChunk + tilesPerWorkgroup - 1) / tilesPerWorkgroup + d.maxWorkGroupCount[0] - 1) /
        d.maxWorkGroupCount[0] * ((groupBlocks + d.maxWorkGroupCount[2] - 1) / d.maxWorkGroupCount[2]);
    constexpr uint64_t kMaxDispatches = 1u << 20;
    if (dispatchesPerChunk > kMaxDispatches || chunks * dispatchesPerChunk > kMaxDispatches)
        throw Error(Error::Kind::Unsupported,
                    "the plan needs " + std::to_string(chunks) + " chunk(s) of " + std::to_string(dispatchesPerChunk) +
                        " dispatch(es), more than " + std::to_string(kMaxDispatches) +
                        " (the device's maxComputeWorkGroupCount or maxStorageBufferRange is too small for this problem)");

    // The chunks are sized as if every tensor were fp32 (an input converted to fp32 first must
    // fit as well); they are bound in the tensors' own types.
    const uint32_t inElement = elementBytes(p.inputFormat.type), outElement = elementBytes(p.outputFormat.type);
    const uint64_t inBytes = inImage / 4 * inElement, outBytes = outImage / 4 * outElement;
    ExecutionPlan plan;
    plan.imagesPerChunk = perChunk;
    plan.workspaceBytes = workspacePerImage ? perChunk * workspacePerImage + workspaceTail : 0;
    const uint32_t groupsLimitX = d.maxWorkGroupCount[0], groupsLimitZ = d.maxWorkGroupCount[2];
    const uint32_t nTiles = static_cast<uint32_t>(nTileCount);
    const uint32_t groups = static_cast<uint32_t>(groupBlocks);

    for (uint64_t first = 0; first < uint64_t(p.batch); first += perChunk) {
        const uint64_t images = std::min<uint64_t>(perChunk, p.batch - first);
        ChunkParams params{};
        ChunkBinding binding;
        binding.input = alignedRange(first * inBytes, images * inBytes, align, inElement, params.inOffset);
        binding.output = alignedRange(first * outBytes, images * outBytes, align, outElement, params.outOffset);
        const uint32_t chunkIndex = static_cast<uint32_t>(plan.chunks.size());
        plan.chunks.push_back(binding);
        params.mRows = static_cast<uint32_t>(images * pixels);
        uint64_t mTiles = tilesPerImage ? images * tilesPerImage : (images * pixels + bm - 1) / bm;
        mTiles = (mTiles + tilesPerWorkgroup - 1) / tilesPerWorkgroup;
        for (uint64_t m0 = 0; m0 < mTiles; m0 += groupsLimitX)
            for (uint32_t g0 = 0; g0 < groups; g0 += groupsLimitZ) {
                Dispatch dispatch;
                dispatch.chunk = chunkIndex;
                dispatch.params = params;
                dispatch.params.mTileBase = static_cast<uint32_t>(m0);
                dispatch.params.groupBase = g0;
                dispatch.groupsX = static_cast<uint32_t>(std::min<uint64_t>(groupsLimitX, mTiles - m0));
                dispatch.groupsY = nTiles;
                dispatch.groupsZ = std::min(groupsLimitZ, groups - g0);
                plan.dispatches.push_back(dispatch);
            }
    }
    return plan;
}

}  // namespace vkconv::detail
