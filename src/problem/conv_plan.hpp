// Execution planning: how one conv splits into dispatches that respect the device's limits.
// Images are grouped into chunks whose input and output ranges each fit maxStorageBufferRange
// (bound at an aligned offset, the remainder passed as an element offset); each chunk's grid is
// split so that no dimension exceeds maxComputeWorkGroupCount.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/kernel_specs.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"

namespace vkconv::detail {

struct BufferRange {
    uint64_t offset = 0;  // bytes, a multiple of minStorageBufferOffsetAlignment
    uint64_t range = 0;   // bytes, <= maxStorageBufferRange
};

struct ChunkBinding {
    BufferRange input, output;
};

struct Dispatch {
    uint32_t chunk;  // index into ExecutionPlan::chunks
    ChunkParams params;
    uint32_t groupsX, groupsY, groupsZ;
};

struct ExecutionPlan {
    std::vector<ChunkBinding> chunks;
    std::vector<Dispatch> dispatches;
    uint64_t imagesPerChunk = 0;
    uint64_t workspaceBytes = 0;  // the intermediate buffer one chunk needs (0: none)
    uint64_t partialsBytes = 0;   // split-K's partial sums for one chunk (0: no split)

    // Images of a batch in chunk `chunk`: imagesPerChunk, fewer in the last.
    uint64_t chunkImages(size_t chunk, int64_t batch) const {
        return std::min<uint64_t>(imagesPerChunk, uint64_t(batch) - chunk * imagesPerChunk);
    }
};

// Throws vkconv::Error(Unsupported) naming the limit when even one image cannot be bound.
// tilesPerImage: 0 when M tiles are BM consecutive GEMM rows (they may span images); else the
// number of M tiles each image has (the packed loader's and the grouped direct kernel's tiles
// never span images).
// workspacePerImage, workspaceTail: bytes of an intermediate buffer the chunk's images need (the
// packed input), bound whole, so it too must fit maxStorageBufferRange. tilesPerWorkgroup: M tiles
// each workgroup walks (the grid's X counts workgroups, and so does ChunkParams::mTileBase).
// groupsPerWorkgroup: groups each workgroup computes (the grid's Z counts workgroups, and so does
// ChunkParams::groupBase).
ExecutionPlan planExecution(const ConvProblem& problem, const DeviceInfo& device, uint32_t bm,
                            uint32_t bn, uint32_t tilesPerImage = 0, uint64_t workspacePerImage = 0,
                            uint64_t workspaceTail = 0, uint32_t tilesPerWorkgroup = 1,
                            uint32_t groupsPerWorkgroup = 1);

}  // namespace vkconv::detail
