// vkconv-bench --network resnet50: ResNet-50's trunk (bench/resnet50.hpp) planned, recorded as one
// Sequence and timed by its GPU timestamps, with its host costs (planning the 53 Conv2ds,
// recording the Sequence, submitting it again), its first image checked against the chain of
// double references.
#pragma once

#include <string>

#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"

namespace vkconv::bench {

struct NetworkSettings {
    std::string network = "resnet50";
    int64_t batch = 32, image = 224;
    TensorFormat format{DataType::F16, Layout::NHWC};
    Precision precision = Precision::Fast;
    int warmup = 10, iterations = 100;
    double warmupMs = 500;
    bool check = true;  // the first image against the reference chain
    std::string commandLine, json;
};

// Prints the figures and writes them to settings.json if set. Returns 0, or 1 when the check
// failed (no time is reported then).
int benchNetwork(const Context& context, const NetworkSettings& settings);

}  // namespace vkconv::bench
