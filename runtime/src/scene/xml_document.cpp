// Strict XML subset parser (see xml_document.hpp for what is and is not accepted).
#include "augur/runtime/scene/xml_document.hpp"

#include <algorithm>
#include <cstring>

#include "augur/config/deployment_file.hpp"

namespace augur::runtime::scene {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isNameStart(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' ||
           (static_cast<unsigned char>(c) >= 0x80);
}
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

/// Recursive-descent-free parser: one pass with an explicit stack of open elements.
class XmlParser {
public:
    XmlParser(std::string_view text, const std::string& fileName) : m_text(text) { m_doc.m_fileName = fileName; }

    Result<XmlDocument, XmlError> run() {
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF") {
            m_pos = 3;
        }
        if (!parseProlog()) {
            return failure();
        }
        if (m_pos >= m_text.size()) {
            setError("no root element");
            return failure();
        }
        if (!parseElements()) {
            return failure();
        }
        if (!parseMisc(true)) {
            return failure();
        }
        return Result<XmlDocument, XmlError>(std::move(m_doc));
    }

private:
    Failure<XmlError> failure() { return fail(XmlError{m_doc.m_fileName, m_errorLine, m_error}); }

    void setError(std::string message) { setErrorAt(m_line, std::move(message)); }

    void setErrorAt(std::uint32_t line, std::string message) {
        if (m_error.empty()) {
            m_error = std::move(message);
            m_errorLine = line;
        }
    }

    [[nodiscard]] bool startsWith(std::string_view s) const { return m_text.substr(m_pos, s.size()) == s; }

    void advance(std::size_t n) {
        for (std::size_t i = 0; i < n && m_pos < m_text.size(); ++i) {
            if (m_text[m_pos] == '\n') {
                ++m_line;
            }
            ++m_pos;
        }
    }

    void skipSpace() {
        while (m_pos < m_text.size() && isSpace(m_text[m_pos])) {
            advance(1);
        }
    }

    /// Skips until `terminator` (consumed); false at end of input.
    bool skipPast(std::string_view terminator, const char* what) {
        const std::size_t found = m_text.find(terminator, m_pos);
        if (found == std::string_view::npos) {
            setError(std::string("unterminated ") + what);
            return false;
        }
        advance(found + terminator.size() - m_pos);
        return true;
    }

    bool parseComment() {
        advance(4);  // "<!--"
        const std::size_t found = m_text.find("--", m_pos);
        if (found == std::string_view::npos) {
            setError("unterminated comment");
            return false;
        }
        advance(found - m_pos);
        if (!startsWith("-->")) {
            setError("'--' inside a comment");
            return false;
        }
        advance(3);
        return true;
    }

    bool parsePi() {
        advance(2);  // "<?"
        if (m_pos >= m_text.size() || !isNameStart(m_text[m_pos])) {
            setError("processing instruction without a target");
            return false;
        }
        return skipPast("?>", "processing instruction");
    }

