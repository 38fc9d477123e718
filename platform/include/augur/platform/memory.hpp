// Device and page-locked host memory, owned by RAII handles (UniqueHandle). Init phase allocates; the
// run phase only uses the pointers. Move-only; freeing happens in the destructor.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::platform {

/// Untyped device allocation (cudaMalloc).
class DeviceMemory {
public:
    DeviceMemory() = default;
    DeviceMemory(DeviceMemory&& other) noexcept;
    DeviceMemory& operator=(DeviceMemory&& other) noexcept;
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    /// Allocates `bytes` of device memory (256-byte aligned). Init phase.
    [[nodiscard]] static Result<DeviceMemory, GpuError> allocate(std::size_t bytes) noexcept;

    [[nodiscard]] void* get() const noexcept { return m_ptr.get(); }
    [[nodiscard]] std::size_t bytes() const noexcept { return m_bytes; }

private:
    UniqueHandle<void*, &detail::freeDevice> m_ptr;
    std::size_t m_bytes{0};
};

/// Page-locked host memory (cudaHostAlloc). With `mapped`, the device can address it directly — the
/// zero-copy path on integrated GPUs (Jetson / Drive), where it is the same physical memory.
class PinnedMemory {
public:
    PinnedMemory() = default;
    PinnedMemory(PinnedMemory&& other) noexcept;
    PinnedMemory& operator=(PinnedMemory&& other) noexcept;
    PinnedMemory(const PinnedMemory&) = delete;
    PinnedMemory& operator=(const PinnedMemory&) = delete;

    [[nodiscard]] static Result<PinnedMemory, GpuError> allocate(std::size_t bytes, bool mapped) noexcept;

    [[nodiscard]] void* get() const noexcept { return m_ptr.get(); }
    [[nodiscard]] std::size_t bytes() const noexcept { return m_bytes; }
    /// The device address of a mapped allocation (nullptr when not mapped).
    [[nodiscard]] void* devicePointer() const noexcept { return m_devicePtr; }

private:
    UniqueHandle<void*, &detail::freePinned> m_ptr;
    void* m_devicePtr{nullptr};
    std::size_t m_bytes{0};
};

/// Asynchronous copies on `stream` (nullptr: the legacy default stream). Run-phase safe.
[[nodiscard]] GpuStatus copyToDevice(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept;
[[nodiscard]] GpuStatus copyToHost(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept;
[[nodiscard]] GpuStatus copyDeviceToDevice(void* dst, const void* src, std::size_t bytes, StreamHandle stream) noexcept;
[[nodiscard]] GpuStatus fillDevice(void* dst, int byteValue, std::size_t bytes, StreamHandle stream) noexcept;

/// A typed view over a DeviceMemory: `count` elements of T.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;

    [[nodiscard]] static Result<DeviceBuffer, GpuError> create(std::size_t count) noexcept {
        auto memory = DeviceMemory::allocate(count * sizeof(T));
        if (!memory) {
            return fail(memory.error());
        }
        DeviceBuffer buffer;
        buffer.m_memory = std::move(memory).value();
        buffer.m_count = count;
        return Result<DeviceBuffer, GpuError>(std::move(buffer));  // nvcc lacks the implicit move here
    }

    [[nodiscard]] T* data() const noexcept { return static_cast<T*>(m_memory.get()); }
    [[nodiscard]] std::size_t size() const noexcept { return m_count; }
    [[nodiscard]] std::size_t bytes() const noexcept { return m_count * sizeof(T); }

    /// Copies host → device (the first min(size, src.size()) elements).
    [[nodiscard]] GpuStatus upload(std::span<const T> src, StreamHandle stream = nullptr) noexcept {
        return copyToDevice(data(), src.data(), std::min(src.size(), m_count) * sizeof(T), stream);
    }
    /// Copies device → host.
    [[nodiscard]] GpuStatus download(std::span<T> dst, StreamHandle stream = nullptr) const noexcept {
        return copyToHost(dst.data(), data(), std::min(dst.size(), m_count) * sizeof(T), stream);
    }

private:
    DeviceMemory m_memory;
    std::size_t m_count{0};
};

}  // namespace augur::platform
