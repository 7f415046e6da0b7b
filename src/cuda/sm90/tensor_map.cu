#include "cuda/sm90/tensor_map.hpp"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <string>

namespace fattn::detail::sm90 {
namespace {

constexpr int kRank = 4;
constexpr std::uint64_t kStrideAlignment = 16;  // TMA's rule for every global stride
// The driver ABI version whose cuTensorMapEncodeTiled signature we call (CUDA 12.0's).
constexpr unsigned kEncodeTiledAbiVersion = 12000;

// The driver's encoder, fetched once through the runtime so that fattn does not link libcuda.
PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* pointer = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t error = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &pointer, kEncodeTiledAbiVersion, cudaEnableDefault, &query);
    if (error != cudaSuccess || query != cudaDriverEntryPointSuccess) pointer = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(pointer);
  }();
  return function;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The encoding every fattn map shares: rank 4, 128-byte swizzle (the wgmma operand layout),
// 256-byte L2 promotion, zero fill out of bounds. `what` names the array in the error.
Status encode_rank4(CUtensorMap* map, CUtensorMapDataType type, void* data,
                    const cuuint64_t (&dims)[kRank], const cuuint64_t (&strides)[kRank - 1],
                    const cuuint32_t (&box)[kRank], const std::string& what) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_function();
  if (encode == nullptr) {
    return Status::DeviceError(
        "cuda_sm90: the CUDA driver does not provide cuTensorMapEncodeTiled (driver too old?)");
  }
  const cuuint32_t element_strides[kRank] = {1, 1, 1, 1};
  const CUresult result =
      encode(map, type, kRank, data, dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    return Status::Internal("cuda_sm90: cuTensorMapEncodeTiled rejected " + what + " (CUresult " +
                            std::to_string(static_cast<int>(result)) + ")");
  }
  return Status::Ok();
}

}  // namespace

Status make_attention_tensor_map(CUtensorMap* map, const TensorView& tensor, int box_rows) {
  const std::uint64_t element_bytes = size_of(tensor.dtype);
  // Tensor-map dimensions innermost first: (head_dim, seqlen, heads, batch), i.e. view
  // dimensions 3, 1, 2, 0, so that a box of rows walks the sequence of one head.
  constexpr int kViewDimension[kRank] = {3, 1, 2, 0};
  cuuint64_t dims[kRank];
  std::uint64_t stride_bytes[kRank];
  std::uint64_t span_bytes = element_bytes;
  for (int i = 0; i < kRank; ++i) {
    const int d = kViewDimension[i];
    dims[i] = static_cast<cuuint64_t>(std::max<std::int64_t>(tensor.shape[d], 1));
    stride_bytes[i] = static_cast<std::uint64_t>(tensor.stride[d]) * element_bytes;
    span_bytes = std::max<std::uint64_t>(span_bytes, stride_bytes[i] * dims[i]);
  }
  // A dimension of extent 1 is never stepped over, but TMA still checks its stride: give it a
  // legal one past everything else.
  const std::uint64_t unused_stride = round_up(span_bytes, kStrideAlignment);
  cuuint64_t strides[kRank - 1];
  for (int i = 1; i < kRank; ++i) {
    const bool usable = dims[i] > 1 && stride_bytes[i] % kStrideAlignment == 0;
    strides[i - 1] = usable ? stride_bytes[i] : unused_stride;
  }
  const cuuint32_t box[kRank] = {kSwizzleSpanColumns, static_cast<cuuint32_t>(box_rows), 1, 1};
  const CUtensorMapDataType type = tensor.dtype == DType::bfloat16
                                       ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return encode_rank4(map, type, tensor.data, dims, strides, box,
                      "the tensor " + tensor.shape_string());
}

