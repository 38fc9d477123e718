#include "augur/config/config_error.hpp"

namespace augur::config {

std::string_view toString(ConfigErrorKind kind) noexcept {
    switch (kind) {
        case ConfigErrorKind::FileNotFound: return "file not found";
        case ConfigErrorKind::SyntaxError: return "syntax error";
        case ConfigErrorKind::WrongType: return "wrong type";
        case ConfigErrorKind::OutOfRange: return "out of range";
        case ConfigErrorKind::UnknownKey: return "unknown key";
        case ConfigErrorKind::MissingKey: return "missing key";
        case ConfigErrorKind::Inconsistent: return "inconsistent";
        case ConfigErrorKind::OverCompiledLimit: return "over compiled limit";
        case ConfigErrorKind::FileRejected: return "file rejected";
        case ConfigErrorKind::HashMismatch: return "hash mismatch";
    }
    return "invalid";
}

std::string format(const ConfigError& error) {
    std::string text = error.file;
    if (error.line > 0) {
        text += ":" + std::to_string(error.line);
        if (error.column > 0) {
            text += ":" + std::to_string(error.column);
        }
    }
    text += ": ";
    if (!error.keyPath.empty()) {
        text += error.keyPath + ": ";
    }
    text += error.message;
    return text;
}

}  // namespace augur::config
