#include "augur/core/transport_name.hpp"

namespace augur {
namespace {

constexpr bool isAllowed(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == ':';
}

}  // namespace

const char* toString(TransportNameError error) noexcept {
    switch (error) {
        case TransportNameError::Empty: return "is empty";
        case TransportNameError::TooLong: return "is longer than 100 characters";
        case TransportNameError::BadCharacter: return "contains a character other than A-Z a-z 0-9 - _ . :";
        case TransportNameError::DotName: return "is \".\" or \"..\", which name folders";
        case TransportNameError::TrailingDot: return "ends in a dot";
    }
    return "is invalid";
}

std::size_t firstBadTransportNameChar(std::string_view name) noexcept {
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (!isAllowed(name[i])) {
            return i;
        }
    }
    return name.size();
}

std::optional<TransportNameError> checkTransportName(std::string_view name) noexcept {
    if (name.empty()) {
        return TransportNameError::Empty;
    }
    if (name.size() > TRANSPORT_NAME_MAX_CHARS) {
        return TransportNameError::TooLong;
    }
    if (firstBadTransportNameChar(name) != name.size()) {
        return TransportNameError::BadCharacter;
    }
    if (name == "." || name == "..") {
        return TransportNameError::DotName;
    }
    if (name.back() == '.') {
        return TransportNameError::TrailingDot;
    }
    return std::nullopt;
}

std::string_view transportVisibleName(std::string_view name) noexcept {
    const std::size_t nul = name.find('\0');
    const std::string_view cString = nul == std::string_view::npos ? name : name.substr(0, nul);
    return cString.substr(0, TRANSPORT_NAME_MAX_CHARS);
}

}  // namespace augur
