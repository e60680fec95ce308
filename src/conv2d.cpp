// Conv2d: plans a convolution (path, configuration, chunks), packs the weights once, and
// records its dispatches.
#include "vkconv/conv2d.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "buffer.hpp"
#include "config_select.hpp"
#include "conv_plan.hpp"
#include "grouped_direct.hpp"
#include "kernels.hpp"
#include "nchw_input.hpp"
#include "nhwc_input.hpp"
#include "packed_input.hpp"
#include "pipeline.hpp"
#include "split_k.hpp"
#include "tensor_impl.hpp"
#include "timestamps.hpp"
#include "tuning_cache.hpp"

namespace vkconv {
namespace detail {

struct Conv2dImpl {
    std::shared_ptr<ContextImpl> context;
    ConvProblem problem;
    KernelConfig config;
    std::string why;  // how the path and configuration were chosen
    ExecutionPlan plan;
    std::shared_ptr<ComputePipeline> pipeline;
    Buffer weights, bias;
    uint64_t uniformWeightBytes = 0;  // PreparedKernel::uniformWeightBytes

    // Packed loader only: the pass that packs each chunk's input into `packedInput` before the
    // conv reads it, its grid per chunk, and its descriptor sets.
    std::shared_ptr<ComputePipeline> packPipeline;
    Buffer packedInput;
    std::vector<std::array<uint32_t, 2>> packGrid;

    // Split-K only: the pass that adds each chunk's partial sums (which the conv writes to
    // `partials` in place of the output) into the output, and its workgroups per chunk.
    std::shared_ptr<ComputePipeline> reducePipeline;
    Buffer partials;
    std::vector<uint32_t> reduceGroups;

    // Descriptor sets for the last (input, output) pair; rebuilt when the tensors change.
    UniqueDescriptorPool pool;
    LiveToken poolLive;
    std::vector<VkDescriptorSet> sets, packSets, reduceSets;
    uint64_t boundInput = 0, boundOutput = 0;

