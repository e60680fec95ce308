// Unit tests of planExecution (src/conv_plan.hpp, internal): on made-up devices, every chunk's
// bound ranges respect minStorageBufferOffsetAlignment and maxStorageBufferRange, the chunks
// cover every image exactly once, and the dispatches cover every M tile and group exactly once
// within maxComputeWorkGroupCount.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "problem/conv_plan.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {
namespace {

struct Limits {
    uint64_t range, alignment;
    std::array<uint32_t, 3> groups;
};

DeviceInfo deviceWith(const Limits& l) {
    DeviceInfo d;
    d.maxStorageBufferRange = l.range;
    d.minStorageBufferOffsetAlignment = l.alignment;
    d.maxWorkGroupCount = l.groups;
    return d;
}

ConvProblem problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t groups) {
    ConvProblem p;
    p.batch = n, p.inChannels = c, p.height = h, p.width = w, p.outChannels = k;
    p.kernelH = p.kernelW = r, p.padH = p.padW = r / 2, p.groups = groups;
    return p;
}

// Checks every invariant of a plan; returns the number of chunks.
size_t checkPlan(const ConvProblem& p, const Limits& l, uint32_t bm, uint32_t bn) {
    SCOPED_TRACE(p.str() + " range " + std::to_string(l.range) + " align " +
                 std::to_string(l.alignment) + " groups " + std::to_string(l.groups[0]) + "," +
                 std::to_string(l.groups[2]) + " tile " + std::to_string(bm) + "x" + std::to_string(bn));
    const DeviceInfo d = deviceWith(l);
    const ExecutionPlan plan = planExecution(p, d, bm, bn);
    const uint64_t inImage = uint64_t(p.inChannels * p.height * p.width) * 4;
    const uint64_t outImage = uint64_t(p.outChannels * p.outHeight() * p.outWidth()) * 4;
    const uint64_t pixels = uint64_t(p.outHeight() * p.outWidth());
    EXPECT_GE(plan.imagesPerChunk, 1u);

    // Chunk i holds images [i*perChunk, min(batch, (i+1)*perChunk)).
    uint64_t covered = 0;
    for (size_t i = 0; i < plan.chunks.size(); ++i) {
        const ChunkBinding& b = plan.chunks[i];
        const uint64_t first = i * plan.imagesPerChunk;
        const uint64_t images = std::min<uint64_t>(plan.imagesPerChunk, p.batch - first);
        covered += images;
        for (auto [range, image] : {std::pair{b.input, inImage}, std::pair{b.output, outImage}}) {
            EXPECT_EQ(range.offset % std::max<uint64_t>(l.alignment, 4), 0u);
            EXPECT_LE(range.range, std::min<uint64_t>(l.range, 1ull << 31));
            EXPECT_LE(range.offset, first * image);
            EXPECT_EQ(range.offset + range.range, (first + images) * image);  // ends at the chunk's end
        }
    }
    EXPECT_EQ(covered, uint64_t(p.batch));

    // Per chunk: the element offsets point at the chunk's first image; dispatches cover each
    // (M tile, group) once.
    const uint64_t nTiles = (p.gemmN() + bn - 1) / bn;
    std::vector<std::set<std::pair<uint64_t, uint64_t>>> seen(plan.chunks.size());
    for (const Dispatch& disp : plan.dispatches) {
        EXPECT_LT(disp.chunk, plan.chunks.size());
        if (disp.chunk >= plan.chunks.size()) continue;
        const ChunkBinding& b = plan.chunks[disp.chunk];
        const uint64_t first = disp.chunk * plan.imagesPerChunk;
        const uint64_t images = std::min<uint64_t>(plan.imagesPerChunk, p.batch - first);
        EXPECT_EQ(b.input.offset + disp.params.inOffset * 4ull, first * inImage);
        EXPECT_EQ(b.output.offset + disp.params.outOffset * 4ull, first * outImage);
        EXPECT_EQ(disp.params.mRows, images * pixels);
        EXPECT_GE(disp.groupsX, 1u);
        EXPECT_LE(disp.groupsX, l.groups[0]);
        EXPECT_EQ(disp.groupsY, nTiles);
        EXPECT_GE(disp.groupsZ, 1u);
        EXPECT_LE(disp.groupsZ, l.groups[2]);
        for (uint64_t x = 0; x < disp.groupsX; ++x)
            for (uint64_t z = 0; z < disp.groupsZ; ++z)
                EXPECT_TRUE(seen[disp.chunk].insert({disp.params.mTileBase + x, disp.params.groupBase + z}).second)
                    << "tile covered twice";
    }
    for (size_t i = 0; i < plan.chunks.size(); ++i) {
        const uint64_t images = std::min<uint64_t>(plan.imagesPerChunk, p.batch - i * plan.imagesPerChunk);
        const uint64_t mTiles = (images * pixels + bm - 1) / bm;
        EXPECT_EQ(seen[i].size(), mTiles * uint64_t(p.groups)) << "chunk " << i << " not fully covered";
    }
    return plan.chunks.size();
}

