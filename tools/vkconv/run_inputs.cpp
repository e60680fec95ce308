// Random and NumPy-file inputs for a run.
#include "run_inputs.hpp"

#include <random>
#include <thread>

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
    r.source = "random uniform [-1, 1], seed " + std::to_string(seed);
    return r;
}

RunInputs numpyInputs(const NumpyPaths& paths, const ProblemFlags& flags) {
    NpyArray x = readNpy(paths.input);
    NpyArray w = readNpy(paths.weight);
    if (x.shape.size() != 4)
        throw invalidArgument("--input " + paths.input + " shape", shapeString(x.shape),
                              "expected 4 dimensions (N, C, H, W)");
    if (w.shape.size() != 4)
        throw invalidArgument("--weight " + paths.weight + " shape", shapeString(w.shape),
                              "expected 4 dimensions (K, C/groups, R, S)");

    RunInputs r;
    ConvProblem& p = r.problem;
    p.batch = x.shape[0];
    p.inChannels = x.shape[1];
    p.height = x.shape[2];
    p.width = x.shape[3];
    p.outChannels = w.shape[0];
    p.kernelH = w.shape[2];
    p.kernelW = w.shape[3];
    p.strideH = p.strideW = 1;
    p.padH = p.padW = 0;
    p.dilationH = p.dilationW = 1;
    p.groups = 1;
    applyGeometryFlags(flags, p);
    applyEpilogueFlags(flags, p);
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
        const auto out = p.outputShape();
        if (z.shape != std::vector<int64_t>(out.begin(), out.end()))
            throw invalidArgument("--residual " + flags.residual + " shape", shapeString(z.shape),
                                  "expected the output's (N, K, OH, OW) = " +
                                      shapeString(std::vector<int64_t>(out.begin(), out.end())));
        r.residual = std::move(z.data);
        r.source += ", --residual " + flags.residual;
    }
    r.input = std::move(x.data);
    r.weight = std::move(w.data);
    return r;
}

}  // namespace vkconv::cli