    // Checks the tensors against the problem and binds them (descriptor sets per chunk).
    void prepare(const Tensor& input, const Tensor& output);
    void bindTensors(const TensorImpl& input, const TensorImpl& output);
    void record(VkCommandBuffer cmd) const;
};

void Conv2dImpl::bindTensors(const TensorImpl& input, const TensorImpl& output) {
    if (!sets.empty() && boundInput == input.id && boundOutput == output.id) return;
    VkDevice device = context->device;
    const bool packed = packPipeline != nullptr, split = reducePipeline != nullptr;
    const uint32_t setsPerChunk = 1 + (packed ? 1 : 0) + (split ? 1 : 0);
    if (!pool) {
        const uint32_t n = static_cast<uint32_t>(plan.chunks.size()) * setsPerChunk;
        pool = context->pipelines().makeDescriptorPool(n);
        poolLive = LiveToken(context->live.descriptorPools);
    } else {
        VKCONV_CHECK(vkResetDescriptorPool(device, pool.get(), 0));
    }
    const size_t chunks = plan.chunks.size();
    std::vector<VkDescriptorSet> all(chunks * setsPerChunk, VK_NULL_HANDLE);
    std::vector<VkDescriptorSetLayout> layouts(all.size(), context->pipelines().setLayout());
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool.get();
    alloc.descriptorSetCount = static_cast<uint32_t>(all.size());
    alloc.pSetLayouts = layouts.data();
    VKCONV_CHECK(vkAllocateDescriptorSets(device, &alloc, all.data()));
    sets.assign(all.begin(), all.begin() + chunks);
    packSets.assign(all.begin() + chunks, all.begin() + chunks * (packed ? 2 : 1));
    reduceSets.assign(all.begin() + chunks * (packed ? 2 : 1), all.end());

    // The weights as a uniform buffer too (binding 4), written only where the kernel reads them so.
    const VkDescriptorBufferInfo uniformWeights{weights.handle(), 0, uniformWeightBytes};
    auto write = [&](VkDescriptorSet set, const VkDescriptorBufferInfo (&infos)[4]) {
        VkWriteDescriptorSet writes[5];
        for (uint32_t b = 0; b < 5; ++b) {
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = set;
            writes[b].dstBinding = b;
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = b < 4 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
            writes[b].pBufferInfo = b < 4 ? &infos[b] : &uniformWeights;
        }
        vkUpdateDescriptorSets(device, uniformWeightBytes ? 5 : 4, writes, 0, nullptr);
    };
    for (size_t i = 0; i < chunks; ++i) {
        const ChunkBinding& chunk = plan.chunks[i];
        const VkDescriptorBufferInfo inputInfo{input.buffer.handle(), chunk.input.offset, chunk.input.range};
        const VkDescriptorBufferInfo packedInfo{packedInput.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo weightInfo{weights.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo biasInfo{bias.handle(), 0, VK_WHOLE_SIZE};
        const VkDescriptorBufferInfo outputInfo{output.buffer.handle(), chunk.output.offset, chunk.output.range};
        const VkDescriptorBufferInfo partialsInfo{partials.handle(), 0, VK_WHOLE_SIZE};
        // The packing pass reads the chunk's input (binding 0) and writes the packed input
        // (binding 3); the conv then reads the packed input in its place. With split-K the conv
        // writes the partials (binding 3), and the reduce pass reads them (binding 0) and writes
        // the output.
        write(sets[i], {packed ? packedInfo : inputInfo, weightInfo, biasInfo, split ? partialsInfo : outputInfo});
        if (packed) write(packSets[i], {inputInfo, weightInfo, biasInfo, packedInfo});
        if (split) write(reduceSets[i], {partialsInfo, weightInfo, biasInfo, outputInfo});
    }
    boundInput = input.id;
    boundOutput = output.id;
}

void Conv2dImpl::record(VkCommandBuffer cmd) const {
    PipelineCache& pipelines = context->pipelines();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
    uint32_t boundChunk = UINT32_MAX;
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const Dispatch& d = plan.dispatches[i];
        if (packPipeline && d.chunk != boundChunk) {
            // Pack this chunk's input. The barrier before it keeps the previous chunk's conv
            // reads ahead of the overwrite; the one after makes the packed input visible.
            if (boundChunk != UINT32_MAX) barrierBeforeCompute(cmd);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, packPipeline->handle());
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1,
                                    &packSets[d.chunk], 0, nullptr);
            vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               sizeof(ChunkParams), &d.params);
            vkCmdDispatch(cmd, packGrid[d.chunk][0], packGrid[d.chunk][1], 1);
            barrierBeforeCompute(cmd);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
        }
        if (packPipeline && (config.debugSkip & 8u)) {  // diagnostics: time the packing alone
            boundChunk = d.chunk;
            continue;
        }
        if (d.chunk != boundChunk) {
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1,
                                    &sets[d.chunk], 0, nullptr);
            boundChunk = d.chunk;
        }
        vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           sizeof(ChunkParams), &d.params);
        vkCmdDispatch(cmd, d.groupsX, d.groupsY, d.groupsZ);
        const bool lastOfChunk = i + 1 == plan.dispatches.size() || plan.dispatches[i + 1].chunk != d.chunk;
        if (reducePipeline && lastOfChunk) {
            // Split-K: once every split of the chunk is written, add them into the output. The
            // barrier after it keeps the next chunk's partial stores behind this pass's reads.
            barrierBeforeCompute(cmd);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, reducePipeline->handle());
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.layout(), 0, 1,
                                    &reduceSets[d.chunk], 0, nullptr);
            vkCmdPushConstants(cmd, pipelines.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               sizeof(ChunkParams), &d.params);
            vkCmdDispatch(cmd, reduceGroups[d.chunk], 1, 1);
            if (i + 1 < plan.dispatches.size()) {
                barrierBeforeCompute(cmd);
                vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
                boundChunk = UINT32_MAX;  // the next chunk binds its own set
            }
        }
    }
}

