// The specialization-constant structs of each shader: one typed struct per shader, its map
// entries built with offsetof, the constant ids matching the layout(constant_id) lines in
// conv_problem.glsl (0..19) and each kernel's own file (20..).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv::detail {

// fused_epilogue.glsl's constants (ids 42..48, 70, 71), from ConvProblem::epilogue and outputFormat.
struct EpilogueSpec {
    uint32_t activation;  // id 42: Activation's value
    VkBool32 hasResidual;  // id 43
    VkBool32 unitAlpha;    // id 44
    float alpha, beta;     // ids 45, 46
    float lower, upper;    // ids 47, 48: clamp's bounds; leaky relu's slope in `lower`
    VkBool32 outF16, outNhwc;  // ids 70, 71: only the "_io" modules have them (tensor_io.hpp)
    VkBool32 outBf16;          // id 75: likewise
};
EpilogueSpec makeEpilogueSpec(const Epilogue& epilogue, const TensorFormat& output);
// Map entries 42..48, 70, 71 for an EpilogueSpec stored at byte offset `base` of the spec data.
void appendEpilogueEntries(std::vector<VkSpecializationMapEntry>& entries, uint32_t base);

struct ProblemSpec {
    uint32_t cG, inH, inW, kG, outH, outW, kernelR, kernelS;
    int32_t strideH, strideW, padH, padW, dilH, dilW;
    uint32_t cTotal, kTotal, gemmK, bRows, bCols;
    VkBool32 hasBias;
    uint32_t sCols;  // id 41: columns per kernel row in the GEMM's K ordering (>= kernelS)
    EpilogueSpec epilogue;  // ids 42..48
};

// The problem's constants; bRows/bCols are the packed weight matrix's padded sizes per group,
// sCols the columns per kernel row in the K ordering (0: kernelW).
ProblemSpec makeProblemSpec(const ConvProblem& problem, uint32_t bRows, uint32_t bCols,
                            uint32_t sCols = 0);

// Map entries 0..19, 41 and the epilogue's for a ProblemSpec stored at byte offset `base` of the
// spec data.
void appendProblemEntries(std::vector<VkSpecializationMapEntry>& entries, uint32_t base);

// conv2d_fp32.comp
struct Fp32KernelSpec {
    ProblemSpec problem;
    uint32_t bm, bn, bk, tm, tn, threads;

    static std::vector<VkSpecializationMapEntry> entries() {
        std::vector<VkSpecializationMapEntry> e;
        appendProblemEntries(e, offsetof(Fp32KernelSpec, problem));
        e.push_back({20, offsetof(Fp32KernelSpec, bm), sizeof(uint32_t)});
        e.push_back({21, offsetof(Fp32KernelSpec, bn), sizeof(uint32_t)});
        e.push_back({22, offsetof(Fp32KernelSpec, bk), sizeof(uint32_t)});
        e.push_back({23, offsetof(Fp32KernelSpec, tm), sizeof(uint32_t)});
        e.push_back({24, offsetof(Fp32KernelSpec, tn), sizeof(uint32_t)});
        e.push_back({25, offsetof(Fp32KernelSpec, threads), sizeof(uint32_t)});
        return e;
    }
};

// conv2d_coopmat_gather.comp
struct CoopMatKernelSpec {
    ProblemSpec problem;
    uint32_t bm, bn, bk, warpsM, warpsN, mmaM, mmaN, mmaK, stages, subgroup, threads;
    VkBool32 bGlobal;       // id 33
    uint32_t debugSkip;     // id 40 (conv_problem.glsl)
    uint32_t sLanes;        // id 34: gather loader's lanes per row

    static std::vector<VkSpecializationMapEntry> entries() {
        std::vector<VkSpecializationMapEntry> e;
        appendProblemEntries(e, offsetof(CoopMatKernelSpec, problem));
        const uint32_t offsets[] = {
            offsetof(CoopMatKernelSpec, bm),     offsetof(CoopMatKernelSpec, bn),
            offsetof(CoopMatKernelSpec, bk),     offsetof(CoopMatKernelSpec, warpsM),
            offsetof(CoopMatKernelSpec, warpsN), offsetof(CoopMatKernelSpec, mmaM),
            offsetof(CoopMatKernelSpec, mmaN),   offsetof(CoopMatKernelSpec, mmaK),
            offsetof(CoopMatKernelSpec, stages), offsetof(CoopMatKernelSpec, subgroup),
            offsetof(CoopMatKernelSpec, threads)};
        for (uint32_t i = 0; i < 11; ++i) e.push_back({20 + i, offsets[i], sizeof(uint32_t)});
        e.push_back({33, offsetof(CoopMatKernelSpec, bGlobal), sizeof(VkBool32)});
        e.push_back({40, offsetof(CoopMatKernelSpec, debugSkip), sizeof(uint32_t)});
        e.push_back({34, offsetof(CoopMatKernelSpec, sLanes), sizeof(uint32_t)});
        return e;
    }
};

// conv2d_grouped_direct.comp
struct GroupedDirectSpec {
    ProblemSpec problem;
    uint32_t threadsW, threadsH, vecW, rows, channels, threads, groups, groupSteps;
    VkBool32 fromMemory;  // id 28: FROM_MEMORY
    uint32_t uniformWeightVectors;  // id 29: UNIFORM_WEIGHT_VECS (0: the weights from binding 1 only)
    VkBool32 inF16, inNhwc;         // ids 76, 77: the input's format (the "_io" module only)
    uint32_t debugSkip;   // id 40: DEBUG_SKIP (conv/diagnostics.hpp)

    static std::vector<VkSpecializationMapEntry> entries() {
        std::vector<VkSpecializationMapEntry> e;
        appendProblemEntries(e, offsetof(GroupedDirectSpec, problem));
        e.push_back({40, offsetof(GroupedDirectSpec, debugSkip), sizeof(uint32_t)});
        const uint32_t offsets[] = {offsetof(GroupedDirectSpec, threadsW), offsetof(GroupedDirectSpec, threadsH),
                                    offsetof(GroupedDirectSpec, vecW),     offsetof(GroupedDirectSpec, rows),
                                    offsetof(GroupedDirectSpec, channels), offsetof(GroupedDirectSpec, threads),
                                    offsetof(GroupedDirectSpec, groups),   offsetof(GroupedDirectSpec, groupSteps)};
        for (uint32_t i = 0; i < 8; ++i) e.push_back({20 + i, offsets[i], sizeof(uint32_t)});
        e.push_back({28, offsetof(GroupedDirectSpec, fromMemory), sizeof(VkBool32)});
        e.push_back({29, offsetof(GroupedDirectSpec, uniformWeightVectors), sizeof(uint32_t)});
        e.push_back({76, offsetof(GroupedDirectSpec, inF16), sizeof(VkBool32)});
        e.push_back({77, offsetof(GroupedDirectSpec, inNhwc), sizeof(VkBool32)});
        return e;
    }
};

// The push constants of every conv kernel (ChunkParams in conv_problem.glsl).
struct ChunkParams {
    uint32_t mRows, inOffset, outOffset, mTileBase, groupBase;
};

}  // namespace vkconv::detail
