// A benchmark's result file: the figures one run measured, as the JSON that scripts/bench-tables turns
// into the tables of docs/benchmarks.md and compares (--compare OLD NEW):
//
//   {"family": "kalman", "title": "…", "order": 20,
//    "defaults": {"device": …, "date": "YYYY-MM-DD", "commit": …, "command": …},
//    "results": [{"metric": …, "target": …, "value": 54.53, "unit": "us"}, …]}
//
// The family, title and order are those of the committed docs/results/<family>.json, so that a new file
// can replace it; where a program names its metrics as the committed file does, scripts/bench-tables
// --compare pairs them metric by metric. Offline benchmark code: allocates freely.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/core/version.hpp"

namespace augur::bench {

/// One measured figure: `value` printed with `digits` decimals, `unit` as bench-tables prints it after
/// the value ("us", "ms", "x", "%"), `target` the acceptance target in words ("<= 5 ms"; empty: none).
struct ResultRow {
    std::string metric;
    std::string target;
    std::string value;
    std::string unit;
};

/// `text` as a JSON string literal, quotes included (RFC 8259: '"', '\\' and control characters escaped).
[[nodiscard]] inline std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    std::array<char, 8> escaped{};
                    std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
                    out += escaped.data();
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

/// True when `text` is a JSON number (RFC 8259 §6: -?int frac? exp?), as a result's value is written.
[[nodiscard]] inline bool isJsonNumber(const std::string& text) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            ++i;
        }
        return i > start;
    };
    if (i < text.size() && text[i] == '-') {
        ++i;
    }
    if (i >= text.size() || (text[i] == '0' && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') ||
        !digits()) {
        return false;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (!digits()) {
            return false;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            ++i;
        }
        if (!digits()) {
            return false;
        }
    }
    return i == text.size();
}

/// `n` with thousands separated by commas ("20,000"), as the result files write counts.
[[nodiscard]] inline std::string withThousands(long long n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) {
        digits.insert(static_cast<std::size_t>(at), ",");
    }
    return (n < 0 ? "-" : "") + digits;
}

/// Today's date in UTC, "YYYY-MM-DD" (the result files' date field).
[[nodiscard]] inline std::string utcDate() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::array<char, 16> text{};
    std::strftime(text.data(), text.size(), "%Y-%m-%d", &tm);
    return text.data();
}

/// The command line as a shell would take it back: the program's base name, then each argument,
/// single-quoted where it holds anything but letters, digits and -_./=:,+.
[[nodiscard]] inline std::string commandLine(int argc, const char* const* argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        std::string word = argv[i];
        if (i == 0) {
            word = word.substr(word.find_last_of('/') + 1);
        }
        bool plain = !word.empty();
        for (const char c : word) {
            const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                              std::string_view("-_./=:,+").find(c) != std::string_view::npos;
            plain = plain && safe;
        }
        if (!plain) {
            std::string quoted = "'";
            for (const char c : word) {
                quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
            }
            word = quoted + "'";
        }
        out += (i == 0 ? "" : " ") + word;
    }
    return out;
}

class ResultFile {
public:
    /// `family`, `title` and `order` as in docs/results/<family>.json; the date is today's (UTC) and the
    /// commit the build's (augur::buildCommit()).
    ResultFile(std::string family, std::string title, int order)
        : m_family(std::move(family)), m_title(std::move(title)), m_order(order), m_date(utcDate()),
          m_commit(buildCommit()) {}

    /// Where the figures were measured ("NVIDIA H100 80GB HBM3 (sm_90)", "AMD EPYC 7B13, 16 threads").
    void setDevice(std::string device) { m_device = std::move(device); }
    /// The command that reproduces the run (commandLine(argc, argv)).
    void setCommand(std::string command) { m_command = std::move(command); }

    /// Adds a figure; a value that is not finite is written as the metric's absence (no row), since
    /// JSON has no NaN and a missing measurement must not read as a number.
    void add(std::string metric, double value, int digits, std::string unit, std::string target = {}) {
        if (!std::isfinite(value)) {
            return;
        }
        std::array<char, 64> text{};
        std::snprintf(text.data(), text.size(), "%.*f", digits, value);
        m_rows.push_back({std::move(metric), std::move(target), text.data(), std::move(unit)});
    }

    /// Adds a figure as a table printed it ("22.90", "39.4x", "84 %"): the number keeps its digits, a
    /// trailing "x", "×" or "%" becomes the unit. Text that is not such a number adds nothing ("-", "NO").
    void addPrinted(std::string metric, const std::string& printed, std::string target = {}) {
        std::string number = printed;
        std::string unit;
        for (const auto& [suffix, name] : {std::pair<std::string, std::string>{"×", "x"}, {"x", "x"}, {"%", "%"}}) {
            if (number.size() > suffix.size() && number.ends_with(suffix)) {
                number.resize(number.size() - suffix.size());
                unit = name;
                break;
            }
        }
        while (!number.empty() && number.back() == ' ') {
            number.pop_back();
        }
        if (!isJsonNumber(number)) {
            return;
        }
        m_rows.push_back({std::move(metric), std::move(target), number, unit});
    }

    [[nodiscard]] const std::vector<ResultRow>& rows() const noexcept { return m_rows; }

    /// The file's text: one result per line, as the committed files are laid out.
    [[nodiscard]] std::string json() const {
        std::string out = "{\n  \"family\": " + jsonString(m_family) + ",\n  \"order\": " + std::to_string(m_order) +
                          ",\n  \"title\": " + jsonString(m_title) + ",\n  \"defaults\": {\n    \"device\": " +
                          jsonString(m_device) + ",\n    \"date\": " + jsonString(m_date) +
                          ",\n    \"commit\": " + jsonString(m_commit) + ",\n    \"command\": " + jsonString(m_command) +
                          "\n  },\n  \"results\": [";
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const ResultRow& r = m_rows[i];
            out += std::string(i == 0 ? "\n" : ",\n") + "    {\"metric\": " + jsonString(r.metric) +
                   ", \"target\": " + jsonString(r.target) + ", \"value\": " + r.value + ", \"unit\": " + jsonString(r.unit) +
                   "}";
        }
        return out + (m_rows.empty() ? "]\n}\n" : "\n  ]\n}\n");
    }

    /// Writes json() to `path`. Error: "PATH: cannot write".
    [[nodiscard]] Result<void, std::string> write(const std::string& path) const {
        std::ofstream out(path);
        out << json();
        out.close();
        if (!out) {
            return fail(path + ": cannot write");
        }
        return {};
    }

private:
    std::string m_family;
    std::string m_title;
    int m_order;
    std::string m_date;
    std::string m_commit;
    std::string m_device;
    std::string m_command;
    std::vector<ResultRow> m_rows;
};

}  // namespace augur::bench
