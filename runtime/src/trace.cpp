#include "augur/runtime/trace.hpp"

#include <bit>

namespace augur::runtime {

TraceBuffer::TraceBuffer(std::size_t capacity)
    : m_mask(std::bit_ceil(capacity < 2 ? std::size_t{2} : capacity) - 1), m_records(new TraceRecord[m_mask + 1]) {}

bool TraceBuffer::push(const TraceRecord& record) noexcept {
    const std::uint64_t tail = m_tail.load(std::memory_order_relaxed);
    if (tail - m_head.load(std::memory_order_acquire) > m_mask) {
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    m_records[tail & m_mask] = record;
    m_tail.store(tail + 1, std::memory_order_release);
    return true;
}

bool TraceBuffer::pop(TraceRecord& out) noexcept {
    const std::uint64_t head = m_head.load(std::memory_order_relaxed);
    if (head == m_tail.load(std::memory_order_acquire)) {
        return false;
    }
    out = m_records[head & m_mask];
    m_head.store(head + 1, std::memory_order_release);
    return true;
}

}  // namespace augur::runtime