namespace {

std::string shapeString(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
    o << "]";
    return o.str();
}

void checkTensor(const char* field, const TensorImpl& t, const std::array<int64_t, 4>& want,
                 const ContextImpl* context) {
    std::vector<int64_t> expected(want.begin(), want.end());
    if (t.shape != expected)
        throw invalidArgument(std::string(field) + " shape", shapeString(t.shape),
                              "expected " + shapeString(expected));
    if (t.context.get() != context)
        throw invalidArgument(field, "tensor", "belongs to another Context");
}

}  // namespace

// The chunks and dispatches of `c` (a configuration canImplement accepted) for the problem.
ExecutionPlan planFor(const ConvProblem& problem, const DeviceInfo& device, const KernelConfig& c) {
    // What each loader needs of the plan: its tile, its tiles per image, and the workspace its
    // packing pass writes per image (and past the last).
    uint32_t tileM = c.bm, tileN = c.bn, tilesPerImage = 0, groupsPerWorkgroup = 1;
    uint64_t workspacePerImage = 0, workspaceTail = 0;
    if (c.groupedDirect()) {
        const GroupedDirectTile direct = groupedDirectTile(c, problem);
        tileM = uint32_t(direct.outH * direct.outW), tileN = c.directChannels;
        tilesPerImage = groupedDirectTilesPerImage(c, problem);
        groupsPerWorkgroup = c.directGroups * c.directGroupSteps;
    } else if (c.path != Path::Fp32 && c.aLoader == ALoader::Packed) {
        const PackedInputLayout layout = packedInputLayout(problem, c.bm, c.bk, c.mmaK);
        tilesPerImage = layout.tilesPerImage;
        workspacePerImage = layout.imageHalves() * 2;
        workspaceTail = layout.tailHalves(c.bm) * 2;
    } else if (c.path != Path::Fp32 && c.aLoader == ALoader::Nhwc) {
        workspacePerImage = nhwcImageBytes(problem, c.bk);
    }
    ExecutionPlan plan = planExecution(problem, device, tileM, tileN, tilesPerImage, workspacePerImage, workspaceTail,
                                       c.tilesPerWorkgroup, groupsPerWorkgroup);
    if (c.splitK > 1) {
        // Split-K: the splits along Z (the channels-last kernels have one group, so one
        // workgroup there before); canImplement held splitK within the grid's Z and the partials
        // of every image within one buffer range.
        for (Dispatch& d : plan.dispatches) {
            if (uint64_t(d.groupsZ) * c.splitK > device.maxWorkGroupCount[2])
                throw Error(Error::Kind::Unsupported, c.str() + ": " + std::to_string(d.groupsZ) + " x splitK workgroups exceed maxComputeWorkGroupCount[2]");
            d.groupsZ *= c.splitK;
        }
        plan.partialsBytes = splitKWorkspaceBytes(c, problem, plan.imagesPerChunk);
    }
    return plan;
}

void Conv2dImpl::prepare(const Tensor& input, const Tensor& output) {
    checkTensor("input", input.impl(), problem.inputShape(), context.get());
    checkTensor("output", output.impl(), problem.outputShape(), context.get());
    // The kernels read the input while other workgroups write the output: the same tensor for
    // both would race and give a silently wrong result.
    if (input.impl().id == output.impl().id)
        throw invalidArgument("output", "the input tensor", "must be a different tensor from the input (no in-place conv)");
    bindTensors(input.impl(), output.impl());
}

}  // namespace detail

Conv2d::Conv2d(const Context& context, const ConvProblem& problem, const std::vector<float>& weight,
               const std::vector<float>& bias, const ConvOptions& options)
    : Conv2d(context, problem, [&] {
          problem.validate();
          if (int64_t(weight.size()) != problem.weightElements())
              throw invalidArgument("weight size", weight.size(),
                                    "expected " + std::to_string(problem.weightElements()) +
                                        " floats (KCRS)");
          if (problem.bias && int64_t(bias.size()) != problem.outChannels)
              throw invalidArgument("bias size", bias.size(),
                                    "expected " + std::to_string(problem.outChannels) + " floats");
          if (!problem.bias && !bias.empty())
              throw invalidArgument("bias size", bias.size(), "problem has bias off; pass none");
          return weight.data();
      }(), problem.bias ? bias.data() : nullptr, options) {}

