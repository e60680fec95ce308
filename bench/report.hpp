// What the benchmark prints and writes: a table for people, a JSON file for scripts.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench_shape.hpp"
#include "vkconv/copy_bandwidth.hpp"
#include "vkconv/device_info.hpp"

namespace vkconv::bench {

struct RunInfo {
    std::string commit;      // vkconv's git commit at build time
    std::string date;        // UTC, ISO 8601
    std::string commandLine;
    std::string shapesFile;
    std::string selection;   // "suite alexnet1", "shape NAME", "custom"
    std::string precision;
    DeviceInfo device;
    CopyBandwidth copy;
    int warmup = 0, iterations = 0;
    bool meetsRunMinimums = true;  // warm-up >= 5 and >= 50 timed runs
};

const char* gitCommit();   // from the generated build-info header

void printTable(std::ostream& out, const std::vector<ShapeResult>& results);

// Writes the whole run; throws vkconv::Error(Io) if the file cannot be written.
void writeJson(const std::string& path, const RunInfo& run, const std::vector<ShapeResult>& results);

}  // namespace vkconv::bench
