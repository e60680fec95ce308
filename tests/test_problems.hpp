// The problems the correctness, chunking and validation suites run: hand-picked edge cases and
// seeded random problems, each with a name (the test's name) and a seed for its inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv::test {

struct NamedProblem {
    std::string name;  // letters, digits and '_' only: it becomes part of the test name
    ConvProblem problem;
    uint64_t seed;     // seeds the inputs (and, for random problems, the problem itself)
};

// Hand-picked edge cases: batch 1, C = 1, K = 1, 1x1 and 11x11 kernels, stride larger than the
// kernel, padding as large as the kernel, dilation, groups (depthwise, K/groups != C/groups), odd
// and prime sizes, non-square kernels/strides/padding, no bias, partial GEMM tiles, alexnet1-like.
std::vector<NamedProblem> edgeCaseProblems();

// Seeded random problems: small sizes, every parameter varied.
std::vector<NamedProblem> randomProblems();

// edgeCaseProblems() followed by randomProblems(): the correctness suite.
std::vector<NamedProblem> correctnessProblems();

// Problems sized so that under narrowProfile() they need several chunks (images that do not
// fill the 1 MiB range evenly, offsets that are not aligned) and split grids (more than 4
// M tiles, more than 2 groups).
std::vector<NamedProblem> chunkingProblems();

// A representative subset (~30) of correctnessProblems() for the validation-layer run.
std::vector<NamedProblem> validationProblems();

// A deterministic generator (identical on every platform and standard library, unlike
// std::uniform_*_distribution): seeds the problems and the inputs.
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
    uint64_t next();                         // splitmix64
    int64_t uniformInt(int64_t lo, int64_t hi);  // inclusive
    float uniformFloat();                    // [-1, 1]
private:
    uint64_t state_;
};

std::vector<float> randomValues(uint64_t seed, size_t count);

}  // namespace vkconv::test
