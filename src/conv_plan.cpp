#include "conv_plan.hpp"

#include <algorithm>

#include "vkconv/error.hpp"

namespace vkconv::detail {

namespace {

// Largest range vkconv binds: the device's limit, capped so that element indices inside one
// range stay far from 2^32 in the shaders' 32-bit arithmetic.
uint64_t usableRange(const DeviceInfo& d) {
    return std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31);
}

BufferRange alignedRange(uint64_t firstByte, uint64_t bytes, uint64_t alignment, uint32_t& elementOffset) {
    const uint64_t offset = firstByte / alignment * alignment;
    elementOffset = static_cast<uint32_t>((firstByte - offset) / 4);
    return {offset, bytes + (firstByte - offset)};
}

}  // namespace

ExecutionPlan planExecution(const ConvProblem& p, const DeviceInfo& d, uint32_t bm, uint32_t bn,
                            uint32_t tilesPerImage, uint64_t workspacePerImage, uint64_t workspaceTail,
                            uint32_t tilesPerWorkgroup) {
    const uint64_t align = std::max<uint64_t>(d.minStorageBufferOffsetAlignment, 4);
    const uint64_t maxRange = usableRange(d);
    const uint64_t inImage = uint64_t(p.inChannels * p.height * p.width) * 4;
    const uint64_t outImage = uint64_t(p.outChannels * p.outHeight() * p.outWidth()) * 4;
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

    const uint64_t pixels = uint64_t(p.outHeight() * p.outWidth());
    uint64_t perChunk = std::min((maxRange - slack) / inImage, (maxRange - slack) / outImage);
    // Keep each chunk's GEMM row count within 32 bits with room for a tile of overshoot.
    perChunk = std::min<uint64_t>(perChunk, ((1ull << 31) - bm) / pixels);
    if (workspacePerImage) perChunk = std::min(perChunk, (maxRange - workspaceTail) / workspacePerImage);
    perChunk = std::max<uint64_t>(1, std::min<uint64_t>(perChunk, p.batch));

    ExecutionPlan plan;
    plan.imagesPerChunk = perChunk;
    const uint32_t groupsLimitX = d.maxWorkGroupCount[0], groupsLimitZ = d.maxWorkGroupCount[2];
    const uint32_t nTiles = static_cast<uint32_t>((p.gemmN() + bn - 1) / bn);
    const uint32_t groups = static_cast<uint32_t>(p.groups);

    for (uint64_t first = 0; first < uint64_t(p.batch); first += perChunk) {
        const uint64_t images = std::min<uint64_t>(perChunk, p.batch - first);
        ChunkParams params{};
        ChunkBinding binding;
        binding.input = alignedRange(first * inImage, images * inImage, align, params.inOffset);
        binding.output = alignedRange(first * outImage, images * outImage, align, params.outOffset);
        const uint32_t chunkIndex = static_cast<uint32_t>(plan.chunks.size());
        plan.chunks.push_back(binding);
        params.mRows = static_cast<uint32_t>(images * pixels);
        uint64_t mTiles = tilesPerImage ? images * tilesPerImage : (images * pixels + bm - 1) / bm;
        mTiles = (mTiles + tilesPerWorkgroup - 1) / std::max(tilesPerWorkgroup, 1u);
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
