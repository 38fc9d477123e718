// Counts heap allocations in the test binary (global operator new is replaced in
// allocation_counter.cpp), so tests can prove a run phase allocates nothing.
#pragma once

namespace augur::testing {
/// Number of operator new calls so far in this process.
long allocationCount() noexcept;
}  // namespace augur::testing
