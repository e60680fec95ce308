// Random and NumPy-file inputs for a run.
#include "run_inputs.hpp"

#include <array>
#include <random>
#include <thread>
#include <utility>

#include "npy.hpp"
#include "vkconv/error.hpp"

namespace vkconv::cli {

namespace {

// Fills `out` with uniform [-1, 1) values. Each block of values has its own generator seeded from
// (seed, stream, block), so the values do not depend on the thread count, and big inputs
// (alexnet1 at batch 256 is 38.5M values) fill on every core.
void fillUniform(std::vector<float>& out, uint64_t seed, uint64_t stream) {
    constexpr size_t kBlock = 1 << 16;
    const size_t blocks = (out.size() + kBlock - 1) / kBlock;
    auto fillBlocks = [&](size_t first, size_t step) {
        for (size_t b = first; b < blocks; b += step) {
            std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(stream), uint32_t(b)};
            std::mt19937 gen(seq);
            std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
            const size_t end = std::min(out.size(), (b + 1) * kBlock);
            for (size_t i = b * kBlock; i < end; ++i) out[i] = uniform(gen);
        }
    };
    const size_t threads = std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), blocks));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(fillBlocks, t, threads);
    fillBlocks(0, threads);
    for (auto& t : pool) t.join();
}

}  // namespace

RunInputs randomInputs(const ConvProblem& problem, uint64_t seed) {
    RunInputs r;
    r.problem = problem;
    r.input.resize(size_t(problem.inputElements()));
    r.weight.resize(size_t(problem.weightElements()));
    if (problem.bias) r.bias.resize(size_t(problem.outChannels));
    fillUniform(r.input, seed, 0);
    fillUniform(r.weight, seed, 1);
    fillUniform(r.bias, seed, 2);
    if (problem.epilogue.residual) {
        r.residual.resize(size_t(problem.outputElements()));
        fillUniform(r.residual, seed, 3);
    }
    r.input = heldAs(std::move(r.input), problem.inputFormat.type);
    r.residual = heldAs(std::move(r.residual), problem.outputFormat.type);
    r.source = "random uniform [-1, 1], seed " + std::to_string(seed);
    return r;
}

RunInputs numpyInputs(const NumpyPaths& paths, const ProblemFlags& flags) {
    NpyArray x = readNpy(paths.input);
    NpyArray w = readNpy(paths.weight);
    const bool nhwc = flags.given("--layout") && layoutFromString(flags.layout, "--layout") == Layout::NHWC;
    if (x.shape.size() != 4)
        throw invalidArgument("--input " + paths.input + " shape", shapeString(x.shape),
                              nhwc ? "expected 4 dimensions (N, H, W, C) with --layout nhwc" : "expected 4 dimensions (N, C, H, W)");
    // With --layout nhwc the activation files are (N, H, W, C): the logical shape and NCHW order
    // here, the file's order again when the tensors are uploaded.
    const std::array<int64_t, 4> xShape = nhwc ? std::array<int64_t, 4>{x.shape[0], x.shape[3], x.shape[1], x.shape[2]}
                                               : std::array<int64_t, 4>{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
    if (w.shape.size() != 4)
        throw invalidArgument("--weight " + paths.weight + " shape", shapeString(w.shape),
                              "expected 4 dimensions (K, C/groups, R, S)");

    RunInputs r;
    ConvProblem& p = r.problem;
    p.batch = xShape[0];
    p.inChannels = xShape[1];
    p.height = xShape[2];
    p.width = xShape[3];
    p.outChannels = w.shape[0];
    p.kernelH = w.shape[2];
    p.kernelW = w.shape[3];
    p.strideH = p.strideW = 1;
    p.padH = p.padW = 0;
    p.dilationH = p.dilationW = 1;
    p.groups = 1;
    applyGeometryFlags(flags, p);
    // The tensors' type: --dtype, else the input file's. bfloat16 bit patterns only on request.
    for (const NpyArray* a : {&x, &w})
        if (a->dtype == DataType::BF16 && !flags.bf16Bits)
            throw invalidArgument(std::string(a == &x ? "--input " + paths.input : "--weight " + paths.weight) + ": dtype",
                                  "'<u2'", "16-bit integers; read them as bfloat16 bit patterns with --bf16-bits");
    if (x.dtype != DataType::F32) p.inputFormat.type = p.outputFormat.type = x.dtype;
    applyTensorFlags(flags, p);
    p.bias = !paths.bias.empty();
    checkShapeFlagsAgree(flags, p, "the .npy files (--input " + paths.input + " shape " + shapeString(x.shape) +
                                       ", --weight " + paths.weight + " shape " + shapeString(w.shape) + ")");
    // validate() first: it names the cause when groups does not divide X's channels, which would
    // otherwise surface as a confusing weight-shape mismatch.
    p.validate();
    if (w.shape[1] * p.groups != p.inChannels)
        throw invalidArgument("--weight " + paths.weight + " shape[1] (C per group)", w.shape[1],
                              "expected the input's C / groups = " + std::to_string(p.inChannels) +
                                  " / " + std::to_string(p.groups) + " = " +
                                  std::to_string(p.inChannels / p.groups) + " (input " +
                                  paths.input + " shape " + shapeString(x.shape) + ")");
    r.source = "--input " + paths.input + ", --weight " + paths.weight;
    if (p.bias) {
        NpyArray b = readNpy(paths.bias);
        if (b.shape != std::vector<int64_t>{p.outChannels})
            throw invalidArgument("--bias " + paths.bias + " shape", shapeString(b.shape),
                                  "expected (K,) = (" + std::to_string(p.outChannels) +
                                      ",), K from the weight's shape[0]");
        r.bias = std::move(b.data);
        r.source += ", --bias " + paths.bias;
    }
    if (p.epilogue.residual) {
        if (flags.residual.empty())
            throw invalidArgument("--residual", "given without a file", "NumPy mode reads the residual from Z.npy (N, K, OH, OW)");
        NpyArray z = readNpy(flags.residual);
        if (z.dtype == DataType::BF16 && !flags.bf16Bits)
            throw invalidArgument("--residual " + flags.residual + ": dtype", "'<u2'",
                                  "16-bit integers; read them as bfloat16 bit patterns with --bf16-bits");
        const auto out = p.outputShape();
        const std::vector<int64_t> want = nhwc ? std::vector<int64_t>{out[0], out[2], out[3], out[1]}
                                               : std::vector<int64_t>(out.begin(), out.end());
        if (z.shape != want)
            throw invalidArgument("--residual " + flags.residual + " shape", shapeString(z.shape),
                                  std::string("expected the output's ") + (nhwc ? "(N, OH, OW, K)" : "(N, K, OH, OW)") +
                                      " = " + shapeString(want));
        r.residual = relayout(z.data.data(), z.data.size(), out, p.outputFormat.layout, Layout::NCHW);
        r.residual = heldAs(std::move(r.residual), p.outputFormat.type);
        r.source += ", --residual " + flags.residual;
    }
    r.input = relayout(x.data.data(), x.data.size(), xShape, p.inputFormat.layout, Layout::NCHW);
    r.input = heldAs(std::move(r.input), p.inputFormat.type);
    if (x.dtype != p.inputFormat.type)
        r.source += " (" + std::string(toString(x.dtype)) + " values as the " + toString(p.inputFormat.type) +
                    " tensor holds them)";
    r.weight = std::move(w.data);
    return r;
}

}  // namespace vkconv::cli
