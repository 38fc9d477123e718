// Checked results: a value or an error, which the caller must look at.
//
// C++20 has no std::expected; Result<T, E> is the small subset we use, after iox::expected.
// Errors are plain values (usually an enum class, or a struct carrying an enum plus context).
// Construction and access never allocate; accessing the wrong alternative is a contract breach
// (AUGUR_ASSERT), not undefined behaviour.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "augur/core/panic.hpp"

namespace augur {

/// Wraps an error so that Result's constructor can tell it from a value: `return fail(Error::Io);`.
template <typename E>
struct Failure {
    E error;
};

template <typename E>
[[nodiscard]] constexpr Failure<std::decay_t<E>> fail(E&& error) {
    return Failure<std::decay_t<E>>{std::forward<E>(error)};
}

/// Either a T or an E. [[nodiscard]]: ignoring a result is a compile-time warning.
template <typename T, typename E>
class [[nodiscard]] Result {
public:
    using value_type = T;
    using error_type = E;

    constexpr Result(T value) : m_storage(std::in_place_index<0>, std::move(value)) {}  // NOLINT
    template <typename F>
        requires std::is_constructible_v<E, F>
    constexpr Result(Failure<F> failure) : m_storage(std::in_place_index<1>, E(std::move(failure.error))) {}  // NOLINT

    [[nodiscard]] constexpr bool hasValue() const noexcept { return m_storage.index() == 0; }
    [[nodiscard]] constexpr bool hasError() const noexcept { return m_storage.index() == 1; }
    constexpr explicit operator bool() const noexcept { return hasValue(); }

    [[nodiscard]] constexpr T& value() & {
        AUGUR_ASSERT(hasValue(), "Result::value() on an error");
        return *std::get_if<0>(&m_storage);
    }
    [[nodiscard]] constexpr const T& value() const& {
        AUGUR_ASSERT(hasValue(), "Result::value() on an error");
        return *std::get_if<0>(&m_storage);
    }
    [[nodiscard]] constexpr T&& value() && {
        AUGUR_ASSERT(hasValue(), "Result::value() on an error");
        return std::move(*std::get_if<0>(&m_storage));
    }
    [[nodiscard]] constexpr const E& error() const& {
        AUGUR_ASSERT(hasError(), "Result::error() on a value");
        return *std::get_if<1>(&m_storage);
    }
    [[nodiscard]] constexpr E&& error() && {
        AUGUR_ASSERT(hasError(), "Result::error() on a value");
        return std::move(*std::get_if<1>(&m_storage));
    }

    constexpr T* operator->() { return &value(); }
    constexpr const T* operator->() const { return &value(); }
    constexpr T& operator*() & { return value(); }
    constexpr const T& operator*() const& { return value(); }

private:
    std::variant<T, E> m_storage;
};

/// Success or an E.
template <typename E>
class [[nodiscard]] Result<void, E> {
public:
    using value_type = void;
    using error_type = E;

    constexpr Result() = default;
    template <typename F>
        requires std::is_constructible_v<E, F>
    constexpr Result(Failure<F> failure) : m_hasError(true), m_error(std::move(failure.error)) {}  // NOLINT

    [[nodiscard]] constexpr bool hasValue() const noexcept { return !m_hasError; }
    [[nodiscard]] constexpr bool hasError() const noexcept { return m_hasError; }
    constexpr explicit operator bool() const noexcept { return hasValue(); }

    [[nodiscard]] constexpr const E& error() const& {
        AUGUR_ASSERT(m_hasError, "Result::error() on success");
        return m_error;
    }

private:
    bool m_hasError{false};
    E m_error{};
};

}  // namespace augur
