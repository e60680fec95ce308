// kernel-lab --device-file: the heuristic's ranking for a device described in a file (what
// `vkconv devices --json` printed on it), with no GPU and nothing run. A change to the cost
// models can so be diffed on every shape of a suite before any GPU time is spent on it:
//
//   kernel-lab --device-file bench/devices/nvidia-h200.json --suite resnet50_batch32 > before.txt
//   (edit, rebuild)
//   kernel-lab --device-file bench/devices/nvidia-h200.json --suite resnet50_batch32 > after.txt
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"

namespace vkconv::lab {

struct OfflineRequest {
    std::string deviceFile;  // a `vkconv devices --json` output, or one device object of it
    int deviceIndex = 0;     // which of the file's devices
    std::string profile;     // a shipped profile applied to the described device ("": none)
    std::string path;        // "" = the path Precision::Fast resolves to, as Conv2d's default
    size_t top = 0;          // configurations printed a problem (0: 10 for one problem, 1 for a suite)
    std::string filter;      // --filter: only the configurations it keeps, each with its rank among all
    // The problems: one (`problem`, validated) or a suite of bench/shapes.json, each of its shapes
    // at `batch` images if >= 0.
    ConvProblem problem;
    std::string suite, shapesFile, argv0;  // suite "all": every suite of the file
    int64_t batch = -1;
};

// The described device; throws vkconv::Error naming the file and the field at fault.
DeviceInfo loadDeviceFile(const std::string& file, int index);

// Prints the ranking; returns the process exit status (1 if a problem had no configuration).
int rankOffline(const OfflineRequest& request);

}  // namespace vkconv::lab