const Limits kRoomy{1ull << 32, 16, {65535, 65535, 65535}};
const Limits kNarrow{1ull << 20, 64, {4, 65535, 2}};
const Limits kNarrowAlign256{1ull << 20, 256, {7, 65535, 3}};
const Limits kAlign4{1ull << 20, 4, {65535, 65535, 65535}};

TEST(PlanExecution, OneChunkWhenEverythingFits) {
    EXPECT_EQ(checkPlan(problem(8, 3, 32, 32, 16, 3, 1), kRoomy, 64, 64), 1u);
}

TEST(PlanExecution, ChunksRespectAlignmentAndRange) {
    for (const Limits& l : {kNarrow, kNarrowAlign256, kAlign4})
        for (auto [bm, bn] : {std::pair{64u, 64u}, {128u, 32u}, {32u, 16u}}) {
            EXPECT_GT(checkPlan(problem(5, 3, 123, 123, 7, 3, 1), l, bm, bn), 1u);
            EXPECT_GT(checkPlan(problem(9, 10, 61, 61, 15, 3, 5), l, bm, bn), 1u);
            EXPECT_GT(checkPlan(problem(33, 4, 64, 64, 4, 3, 1), l, bm, bn), 1u);
            checkPlan(problem(3, 1, 300, 300, 2, 5, 1), l, bm, bn);
            checkPlan(problem(1, 7, 13, 17, 5, 3, 1), l, bm, bn);
            checkPlan(problem(64, 1, 7, 7, 1, 1, 1), l, bm, bn);
        }
}

TEST(PlanExecution, GridSplitsAlongMAndGroups) {
    // 9 groups, Z limited to 2 -> 5 dispatches per M slice; X limited to 4.
    const ConvProblem p = problem(2, 9, 20, 20, 9, 3, 9);
    const ExecutionPlan plan = planExecution(p, deviceWith(kNarrow), 64, 64);
    EXPECT_GT(plan.dispatches.size(), 5u);
    checkPlan(p, kNarrow, 64, 64);
}

TEST(PlanExecution, FullAlexnetBatchOnVulkanMinimum) {
    // 2^27-byte ranges (the spec minimum), as the vulkan-minimum profile narrows to.
    const Limits minimum{1ull << 27, 256, {65535, 65535, 65535}};
    ConvProblem p = ConvProblem::alexnet1(256);
    EXPECT_GT(checkPlan(p, minimum, 128, 64), 1u);
}

TEST(PlanExecution, ImageLargerThanTheRangeIsUnsupported) {
    const DeviceInfo d = deviceWith(kNarrow);
    for (const ConvProblem& p : {problem(2, 3, 300, 300, 1, 1, 1), problem(1, 1, 300, 300, 4, 1, 1)}) {
        try {
            planExecution(p, d, 64, 64);
            ADD_FAILURE() << "expected Unsupported for " << p.str();
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::Unsupported) << e.what();
            EXPECT_THAT(e.what(), ::testing::HasSubstr("maxStorageBufferRange"));
        }
    }
}

TEST(PlanExecution, ImageThatFitsOnlyWithoutAlignmentSlack) {
    // Exactly 1 MiB per input image: fits only if no alignment slack is needed (alignment 4).
    const ConvProblem p = problem(3, 1, 512, 512, 1, 1, 1);
    EXPECT_EQ(checkPlan(p, kAlign4, 64, 64), 3u);
    EXPECT_THROW(planExecution(p, deviceWith(kNarrow), 64, 64), Error);
}

}  // namespace
}  // namespace vkconv::detail
