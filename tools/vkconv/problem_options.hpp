// The command-line flags that describe one conv2d problem (sizes, kernel, stride, padding,
// dilation, groups, bias). Shared by every subcommand that runs problems (`run`, `sweep`): each
// calls addProblemFlags() on its CLI11 subcommand and buildProblem() after parsing.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv::cli {

struct ProblemFlags {
    // Kept as text and parsed by buildProblem, so that every malformed value ("abc", "3,3,3",
    // a number out of range) gets the same kind of message naming the flag.
    std::string batch, inChannels, height, width, outChannels, groups;
    std::string kernel, stride, padding, dilation;  // "A" or "A,B"
    bool noBias = false;

    // Whether the user gave the flag (e.g. "--batch"); filled by addProblemFlags.
    bool given(const std::string& flag) const;
    // The shape flags (sizes and --kernel) the user gave, e.g. {"--batch", "--kernel"}: NumPy
    // mode refuses them, as the shapes come from the files there.
    std::vector<std::string> givenShapeFlags() const;

    std::map<std::string, CLI::Option*> options;
};

// Adds --batch --in-channels --height --width --out-channels --kernel --stride --padding
// --dilation --groups --no-bias to `command`, bound to `flags` (which must outlive parsing).
void addProblemFlags(CLI::App& command, ProblemFlags& flags);

// The problem the flags describe: alexnet1 with every given flag applied, `defaultBatch` images
// when --batch is absent. Validated: throws vkconv::Error naming the bad field and value.
ConvProblem buildProblem(const ProblemFlags& flags, int64_t defaultBatch);

// Applies only --stride --padding --dilation --groups (the geometry a tensor's shape does not
// carry) to `problem`, whose sizes come from elsewhere (NumPy files). Does not validate.
void applyGeometryFlags(const ProblemFlags& flags, ConvProblem& problem);

}  // namespace vkconv::cli
