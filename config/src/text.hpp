// Internal text helpers of the configuration library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace augur::config::detail {

/// Shortest text that reads back as exactly `value`, with ".0" added to whole numbers ("4.0", "0.1").
[[nodiscard]] std::string formatNumber(double value);

/// Levenshtein distance (insertions, deletions, substitutions), case-insensitive. O(|a|·|b|).
[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b);

/// `prefix + "." + name`, or `name` when prefix is empty.
[[nodiscard]] std::string joinPath(std::string_view prefix, std::string_view name);

/// The part of `path` before its last dot ("" for a top-level name).
[[nodiscard]] std::string_view parentPath(std::string_view path) noexcept;

/// The part of `path` after its last dot.
[[nodiscard]] std::string_view leafName(std::string_view path) noexcept;

}  // namespace augur::config::detail
