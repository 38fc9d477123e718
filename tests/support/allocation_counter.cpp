// Counts allocations. Two implementations, one per build kind:
//  * normal builds replace the C and C++ allocation functions with counting wrappers around glibc's own;
//  * AddressSanitizer builds keep the sanitizer's allocator (replacing malloc would take every block
//    out of its checks, and free() of a block the sanitizer's interceptors allocated would crash) and
//    count through its allocation hook instead, which it calls for malloc, calloc, realloc,
//    aligned_alloc, posix_memalign and every operator new. So the no-allocation tests also run in the
//    sanitizer job (scripts/sanitize). One exception: a new thread's sanitizer set-up calls
//    pthread_getattr_np, which allocates, and it may run while a test counts on another thread; those
//    allocations are not the code under test's, so they are not counted (see pthread_getattr_np below).
#include "augur/testing/allocation_counter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define AUGUR_COUNT_THROUGH_SANITIZER_HOOK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AUGUR_COUNT_THROUGH_SANITIZER_HOOK 1
#endif
#endif

namespace {
std::atomic<std::uint64_t> g_allocations{0};
thread_local std::uint64_t t_allocations = 0;  // trivially initialised: safe inside malloc
thread_local int t_uncounted = 0;               // > 0 while allocations are not counted
inline void count() noexcept {
    if (t_uncounted > 0) {
        return;
    }
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    ++t_allocations;
}
}  // namespace

namespace augur::testing {
std::uint64_t allocationCount() noexcept { return g_allocations.load(std::memory_order_relaxed); }
std::uint64_t threadAllocationCount() noexcept { return t_allocations; }
}  // namespace augur::testing

#if defined(AUGUR_COUNT_THROUGH_SANITIZER_HOOK)

#include <dlfcn.h>
#include <pthread.h>

// Declared in compiler-rt's <sanitizer/allocator_interface.h>, which GCC does not install; libasan
// exports it.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*mallocHook)(const volatile void*, std::size_t),
                                                         void (*freeHook)(const volatile void*));

namespace {
void countingMallocHook(const volatile void* /*ptr*/, std::size_t /*size*/) { count(); }
void ignoringFreeHook(const volatile void* /*ptr*/) {}
// Installed during static initialisation, before any test reads the counter.
[[maybe_unused]] const int g_hookInstalled = __sanitizer_install_malloc_and_free_hooks(&countingMallocHook, &ignoringFreeHook);
}  // namespace

// Interposes glibc's function for the sanitizer's thread start-up (and any other caller): the
// allocations it makes are uncounted.
extern "C" int pthread_getattr_np(pthread_t thread, pthread_attr_t* attr) {
    using Function = int (*)(pthread_t, pthread_attr_t*);
    static const auto next = reinterpret_cast<Function>(dlsym(RTLD_NEXT, "pthread_getattr_np"));
    ++t_uncounted;
    const int result = next(thread, attr);
    --t_uncounted;
    return result;
}

#else

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* ptr, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* ptr);
}

extern "C" {
void* malloc(std::size_t size) {
    count();
    return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
    count();
    return __libc_calloc(n, size);
}
void* realloc(void* ptr, std::size_t size) {
    count();
    return __libc_realloc(ptr, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
    count();
    return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
    count();
    void* p = __libc_memalign(alignment, size);
    if (p == nullptr) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}
void free(void* ptr) { __libc_free(ptr); }
}

void* operator new(std::size_t size) {
    void* p = malloc(size == 0 ? 1 : size);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return malloc(size == 0 ? 1 : size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return malloc(size == 0 ? 1 : size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    void* p = nullptr;
    if (posix_memalign(&p, static_cast<std::size_t>(alignment), size == 0 ? 1 : size) != 0) {
        throw std::bad_alloc();
    }
    return p;
}
void* operator new[](std::size_t size, std::align_val_t alignment) { return operator new(size, alignment); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { free(p); }

#endif  // AUGUR_COUNT_THROUGH_SANITIZER_HOOK
