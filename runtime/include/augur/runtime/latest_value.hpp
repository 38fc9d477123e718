// The newest value one producer thread hands to one consumer thread, wait-free on both sides (a triple
// buffer): the producer fills a slot of its own and swaps it with the shared middle slot; the consumer
// swaps the middle slot in when it holds something newer. Neither side ever waits for the other, so a
// real-time consumer can read what a thread of lower priority writes, and a preempted producer never
// holds the consumer up (a sequence lock would make the reader retry while the writer is preempted).
//
//   LatestValue<LinkSupervision> shared;
//   shared.publish(value);            // producer thread
//   const auto& v = shared.newest();  // consumer thread: the last value published (or the initial one)
//
// Both operations are sequentially consistent on the middle slot's index, so they can take part in a
// handshake with other seq_cst operations (LinkReporter). Run phase: noexcept, allocation-free, O(sizeof T);
// exactly one producer thread and one consumer thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <type_traits>

namespace augur::runtime {

template <typename T>
class LatestValue {
    static_assert(std::is_trivially_copyable_v<T>, "slots are copied by value");

public:
    explicit LatestValue(const T& initial = T{}) noexcept : m_slots{initial, initial, initial} {}
    LatestValue(const LatestValue&) = delete;
    LatestValue& operator=(const LatestValue&) = delete;

    /// Producer: makes `value` the newest. Wait-free.
    void publish(const T& value) noexcept {
        m_slots[m_produce] = value;
        const std::uint8_t previous = m_middle.exchange(static_cast<std::uint8_t>(m_produce | FRESH));
        m_produce = static_cast<std::uint8_t>(previous & INDEX);
    }

    /// Consumer: the newest value published, or the initial one before any. The reference stays valid,
    /// and unchanged, until this thread's next call. Wait-free.
    [[nodiscard]] const T& newest() noexcept {
        if ((m_middle.load() & FRESH) != 0) {
            const std::uint8_t previous = m_middle.exchange(m_consume);
            m_consume = static_cast<std::uint8_t>(previous & INDEX);
        }
        return m_slots[m_consume];
    }

private:
    static constexpr std::uint8_t INDEX = 0x3;  ///< the middle slot's index
    static constexpr std::uint8_t FRESH = 0x4;  ///< the middle slot was published and not yet read

    std::array<T, 3> m_slots;
    std::atomic<std::uint8_t> m_middle{1};
    alignas(64) std::uint8_t m_produce{0};  ///< producer thread only
    alignas(64) std::uint8_t m_consume{2};  ///< consumer thread only
};

}  // namespace augur::runtime
