// The command-line flags that describe one conv2d problem (sizes, kernel, stride, padding,
// dilation, groups, bias), shared by every command that runs problems (`vkconv run`, `vkconv
// sweep`, `vkconv-bench`): each calls addProblemFlags() on its CLI11 app and buildProblem()
// after parsing.
//
// Their meaning, the same everywhere:
// - No problem flag at all (or only --batch): alexnet1.
// - Any other problem flag: a problem of the user's own, which needs --in-channels, --height,
//   --width, --out-channels and --kernel (PyTorch's conv2d has no default for them either; a
//   missing one is an error that names it). --stride, --padding, --dilation and --groups default
//   to PyTorch's 1, 0, 1 and 1, and the bias is on unless --no-bias is given. Nothing is taken
//   from alexnet1.
// - --batch replaces the batch of whichever problem runs; without it each command keeps its own
//   default batch (the caller's `defaultBatch`).
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
    // The fused epilogue (include/vkconv/epilogue.hpp), which any problem may take, named shapes
    // and alexnet1 included: --activation, --alpha, --beta, --clamp LO,HI, --slope, --residual
    // [FILE] (random values without a file; a NumPy file in NumPy mode).
    std::string activation, alpha, beta, clamp, slope, residual;
    // The tensors' element type and layout (include/vkconv/tensor_format.hpp): --dtype f32|f16
    // and --layout nchw|nhwc for input, output and residual alike.
    std::string dtype, layout;
    bool bf16Bits = false;  // --bf16-bits: NumPy mode's bf16 files hold raw 16-bit patterns ('<u2')

    // Whether the user gave the flag (e.g. "--batch"); filled by addProblemFlags.
    bool given(const std::string& flag) const;
    // The shape flags (sizes and --kernel) the user gave, e.g. {"--batch", "--kernel"}.
    std::vector<std::string> givenShapeFlags() const;
    // Every problem flag the user gave except --batch: what describes a problem of their own.
    std::vector<std::string> givenOwnProblemFlags() const;
    // Whether the flags describe a problem of the user's own (any problem flag but --batch).
    bool ownProblem() const { return !givenOwnProblemFlags().empty(); }

    std::map<std::string, CLI::Option*> options;
};

// Adds --batch --in-channels --height --width --out-channels --kernel --stride --padding
// --dilation --groups --no-bias, --dtype --layout and the epilogue's flags to `command`, bound to `flags` (which
// must outlive parsing).
// `batchHelp` describes the default batch of this command.
void addProblemFlags(CLI::App& command, ProblemFlags& flags, const std::string& batchHelp);

// The problem the flags describe (see the top of this file), `defaultBatch` images when --batch
// is absent. Validated: throws vkconv::Error naming the bad or missing field and value.
ConvProblem buildProblem(const ProblemFlags& flags, int64_t defaultBatch);

// --seed: a decimal integer in 0..2^64-1, exactly (CLI11's own conversion wraps -1 and rounds
// 1e23 into range); anything else is refused naming the value.
void addSeedOption(CLI::App& command, uint64_t& seed);

// --batch if given (parsed, >= 1), else `fallback`.
int64_t batchOr(const ProblemFlags& flags, int64_t fallback);

// Refuses any problem flag but --batch: a named shape or suite (`what`, e.g. "--shape
// resnet50_conv1") sets every other field.
void requireOnlyBatch(const ProblemFlags& flags, const std::string& what);

// Where the problem's fields came from, e.g. "alexnet1: no problem flag given" or "your flags;
// torch's defaults: stride 1, padding 0 and bias on" (the fields not given).
std::string describeProblemSource(const ProblemFlags& flags);

// Applies only --stride --padding --dilation --groups (the geometry a tensor's shape does not
// carry) to `problem`, whose sizes come from elsewhere (NumPy files). Does not validate.
void applyGeometryFlags(const ProblemFlags& flags, ConvProblem& problem);

// Applies the tensors' flags (--dtype, --layout) and the epilogue's to `problem` (buildProblem
// does; named shapes and NumPy mode call it themselves). Throws vkconv::Error naming a malformed
// flag; Epilogue::validate the rest.
void applyTensorFlags(const ProblemFlags& flags, ConvProblem& problem);

// For sizes that come from elsewhere (NumPy files): every shape flag given must agree with
// `problem`; throws vkconv::Error naming the flag, its value and `source`'s otherwise.
void checkShapeFlagsAgree(const ProblemFlags& flags, const ConvProblem& problem, const std::string& source);

}  // namespace vkconv::cli
