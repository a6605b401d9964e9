#include "layout_kernels.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "eagle/errors.hpp"
#include "gather_plan.hpp"

namespace eagle::cuda {
namespace {

template <class Index>
struct DeviceGatherPlan {
  int rank;
  Index base;
  Index dims[Shape::kMaxRank];
  Index strides[Shape::kMaxRank];
};

template <class U, class Index>
__global__ void gather(const U* __restrict__ in, U* __restrict__ out, Index n,
                       DeviceGatherPlan<Index> plan) {
  const Index stride = Index{gridDim.x} * blockDim.x;
  for (Index i = Index{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index rest = i;
    Index offset = plan.base;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const Index q = rest / plan.dims[d];
      offset += (rest - q * plan.dims[d]) * plan.strides[d];
      rest = q;
    }
    out[i] = in[offset];
  }
}

// in [batch, rows, cols] -> out [batch, cols, rows] through 32x32 tiles in shared memory, so
// that both the reads and the writes are coalesced. Block (32, 8); grid (col tiles, row tiles,
// batch), the batch folded into y when it exceeds the grid limit.
constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <class U>
__global__ void transpose_tiles(const U* __restrict__ in, U* __restrict__ out, std::int64_t rows,
                                std::int64_t cols, std::int64_t batch, std::int64_t row_tiles) {
  __shared__ U tile[kTile][kTile + 1];  // +1: no bank conflicts on the transposed read
  const std::int64_t col_tile = blockIdx.x;
  for (std::int64_t yz = blockIdx.y; yz < row_tiles * batch; yz += gridDim.y) {
    const std::int64_t b = yz / row_tiles;
    const std::int64_t row_tile = yz - b * row_tiles;
    const U* src = in + b * rows * cols;
    U* dst = out + b * rows * cols;
    const std::int64_t c = col_tile * kTile + threadIdx.x;
    for (int k = threadIdx.y; k < kTile; k += kTileRows) {
      const std::int64_t r = row_tile * kTile + k;
      if (r < rows && c < cols) tile[k][threadIdx.x] = src[r * cols + c];
    }
    __syncthreads();
    const std::int64_t out_r = row_tile * kTile + threadIdx.x;  // a row of in: a column of out
    for (int k = threadIdx.y; k < kTile; k += kTileRows) {
      const std::int64_t out_c = col_tile * kTile + k;
      if (out_r < rows && out_c < cols) dst[out_c * rows + out_r] = tile[threadIdx.x][k];
    }
    __syncthreads();
  }
}

template <class Index>
DeviceGatherPlan<Index> to_device(const GatherPlan& plan) {
  DeviceGatherPlan<Index> out{};
  out.rank = plan.rank;
  out.base = static_cast<Index>(plan.base);
  for (int d = 0; d < plan.rank; ++d) {
    out.dims[d] = static_cast<Index>(plan.dims[d]);
    out.strides[d] = static_cast<Index>(plan.strides[d]);
  }
  return out;
}

template <class U>
void run_gather(const LaunchScope& scope, const U* in, std::int64_t in_elements, U* out,
                std::int64_t n, const GatherPlan& plan) {
  if (n == 0) return;
  cudaStream_t stream = scope.stream();
  if (plan.is_batched_transpose()) {
    const std::int64_t p = plan.dims[plan.rank - 2];  // out [batch, p, q] from in [batch, q, p]
    const std::int64_t q = plan.dims[plan.rank - 1];
    const std::int64_t batch = plan.rank == 3 ? plan.dims[0] : 1;
    const std::int64_t col_tiles = (p + kTile - 1) / kTile;
    const std::int64_t row_tiles = (q + kTile - 1) / kTile;
    if (col_tiles <= 0x7fffffff) {
      const std::int64_t y = std::min<std::int64_t>(row_tiles * batch, 65535);
      transpose_tiles<U>
          <<<dim3(static_cast<unsigned>(col_tiles), static_cast<unsigned>(y)),
             dim3(kTile, kTileRows), 0, stream>>>(in + plan.base, out, q, p, batch, row_tiles);
      check_launch("transpose_tiles");
      return;
    }
  }
  const unsigned int grid = grid_size(n, scope.device());
  if (n + std::int64_t{grid} * kBlockSize < (std::int64_t{1} << 32) &&
      in_elements < (std::int64_t{1} << 32)) {
    gather<U, std::uint32_t><<<grid, kBlockSize, 0, stream>>>(
        in, out, static_cast<std::uint32_t>(n), to_device<std::uint32_t>(plan));
  } else {
    gather<U, std::uint64_t><<<grid, kBlockSize, 0, stream>>>(
        in, out, static_cast<std::uint64_t>(n), to_device<std::uint64_t>(plan));
  }
  check_launch("gather");
}

void gather_by_size(const LaunchScope& scope, const void* in, std::int64_t in_elements, void* out,
                    std::int64_t n, const GatherPlan& plan, std::size_t element_size) {
  switch (element_size) {
    case 1:
      return run_gather(scope, static_cast<const std::uint8_t*>(in), in_elements,
                        static_cast<std::uint8_t*>(out), n, plan);
    case 2:
      return run_gather(scope, static_cast<const std::uint16_t*>(in), in_elements,
                        static_cast<std::uint16_t*>(out), n, plan);
    case 4:
      return run_gather(scope, static_cast<const std::uint32_t*>(in), in_elements,
                        static_cast<std::uint32_t*>(out), n, plan);
    case 8:
      return run_gather(scope, static_cast<const std::uint64_t*>(in), in_elements,
                        static_cast<std::uint64_t*>(out), n, plan);
    default:
      throw InternalError("gather: unsupported element size " + std::to_string(element_size));
  }
}

}  // namespace

void launch_transpose(const LaunchScope& scope, const void* in, const Shape& in_shape,
                      const std::vector<int>& perm, std::size_t element_size, void* out) {
  const std::int64_t n = in_shape.num_elements();
  gather_by_size(scope, in, n, out, n, make_transpose_plan(in_shape, perm), element_size);
}

void launch_slice(const LaunchScope& scope, const void* in, const Shape& in_shape,
                  const std::vector<std::int64_t>& begin, const Shape& size,
                  std::size_t element_size, void* out) {
  gather_by_size(scope, in, in_shape.num_elements(), out, size.num_elements(),
                 make_slice_plan(in_shape, begin, size), element_size);
}

void launch_strided_copy(const LaunchScope& scope, const void* in, std::int64_t in_elements,
                         std::int64_t base, const std::vector<std::int64_t>& dims,
                         const std::vector<std::int64_t>& strides, std::size_t element_size,
                         void* out) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  gather_by_size(scope, in, in_elements, out, n, make_strided_plan(base, dims, strides),
                 element_size);
}

void launch_concat(const LaunchScope& scope, const std::vector<const void*>& inputs,
                   const std::vector<Shape>& shapes, int axis, std::size_t element_size,
                   void* out) {
  const Shape& first = shapes.front();
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (int a = 0; a < axis; ++a) outer *= first[a];
  for (int a = axis + 1; a < first.rank(); ++a) inner *= first[a];
  std::int64_t total = 0;
  for (const Shape& s : shapes) total += s[axis];
  const std::size_t out_row = static_cast<std::size_t>(total * inner) * element_size;
  std::size_t offset = 0;  // bytes into an output row
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::size_t row = static_cast<std::size_t>(shapes[i][axis] * inner) * element_size;
    if (row > 0 && outer > 0) {
      EAGLE_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<unsigned char*>(out) + offset, out_row,
                                         inputs[i], row, row, static_cast<std::size_t>(outer),
                                         cudaMemcpyDeviceToDevice, scope.stream()));
    }
    offset += row;
  }
}

}  // namespace eagle::cuda
