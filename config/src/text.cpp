#include "text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <numeric>
#include <vector>

namespace augur::config::detail {

std::string formatNumber(double value) {
    std::array<char, 64> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    if (ec != std::errc{}) {
        return "?";
    }
    std::string text(buffer.data(), end);
    if (text.find_first_of(".eEn") == std::string::npos) {  // 'n': inf, nan
        text += ".0";
    }
    return text;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
    const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    std::iota(previous.begin(), previous.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0U : 1U);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::string joinPath(std::string_view prefix, std::string_view name) {
    std::string path;
    path.reserve(prefix.size() + 1 + name.size());
    if (!prefix.empty()) {
        path.append(prefix);
        path += '.';
    }
    path.append(name);
    return path;
}

std::string_view parentPath(std::string_view path) noexcept {
    const std::size_t dot = path.rfind('.');
    return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

std::string_view leafName(std::string_view path) noexcept {
    const std::size_t dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

}  // namespace augur::config::detail