Status make_heads_as_columns_tensor_map(CUtensorMap* map, HeadColumns* columns,
                                        const TensorView& tensor, int box_rows, int box_columns) {
  constexpr int kBatchDim = 0, kSeqDim = 1, kHeadDim = 2, kColumnDim = 3;
  const std::uint64_t element_bytes = size_of(tensor.dtype);
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(tensor.data);
  const std::uint64_t lead_bytes = address % kStrideAlignment;
  columns->origin = static_cast<int>(lead_bytes / element_bytes);
  columns->step = static_cast<int>(tensor.stride[kHeadDim]);
  const std::uint64_t row_columns =
      static_cast<std::uint64_t>(columns->origin) +
      static_cast<std::uint64_t>((tensor.shape[kHeadDim] - 1) * tensor.stride[kHeadDim] +
                                 tensor.shape[kColumnDim]);
  const cuuint64_t dims[kRank] = {
      row_columns, static_cast<cuuint64_t>(std::max<std::int64_t>(tensor.shape[kSeqDim], 1)), 1,
      static_cast<cuuint64_t>(std::max<std::int64_t>(tensor.shape[kBatchDim], 1))};
  const std::uint64_t seq_bytes = static_cast<std::uint64_t>(tensor.stride[kSeqDim]) * element_bytes;
  const std::uint64_t batch_bytes =
      static_cast<std::uint64_t>(tensor.stride[kBatchDim]) * element_bytes;
  // Dimensions of extent 1 are never stepped over; give them a legal stride past everything.
  const std::uint64_t span_bytes = std::max({row_columns * element_bytes, seq_bytes * dims[1],
                                             batch_bytes * dims[3]});
  const std::uint64_t unused_stride = round_up(span_bytes, kStrideAlignment);
  if ((dims[1] > 1 && seq_bytes % kStrideAlignment != 0) ||
      (dims[3] > 1 && batch_bytes % kStrideAlignment != 0)) {
    return Status::Internal("cuda_sm90: the tensor " + tensor.shape_string() +
                            " has sequence or batch strides that are not 16-byte multiples");
  }
  const cuuint64_t strides[kRank - 1] = {dims[1] > 1 ? seq_bytes : unused_stride, unused_stride,
                                         dims[3] > 1 ? batch_bytes : unused_stride};
  const cuuint32_t box[kRank] = {static_cast<cuuint32_t>(box_columns),
                                 static_cast<cuuint32_t>(box_rows), 1, 1};
  const CUtensorMapDataType type = tensor.dtype == DType::bfloat16
                                       ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  void* row_base = reinterpret_cast<void*>(address - lead_bytes);
  return encode_rank4(map, type, row_base, dims, strides, box,
                      "the tensor " + tensor.shape_string() + " (heads as columns)");
}

bool tensor_map_can_address(const TensorView& tensor) {
  const std::uint64_t element_bytes = size_of(tensor.dtype);
  if (reinterpret_cast<std::uintptr_t>(tensor.data) % kStrideAlignment != 0) return false;
  for (int d = 0; d + 1 < tensor.rank; ++d) {
    const std::uint64_t stride_bytes = static_cast<std::uint64_t>(tensor.stride[d]) * element_bytes;
    if (tensor.shape[d] > 1 && stride_bytes % kStrideAlignment != 0) return false;
  }
  return true;
}

Status make_fp32_rows_tensor_map(CUtensorMap* map, float* data, std::int64_t columns,
                                 std::int64_t rows, std::int64_t heads, std::int64_t batch,
                                 int box_columns, int box_rows) {
  const cuuint64_t dims[kRank] = {
      static_cast<cuuint64_t>(std::max<std::int64_t>(columns, 1)),
      static_cast<cuuint64_t>(std::max<std::int64_t>(rows, 1)),
      static_cast<cuuint64_t>(std::max<std::int64_t>(heads, 1)),
      static_cast<cuuint64_t>(std::max<std::int64_t>(batch, 1))};
  cuuint64_t strides[kRank - 1];
  std::uint64_t stride = sizeof(float);
  for (int i = 1; i < kRank; ++i) {
    stride *= dims[i - 1];
    if (stride % kStrideAlignment != 0) {
      return Status::Internal("cuda_sm90: an fp32 row of " + std::to_string(columns) +
                              " columns is not a multiple of 16 bytes (TMA)");
    }
    strides[i - 1] = stride;
  }
  const cuuint32_t box[kRank] = {static_cast<cuuint32_t>(box_columns),
                                 static_cast<cuuint32_t>(box_rows), 1, 1};
  return encode_rank4(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, data, dims, strides, box,
                      "an fp32 array of " + std::to_string(batch) + " x " +
                          std::to_string(heads) + " x " + std::to_string(rows) + " x " +
                          std::to_string(columns));
}

}  // namespace fattn::detail::sm90
