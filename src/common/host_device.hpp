// One macro so that small policy types (masks, index math) compile for host and device.
#pragma once

#if defined(__CUDACC__)
#define FATTN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FATTN_HOST_DEVICE inline
#endif
