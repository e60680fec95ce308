// Reading and writing NumPy .npy files: the one format the CLI exchanges tensors in. Only what
// conv2d needs: little-endian float32 ('<f4') and float16 ('<f2'), C order, header versions 1.0,
// 2.0 (and 3.0, which differs from 2.0 only in the header's text encoding).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/tensor_format.hpp"

namespace vkconv::cli {

struct NpyArray {
    std::vector<int64_t> shape;
    std::vector<float> data;  // C order, product(shape) elements (float16 files: exact conversions)
    DataType dtype = DataType::F32;  // the file's: '<u2' files are bfloat16 bit patterns (BF16)
};

// Throws vkconv::Error: Io when the file cannot be read, is not a .npy file, has a malformed
// header or is truncated; InvalidArgument (naming the file) for a dtype other than float32 and
// float16, or Fortran order.
NpyArray readNpy(const std::string& path);

// Writes a version 1.0 file ('<f4'; '<f2' for F16 and '<u2' bfloat16 bit patterns for BF16, the
// values rounded to nearest even; C order). Throws vkconv::Error (Io) when it cannot.
void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data,
              DataType dtype = DataType::F32);

// "(2, 3, 4)": a shape as NumPy prints it, for messages.
std::string shapeString(const std::vector<int64_t>& shape);

}  // namespace vkconv::cli
