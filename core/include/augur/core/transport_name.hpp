// The rule every iceoryx name augur hands over must follow: the application (runtime) name and each
// service, instance and event of a channel.
//
// iceoryx 2.0.3 turns the runtime name into a path (the UNIX-domain socket /tmp/<name>, which it
// unlinks before binding), stores names in fixed strings of 100 characters (RuntimeName_t,
// capro::IdString_t) built from C strings, and aborts the process on some names it rejects (a leading
// slash). This rule is the one of iceoryx's own file-name check (iox::cxx::isValidFileName in
// iceoryx_hoofs cxx/helplets): 1 to 100 characters, each an ASCII letter or digit or one of - _ . :,
// not "." or "..", not ending in "." . So no slash, no NUL, no space, no non-ASCII byte, and no name
// that can point outside iceoryx's folder. The configuration loader checks every name with it (and
// reports file, line and key); the transport checks again before anything reaches iceoryx.
//
// Pure functions: noexcept, allocation-free, O(length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace augur {

/// Longest name iceoryx stores: capro::IdString_t and RuntimeName_t (MAX_IPC_CHANNEL_NAME_LENGTH on
/// Linux) are fixed strings of 100 characters.
inline constexpr std::size_t TRANSPORT_NAME_MAX_CHARS = 100;

/// Why a name breaks the rule, in the order checkTransportName tests.
enum class TransportNameError : std::uint8_t {
    Empty = 0,     ///< no characters
    TooLong,       ///< over TRANSPORT_NAME_MAX_CHARS
    BadCharacter,  ///< a byte outside A-Z a-z 0-9 - _ . : (slash, space, NUL, control, non-ASCII…)
    DotName,       ///< "." or ".." (a folder, not a name)
    TrailingDot,   ///< ends in "." (iceoryx rejects it)
};

/// What is wrong, as a phrase: "contains a character other than A-Z a-z 0-9 - _ . :".
[[nodiscard]] const char* toString(TransportNameError error) noexcept;

/// std::nullopt when `name` follows the rule, else the first problem found.
[[nodiscard]] std::optional<TransportNameError> checkTransportName(std::string_view name) noexcept;

/// Offset of the first byte that is not allowed, or name.size() when there is none.
[[nodiscard]] std::size_t firstBadTransportNameChar(std::string_view name) noexcept;

/// The name as iceoryx would store it: up to the first NUL (iceoryx copies C strings), at most
/// TRANSPORT_NAME_MAX_CHARS characters. Names that follow the rule are returned unchanged; comparing
/// these views tells whether two names would reach iceoryx as the same one.
[[nodiscard]] std::string_view transportVisibleName(std::string_view name) noexcept;

}  // namespace augur
