// The benchmark's shapes, read from bench/shapes.json: the one list that the C++ benchmark and
// bench/torch_conv_reference.py share, so both time exactly the same problems.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv::bench {

struct BenchShape {
    std::string name;
    std::string suite;
    ConvProblem problem;  // at the GPU batch
    int64_t cpuBatch = 1; // the batch on a CPU device
    bool latency = false; // small on purpose (fits in cache): not held to the memory-size rule
    int64_t count = 1;    // how often the shape runs in one pass of its network (network suites)
    std::string note;
};

struct ShapeCatalog {
    std::string path;               // the file it was read from
    uint64_t gpuMinIoBytes = 0;     // input + output size the GPU batches are chosen to exceed
    std::vector<std::string> suites;  // in file order
    std::vector<BenchShape> shapes;   // all suites, in file order
};

// The shapes file to read: `explicitPath` if given, else shapes.json next to the executable,
// else the source tree's bench/shapes.json (compiled in). Throws vkconv::Error(Io) if none exists.
std::string findShapesFile(const std::string& explicitPath, const std::string& argv0);

// Reads and validates the file; throws vkconv::Error (Io, or InvalidArgument naming the shape
// and field) on a bad file.
ShapeCatalog loadShapes(const std::string& path);

// Shapes of one suite, or the one shape called `name` (any suite); throws InvalidArgument,
// listing what exists, if there is none.
std::vector<BenchShape> suiteShapes(const ShapeCatalog& catalog, const std::string& suite);
BenchShape shapeByName(const ShapeCatalog& catalog, const std::string& name);

// "N256 C3 224x224 K96 k11x11 s4 p2": the problem, short enough for a table column.
std::string shortProblem(const ConvProblem& problem);

}  // namespace vkconv::bench
