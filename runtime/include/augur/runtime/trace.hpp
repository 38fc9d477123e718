// The run phase's side of the trace: fixed-size records of what a cycle did (its slice, its stages'
// slices, GPU work, deadline misses, watchdog alarms, mode changes, counters), and the lock-free
// single-producer / single-consumer ring they travel through to the trace writer's thread
// (trace_writer.hpp formats them as Chrome trace-event JSON).
//
// TraceBuffer::push() is run-phase safe: noexcept, allocation-free, wait-free, O(1). A full ring drops
// the record and counts it (dropped()); nothing is overwritten, so what reaches the file is a
// consistent prefix-with-gaps, never a torn record. One producer thread and one consumer thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "augur/core/messages.hpp"

namespace augur::runtime {

enum class TraceRecordKind : std::uint8_t {
    Cycle,          ///< a cycle's slice: [begin, end] = its start and the end of its last stage
    Stage,          ///< a stage's slice on the cycle thread, inside its cycle's slice
    Gpu,            ///< a stage's GPU work as the host saw it: graph launch to observed completion
    DeadlineMiss,   ///< instant: the cycle passed its deadline (at begin = cycle start + deadline)
    WatchdogAlarm,  ///< instant on the watchdog thread: it saw a cycle past its deadline, `stage` running
    StageOverBudget,///< instant on the watchdog thread: it saw `stage` run past its budget
    ModeChange,     ///< instant: the ladder stepped from `from` to `to` after the cycle
    Counters,       ///< vehicles, particles per vehicle and input age at the end of the cycle
};

/// One trace record: 48 bytes, trivially copyable. Times on CLOCK_MONOTONIC, in nanoseconds.
struct TraceRecord {
    std::int64_t begin_ns{0};
    std::int64_t end_ns{0};   ///< slices: their end; instants: unused; WatchdogAlarm: elapsed since the cycle start
    std::uint64_t cycle{0};
    std::int64_t value{0};    ///< Counters: input age in ns (−1: no input yet)
    std::uint32_t count{0};   ///< Counters: predicted vehicles; Cycle: 1 when the cycle missed its deadline
    std::uint32_t count2{0};  ///< Counters: particles per vehicle in the cycle's mode
    TraceRecordKind kind{TraceRecordKind::Cycle};
    Stage stage{Stage::Count};
    RuntimeMode from{RuntimeMode::Nominal};  ///< ModeChange: the mode before; Cycle: the mode it ran in
    RuntimeMode to{RuntimeMode::Nominal};    ///< ModeChange: the mode after
    std::uint8_t reserved[4]{};
};
static_assert(sizeof(TraceRecord) == 48);

/// A stage's latest GPU work as the host saw it (CLOCK_MONOTONIC): from the graph launch to the
/// poll that found it complete. {0, 0} before any.
struct GpuSpan {
    std::int64_t begin_ns{0};
    std::int64_t end_ns{0};
};

/// A bounded lock-free SPSC ring of TraceRecords (Lamport's ring with acquire/release indices).
class TraceBuffer {
public:
    /// Allocates room for `capacity` records (rounded up to a power of two, at least 2). Init phase.
    explicit TraceBuffer(std::size_t capacity);
    TraceBuffer(const TraceBuffer&) = delete;
    TraceBuffer& operator=(const TraceBuffer&) = delete;

    /// Producer: appends `record`, or drops and counts it when the ring is full. Returns whether it was
    /// kept. noexcept, allocation-free, wait-free.
    bool push(const TraceRecord& record) noexcept;
    /// Consumer: takes the oldest record into `out`; false when the ring is empty. noexcept.
    bool pop(TraceRecord& out) noexcept;

    [[nodiscard]] std::size_t capacity() const noexcept { return m_mask + 1; }
    /// Records dropped because the ring was full (any thread; relaxed).
    [[nodiscard]] std::uint64_t dropped() const noexcept { return m_dropped.load(std::memory_order_relaxed); }

private:
    std::size_t m_mask;
    std::unique_ptr<TraceRecord[]> m_records;
    alignas(64) std::atomic<std::uint64_t> m_head{0};  ///< next record to pop (consumer writes)
    alignas(64) std::atomic<std::uint64_t> m_tail{0};  ///< next slot to push (producer writes)
    std::atomic<std::uint64_t> m_dropped{0};
};

}  // namespace augur::runtime
