// Execution planning: how one conv splits into dispatches that respect the device's limits.
// Images are grouped into chunks whose input and output ranges each fit maxStorageBufferRange
// (bound at an aligned offset, the remainder passed as an element offset); each chunk's grid is
// split so that no dimension exceeds maxComputeWorkGroupCount.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_specs.hpp"
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
};

// Throws vkconv::Error(Unsupported) naming the limit when even one image cannot be bound.
// tilesPerImage: 0 when M tiles are BM consecutive GEMM rows (they may span images); else the
// number of M tiles each image has (the patch loader's 2-D tiles never span images).
ExecutionPlan planExecution(const ConvProblem& problem, const DeviceInfo& device, uint32_t bm,
                            uint32_t bn, uint32_t tilesPerImage = 0);

}  // namespace vkconv::detail
