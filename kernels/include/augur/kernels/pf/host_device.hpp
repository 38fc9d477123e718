// AUGUR_HD: marks functions shared verbatim by the CPU reference and the CUDA kernels.
// Under nvcc they are compiled for both sides; under the host compiler the macro is empty.
#pragma once

#if defined(__CUDACC__)
#define AUGUR_HD __host__ __device__
#define AUGUR_HD_INLINE __host__ __device__ __forceinline__
#else
#define AUGUR_HD
#define AUGUR_HD_INLINE inline
#endif
