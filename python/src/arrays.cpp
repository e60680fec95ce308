// Importing and converting the caller's arrays; making the NumPy arrays returned.
#include "arrays.hpp"

#include <array>
#include <cstring>

#include "vkconv/error.hpp"

namespace vkconv::python {

namespace {

enum class Source { F32, F16, BF16, F64 };

float element(const uint8_t* p, Source type) {
    switch (type) {
        case Source::F32: { float v; std::memcpy(&v, p, 4); return v; }
        case Source::F64: { double v; std::memcpy(&v, p, 8); return float(v); }
        case Source::F16: { uint16_t v; std::memcpy(&v, p, 2); return floatFromHalf(v); }
        case Source::BF16: { uint16_t v; std::memcpy(&v, p, 2); return floatFromBfloat16(v); }
    }
    return 0;
}

std::string dtypeName(nb::dlpack::dtype t) {
    using nb::dlpack::dtype_code;
    const char* kind = "unknown";
    switch (dtype_code(t.code)) {
        case dtype_code::Int: kind = "int"; break;
        case dtype_code::UInt: kind = "uint"; break;
        case dtype_code::Float: kind = "float"; break;
        case dtype_code::Bfloat: kind = "bfloat"; break;
        case dtype_code::Complex: kind = "complex"; break;
        case dtype_code::Bool: return "bool";
    }
    return kind + std::to_string(t.bits);
}

const char* deviceName(int type) {
    switch (type) {
        case nb::device::cuda::value: return "cuda";
        case nb::device::cuda_host::value: return "cuda_host";
        case nb::device::cuda_managed::value: return "cuda_managed";
        case nb::device::rocm::value: return "rocm";
        case nb::device::metal::value: return "metal";
        case nb::device::vulkan::value: return "vulkan";
        case nb::device::opencl::value: return "opencl";
        case nb::device::oneapi::value: return "oneapi";
        default: return "a non-CPU device";
    }
}

std::string typeName(nb::handle obj) {
    nb::handle type = obj.type();
    std::string module = nb::hasattr(type, "__module__") ? nb::cast<std::string>(nb::str(type.attr("__module__"))) : "";
    std::string name = nb::cast<std::string>(nb::str(type.attr("__qualname__")));
    return module.empty() || module == "builtins" ? name : module + "." + name;
}

// Why a NumPy array (or anything with a NumPy-style dtype) was not taken, "" if it has none.
std::string refusedDtype(nb::handle obj, const char* name, std::string& dtype) {
    if (!nb::hasattr(obj, "dtype")) return "";
    nb::object d = obj.attr("dtype");
    dtype = nb::cast<std::string>(nb::str(d));
    const std::string kind = nb::hasattr(d, "kind") ? nb::cast<std::string>(nb::str(d.attr("kind"))) : "";
    const std::string order = nb::hasattr(d, "byteorder") ? nb::cast<std::string>(nb::str(d.attr("byteorder"))) : "";
    if (order == ">")
        return std::string("big-endian; vkconv reads native (little-endian) arrays: convert with ") + name +
               ".astype(" + name + ".dtype.newbyteorder('<'))";
    if (kind == "O") return "an object array; expected a floating-point array (float32, float16, bfloat16 or float64)";
    return "";  // the general message (and its hints) applies
}

}  // namespace

uint64_t HostArray::elements() const {
    uint64_t n = 1;
    for (int64_t d : shape) n *= uint64_t(d);
    return n;
}

std::string HostArray::shapeString() const { return python::shapeString(shape); }

std::string shapeString(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {

HostArray importAs(nb::handle obj, const char* name, bool deferConversion, bool activation);

}  // namespace

HostArray importArray(nb::handle obj, const char* name, bool deferConversion) {
    return importAs(obj, name, deferConversion, false);
}

HostArray importActivation(nb::handle obj, const char* name, bool deferConversion) {
    return importAs(obj, name, deferConversion, true);
}

namespace {

HostArray importAs(nb::handle obj, const char* name, bool deferConversion, bool activation) {
    HostArray a;
    a.name = name;
    if (!nb::try_cast(obj, a.source, false)) {
        std::string dtype;
        if (std::string why = refusedDtype(obj, name, dtype); !why.empty())
            throw invalidArgument(std::string(name) + ".dtype", dtype, why);
        std::string why = "expected an array (a NumPy array, or a CPU array with __dlpack__ or the buffer protocol)";
        if (nb::hasattr(obj, "requires_grad") && nb::hasattr(obj, "detach"))
            why += "; a torch.Tensor that requires grad must be .detach()ed first";
        throw invalidArgument(std::string("type(") + name + ")", typeName(obj), why);
    }
    const nb::ndarray<nb::ro>& s = a.source;
    if (s.device_type() != nb::device::cpu::value)
        throw invalidArgument(std::string(name) + ".device", deviceName(s.device_type()),
                              "vkconv takes host (CPU) arrays and copies them to its own device; "
                              "move the array to the CPU first (torch: x.cpu())");
    const nb::dlpack::dtype dtype = s.dtype();
    Source type;
    using nb::dlpack::dtype_code;
    if (dtype == nb::dtype<float>()) type = Source::F32;
    else if (dtype == nb::dtype<double>()) type = Source::F64;
    else if (dtype_code(dtype.code) == dtype_code::Float && dtype.bits == 16 && dtype.lanes == 1) type = Source::F16;
    else if (dtype_code(dtype.code) == dtype_code::Bfloat && dtype.bits == 16 && dtype.lanes == 1) type = Source::BF16;
    else
        throw invalidArgument(std::string(name) + ".dtype", dtypeName(dtype),
                              "expected a floating-point array: float32 (used as is), or float16, "
                              "bfloat16 or float64 (converted to float32)");

    const size_t ndim = s.ndim();
    a.shape.resize(ndim);
    for (size_t i = 0; i < ndim; ++i) a.shape[i] = int64_t(s.shape(i));
    const uint64_t n = a.elements();

    // C-contiguous float32 (strides of size-1 dimensions do not matter): used in place.
    auto ordered = [&](const std::vector<size_t>& order) {  // dimensions from the outermost
        int64_t expected = 1;
        for (size_t k = order.size(); k-- > 0;) {
            const size_t i = order[k];
            if (a.shape[i] != 1 && s.stride(i) != expected) return false;
            expected *= a.shape[i];
        }
        return true;
    };
    std::vector<size_t> cOrder(ndim);
    for (size_t i = 0; i < ndim; ++i) cOrder[i] = i;
    const bool contiguous = ordered(cOrder);
    // An activation in channels-last order (N, H, W, C in memory) is read in place as NHWC; an
    // array both orders describe (C = 1, or H = W = 1) counts as C order.
    const bool channelsLast = activation && ndim == 4 && !contiguous && ordered({0, 2, 3, 1});
    if (activation && type == Source::F16) a.dtype = DataType::F16;
    if (activation && type == Source::BF16) a.dtype = DataType::BF16;
    if (type == Source::F32 && (contiguous || channelsLast)) {
        a.data = static_cast<const float*>(s.data());
        a.layout = channelsLast ? Layout::NHWC : Layout::NCHW;
        return a;
    }
    if (activation && (type == Source::F16 || type == Source::BF16) && (contiguous || channelsLast)) {
        a.halves = static_cast<const uint16_t*>(s.data());
        a.layout = channelsLast ? Layout::NHWC : Layout::NCHW;
        return a;
    }
    a.sourceType = int(type);
    if (!deferConversion) a.materialize();
    return a;
}

}  // namespace

void HostArray::materialize() {
    if (data || halves) return;
    const nb::ndarray<nb::ro>& s = source;
    const Source type = Source(sourceType);
    const size_t ndim = s.ndim();
    const uint64_t n = elements();
    // Convert: walk the source in C order with its own strides (in elements).
    try {
        converted.resize(n);
    } catch (const std::bad_alloc&) {
        throw Error(Error::Kind::Unsupported, name + ": converting the " + shapeString() + " array to float32 needs " +
                                                  std::to_string(n * 4) + " bytes of host memory, more than is free");
    }
    std::vector<int64_t> strides(ndim);
    for (size_t i = 0; i < ndim; ++i) strides[i] = s.stride(i);
    const size_t itemBytes = s.itemsize();
    const uint8_t* base = static_cast<const uint8_t*>(s.data());
    float* out = converted.data();
    {
        nb::gil_scoped_release release;
        std::vector<int64_t> index(ndim, 0);
        int64_t offset = 0;  // in elements
        for (uint64_t k = 0; k < n; ++k) {
            out[k] = element(base + offset * int64_t(itemBytes), type);
            for (size_t d = ndim; d-- > 0;) {  // next index in C order
                if (++index[d] < shape[d]) { offset += strides[d]; break; }
                offset -= strides[d] * (shape[d] - 1);
                index[d] = 0;
            }
        }
    }
    data = converted.data();
}

OutputArray::OutputArray(std::vector<int64_t> shape) : shape_(shape.begin(), shape.end()) {
    elements_ = 1;
    for (int64_t d : shape) elements_ *= uint64_t(d);
    try {
        data_.reset(new float[elements_ ? elements_ : 1]);
    } catch (const std::bad_alloc&) {
        throw Error(Error::Kind::Unsupported, "the " + python::shapeString(shape) + " float32 result needs " +
                                                  std::to_string(elements_ * 4) + " bytes of host memory, more than is free");
    }
}

void uploadActivation(Tensor& tensor, const HostArray& a) {
    const uint64_t n = a.elements();
    const auto& t = tensor.shape();
    const std::array<int64_t, 4> shape{t[0], t[1], t[2], t[3]};
    // `halves` are the 16-bit patterns of the array's dtype (float16 or bfloat16).
    if (a.halves && tensor.format().type == a.dtype && a.layout == tensor.format().layout)
        return tensor.uploadHalf(a.halves, n);
    std::vector<float> fromHalves;
    const float* values = a.data;
    if (a.halves) {
        fromHalves.resize(n);
        for (uint64_t i = 0; i < n; ++i)
            fromHalves[i] = a.dtype == DataType::BF16 ? floatFromBfloat16(a.halves[i]) : floatFromHalf(a.halves[i]);
        values = fromHalves.data();
    }
    if (a.layout == tensor.format().layout) return tensor.upload(values, n);
    tensor.upload(relayout(values, n, shape, a.layout, tensor.format().layout));
}

ResultArray::ResultArray(std::vector<int64_t> shape, TensorFormat format) : shape_(std::move(shape)), format_(format) {
    // NumPy has no bfloat16: a bf16 tensor comes back as the float32 values it holds (exact).
    if (format_.type == DataType::BF16) format_.type = DataType::F32;
    elements_ = 1;
    for (int64_t d : shape_) elements_ *= uint64_t(d);
    const uint64_t bytes = elements_ * elementBytes(format_.type);
    try {
        data_.reset(new uint8_t[bytes ? bytes : 1]);
    } catch (const std::bad_alloc&) {
        throw Error(Error::Kind::Unsupported, "the " + python::shapeString(shape_) + " " + toString(format_.type) +
                                                  " result needs " + std::to_string(bytes) +
                                                  " bytes of host memory, more than is free");
    }
}

void ResultArray::download(const Tensor& output) {
    if (format_.type == DataType::F16)
        output.downloadHalf(reinterpret_cast<uint16_t*>(data_.get()), elements_);
    else
        output.download(reinterpret_cast<float*>(data_.get()), elements_);
}

nb::ndarray<nb::numpy> ResultArray::release() {
    uint8_t* p = data_.release();
    nb::capsule owner(p, [](void* q) noexcept { delete[] static_cast<uint8_t*>(q); });
    std::vector<size_t> shape(shape_.begin(), shape_.end());
    // Strides in elements: C order, or channels-last for a 4-D NHWC result (N, K, OH, OW).
    std::vector<int64_t> strides(shape.size());
    if (format_.layout == Layout::NHWC && shape.size() == 4) {
        const int64_t k = shape_[1], h = shape_[2], w = shape_[3];
        strides = {h * w * k, 1, w * k, k};
    } else {
        int64_t stride = 1;
        for (size_t i = shape.size(); i-- > 0;) strides[i] = stride, stride *= shape_[i];
    }
    const nb::dlpack::dtype dtype{uint8_t(nb::dlpack::dtype_code::Float), uint8_t(format_.type == DataType::F16 ? 16 : 32), 1};
    return nb::ndarray<nb::numpy>(p, shape.size(), shape.data(), owner, strides.data(), dtype);
}

nb::ndarray<nb::numpy, float> OutputArray::release() {
    float* p = data_.release();
    nb::capsule owner(p, [](void* q) noexcept { delete[] static_cast<float*>(q); });
    return nb::ndarray<nb::numpy, float>(p, shape_.size(), shape_.data(), owner);
}

}  // namespace vkconv::python