    /// Comments, PIs and white space before (`afterRoot` false) or after the root element.
    bool parseMisc(bool afterRoot) {
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size()) {
                return true;
            }
            if (startsWith("<!--")) {
                if (!parseComment()) {
                    return false;
                }
            } else if (startsWith("<?")) {
                if (startsWith("<?xml") && (m_pos + 5 < m_text.size()) && isSpace(m_text[m_pos + 5])) {
                    setError("XML declaration not at the start of the file");
                    return false;
                }
                if (!parsePi()) {
                    return false;
                }
            } else if (startsWith("<!DOCTYPE")) {
                setError("DOCTYPE declarations are not supported");
                return false;
            } else if (!afterRoot && startsWith("<")) {
                return true;
            } else {
                setError(afterRoot ? "content after the root element" : "text before the root element");
                return false;
            }
        }
    }

    bool parseProlog() {
        if (startsWith("<?xml") && m_pos + 5 < m_text.size() && isSpace(m_text[m_pos + 5])) {
            const std::size_t end = m_text.find("?>", m_pos);
            if (end == std::string_view::npos) {
                setError("unterminated XML declaration");
                return false;
            }
            if (!checkEncoding(m_text.substr(m_pos, end - m_pos))) {
                return false;
            }
            advance(end + 2 - m_pos);
        }
        return parseMisc(false);
    }

    /// Only UTF-8 (and its ASCII subset) is read; any other declared encoding is refused.
    bool checkEncoding(std::string_view declaration) {
        const std::size_t at = declaration.find("encoding");
        if (at == std::string_view::npos) {
            return true;
        }
        const std::size_t open = declaration.find_first_of("'\"", at);
        const std::size_t close = open == std::string_view::npos ? open : declaration.find(declaration[open], open + 1);
        if (close == std::string_view::npos) {
            setError("malformed encoding in the XML declaration");
            return false;
        }
        std::string encoding(declaration.substr(open + 1, close - open - 1));
        for (char& c : encoding) {
            c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        }
        if (encoding != "utf-8" && encoding != "utf8" && encoding != "us-ascii" && encoding != "ascii") {
            setError("unsupported encoding '" + encoding + "' (only UTF-8)");
            return false;
        }
        return true;
    }

    bool parseName(std::string& out) {
        if (m_pos >= m_text.size() || !isNameStart(m_text[m_pos])) {
            setError("expected a name");
            return false;
        }
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && isNameChar(m_text[m_pos])) {
            ++m_pos;
        }
        out.assign(m_text.substr(start, m_pos - start));
        return true;
    }

    /// Decodes one entity or character reference at m_pos ('&'), appending to `out`.
    bool parseReference(std::string& out) {
        const std::size_t end = m_text.find(';', m_pos);
        if (end == std::string_view::npos || end - m_pos > 12) {
            setError("unterminated entity reference");
            return false;
        }
        const std::string_view ref = m_text.substr(m_pos + 1, end - m_pos - 1);
        if (ref == "lt") {
            out += '<';
        } else if (ref == "gt") {
            out += '>';
        } else if (ref == "amp") {
            out += '&';
        } else if (ref == "quot") {
            out += '"';
        } else if (ref == "apos") {
            out += '\'';
        } else if (ref.size() >= 2 && ref[0] == '#') {
            const bool hex = ref[1] == 'x';
            const std::string_view digits = ref.substr(hex ? 2 : 1);
            if (digits.empty()) {
                setError("empty character reference");
                return false;
            }
            std::uint32_t cp = 0;
            for (const char c : digits) {
                std::uint32_t d = 0;
                if (c >= '0' && c <= '9') {
                    d = static_cast<std::uint32_t>(c - '0');
                } else if (hex && c >= 'a' && c <= 'f') {
                    d = static_cast<std::uint32_t>(c - 'a' + 10);
                } else if (hex && c >= 'A' && c <= 'F') {
                    d = static_cast<std::uint32_t>(c - 'A' + 10);
                } else {
                    setError("invalid character reference '&" + std::string(ref) + ";'");
                    return false;
                }
                cp = cp * (hex ? 16U : 10U) + d;
                if (cp > 0x10FFFF) {
                    setError("character reference out of range");
                    return false;
                }
            }
            if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
                setError("character reference to an invalid code point");
                return false;
            }
            appendUtf8(out, cp);
        } else {
            setError("unknown entity '&" + std::string(ref) + ";'");
            return false;
        }
        advance(end + 1 - m_pos);
        return true;
    }

    /// Fails when two attributes of the start tag just read share a name, naming the first repeat in
    /// document order (and its line). O(n log n) in the tag's n attributes: the names are sorted by
    /// (name, position), so each repeat follows its first occurrence.
    bool checkDuplicateAttributes(const std::string& elementName) {
        if (m_attributeNames.size() < 2) {
            return true;
        }
        std::sort(m_attributeNames.begin(), m_attributeNames.end(), [](const AttributeName& a, const AttributeName& b) {
            return a.name != b.name ? a.name < b.name : a.index < b.index;
        });
        const AttributeName* repeat = nullptr;
        for (std::size_t i = 1; i < m_attributeNames.size(); ++i) {
            if (m_attributeNames[i].name == m_attributeNames[i - 1].name &&
                (repeat == nullptr || m_attributeNames[i].index < repeat->index)) {
                repeat = &m_attributeNames[i];
            }
        }
        if (repeat != nullptr) {
            setErrorAt(repeat->line, "duplicate attribute '" + std::string(repeat->name) + "' in <" + elementName + ">");
            return false;
        }
        return true;
    }

    bool parseAttributes(std::uint32_t elementIndex, bool& selfClosing) {
        auto& element = m_doc.m_elements[elementIndex];
        element.firstAttribute = static_cast<std::uint32_t>(m_doc.m_attributes.size());
        m_attributeNames.clear();
        for (;;) {
            const std::size_t before = m_pos;
            skipSpace();
            if (m_pos >= m_text.size()) {
                setError("unterminated start tag <" + element.name + ">");
                return false;
            }
            if (startsWith("/>")) {
                advance(2);
                selfClosing = true;
                return checkDuplicateAttributes(m_doc.m_elements[elementIndex].name);
            }
            if (m_text[m_pos] == '>') {
                advance(1);
                selfClosing = false;
                return checkDuplicateAttributes(m_doc.m_elements[elementIndex].name);
            }
            if (before == m_pos) {
                setError("expected white space before an attribute in <" + element.name + ">");
                return false;
            }
            XmlDocument::Attribute attribute;
            const std::size_t nameStart = m_pos;
            const std::uint32_t attributeLine = m_line;
            if (!parseName(attribute.name)) {
                return false;
            }
            const std::string_view nameView = m_text.substr(nameStart, m_pos - nameStart);
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '=') {
                setError("attribute '" + attribute.name + "' without a value");
                return false;
            }
            advance(1);
            skipSpace();
            if (m_pos >= m_text.size() || (m_text[m_pos] != '"' && m_text[m_pos] != '\'')) {
                setError("attribute '" + attribute.name + "' value not quoted");
                return false;
            }
            const char quote = m_text[m_pos];
            advance(1);
            for (;;) {
                if (m_pos >= m_text.size()) {
                    setError("unterminated value of attribute '" + attribute.name + "'");
                    return false;
                }
                const char c = m_text[m_pos];
                if (c == quote) {
                    advance(1);
                    break;
                }
                if (c == '<') {
                    setError("'<' in the value of attribute '" + attribute.name + "'");
                    return false;
                }
                if (c == '&') {
                    if (!parseReference(attribute.value)) {
                        return false;
                    }
                    continue;
                }
                attribute.value += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;  // attribute-value normalisation
                advance(1);
            }
            m_attributeNames.push_back(AttributeName{nameView, m_doc.m_attributes.size(), attributeLine});
            m_doc.m_attributes.push_back(std::move(attribute));
            ++m_doc.m_elements[elementIndex].attributeCount;
        }
    }

    /// Parses the root element and everything inside it.
    bool parseElements() {
        std::vector<std::uint32_t> open;
        std::vector<std::uint32_t> lastChild;
        for (;;) {
            if (m_pos >= m_text.size()) {
                if (open.empty()) {
                    return true;
                }
                setError("unexpected end of file inside <" + m_doc.m_elements[open.back()].name + ">");
                return false;
            }
            if (open.empty() && !m_doc.m_elements.empty()) {
                return true;  // root closed
            }
            const char c = m_text[m_pos];
            if (c != '<') {
                if (open.empty()) {
                    setError("text outside the root element");
                    return false;
                }
                auto& text = m_doc.m_elements[open.back()].text;
                if (c == '&') {
                    if (!parseReference(text)) {
                        return false;
                    }
                } else {
                    text += c;
                    advance(1);
                }
                continue;
            }
            if (startsWith("<!--")) {
                if (!parseComment()) {
                    return false;
                }
            } else if (startsWith("<![CDATA[")) {
                if (open.empty()) {
                    setError("CDATA outside the root element");
                    return false;
                }
                advance(9);
                const std::size_t end = m_text.find("]]>", m_pos);
                if (end == std::string_view::npos) {
                    setError("unterminated CDATA section");
                    return false;
                }
                m_doc.m_elements[open.back()].text.append(m_text.substr(m_pos, end - m_pos));
                advance(end + 3 - m_pos);
            } else if (startsWith("<!")) {
                setError(startsWith("<!DOCTYPE") ? "DOCTYPE declarations are not supported"
                                                 : "unsupported markup declaration");
                return false;
            } else if (startsWith("<?")) {
                if (!parsePi()) {
                    return false;
                }
            } else if (startsWith("</")) {
                advance(2);
                std::string name;
                if (!parseName(name)) {
                    return false;
                }
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != '>') {
                    setError("malformed end tag </" + name + ">");
                    return false;
                }
                advance(1);
                if (open.empty() || m_doc.m_elements[open.back()].name != name) {
                    setError("end tag </" + name + "> does not match " +
                             (open.empty() ? std::string("any open element")
                                           : "<" + m_doc.m_elements[open.back()].name + ">"));
                    return false;
                }
                open.pop_back();
                lastChild.pop_back();
            } else {
                if (open.empty() && !m_doc.m_elements.empty()) {
                    setError("second root element");
                    return false;
                }
                advance(1);
                const auto index = static_cast<std::uint32_t>(m_doc.m_elements.size());
                m_doc.m_elements.emplace_back();
                m_doc.m_elements[index].line = m_line;
                if (!parseName(m_doc.m_elements[index].name)) {
                    return false;
                }
                if (!open.empty()) {
                    m_doc.m_elements[index].parent = open.back();
                    if (lastChild.back() == XmlDocument::NONE) {
                        m_doc.m_elements[open.back()].firstChild = index;
                    } else {
                        m_doc.m_elements[lastChild.back()].nextSibling = index;
                    }
                    lastChild.back() = index;
                }
                bool selfClosing = false;
                if (!parseAttributes(index, selfClosing)) {
                    return false;
                }
                if (!selfClosing) {
                    open.push_back(index);
                    lastChild.push_back(XmlDocument::NONE);
                }
                if (open.empty()) {
                    return true;  // self-closing root
                }
            }
        }
    }

    /// An attribute name of the start tag being read: a view of the source text (names are not decoded),
    /// its index in the document's attribute array and its line.
    struct AttributeName {
        std::string_view name;
        std::size_t index;
        std::uint32_t line;
    };

    std::string_view m_text;
    std::vector<AttributeName> m_attributeNames;  ///< reused from tag to tag
    std::size_t m_pos{0};
    std::uint32_t m_line{1};
    std::string m_error;
    std::uint32_t m_errorLine{0};
    XmlDocument m_doc;
};

Result<XmlDocument, XmlError> XmlDocument::parse(std::string_view text, const std::string& fileName) {
    XmlParser parser(text, fileName);
    return parser.run();
}

Result<XmlDocument, XmlError> XmlDocument::load(const std::string& path, std::uint64_t maxBytes) {
    auto text = config::readRegularFile(path, maxBytes);
    if (text.hasError()) {
        return fail(XmlError{path, 0, text.error().message});
    }
    return parse(text.value(), path);
}

const std::string* XmlDocument::attribute(std::uint32_t index, std::string_view name) const {
    const Element& e = m_elements.at(index);
    for (std::uint32_t i = e.firstAttribute; i < e.firstAttribute + e.attributeCount; ++i) {
        if (m_attributes[i].name == name) {
            return &m_attributes[i].value;
        }
    }
    return nullptr;
}

const XmlDocument::Attribute* XmlDocument::attributesBegin(std::uint32_t index) const {
    return m_attributes.data() + m_elements.at(index).firstAttribute;
}

const XmlDocument::Attribute* XmlDocument::attributesEnd(std::uint32_t index) const {
    const Element& e = m_elements.at(index);
    return m_attributes.data() + e.firstAttribute + e.attributeCount;
}

}  // namespace augur::runtime::scene
