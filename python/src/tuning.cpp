// What `vkconv sweep` is built from, for Python: ConvProblem, KernelConfig and its enums, the
// heuristic's ranking and neighbourhoods, can_implement, the tuning cache, timing summaries and
// the acceptance rule. The sweep's driver itself (which candidates, in which order, the report)
// lives in the CLI (tools/vkconv/sweep_*.cpp); python/examples/sweep.py is the same loop on this API.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "conv_args.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::python {

namespace {

void bindEpilogue(nb::module_& m) {
    nb::enum_<Activation>(m, "Activation", "The fused epilogue's activation (include/vkconv/epilogue.hpp).")
        .value("IDENTITY", Activation::Identity)
        .value("RELU", Activation::Relu)
        .value("RELU6", Activation::Relu6)
        .value("CLAMP", Activation::Clamp)
        .value("LEAKY_RELU", Activation::LeakyRelu)
        .value("SIGMOID", Activation::Sigmoid)
        .value("SILU", Activation::Silu)
        .value("GELU", Activation::GeluErf)
        .value("GELU_TANH", Activation::GeluTanh)
        .value("HARDSWISH", Activation::HardSwish);
    nb::class_<Epilogue>(m, "Epilogue",
                         "y = activation(alpha * conv + bias + beta * residual), in fp32 before the store. Part of a\n"
                         "ConvProblem (its str() names it where it is not the default).")
        .def(nb::init<>())
        .def_rw("activation", &Epilogue::activation)
        .def_rw("alpha", &Epilogue::alpha)
        .def_rw("residual", &Epilogue::residual, "whether a residual tensor is added")
        .def_rw("beta", &Epilogue::beta)
        .def_rw("lower", &Epilogue::lower, "clamp's lower bound")
        .def_rw("upper", &Epilogue::upper, "clamp's upper bound")
        .def_rw("slope", &Epilogue::slope, "leaky relu's negative slope")
        .def("validate", &Epilogue::validate)
        .def("__str__", &Epilogue::str)
        .def("__repr__", [](const Epilogue& e) { return "<vkconv.Epilogue " + (e.isDefault() ? std::string("default") : e.str()) + ">"; });
}

void bindTensorFormat(nb::module_& m) {
    nb::enum_<DataType>(m, "DataType", "A tensor's element type (include/vkconv/tensor_format.hpp).")
        .value("F32", DataType::F32)
        .value("F16", DataType::F16);
    nb::enum_<Layout>(m, "Layout", "A 4-D tensor's memory layout: NCHW, or NHWC (channels last).")
        .value("NCHW", Layout::NCHW)
        .value("NHWC", Layout::NHWC);
    nb::class_<TensorFormat>(m, "TensorFormat", "A tensor's element type and layout.")
        .def(nb::init<>())
        .def("__init__", [](TensorFormat* f, DataType type, Layout layout) { new (f) TensorFormat{type, layout}; },
             nb::arg("type"), nb::arg("layout"))
        .def_rw("type", &TensorFormat::type)
        .def_rw("layout", &TensorFormat::layout)
        .def("__eq__", [](const TensorFormat& a, const TensorFormat& b) { return a == b; })
        .def("__str__", &TensorFormat::str)
        .def("__repr__", [](const TensorFormat& f) { return "<vkconv.TensorFormat " + f.str() + ">"; });
}

void bindProblem(nb::module_& m) {
    nb::class_<ConvProblem>(m, "ConvProblem",
                            "One conv2d forward: sizes, stride, padding, dilation, groups, bias, the input's and the\n"
                            "output's TensorFormat (type and layout), and the fused epilogue. Weights are KCRS (C per\n"
                            "group) and the bias K values, float32.")
        .def(nb::init<>())
        .def_static(
            "from_shapes",
            [](std::vector<int64_t> input, std::vector<int64_t> weight, bool bias, nb::handle stride,
               nb::handle padding, nb::handle dilation, nb::handle groups) {
                const Geometry g = parseGeometry(stride, padding, dilation, groups);
                const std::vector<int64_t> b{weight.empty() ? 0 : weight[0]};
                return buildProblem(input, weight, bias ? &b : nullptr, g);
            },
            nb::arg("input_shape"), nb::arg("weight_shape"), nb::arg("bias") = true, nb::arg("stride").none() = 1,
            nb::arg("padding").none() = 0, nb::arg("dilation").none() = 1, nb::arg("groups").none() = 1,
            nb::sig("def from_shapes(input_shape: collections.abc.Sequence[int], weight_shape: collections.abc.Sequence[int], bias: bool = True, "
                    "stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0, "
                    "dilation: int | tuple[int, int] = 1, groups: int = 1) -> ConvProblem"),
            "The problem conv2d would solve for an input of input_shape (N, C, H, W) and weights of\n"
            "weight_shape (K, C/groups, R, S), with conv2d's arguments. Checked like conv2d's.")
        .def_static("alexnet1", &ConvProblem::alexnet1, nb::arg("batch") = 256,
                    "The headline benchmark: AlexNet's first layer (C=3, 224x224, K=96, 11x11, stride 4, padding 2).")
        .def_rw("batch", &ConvProblem::batch)
        .def_rw("in_channels", &ConvProblem::inChannels)
        .def_rw("height", &ConvProblem::height)
        .def_rw("width", &ConvProblem::width)
        .def_rw("out_channels", &ConvProblem::outChannels)
        .def_rw("kernel_h", &ConvProblem::kernelH)
        .def_rw("kernel_w", &ConvProblem::kernelW)
        .def_rw("stride_h", &ConvProblem::strideH)
        .def_rw("stride_w", &ConvProblem::strideW)
        .def_rw("padding_h", &ConvProblem::padH)
        .def_rw("padding_w", &ConvProblem::padW)
        .def_rw("dilation_h", &ConvProblem::dilationH)
        .def_rw("dilation_w", &ConvProblem::dilationW)
        .def_rw("groups", &ConvProblem::groups)
        .def_rw("bias", &ConvProblem::bias)
        .def_rw("epilogue", &ConvProblem::epilogue, "the fused epilogue (Epilogue)")
        .def_rw("input_format", &ConvProblem::inputFormat, "the input's TensorFormat (default f32/nchw)")
        .def_rw("output_format", &ConvProblem::outputFormat, "the output's and the residual's TensorFormat")
        .def("validate", &ConvProblem::validate, "Raises ArgumentError naming the first bad field and its value.")
        .def_prop_ro("out_height", &ConvProblem::outHeight)
        .def_prop_ro("out_width", &ConvProblem::outWidth)
        .def_prop_ro("input_shape", &ConvProblem::inputShape)
        .def_prop_ro("weight_shape", &ConvProblem::weightShape)
        .def_prop_ro("output_shape", &ConvProblem::outputShape)
        .def_prop_ro("flops", &ConvProblem::flops, "2*M*N*K*groups (bias not counted)")
        .def("__str__", &ConvProblem::str)
        .def("__repr__", [](const ConvProblem& p) { return "<vkconv.ConvProblem " + p.str() + ">"; });
}

void bindKernelParams(nb::module_& m) {
    nb::class_<Fp32GemmKernel>(m, "Fp32GemmKernel", "fp32-gemm: the implicit-GEMM tile in fp32; each thread tm x tn outputs.")
        .def(nb::init<>())
        .def_rw("tm", &Fp32GemmKernel::tm)
        .def_rw("tn", &Fp32GemmKernel::tn);
    nb::class_<GroupedDirectKernel>(m, "GroupedDirectKernel",
                                    "grouped-direct (fp32): groups of few channels (include/vkconv/kernel_config.hpp).")
        .def(nb::init<>())
        .def_rw("threads_w", &GroupedDirectKernel::threadsW)
        .def_rw("threads_h", &GroupedDirectKernel::threadsH)
        .def_rw("vec_w", &GroupedDirectKernel::vecW)
        .def_rw("rows", &GroupedDirectKernel::rows)
        .def_rw("channels", &GroupedDirectKernel::channels)
        .def_rw("groups", &GroupedDirectKernel::groups)
        .def_rw("group_steps", &GroupedDirectKernel::groupSteps)
        .def_rw("from_memory", &GroupedDirectKernel::fromMemory);
    nb::class_<CoopMatTiling>(m, "CoopMatTiling",
                              "What every cooperative-matrix kernel has: subgroups along M and N, the instruction\n"
                              "shape, the pipeline depth.")
        .def_rw("warps_m", &CoopMatTiling::warpsM)
        .def_rw("warps_n", &CoopMatTiling::warpsN)
        .def_rw("mma_m", &CoopMatTiling::mmaM)
        .def_rw("mma_n", &CoopMatTiling::mmaN)
        .def_rw("mma_k", &CoopMatTiling::mmaK)
        .def_rw("stages", &CoopMatTiling::stages);
    nb::class_<CoopMatGatherKernel, CoopMatTiling>(m, "CoopMatGatherKernel", "coopmat-gather: A gathered from the NCHW input.")
        .def(nb::init<>())
        .def_rw("s_lanes", &CoopMatGatherKernel::sLanes)
        .def_rw("b_global", &CoopMatGatherKernel::bGlobal);
    nb::class_<CoopMatPackedKernel, CoopMatTiling>(m, "CoopMatPackedKernel",
                                                   "coopmat-packed: packed input, B in registers.")
        .def(nb::init<>())
        .def_rw("tiles_per_workgroup", &CoopMatPackedKernel::tilesPerWorkgroup);
    nb::class_<ChannelsLastTiling, CoopMatTiling>(m, "ChannelsLastTiling", "The channels-last kernel's parameters.")
        .def_rw("taps_inner", &ChannelsLastTiling::tapsInner)
        .def_rw("fragment_prefetch", &ChannelsLastTiling::fragmentPrefetch)
        .def_rw("split_k", &ChannelsLastTiling::splitK);
    nb::class_<ChannelsLastNhwcKernel, ChannelsLastTiling>(m, "ChannelsLastNhwcKernel",
                                                           "channels-last-nhwc: input packed as fp16 channels-last.")
        .def(nb::init<>());
    nb::class_<ChannelsLastNchwKernel, ChannelsLastTiling>(m, "ChannelsLastNchwKernel",
                                                           "channels-last-nchw: the fp32 NCHW input read directly.")
        .def(nb::init<>());
}

void bindConfig(nb::module_& m) {
    nb::enum_<Path>(m, "Path", "A kernel's arithmetic: fp32 FMA, or cooperative matrices with fp16 operands.")
        .value("FP32", Path::Fp32)
        .value("COOPMAT_F16", Path::CoopMatF16);
    m.def("path_name", [](Path p) { return std::string(toString(p)); }, nb::arg("path"), "'fp32' or 'coopmat-f16'.");
    m.def("path_from_name", &pathFromString, nb::arg("name"));

    bindKernelParams(m);

    nb::class_<KernelConfig>(m, "KernelConfig",
                             "A kernel configuration (include/vkconv/kernel_config.hpp): path, workgroup tile\n"
                             "bm x bn x bk, subgroup size, and `params`: the kernel with its own parameters (one of\n"
                             "Fp32GemmKernel, GroupedDirectKernel, CoopMatGatherKernel, CoopMatPackedKernel,\n"
                             "ChannelsLastNhwcKernel, ChannelsLastNchwKernel). Pass one to Conv2d(config=...) to run\n"
                             "exactly it; can_implement() says whether it fits a device and problem.")
        .def(nb::init<>())
        .def_rw("path", &KernelConfig::path)
        .def_rw("bm", &KernelConfig::bm)
        .def_rw("bn", &KernelConfig::bn)
        .def_rw("bk", &KernelConfig::bk)
        .def_rw("subgroup_size", &KernelConfig::subgroupSize)
        .def_prop_rw(
            "params", [](const KernelConfig& c) { return c.params; },
            [](KernelConfig& c, const KernelParams& params) { c.params = params; },
            "the kernel and its own parameters (a copy: change it, then assign it back)")
        .def_prop_ro("kernel", &KernelConfig::kernel,
                     "the kernel that runs it: 'fp32-gemm', 'grouped-direct', 'coopmat-gather', "
                     "'coopmat-packed', 'channels-last-nhwc' or 'channels-last-nchw'")
        .def_prop_ro("threads", &KernelConfig::threads)
        .def("shared_memory_bytes", &KernelConfig::sharedMemoryBytes, nb::arg("problem"))
        .def("to_json", [](const KernelConfig& c) { return configToJson(c); },
             "The common fields, 'kernel' and that kernel's fields, as the tuning cache stores them.")
        .def_static("from_json", [](const std::string& json) { return configFromJson(json); }, nb::arg("json"))
        .def("__eq__", [](const KernelConfig& a, const KernelConfig& b) { return a == b; })
        .def("__hash__", [](const KernelConfig& c) { return std::hash<std::string>()(c.str()); })
        .def("__str__", &KernelConfig::str)
        .def("__repr__", [](const KernelConfig& c) { return "<vkconv.KernelConfig " + c.str() + ">"; });

    m.def("error_bound", nb::overload_cast<Path>(&errorBound), nb::arg("path"),
          "The relative error ||out - ref|| / ||ref|| the tests hold a path to: fp32 1e-5, coopmat-f16 1e-3.");
    m.def("can_implement", &canImplement, nb::arg("config"), nb::arg("device"), nb::arg("problem"),
          "'' if config can run problem on device, else the reason.");
}

void bindTuningCache(nb::module_& m) {
    nb::class_<TuningEntry>(m, "TuningEntry", "A measured configuration, as the tuning cache stores it.")
        .def("__init__",
             [](TuningEntry* self, const KernelConfig& config, double ms, std::string date, std::string decision) {
                 new (self) TuningEntry{config, ms, std::move(date), std::move(decision)};
             },
             nb::arg("config"), nb::arg("ms"), nb::arg("date") = "", nb::arg("decision") = "",
             "date '' is filled in with the time of put().")
        .def_rw("config", &TuningEntry::config)
        .def_rw("ms", &TuningEntry::ms, "median GPU time the sweep measured")
        .def_rw("date", &TuningEntry::date, "ISO 8601 UTC")
        .def_rw("decision", &TuningEntry::decision, "the acceptance rule's verdict")
        .def("__repr__", [](const TuningEntry& e) {
            return "<vkconv.TuningEntry " + e.config.str() + " " + std::to_string(e.ms) + " ms>";
        });

    nb::class_<TuningCache>(m, "TuningCache",
                            "The tuning cache (<cache dir>/tuning.json): measured configurations keyed by device,\n"
                            "driver, problem and path. Conv2d uses its entries on its own (use_tuning_cache=True).")
        .def(nb::init<const std::string&>(), nb::arg("dir") = "",
             "Reads <dir>/tuning.json (dir '': env VKCONV_CACHE_DIR, else $XDG_CACHE_HOME/vkconv, else\n"
             "~/.cache/vkconv; Context.cache_dir is the folder a Context uses). A missing file is an empty\n"
             "cache; a corrupt one is reported in notes, treated as empty and replaced by save().")
        .def_prop_ro("dir", &TuningCache::dir)
        .def_prop_ro("file", &TuningCache::file)
        .def_prop_ro("notes", &TuningCache::notes)
        .def("__len__", &TuningCache::size)
        .def(
            "find",
            [](const TuningCache& c, const DeviceInfo& d, const ConvProblem& p, Path path) {
                std::string why;
                std::optional<TuningEntry> e = c.find(d, p, path, &why);
                return std::make_pair(e, why);
            },
            nb::arg("device"), nb::arg("problem"), nb::arg("path"),
            "(entry, why_not): the entry recorded for exactly this device, driver, problem and path\n"
            "whose configuration still passes can_implement, else None and the reason ('' if none).")
        .def("put", &TuningCache::put, nb::arg("device"), nb::arg("problem"), nb::arg("entry"),
             "Records an entry (in memory until save()).")
        .def(
            "save",
            [](TuningCache& c) {
                nb::gil_scoped_release release;
                c.save();
            },
            "Writes the file atomically, merged with entries other processes saved since it was read.");

    m.def("resolve_cache_dir", &resolveCacheDir, nb::arg("explicit_dir") = "",
          "The cache folder for an explicit choice ('' for none), as Context and TuningCache resolve it.");
    m.def("device_key", &deviceKey, nb::arg("device"), "The device as the caches key it (vendor, device, driver, UUID).");
    m.def("problem_key", &problemKey, nb::arg("problem"), nb::arg("path"));
}

void bindSearch(nb::module_& m) {
    nb::class_<RankedConfig>(m, "RankedConfig")
        .def_ro("config", &RankedConfig::config)
        .def_ro("cost", &RankedConfig::cost, "the heuristic's estimated cost (relative units)")
        .def("__repr__", [](const RankedConfig& r) {
            return "<vkconv.RankedConfig " + r.config.str() + " cost " + std::to_string(r.cost) + ">";
        });
    m.def("rank_configs", &rankConfigs, nb::arg("path"), nb::arg("device"), nb::arg("problem"),
          "Every configuration of path that fits device and problem, cheapest first by the heuristic\n"
          "(no GPU work); the first is what Conv2d picks without a tuning-cache entry.");
    m.def(
        "resolve_path",
        [](const std::string& precision, const DeviceInfo& d, const ConvProblem& p) {
            std::string why;
            const Path path = resolvePath(parsePrecision(precision), d, p, &why);
            return std::make_pair(path, why);
        },
        nb::arg("precision"), nb::arg("device"), nb::arg("problem"),
        "(path, why): the path 'fast' or 'fp32' resolves to on this device for this problem.");
    m.def("sweep_candidates", &sweepCandidates, nb::arg("ranked"), nb::arg("count"), nb::arg("per_tile") = 3,
          "What a pruned sweep times (`vkconv sweep --candidates count --per-tile per_tile`): the best of\n"
          "each kernel (A loader, grouped direct), then ranked in order, at most per_tile of one workgroup\n"
          "tile, then the rest of the ranking fills count; per_tile 0: the plain top count.");
    m.def("nearby_configs", &nearbyConfigs, nb::arg("config"), nb::arg("device"), nb::arg("problem"),
          "config and up to 5 neighbours with the same workgroup tile (what `vkconv sweep --nearby` times).");

    nb::class_<TimingStats>(m, "TimingStats", "A summary of repeated timings, in milliseconds.")
        .def_ro("runs", &TimingStats::runs)
        .def_ro("median_ms", &TimingStats::medianMs)
        .def_ro("min_ms", &TimingStats::minMs)
        .def_ro("max_ms", &TimingStats::maxMs)
        .def_ro("p10_ms", &TimingStats::p10Ms)
        .def_ro("p90_ms", &TimingStats::p90Ms)
        .def_ro("spread", &TimingStats::spread, "(p90 - p10) / median")
        .def("__repr__", [](const TimingStats& t) {
            return "<vkconv.TimingStats median " + std::to_string(t.medianMs) + " ms over " + std::to_string(t.runs) +
                   " runs, spread " + std::to_string(t.spread) + ">";
        });
    m.def("summarize_times", &summarizeTimes, nb::arg("ms"), "Median, percentiles and spread of a list of times.");

    nb::class_<AcceptanceRule>(m, "AcceptanceRule",
                               "A tuned configuration replaces the default only if it is min_gain faster in the\n"
                               "sweep and again in a confirming timing, with spreads under max_spread (or with\n"
                               "both of its p90s below the default's confirming p10).")
        .def("__init__",
             [](AcceptanceRule* self, double minGain, double maxSpread) { new (self) AcceptanceRule{minGain, maxSpread}; },
             nb::arg("min_gain") = 0.02, nb::arg("max_spread") = 0.05)
        .def_rw("min_gain", &AcceptanceRule::minGain)
        .def_rw("max_spread", &AcceptanceRule::maxSpread);
    nb::enum_<Verdict>(m, "Verdict")
        .value("ACCEPTED", Verdict::Accepted)
        .value("NEEDS_CONFIRMATION", Verdict::NeedsConfirmation)
        .value("KEPT_NOT_FASTER", Verdict::KeptNotFaster)
        .value("KEPT_UNSTABLE", Verdict::KeptUnstable)
        .value("KEPT_NOT_CONFIRMED", Verdict::KeptNotConfirmed);
    nb::class_<AcceptanceDecision>(m, "AcceptanceDecision")
        .def_ro("verdict", &AcceptanceDecision::verdict)
        .def_prop_ro("accepted", &AcceptanceDecision::accepted)
        .def_ro("gain", &AcceptanceDecision::gain, "1 - tuned/incumbent in the sweep")
        .def_ro("confirmed_gain", &AcceptanceDecision::confirmedGain)
        .def_ro("reason", &AcceptanceDecision::reason)
        .def("__repr__", [](const AcceptanceDecision& d) { return "<vkconv.AcceptanceDecision " + d.reason + ">"; });
    m.def(
        "decide_acceptance",
        [](const TimingStats& tuned, const TimingStats& incumbent, std::optional<TimingStats> tunedAgain,
           std::optional<TimingStats> incumbentAgain, const AcceptanceRule& rule) {
            return decideAcceptance(AcceptanceInput{tuned, incumbent, tunedAgain, incumbentAgain}, rule);
        },
        nb::arg("tuned"), nb::arg("incumbent"), nb::arg("tuned_again") = nb::none(),
        nb::arg("incumbent_again") = nb::none(), nb::arg("rule") = AcceptanceRule{},
        "The acceptance rule of `vkconv sweep`. NEEDS_CONFIRMATION: time both again, back to back, and\n"
        "ask again with tuned_again and incumbent_again.");
}

}  // namespace

void bindTuning(nb::module_& m) {
    bindEpilogue(m);
    bindTensorFormat(m);
    bindProblem(m);
    bindConfig(m);
    bindTuningCache(m);
    bindSearch(m);
}

}  // namespace vkconv::python
