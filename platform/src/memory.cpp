#include "augur/platform/memory.hpp"

#if AUGUR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace augur::platform {
namespace {
#if !AUGUR_HAVE_CUDA
constexpr int CUDA_ERROR_NO_DEVICE = 100;  // cudaErrorNoDevice: a CPU-only build has no device
GpuStatus noCuda(const char* what) noexcept { return fail(GpuError{CUDA_ERROR_NO_DEVICE, what, __FILE__, __LINE__}); }
#endif
}  // namespace

namespace detail {

void freeDevice(void* memory) noexcept {
#if AUGUR_HAVE_CUDA
    (void)cudaFree(memory);
#else
    (void)memory;
#endif
}

void freePinned(void* memory) noexcept {
#if AUGUR_HAVE_CUDA
    (void)cudaFreeHost(memory);
#else
    (void)memory;
#endif
}

}  // namespace detail

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : m_ptr(std::move(other.m_ptr)), m_bytes(std::exchange(other.m_bytes, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
    m_ptr = std::move(other.m_ptr);
    m_bytes = std::exchange(other.m_bytes, 0);
    return *this;
}

Result<DeviceMemory, GpuError> DeviceMemory::allocate(std::size_t bytes) noexcept {
#if AUGUR_HAVE_CUDA
    DeviceMemory memory;
    if (bytes > 0) {
        if (auto status = AUGUR_CUDA_CHECK(cudaMalloc(memory.m_ptr.out(), bytes)); !status) {
            return fail(status.error());
        }
    }
    memory.m_bytes = bytes;
    return memory;
#else
    (void)bytes;
    return fail(noCuda("DeviceMemory::allocate").error());
#endif
}

PinnedMemory::PinnedMemory(PinnedMemory&& other) noexcept
    : m_ptr(std::move(other.m_ptr)),
      m_devicePtr(std::exchange(other.m_devicePtr, nullptr)),
      m_bytes(std::exchange(other.m_bytes, 0)) {}

PinnedMemory& PinnedMemory::operator=(PinnedMemory&& other) noexcept {
    m_ptr = std::move(other.m_ptr);
    m_devicePtr = std::exchange(other.m_devicePtr, nullptr);
    m_bytes = std::exchange(other.m_bytes, 0);
    return *this;
}

Result<PinnedMemory, GpuError> PinnedMemory::allocate(std::size_t bytes, bool mapped) noexcept {
#if AUGUR_HAVE_CUDA
    PinnedMemory memory;
    if (bytes > 0) {
        const unsigned flags = mapped ? cudaHostAllocMapped : cudaHostAllocDefault;
        if (auto status = AUGUR_CUDA_CHECK(cudaHostAlloc(memory.m_ptr.out(), bytes, flags)); !status) {
            return fail(status.error());
        }
        if (mapped) {
            if (auto status = AUGUR_CUDA_CHECK(cudaHostGetDevicePointer(&memory.m_devicePtr, memory.m_ptr.get(), 0));
                !status) {
                return fail(status.error());
            }
        }
    }
    memory.m_bytes = bytes;
    return memory;
#else
    (void)bytes;
    (void)mapped;
    return fail(noCuda("PinnedMemory::allocate").error());
#endif
}

GpuStatus copyToDevice(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
#else
    (void)dst, (void)src, (void)bytes, (void)stream;
    return noCuda("copyToDevice");
#endif
}

GpuStatus copyToHost(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
#else
    (void)dst, (void)src, (void)bytes, (void)stream;
    return noCuda("copyToHost");
#endif
}

GpuStatus copyDeviceToDevice(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
#else
    (void)dst, (void)src, (void)bytes, (void)stream;
    return noCuda("copyDeviceToDevice");
#endif
}

GpuStatus fillDevice(void* dst, int byteValue, std::size_t bytes, StreamHandle stream) noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaMemsetAsync(dst, byteValue, bytes, stream));
#else
    (void)dst, (void)byteValue, (void)bytes, (void)stream;
    return noCuda("fillDevice");
#endif
}

}  // namespace augur::platform
