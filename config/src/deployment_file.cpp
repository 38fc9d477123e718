#include "augur/config/deployment_file.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <exception>

#include "augur/core/panic.hpp"

namespace augur::config {
namespace {

/// "a FIFO", "a directory"… for a file type that is not a regular file.
const char* describeType(mode_t mode) noexcept {
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

FileError notRegular(mode_t mode) {
    return FileError{FileErrorKind::NotRegular, std::string("is ") + describeType(mode) + ", not a regular file"};
}

FileError tooLarge(std::uint64_t size, bool atLeast, std::uint64_t maxBytes) {
    return FileError{FileErrorKind::TooLarge, std::string("is ") + (atLeast ? "more than " : "") +
                                                  std::to_string(size) + " bytes, over the limit of " +
                                                  std::to_string(maxBytes) + " bytes"};
}

std::string systemError(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

/// Closes the descriptor when it goes out of scope.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) noexcept : m_fd(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    [[nodiscard]] int get() const noexcept { return m_fd; }

private:
    int m_fd;
};

constexpr std::size_t READ_CHUNK_BYTES = 64U * 1024U;

Result<std::string, FileError> readChecked(const std::string& path, std::uint64_t maxBytes) {
    if (path.find('\0') != std::string::npos) {
        return fail(FileError{FileErrorKind::CannotOpen, "cannot open the file: the path contains a NUL byte"});
    }
    // Refuse special files before opening them: opening a device can have effects of its own.
    struct stat before {};
    if (::stat(path.c_str(), &before) != 0) {
        return fail(FileError{FileErrorKind::CannotOpen, systemError("cannot open the file")});
    }
    if (!S_ISREG(before.st_mode)) {
        return fail(notRegular(before.st_mode));
    }
    // O_NONBLOCK: should the path have become a FIFO since stat, opening it still returns at once.
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (fd.get() < 0) {
        return fail(FileError{FileErrorKind::CannotOpen, systemError("cannot open the file")});
    }
    struct stat opened {};
    if (::fstat(fd.get(), &opened) != 0) {
        return fail(FileError{FileErrorKind::ReadFailed, systemError("cannot read the file")});
    }
    if (!S_ISREG(opened.st_mode)) {
        return fail(notRegular(opened.st_mode));
    }
    if (opened.st_dev != before.st_dev || opened.st_ino != before.st_ino) {
        return fail(FileError{FileErrorKind::CannotOpen, "cannot open the file: it was replaced while being opened"});
    }
    const auto size = static_cast<std::uint64_t>(opened.st_size);
    if (size > maxBytes) {
        return fail(tooLarge(size, false, maxBytes));
    }
    std::string text;
    text.reserve(static_cast<std::size_t>(size));
    std::array<char, READ_CHUNK_BYTES> chunk{};
    while (true) {
        const ::ssize_t got = ::read(fd.get(), chunk.data(), chunk.size());
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return fail(FileError{FileErrorKind::ReadFailed, systemError("cannot read the file")});
        }
        if (got == 0) {
            break;
        }
        text.append(chunk.data(), static_cast<std::size_t>(got));
        if (text.size() > maxBytes) {
            return fail(tooLarge(maxBytes, true, maxBytes));  // it grew while being read
        }
    }
    return text;
}

}  // namespace

Result<std::string, FileError> readRegularFile(const std::string& path, std::uint64_t maxBytes) {
    try {
        return readChecked(path, maxBytes);
    } catch (const std::exception& e) {  // std::bad_alloc for a file near a generous limit
        return fail(FileError{FileErrorKind::ReadFailed, std::string("cannot read the file: ") + e.what()});
    }
}

std::string sha256Hex(std::string_view bytes) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int digestLength = 0;
    const int ok = EVP_Digest(bytes.data(), bytes.size(), digest.data(), &digestLength, EVP_sha256(), nullptr);
    AUGUR_ASSERT(ok == 1 && digestLength * 2U == SHA256_HEX_CHARS, "SHA-256 digest failed");
    constexpr std::string_view HEX = "0123456789abcdef";
    std::string text;
    text.reserve(SHA256_HEX_CHARS);
    for (unsigned int i = 0; i < digestLength; ++i) {
        text += HEX[digest[i] >> 4U];
        text += HEX[digest[i] & 0xFU];
    }
    return text;
}

bool isSha256Hex(std::string_view text) noexcept {
    if (text.size() != SHA256_HEX_CHARS) {
        return false;
    }
    for (const char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            return false;
        }
    }
    return true;
}

bool sameSha256(std::string_view a, std::string_view b) noexcept {
    if (!isSha256Hex(a) || !isSha256Hex(b)) {
        return false;
    }
    const auto lower = [](char c) { return c >= 'A' && c <= 'F' ? static_cast<char>(c - 'A' + 'a') : c; };
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace augur::config
