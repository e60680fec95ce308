// Building many configurations' pipelines at once: `vkconv sweep --jobs` and `kernel-lab --jobs`
// build every candidate before they time any. NVIDIA's driver takes 0.1-20 s to build one of
// these pipelines on one thread, and builds several at once on several threads; a Conv2d built
// later with the same configuration takes its pipelines from the context's pipeline cache in
// milliseconds.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "vkconv/context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::bench {

// Plans a Conv2d of each of `configs` on `jobs` threads and drops it. Returns each build's
// milliseconds, negative where it failed: a later Conv2d of that configuration fails again and
// says why.
inline std::vector<double> buildOnThreads(const Context& context, const ConvProblem& problem,
                                          const std::vector<float>& weight, const std::vector<float>& bias,
                                          const std::vector<KernelConfig>& configs, unsigned jobs) {
    std::vector<double> planMs(configs.size(), -1.0);
    std::atomic<size_t> next{0};
    const auto build = [&] {
        for (size_t i = next++; i < configs.size(); i = next++) {
            try {
                ConvOptions options;
                options.config = configs[i];
                const auto start = std::chrono::steady_clock::now();
                Conv2d conv(context, problem, weight, bias, options);
                planMs[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            } catch (const std::exception&) {
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t j = 1; j < std::min<size_t>(jobs, configs.size()); ++j) threads.emplace_back(build);
    build();
    for (auto& t : threads) t.join();
    return planMs;
}

}  // namespace vkconv::bench
