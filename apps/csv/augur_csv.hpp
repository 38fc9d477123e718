// The one CSV dialect of augur's text files (scenarios, trajectories, measurements) and its reader.
//
// Dialect: fields separated by commas, no quoting (no field contains a comma); a line may end in CRLF;
// spaces and tabs around a field are not part of it; blank lines are skipped; a line whose first
// non-blank character is '#' is a comment (skipped, or handed to the caller where a format keeps
// `# key value` lines, as the scenario header does). Numbers are whole fields read by std::from_chars
// (no locale, no leading '+', no trailing junk).
//
// Offline and init-phase code: reads a std::istream, allocates.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace augur::apps::csv {

/// `text` without the spaces, tabs and carriage returns around it.
[[nodiscard]] inline std::string_view trim(std::string_view text) noexcept {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!text.empty() && blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

/// Reads a whole field as a number (surrounding blanks ignored). Floating-point fields may read as
/// infinity or NaN ("inf", "nan"): formats that need finite values check them (parseFinite).
template <typename T>
[[nodiscard]] bool parseField(std::string_view field, T& value) noexcept {
    field = trim(field);
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, value);
    return !field.empty() && ec == std::errc() && ptr == end;
}

/// A whole field as a finite floating-point number.
template <typename T>
[[nodiscard]] bool parseFinite(std::string_view field, T& value) noexcept {
    static_assert(std::is_floating_point_v<T>);
    return parseField(field, value) && std::isfinite(value);
}

/// Reads the lines of one file of the dialect.
class Reader {
public:
    enum class Comments : bool { Skip, Keep };

    explicit Reader(std::istream& in) : m_in(in) {}

    /// Moves to the next line that is not blank (and, with Comments::Skip, not a comment); false at the
    /// end of the input.
    bool next(Comments comments = Comments::Skip) {
        while (std::getline(m_in, m_line)) {
            ++m_lineNumber;
            m_text = trim(m_line);
            if (!m_text.empty() && (comments == Comments::Keep || !isComment())) {
                return true;
            }
        }
        m_text = {};
        return false;
    }

    /// 1-based number of the current line in the file (0 before the first).
    [[nodiscard]] std::size_t lineNumber() const noexcept { return m_lineNumber; }
    /// The current line without its line end and the blanks around it.
    [[nodiscard]] std::string_view line() const noexcept { return m_text; }
    [[nodiscard]] bool isComment() const noexcept { return !m_text.empty() && m_text.front() == '#'; }

    /// The current line's fields, each without its surrounding blanks; views into the line, valid until
    /// the next call of next().
    [[nodiscard]] const std::vector<std::string_view>& fields() {
        m_fields.clear();
        std::string_view rest = m_text;
        while (true) {
            const std::size_t comma = rest.find(',');
            m_fields.push_back(trim(rest.substr(0, comma)));
            if (comma == std::string_view::npos) {
                break;
            }
            rest.remove_prefix(comma + 1);
        }
        return m_fields;
    }

private:
    std::istream& m_in;
    std::string m_line;
    std::string_view m_text;
    std::size_t m_lineNumber{0};
    std::vector<std::string_view> m_fields;
};

}  // namespace augur::apps::csv
