// Counts heap allocations (malloc, calloc, realloc, aligned_alloc, posix_memalign and every form of
// operator new) made by any thread of the process, for tests that prove a code path allocates nothing.
//
// Link the `augur::allocation_counter` library into the test executable: it replaces the global
// allocation functions (under AddressSanitizer it counts through the sanitizer's allocation hook
// instead, so these tests run in the sanitizer job too). Counting is always on; tests read the counter
// before and after the code under test.
#pragma once

#include <cstdint>

namespace augur::testing {

/// Total allocations since process start.
[[nodiscard]] std::uint64_t allocationCount() noexcept;

/// Allocations made by the calling thread since it started.
[[nodiscard]] std::uint64_t threadAllocationCount() noexcept;

/// Allocations made by the calling thread while `fn()` ran: for code that runs on one thread in a
/// process whose other threads allocate on their own (e.g. an in-process RouDi's discovery loop).
template <typename Fn>
std::uint64_t threadAllocationsDuring(Fn&& fn) {
    const std::uint64_t before = threadAllocationCount();
    fn();
    return threadAllocationCount() - before;
}

/// Allocations made while `fn()` ran (on any thread).
template <typename Fn>
std::uint64_t allocationsDuring(Fn&& fn) {
    const std::uint64_t before = allocationCount();
    fn();
    return allocationCount() - before;
}

}  // namespace augur::testing
