// The IDX file format of MNIST and Fashion-MNIST, read into the unsigned bytes it stores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::data {

// The values of an unsigned-byte IDX file, as keras.datasets gives them (a uint8 NumPy array).
// eagle has no uint8 DType (Note [No uint8 dtype] in docs/design.md), so the bytes stay here,
// exact, until to_tensor makes the tensor a model reads: float32 images divided by 255, int32 or
// int64 labels.
struct IdxArray {
  Shape shape;
  std::vector<std::uint8_t> values;  // row-major, shape.num_elements() of them

  std::int64_t num_elements() const { return shape.num_elements(); }
  // The values as a CPU tensor of `dtype` (float32, float64, float16, bfloat16, int32, int64),
  // unchanged: to_tensor(eagle::int32) for labels.
  Tensor to_tensor(DType dtype) const;
  // value / divisor computed in double and rounded to `dtype` (a floating type), as NumPy's
  // `x_train / 255.0` followed by a float32 cast: to_tensor(eagle::float32, 255) for images.
  Tensor to_tensor(DType dtype, double divisor) const;
};

// Reads an IDX file of unsigned bytes (magic 0x00000803 for images, 0x00000801 for labels),
// gzip-compressed or plain (zlib reads either). Errors name the file:
//   missing                       NotFoundError     "<path>; No such file or directory"
//   not unsigned-byte IDX         DataLossError     "<path>: bad IDX magic number 0x1F8B0800: ..."
//   another IDX element type      UnimplementedError
//   shorter than its header says  DataLossError     "<path>: truncated IDX file: expected ..."
//   longer than its header says   DataLossError     "<path>: IDX file longer than its header ..."
//   a damaged gzip stream         DataLossError     "<path>: corrupt gzip data: ..."
IdxArray read_idx(const std::string& path);

}  // namespace eagle::data
