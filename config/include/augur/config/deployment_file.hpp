// Reading the files a deployment consists of (the configuration file, the map it names) safely.
//
// A deployment file must be a regular file no larger than a limit. A path naming a FIFO, a device
// (/dev/zero, a terminal), a socket or a directory is refused before anything is read from it, and
// never blocks: the path is stat'ed first, then opened with O_NONBLOCK and checked again with fstat
// (the same regular file, in case it was swapped in between). The read stops one byte past the limit,
// so a file that grows while it is read is refused too.
//
// SHA-256 (FIPS 180-4, computed by OpenSSL's libcrypto) names a file's exact content: `augur-runtime
// --check` prints it, and a deployment pins its files with it (`--config-sha256`, `map.sha256`), which
// catches a truncated or altered file that still parses.
//
// Init phase only: allocates, makes system calls. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "augur/core/result.hpp"

namespace augur::config {

/// Largest configuration file the loader reads, bytes. The shipped files are a few kilobytes.
inline constexpr std::uint64_t MAX_CONFIG_FILE_BYTES = 1U << 20U;

/// Hexadecimal digits of a SHA-256.
inline constexpr std::size_t SHA256_HEX_CHARS = 64;

/// Why a file was not read.
enum class FileErrorKind : std::uint8_t {
    CannotOpen = 0,  ///< missing, no permission, or the path holds a NUL byte
    NotRegular,      ///< a directory, FIFO, character or block device, or socket
    TooLarge,        ///< more bytes than the limit
    ReadFailed,      ///< an I/O error while reading
};

struct FileError {
    FileErrorKind kind{FileErrorKind::CannotOpen};
    std::string message;  ///< e.g. "is a FIFO, not a regular file"; without the path
};

/// The whole content of the regular file at `path`, at most `maxBytes` bytes. Never blocks on special
/// files; never throws (running out of memory is ReadFailed). O(file size).
[[nodiscard]] Result<std::string, FileError> readRegularFile(const std::string& path, std::uint64_t maxBytes);

/// SHA-256 of `bytes` as 64 lowercase hexadecimal digits. O(size).
[[nodiscard]] std::string sha256Hex(std::string_view bytes);

/// True when `text` is 64 hexadecimal digits (either case). noexcept, O(1).
[[nodiscard]] bool isSha256Hex(std::string_view text) noexcept;

/// True when two SHA-256 texts name the same hash, ignoring the case of the digits. noexcept, O(1).
[[nodiscard]] bool sameSha256(std::string_view a, std::string_view b) noexcept;

}  // namespace augur::config
