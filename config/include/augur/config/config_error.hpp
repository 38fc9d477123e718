// What went wrong while loading a deployment file, and where.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace augur::config {

enum class ConfigErrorKind : std::uint8_t {
    FileNotFound = 0,   ///< the file cannot be opened
    SyntaxError,        ///< not valid YAML, or a duplicate key
    WrongType,          ///< a value of the wrong type (a string where a number is expected, a list for a section…)
    OutOfRange,         ///< a number outside its range, a string too long, a name not among the allowed values
    UnknownKey,         ///< a key the schema does not know (suggestion names the closest known key)
    MissingKey,         ///< a required key is absent
    Inconsistent,       ///< values that are each valid but contradict each other
    OverCompiledLimit,  ///< a capacity (or a derived count) above the limit compiled into augur/core/messages.hpp
    FileRejected,       ///< not a regular file (directory, FIFO, device…), or larger than the limit
    HashMismatch,       ///< the file's SHA-256 differs from the one it was pinned to
};

/// The spelling used in messages and docs, e.g. "unknown key".
[[nodiscard]] std::string_view toString(ConfigErrorKind kind) noexcept;

/// One error, pointing at the offending place of the file.
struct ConfigError {
    ConfigErrorKind kind{ConfigErrorKind::SyntaxError};
    std::string file{};     ///< as given to the loader ("<string>" style names for in-memory text)
    std::int32_t line{0};   ///< 1-based; 0 when no position applies (file not found)
    std::int32_t column{0}; ///< 1-based; 0 when no position applies
    std::string keyPath{};  ///< full dotted key path, e.g. "intention.resample_threshold"; empty for the document
    std::string message{};  ///< what was expected and what was found
    std::string suggestion{};  ///< UnknownKey: full path of the closest known key; otherwise empty
};

/// "config/x.yaml:12:5: intention.resample_threshold: expected a number in [0, 1], got 1.5".
/// Parts that do not apply (position, key) are left out.
[[nodiscard]] std::string format(const ConfigError& error);

}  // namespace augur::config
