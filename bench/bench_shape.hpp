// One shape, end to end: random data, plan, a correctness check against the CPU reference, and
// (only if the result is right) the timed runs and the figures derived from them.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "shapes.hpp"
#include "stats.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::bench {

struct BenchSettings {
    Precision precision = Precision::Fast;
    int warmup = 10;
    double warmupMs = TimingOptions{}.warmupMs;  // the kernel back to back first, so the GPU's clocks are up
    int iterations = 100;
    int checkImages = 2;        // the first and the last image of the batch (1: the first only)
    double copyGbps = 0;        // measured copy bandwidth (read + write): the memory floor
    bool cpuDevice = false;
    uint64_t gpuMinIoBytes = 0; // warn when a non-latency shape's input + output is smaller (GPU)
};

enum class Status { Ok, Wrong, Unsupported, Failed };
const char* toString(Status status);

// `count` values uniform in [-1, 1) from `seed` (splitmix64): the benchmark's inputs.
std::vector<float> randomData(size_t count, uint64_t seed);

struct ShapeResult {
    BenchShape shape;  // with the batch actually run
    Status status = Status::Failed;
    std::string message;  // why it is not Ok, or a warning
    std::string config, describe;
    double inputBytes = 0, outputBytes = 0, weightBytes = 0;
    bool fitsInCache = false;  // GPU, not a latency shape, input + output below gpuMinIoBytes

    std::vector<int64_t> checkedImages;
    double relError = 0, errorBound = 0;

    TimingSummary timing;       // only when status is Ok
    double tflops = 0;          // flops() / median
    double gbps = 0;            // minBytes() / median, 1e9 bytes per second
    double floorMs = 0;         // minBytes() / copy bandwidth: the time a perfect copy would take
    double xFloor = 0;          // median / floorMs
};

// Never throws for a failure of the shape itself: it is recorded in the result.
ShapeResult benchShape(const Context& context, const BenchShape& shape,
                       const BenchSettings& settings, std::ostream& log);

}  // namespace vkconv::bench