Conv2d::Conv2d(const Context& context, const ConvProblem& problem, const float* weight,
               const float* bias, const ConvOptions& options)
    : impl_(std::make_unique<detail::Conv2dImpl>()) {
    using namespace detail;
    problem.validate();
    if (!weight) throw invalidArgument("weight", "null", "weights are required");
    if (problem.bias && !bias) throw invalidArgument("bias", "null", "problem has bias on");
    auto& impl = *impl_;
    impl.context = context.impl();
    impl.problem = problem;
    const DeviceInfo& device = impl.context->info;

    if (options.config) {
        impl.config = *options.config;
        if (std::string why = canImplement(impl.config, device, problem); !why.empty())
            throw invalidArgument("config", impl.config.str(), why);
        impl.why = "configuration given by the caller";
    } else {
        PathChoice path = choosePath(options.precision, device, problem);
        const TuningLookup tuned = options.useTuningCache
                                       ? lookupTuning(impl.context->cacheDir, device, problem, path.path)
                                       : TuningLookup{};
        std::string note = tuned.note;
        if (tuned.entry) {
            // A cached configuration passed canImplement; one the planner still refuses (a limit
            // canImplement does not see) gives way to the heuristic, as any unusable entry does.
            try {
                impl.plan = planFor(problem, device, tuned.entry->config);
                impl.config = tuned.entry->config;
                impl.why = path.why + "; configuration from the tuning cache (" + describeTuningEntry(*tuned.entry) + ")";
            } catch (const Error& e) {
                note = "tuning cache entry " + tuned.entry->config.str() + " cannot be planned here (" + e.what() + "); ignored";
            }
        }
        if (impl.why.empty()) {
            impl.config = selectConfig(path.path, device, problem).config;
            impl.why = path.why + "; configuration by heuristic" +
                       (options.useTuningCache ? "" : " (tuning cache off)") +
                       (note.empty() ? "" : " (" + note + ")");
        }
    }

    const KernelConfig& c = impl.config;
    // The packed weights (at least every weight, in the operand type) are bound as one range:
    // refuse before packing them, which would otherwise allocate that much host memory first.
    const uint64_t weightBytes = uint64_t(problem.weightElements()) * (c.path == Path::Fp32 ? 4 : 2);
    if (weightBytes > std::min<uint64_t>(device.maxStorageBufferRange, 1ull << 31))
        throw Error(Error::Kind::Unsupported,
                    "the weights (" + std::to_string(problem.weightElements()) + " elements, at least " +
                        std::to_string(weightBytes) + " bytes packed) exceed the device's maxStorageBufferRange (" +
                        std::to_string(device.maxStorageBufferRange) + ")");
    impl.plan = planFor(problem, device, c);
    if (c.groupedDirect()) impl.why += "; " + groupedDirectNote(problem);
    PreparedKernel kernel = c.groupedDirect()              ? prepareGroupedDirectKernel(problem, c, device, weight)
                            : c.path == Path::Fp32         ? prepareFp32Kernel(problem, c, weight)
                            : c.aLoader == ALoader::Packed ? preparePackedCoopMatKernel(problem, c, weight)
                            : c.aLoader == ALoader::Nhwc   ? prepareNhwcCoopMatKernel(problem, c, weight)
                            : c.aLoader == ALoader::Nchw   ? prepareNchwCoopMatKernel(problem, c, weight)
                                                           : prepareCoopMatKernel(problem, c, weight);
    if (kernel.packInput) {
        impl.packPipeline = impl.context->pipelines().get(*kernel.packInput);
        // The tail past the last image is read only by outputs that are thrown away; zero it once
        // so that those reads are finite and defined.
        impl.packedInput = Buffer(*impl.context, (impl.plan.workspaceBytes + 15) / 16 * 16, Buffer::Kind::DeviceLocal);
        fillBuffer(*impl.context, impl.packedInput, 0);
        for (size_t i = 0; i < impl.plan.chunks.size(); ++i) {
            const uint64_t images = impl.plan.chunkImages(i, problem.batch);
            const uint64_t groups = kernel.packWorkgroups(images);
            const uint64_t x = std::min<uint64_t>(groups, device.maxWorkGroupCount[0]);
            const uint64_t y = (groups + x - 1) / x;
            if (y > device.maxWorkGroupCount[1])
                throw Error(Error::Kind::Unsupported, "packing the input needs " + std::to_string(groups) +
                                                          " workgroups, more than the device's grid holds");
            impl.packGrid.push_back({uint32_t(x), uint32_t(y)});
        }
    }
    if (c.splitK > 1) {
        impl.reducePipeline = impl.context->pipelines().get(splitKReducePipeline(c, problem));
        // Every value of it is written by a split before the reduce pass reads it.
        impl.partials = Buffer(*impl.context, (impl.plan.partialsBytes + 15) / 16 * 16, Buffer::Kind::DeviceLocal);
        const uint64_t imageValues = uint64_t(problem.outChannels) * problem.outHeight() * problem.outWidth();
        for (size_t i = 0; i < impl.plan.chunks.size(); ++i) {
            const uint64_t images = impl.plan.chunkImages(i, problem.batch);
            impl.reduceGroups.push_back(splitKReduceWorkgroups(images * imageValues, device));
        }
    }
    // Ask for the configuration's subgroup size only where the device lets us choose; elsewhere
    // can_implement has already checked that the device's only size is the configured one.
    kernel.pipeline.requiredSubgroupSize =
        device.subgroupSizeControl
            ? (impl.config.subgroupSize ? impl.config.subgroupSize
               : device.subgroupSize != impl.context->hardware.subgroupSize ? device.subgroupSize : 0)
            : 0;
    kernel.pipeline.fullSubgroups &= device.computeFullSubgroups;
    if (kernel.packedWeights.size() > std::min<uint64_t>(device.maxStorageBufferRange, 1ull << 31))
        throw Error(Error::Kind::Unsupported,
                    "packed weights (" + std::to_string(kernel.packedWeights.size()) +
                        " bytes) exceed the device's maxStorageBufferRange (" +
                        std::to_string(device.maxStorageBufferRange) + ")");
    impl.pipeline = impl.context->pipelines().get(kernel.pipeline);
    impl.weights = Buffer(*impl.context, kernel.packedWeights.size(), Buffer::Kind::DeviceLocal);
    impl.uniformWeightBytes = kernel.uniformWeightBytes;
    uploadToBuffer(*impl.context, impl.weights, 0, kernel.packedWeights.data(), kernel.packedWeights.size());
    impl.bias = Buffer(*impl.context, std::max<uint64_t>(problem.outChannels, 1) * 4, Buffer::Kind::DeviceLocal);
    if (problem.bias)
        uploadToBuffer(*impl.context, impl.bias, 0, bias, problem.outChannels * sizeof(float));
    else
        fillBuffer(*impl.context, impl.bias, 0);
}

