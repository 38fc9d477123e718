// FixedVector<T, N>: a vector whose capacity is part of its type (after iox::vector).
//
// Storage is inline (no allocation ever); pushing past the capacity returns false instead of
// growing, so callers count the overflow. Element access out of range is a contract breach.
// Real-time: every operation is O(1) except clear()/assign (O(size)); all are noexcept.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "augur/core/panic.hpp"

namespace augur {

template <typename T, std::size_t N>
class FixedVector {
    static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                  "FixedVector holds trivially copyable, default-constructible elements");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    static constexpr std::size_t CAPACITY = N;

    [[nodiscard]] constexpr std::size_t size() const noexcept { return m_size; }
    [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }
    [[nodiscard]] constexpr bool empty() const noexcept { return m_size == 0; }
    [[nodiscard]] constexpr bool full() const noexcept { return m_size == N; }

    /// Appends `value`; returns false (and changes nothing) when full.
    [[nodiscard]] constexpr bool pushBack(const T& value) noexcept {
        if (m_size == N) {
            return false;
        }
        m_data[m_size++] = value;
        return true;
    }
    constexpr void popBack() noexcept {
        AUGUR_ASSERT(m_size > 0, "FixedVector::popBack on empty vector");
        --m_size;
    }
    constexpr void clear() noexcept { m_size = 0; }

    /// Removes element `index` by moving the last element into its place (O(1), order not preserved).
    constexpr void swapRemove(std::size_t index) noexcept {
        AUGUR_ASSERT(index < m_size, "FixedVector::swapRemove out of range");
        m_data[index] = m_data[m_size - 1];
        --m_size;
    }

    constexpr T& operator[](std::size_t index) noexcept {
        AUGUR_ASSERT(index < m_size, "FixedVector index out of range");
        return m_data[index];
    }
    constexpr const T& operator[](std::size_t index) const noexcept {
        AUGUR_ASSERT(index < m_size, "FixedVector index out of range");
        return m_data[index];
    }

    constexpr T* data() noexcept { return m_data.data(); }
    constexpr const T* data() const noexcept { return m_data.data(); }
    constexpr iterator begin() noexcept { return m_data.data(); }
    constexpr iterator end() noexcept { return m_data.data() + m_size; }
    constexpr const_iterator begin() const noexcept { return m_data.data(); }
    constexpr const_iterator end() const noexcept { return m_data.data() + m_size; }

private:
    std::array<T, N> m_data{};
    std::size_t m_size{0};
};

}  // namespace augur
