// What the tuning-cache tests on a real device start from: a Context with its own empty cache
// folder, a small problem, its weights, the fast path's ranked configurations, and one of them
// that is not the heuristic's choice (the "tuned" entry a test puts into the cache).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "temp_dir.hpp"
#include "vkconv/context.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::test {

struct TuningDeviceSetup {
    TempDir dir;
    Context context;
    ConvProblem problem = smallCacheProblem();
    std::vector<float> weight = std::vector<float>(size_t(problem.weightElements()), 0.5f);
    std::vector<float> bias = std::vector<float>(8, 0.25f);
    Path path;
    std::vector<RankedConfig> ranked;

    explicit TuningDeviceSetup(int deviceIndex)
        : context(options(deviceIndex, dir.path())),
          path(resolvePath(Precision::Fast, context.device(), problem)),
          ranked(rankConfigs(path, context.device(), problem)) {}

    // Not the heuristic's choice; the caller checks ranked.size() >= 2 first.
    const KernelConfig& tuned() const { return ranked[1].config; }

private:
    static ContextOptions options(int deviceIndex, const std::string& cacheDir) {
        ContextOptions o;
        o.deviceIndex = deviceIndex;
        o.cacheDir = cacheDir;
        return o;
    }
    static ConvProblem smallCacheProblem() {
        ConvProblem p;
        p.batch = 1, p.inChannels = 3, p.height = p.width = 16, p.outChannels = 8;
        p.kernelH = p.kernelW = 3;
        return p;
    }
};

}  // namespace vkconv::test
