// One RAII owner for the CUDA handle classes (streams, events, graphs, device and page-locked memory):
// move-only, releases its handle with `Release` when it goes out of scope or is replaced. The handle
// types are opaque pointers, so no CUDA header is needed here; the release functions live in
// platform/src, next to the CUDA calls that create the handles.
#pragma once

#include <utility>

struct CUstream_st;
struct CUevent_st;
struct CUgraphExec_st;

namespace augur::platform {

/// Owns `Handle` (a pointer type; nullptr: nothing owned) and calls `Release(handle)` once for it.
template <typename Handle, void (*Release)(Handle) noexcept>
class UniqueHandle {
public:
    UniqueHandle() = default;
    explicit UniqueHandle(Handle handle) noexcept : m_handle(handle) {}
    UniqueHandle(UniqueHandle&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
    UniqueHandle& operator=(UniqueHandle&& other) noexcept {
        if (this != &other) {
            reset(std::exchange(other.m_handle, nullptr));
        }
        return *this;
    }
    UniqueHandle(const UniqueHandle&) = delete;
    UniqueHandle& operator=(const UniqueHandle&) = delete;
    ~UniqueHandle() { reset(); }

    [[nodiscard]] Handle get() const noexcept { return m_handle; }
    /// The storage a CUDA create call writes the new handle to; only while nothing is owned.
    [[nodiscard]] Handle* out() noexcept { return &m_handle; }
    /// Releases the owned handle (if any) and owns `handle` instead.
    void reset(Handle handle = nullptr) noexcept {
        const Handle old = std::exchange(m_handle, handle);
        if (old != nullptr) {
            Release(old);
        }
    }

private:
    Handle m_handle{nullptr};
};

namespace detail {
// The release functions of the handle classes (no-ops in a build without CUDA, where nothing is created).
void destroyStream(CUstream_st* stream) noexcept;
void destroyEvent(CUevent_st* event) noexcept;
void destroyGraphExec(CUgraphExec_st* exec) noexcept;
void freeDevice(void* memory) noexcept;
void freePinned(void* memory) noexcept;
}  // namespace detail

}  // namespace augur::platform