Conv2d::~Conv2d() = default;
Conv2d::Conv2d(Conv2d&&) noexcept = default;
Conv2d& Conv2d::operator=(Conv2d&&) noexcept = default;

void Conv2d::run(const Tensor& input, Tensor& output) {
    using namespace detail;
    auto& impl = *impl_;
    impl.prepare(input, output);
    impl.context->submitAndWait([&](VkCommandBuffer cmd) {
        barrierBeforeCompute(cmd);
        impl.record(cmd);
    });
}

std::vector<double> Conv2d::time(const Tensor& input, Tensor& output, int warmup, int iterations) {
    TimingOptions options;
    options.warmupRuns = warmup;
    options.iterations = iterations;
    return time(input, output, options);
}

std::vector<double> Conv2d::time(const Tensor& input, Tensor& output, const TimingOptions& options,
                                 WarmupReport* report) {
    using namespace detail;
    auto& impl = *impl_;
    if (options.warmupRuns < 0 || options.warmupRuns > kMaxWarmupRuns)
        throw invalidArgument("warmup", options.warmupRuns, "must be in 0.." + std::to_string(kMaxWarmupRuns));
    if (options.iterations < 1 || options.iterations > kMaxTimedRuns)
        throw invalidArgument("iterations", options.iterations, "must be in 1.." + std::to_string(kMaxTimedRuns));
    if (!(options.warmupMs >= 0) || options.warmupMs > 60000)
        throw invalidArgument("warmupMs", options.warmupMs, "must be between 0 and 60000");
    TimestampPairs timestamps(*impl.context, static_cast<uint32_t>(options.iterations));
    impl.prepare(input, output);

    // Warm-up: submissions of back-to-back runs, each about a quarter of warmupMs (by the rate
    // seen so far, at most kMaxRuns), so the device is never idle for longer than one
    // submission's turnaround. It lasts at least warmupMs and until two successive submissions
    // ran at the same rate (within 2%): on the H200 the SM clock sometimes dipped again after
    // 200 ms (VGG conv1_2: 10% of the timed runs at 2.1x the median), so a fixed time alone is
    // not enough. Four times warmupMs at most.
    using Clock = std::chrono::steady_clock;
    constexpr int kMaxRuns = 4096;
    const auto start = Clock::now();
    auto elapsedMs = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
    WarmupReport done;
    int batch = 1;
    double lastRate = 0;  // ms a run in the previous submission
    bool steady = false;
    while (options.warmupMs > 0 && (elapsedMs() < options.warmupMs || !steady) && elapsedMs() < 4 * options.warmupMs) {
        const double before = elapsedMs();
        impl.context->submitAndWait([&](VkCommandBuffer cmd) {
            for (int i = 0; i < batch; ++i) {
                barrierBeforeCompute(cmd);
                impl.record(cmd);
            }
        });
        done.runs += batch;
        const double rate = (elapsedMs() - before) / batch;
        steady = lastRate > 0 && std::abs(rate - lastRate) <= 0.02 * lastRate;
        lastRate = rate;
        batch = int(std::clamp(std::ceil(options.warmupMs / 4 / std::max(rate, 1e-4)), 1.0, double(kMaxRuns)));
    }
    done.wallMs = elapsedMs();
    if (report) *report = done;

    impl.context->submitAndWait([&](VkCommandBuffer cmd) {
        timestamps.reset(cmd);
        for (int i = 0; i < options.warmupRuns + options.iterations; ++i) {
            barrierBeforeCompute(cmd);
            const int t = i - options.warmupRuns;
            if (t >= 0) timestamps.begin(cmd, uint32_t(t));
            impl.record(cmd);
            if (t >= 0) timestamps.end(cmd, uint32_t(t));
        }
    });
    return timestamps.milliseconds();
}

std::vector<int64_t> Conv2d::chunkFirstImages() const {
    std::vector<int64_t> first;
    for (size_t i = 0; i < impl_->plan.chunks.size(); ++i)
        first.push_back(int64_t(i) * impl_->plan.imagesPerChunk);
    return first;
}

const ConvProblem& Conv2d::problem() const { return impl_->problem; }
const KernelConfig& Conv2d::config() const { return impl_->config; }

std::string Conv2d::driverStatistics() const {
    const auto& impl = *impl_;
    std::string out = detail::pipelineStatistics(*impl.context, impl.pipeline->handle());
    if (impl.packPipeline) out += detail::pipelineStatistics(*impl.context, impl.packPipeline->handle());
    if (impl.reducePipeline) out += detail::pipelineStatistics(*impl.context, impl.reducePipeline->handle());
    return out;
}

std::string Conv2d::describe() const {
    const auto& impl = *impl_;
    std::ostringstream s;
    s << impl.config.str() << " (" << impl.why << "; " << impl.plan.chunks.size() << " chunk(s), "
      << impl.plan.dispatches.size() << " dispatch(es))";
    return s.str();
}

}  // namespace vkconv
