// Arrays across the Python boundary: the caller's arrays in (NumPy, or any CPU array that speaks
// DLPack or the buffer protocol), float32 NumPy arrays out.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vkconv/tensor.hpp"
#include "vkconv/tensor_format.hpp"

namespace vkconv::python {

namespace nb = nanobind;

// A caller's array as C-contiguous float32. Used in place when it already is; otherwise
// (another floating dtype, or any other memory layout) converted into `converted`.
struct HostArray {
    std::vector<int64_t> shape;
    const float* data = nullptr;    // null until materialize() where a conversion is pending
    std::vector<float> converted;   // owns `data` when the array had to be converted
    nb::ndarray<nb::ro> source;     // keeps the caller's array alive while `data` points into it
    std::string name;               // "x", "w", ... for messages
    int sourceType = 0;             // the element type to convert from (arrays.cpp)
    // Activations (importActivation): the caller's element type (float16, else float32: float64
    // and bfloat16 arrays are float32 ones to vkconv), and the order the elements are in: NHWC
    // where a 4-D array has channels-last strides (torch.channels_last) and is read in place.
    DataType dtype = DataType::F32;
    Layout layout = Layout::NCHW;
    const uint16_t* halves = nullptr;  // a float16 array read in place (then `data` stays null)

    uint64_t elements() const;
    std::string shapeString() const;  // "(2, 3, 8, 8)"
    // Converts into `converted` if that is pending (without the GIL; call it with the GIL held).
    // A conversion larger than host memory is an Error naming the array and its size, not a bare
    // MemoryError.
    void materialize();
};

// Reads `obj` as a host array. Accepted: float32, float16, bfloat16 and float64 arrays of any
// strides on the CPU; float16/bfloat16/float64 values are converted to float32, and arrays that
// are not C-contiguous are copied. Refused with vkconv::Error (InvalidArgument) naming `name`:
// objects that are not arrays, integer/bool/complex/object dtypes, big-endian arrays, arrays on
// another device. The copy, if any, runs without the GIL; with `deferConversion` it waits for
// materialize(), so that a problem can be checked against the device before a large input (a
// broadcast view of terabytes) is copied.
HostArray importArray(nb::handle obj, const char* name, bool deferConversion = false);
// The same for an activation (x, residual): a float16 array keeps its type, and a 4-D array in
// C order or channels-last order is read in place (anything else is copied to C order).
HostArray importActivation(nb::handle obj, const char* name, bool deferConversion = false);
// Copies an imported activation into `tensor` (4-D, its elements the array's, of any type and
// layout): in place where type and layout agree, converted where they do not.
void uploadActivation(Tensor& tensor, const HostArray& array);

// A float32 buffer that becomes a NumPy array: filled without the GIL, handed to NumPy with it.
class OutputArray {
public:
    explicit OutputArray(std::vector<int64_t> shape);
    float* data() { return data_.get(); }
    uint64_t elements() const { return elements_; }
    // Gives the buffer to a new NumPy array (which frees it). Needs the GIL.
    nb::ndarray<nb::numpy, float> release();

private:
    std::vector<size_t> shape_;
    uint64_t elements_ = 0;
    std::unique_ptr<float[]> data_;
};

// A conv's result as a NumPy array in the output tensor's type (float32 or float16) and layout:
// shape (N, K, OH, OW) with channels-last strides for NHWC (as torch.channels_last holds it), or
// without N for an unbatched call. Filled from the tensor without the GIL; released with it.
class ResultArray {
public:
    ResultArray(std::vector<int64_t> shape, TensorFormat format);
    void download(const Tensor& output);  // without the GIL
    nb::ndarray<nb::numpy> release();

private:
    std::vector<int64_t> shape_;  // logical
    TensorFormat format_;
    uint64_t elements_ = 0;
    std::unique_ptr<uint8_t[]> data_;
};

std::string shapeString(const std::vector<int64_t>& shape);

}  // namespace vkconv::python
