// Conv2d: plans a convolution (path, configuration, chunks), packs the weights once, and runs
// and records it; conv2d_record.cpp binds its tensors and records its dispatches,
// conv2d_time.cpp times it.
#include "vkconv/conv2d.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "runtime/buffer.hpp"
#include "select/config_select.hpp"
#include "conv/conv2d_impl.hpp"
#include "conv/diagnostics.hpp"
#include "problem/conv_plan.hpp"
#include "kernels/common/tensor_io.hpp"
#include "kernels/kernel_family.hpp"
#include "runtime/pipeline.hpp"
#include "runtime/tensor_impl.hpp"
#include "runtime/vk_util.hpp"
#include "select/tuning_cache.hpp"

namespace vkconv {
namespace detail {

ExecutionPlan planFor(const ConvProblem& problem, const DeviceInfo& device, const KernelConfig& c) {
    const TileShape t = familyOf(c).tileShape(c, problem);
    ExecutionPlan plan = planExecution(problem, device, t.tileM, t.tileN, t.tilesPerImage, t.workspacePerImage,
                                       t.workspaceTail, t.tilesPerWorkgroup, t.groupsPerWorkgroup);
    if (t.splits > 1) {
        // Split-K: the splits along Z (those kernels have one group, so one workgroup there
        // before); canImplement held the splits within the grid's Z and the partials of every
        // image within one buffer range.
        for (Dispatch& d : plan.dispatches) {
            if (uint64_t(d.groupsZ) * t.splits > device.maxWorkGroupCount[2])
                throw Error(Error::Kind::Unsupported, c.str() + ": " + std::to_string(d.groupsZ) + " x " +
                                                          std::to_string(t.splits) +
                                                          " split workgroups exceed maxComputeWorkGroupCount[2]");
            d.groupsZ *= t.splits;
        }
        plan.partialsBytes = t.partialsPerImage * plan.imagesPerChunk;
    }
    return plan;
}

// A pre-pass's workgroups as an X x Y grid within the device's limits.
std::array<uint32_t, 2> gridFor(uint64_t groups, const DeviceInfo& device, const char* what) {
    const uint64_t x = std::min<uint64_t>(groups, device.maxWorkGroupCount[0]);
    const uint64_t y = (groups + x - 1) / x;
    if (y > device.maxWorkGroupCount[1])
        throw Error(Error::Kind::Unsupported, std::string(what) + " needs " + std::to_string(groups) +
                                                  " workgroups, more than the device's grid holds");
    return {uint32_t(x), uint32_t(y)};
}

BatchPlan Conv2dImpl::makeBatchPlan(int64_t batch) const {
    BatchPlan b;
    b.batch = batch;
    ConvProblem p = problem;
    p.batch = batch;
    const DeviceInfo& device = context->info;
    b.plan = batch == problem.batch ? plan : planFor(p, device, config);
    // A smaller batch's chunks hold no more images than the planned batch's: the workspaces fit.
    if (b.plan.imagesPerChunk > plan.imagesPerChunk)
        throw Error(Error::Kind::Internal, "batch " + std::to_string(batch) + " planned chunks of " +
                                               std::to_string(b.plan.imagesPerChunk) + " images, more than the " +
                                               std::to_string(plan.imagesPerChunk) + " the workspaces hold");
    const uint64_t imageValues = uint64_t(p.outChannels) * p.outHeight() * p.outWidth();
    for (size_t i = 0; i < b.plan.chunks.size(); ++i) {
        const uint64_t images = b.plan.chunkImages(i, batch);
        if (convertPipeline) b.convertGrid.push_back(gridFor(convertInputWorkgroups(p, images), device, "converting the input"));
        if (packPipeline) b.packGrid.push_back(gridFor(packWorkgroups(images), device, "packing the input"));
        if (reducePipeline) b.reduceGroups.push_back(reduceWorkgroups(images * imageValues));
    }
    return b;
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
    : Conv2d(context, problem, weight, bias, options, detail::BuildVariant{}) {}

namespace {

// The caller's weights as the KCRS fp32 values every family packs from.
std::vector<float> kcrsWeights(const ConvProblem& p, const WeightData& w) {
    p.validate();
    if (!w.data) throw invalidArgument("weight.data", "null", "weights are required");
    if (w.type != DataType::F32 && w.type != DataType::F16 && w.type != DataType::BF16)
        throw invalidArgument("weight.type", int(w.type), "not a DataType");
    if (w.layout != WeightLayout::KCRS && w.layout != WeightLayout::KRSC)
        throw invalidArgument("weight.layout", int(w.layout), "not a WeightLayout");
    const uint64_t n = uint64_t(p.weightElements());
    std::vector<float> values(n);
    for (uint64_t i = 0; i < n; ++i)
        values[i] = w.type == DataType::F32  ? static_cast<const float*>(w.data)[i]
                    : w.type == DataType::F16 ? floatFromHalf(static_cast<const uint16_t*>(w.data)[i])
                                              : floatFromBfloat16(static_cast<const uint16_t*>(w.data)[i]);
    if (w.layout == WeightLayout::KCRS) return values;
    const uint64_t c = uint64_t(p.inChannels / p.groups), taps = uint64_t(p.kernelH) * p.kernelW;
    std::vector<float> kcrs(n);
    for (uint64_t k = 0; k < uint64_t(p.outChannels); ++k)
        for (uint64_t t = 0; t < taps; ++t)
            for (uint64_t ci = 0; ci < c; ++ci) kcrs[(k * c + ci) * taps + t] = values[(k * taps + t) * c + ci];
    return kcrs;
}

}  // namespace

Conv2d::Conv2d(const Context& context, const ConvProblem& problem, const WeightData& weight, const float* bias,
               const ConvOptions& options)
    : Conv2d(context, problem, kcrsWeights(problem, weight).data(), bias, options) {}

Conv2d::Conv2d(const Context& context, const ConvProblem& problem, const float* weight, const float* bias,
               const ConvOptions& options, const detail::BuildVariant& diagnostics)
    : impl_(std::make_unique<detail::Conv2dImpl>()) {
    using namespace detail;
    problem.validate();
    if (!weight) throw invalidArgument("weight", "null", "weights are required");
    if (problem.bias && !bias) throw invalidArgument("bias", "null", "problem has bias on");
    auto& impl = *impl_;
    impl.context = context.impl();
    impl.problem = problem;
    const DeviceInfo& device = impl.context->info;

    // Precise: parts of its own (conv/precise.hpp), or the fallback it names.
    ConvOptions opts = options;
    std::string preciseFallback;
    if (options.precision == Precision::Precise && !options.config) {
        std::string why;
        impl.precise = planPrecise(context, problem, weight, bias, options, why);
        if (impl.precise) {
            impl.config = impl.precise->parts.front().config();
            impl.plan = planFor(problem, device, impl.config);
            impl.why = impl.precise->describe;
            return;
        }
        opts.precision = problem.outputFormat.type == DataType::F16 && problem.inputFormat.type != DataType::BF16
                             ? Precision::Fast
                             : Precision::Fp32;
        preciseFallback = std::string("precise requested, but ") + why + "; using " + toString(opts.precision) + "; ";
    }

    if (opts.config) {
        impl.config = *opts.config;
        if (std::string why = canImplement(impl.config, device, problem); !why.empty())
            throw invalidArgument("config", impl.config.str(), why);
        impl.why = "configuration given by the caller";
    } else {
        PathChoice path = choosePath(opts.precision, device, problem);
        if (!preciseFallback.empty() && opts.precision == Precision::Fp32) path.why = "the fp32 path";
        const TuningLookup tuned = opts.useTuningCache
                                       ? impl.context->tuningCache.lookup(impl.context->cacheDir, device, problem, path.path)
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
                       (opts.useTuningCache ? "" : " (tuning cache off)") +
                       (note.empty() ? "" : " (" + note + ")");
        }
    }

    impl.why = preciseFallback + impl.why;
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
    const KernelFamily& family = familyOf(c);
    if (std::string note = family.note(problem); !note.empty()) impl.why += "; " + note;
    PreparedKernel kernel = family.prepare(c, device, problem, weight);
    if (diagnostics.inputPart) {
        // The precise mode's split of the input (conv/precise.hpp), in the packing pass's "_io"
        // build: only the channels-last kernel packs an fp32 input so.
        if (!kernel.packInput || !c.is<ChannelsLastNhwcKernel>())
            throw Error(Error::Kind::Internal, "an input part was asked of " + c.str() + ", which packs no fp32 input");
        kernel.packInput->shader = "pack_input_nhwc_f16_io";
        setSpecConstant(*kernel.packInput, 74, diagnostics.inputPart);
    }
    if (diagnostics.skip) {
        if (diagnostics.skip & ~family.diagnosticParts())
            throw invalidArgument("diagnostics.skip", diagnostics.skip,
                                  std::string(family.name()) + " can leave out the parts of mask " +
                                      std::to_string(family.diagnosticParts()) + " only");
        setSpecConstant(kernel.pipeline, kDebugSkipConstant, diagnostics.skip);
        impl.debugSkip = diagnostics.skip;
        impl.why += "; DIAGNOSTIC: parts left out (mask " + std::to_string(diagnostics.skip) + "), results are wrong";
    }
    // The workspace's regions, each at an offset the device can bind.
    const uint64_t align = std::max<uint64_t>(device.minStorageBufferOffsetAlignment, 16);
    auto region = [&](uint64_t bytes) {
        Conv2dImpl::Region r{impl.workspaceBytes, (bytes + 15) / 16 * 16};
        impl.workspaceBytes = (impl.workspaceBytes + r.bytes + align - 1) / align * align;
        return r;
    };
    if (!family.readsInput(c, problem.inputFormat)) {
        impl.convertPipeline = impl.context->pipelines().get(convertInputKey(problem));
        impl.convertedRegion = region(impl.plan.imagesPerChunk * convertedImageBytes(problem));
        impl.why += std::string("; the input (") + problem.inputFormat.str() + ") converted to f32/nchw first, a pass of its own (the " +
                    family.name() + " kernel reads f32/nchw only)";
    }
    if (kernel.packInput) {
        impl.packPipeline = impl.context->pipelines().get(*kernel.packInput);
        impl.packedRegion = region(impl.plan.workspaceBytes);
        impl.packWorkgroups = kernel.packWorkgroups;
    }
    if (kernel.reduce) {
        impl.reducePipeline = impl.context->pipelines().get(*kernel.reduce);
        // Every value of it is written by a split before the reduce pass reads it.
        impl.partialsRegion = region(impl.plan.partialsBytes);
        impl.reduceWorkgroups = kernel.reduceWorkgroups;
    }
    if (impl.workspaceBytes && opts.ownWorkspace) {
        impl.ownWorkspace = Buffer(*impl.context, impl.workspaceBytes, Buffer::Kind::DeviceLocal);
        // The packed input's tail past the last image is read only by outputs that are thrown
        // away; zeroed once, those reads are finite and defined.
        fillBuffer(*impl.context, impl.ownWorkspace, 0);
        impl.workspace = impl.ownWorkspace.handle();
    }
    impl.batchPlans.emplace(problem.batch, impl.makeBatchPlan(problem.batch));
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

void Conv2d::run(const Tensor& input, Tensor& output) { runWith(input, output, nullptr); }

void Conv2d::run(const Tensor& input, Tensor& output, const Tensor& residual) { runWith(input, output, &residual); }

namespace detail {

std::function<void(VkCommandBuffer)> Conv2dImpl::recorder(const Tensor& input, Tensor& output, const Tensor* residual) {
    if (precise) {
        // The parts check the tensors (their problems have the user's shapes and formats); the
        // residual's presence is the user's epilogue's.
        if (problem.epilogue.residual && !residual)
            throw invalidArgument("residual", "none", "the problem's epilogue adds a residual: pass a tensor of the output's shape");
        if (!problem.epilogue.residual && residual)
            throw invalidArgument("residual", "a tensor", "the problem's epilogue has no residual (epilogue.residual is false)");
        const PrecisePlan* plan = precise.get();
        return [plan, &input, &output, residual](VkCommandBuffer cmd) { recordPrecise(*plan, cmd, input, output, residual); };
    }
    const BoundSets& sets = prepare(input, output, residual);
    return [this, &sets](VkCommandBuffer cmd) { record(cmd, sets); };
}

}  // namespace detail

void Conv2d::runWith(const Tensor& input, Tensor& output, const Tensor* residual) {
    using namespace detail;
    auto& impl = *impl_;
    const auto record = impl.recorder(input, output, residual);
    impl.context->submitAndWait([&](VkCommandBuffer cmd) {
        barrierBeforeCompute(cmd);
        record(cmd);
    });
}

uint64_t Conv2d::workspaceBytes() const { return impl_->workspaceBytes; }

void Conv2d::useWorkspace(const Tensor& workspace) {
    auto& impl = *impl_;
    const detail::TensorImpl& t = workspace.impl();
    if (t.context != impl.context) throw invalidArgument("workspace", "tensor", "belongs to another Context");
    if (t.bytes < impl.workspaceBytes)
        throw invalidArgument("workspace bytes", t.bytes, "this Conv2d needs " + std::to_string(impl.workspaceBytes));
    std::lock_guard<std::mutex> lock(impl.mutex);
    if (impl.workspace != VK_NULL_HANDLE)
        throw invalidArgument("workspace", "a second one",
                              impl.workspaceTensor ? "this Conv2d has one already (recordings keep using it)"
                                                   : "this Conv2d owns its workspace (ConvOptions::ownWorkspace)");
    impl.workspaceTensor = workspace.sharedImpl();
    impl.workspace = t.buffer;
    impl.workspaceOffset = t.offset;
}

void Conv2d::record(VkCommandBuffer cmd, const Tensor& input, Tensor& output) { recordWith(cmd, input, output, nullptr); }

void Conv2d::record(VkCommandBuffer cmd, const Tensor& input, Tensor& output, const Tensor& residual) {
    recordWith(cmd, input, output, &residual);
}

void Conv2d::recordWith(VkCommandBuffer cmd, const Tensor& input, Tensor& output, const Tensor* residual) {
    using namespace detail;
    if (cmd == VK_NULL_HANDLE) throw invalidArgument("cmd", "VK_NULL_HANDLE", "a command buffer in the recording state is needed");
    const auto record = impl_->recorder(input, output, residual);
    // An earlier recording of this Conv2d (or of another sharing its workspace) in the caller's
    // command buffer may still read the workspace: run and time put a barrier before every run
    // themselves, the caller's recording has only this one.
    if (impl_->hasWorkspaces()) barrierBeforeCompute(cmd);
    record(cmd);
}

std::vector<int64_t> Conv2d::chunkFirstImages() const {
    std::vector<int64_t> first;
    for (size_t i = 0; i < impl_->plan.chunks.size(); ++i)
        first.push_back(int64_t(i) * impl_->plan.imagesPerChunk);
    return first;
}

const ConvProblem& Conv2d::problem() const { return impl_->problem; }
const KernelConfig& Conv2d::config() const { return impl_->config; }

double Conv2d::errorBound() const {
    // Precise holds fp32's bounds on the matrix units.
    return vkconv::errorBound(precision() == Precision::Precise ? Path::Fp32 : config().path, impl_->problem.outputFormat);
}

double Conv2d::elementErrorBound() const {
    return vkconv::elementErrorBound(precision() == Precision::Precise ? Path::Fp32 : config().path,
                                     impl_->problem.outputFormat);
}

Precision Conv2d::precision() const {
    if (impl_->precise) return Precision::Precise;
    return impl_->config.path == Path::Fp32 ? Precision::Fp32 : Precision::Fast;
}

std::string Conv2d::driverStatistics() const {
    const auto& impl = *impl_;
    if (impl.precise) {
        std::string out;
        for (const Conv2d& part : impl.precise->parts) out += part.driverStatistics();
        return out;
    }
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
