// The map formats' XML reader on pugixml, with the checks pugixml leaves to its caller (see
// xml_document.hpp): pugixml parses the text in place, so every name and value still sits at its
// offset in the source, which gives each element, attribute and error its line.
#include "augur/runtime/scene/xml_document.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "augur/config/deployment_file.hpp"

namespace augur::runtime::scene {

namespace {

constexpr unsigned PARSE_OPTIONS = pugi::parse_default | pugi::parse_fragment | pugi::parse_doctype |
                                   pugi::parse_comments | pugi::parse_declaration;

/// The source text with line lookup by byte offset.
class Source {
public:
    explicit Source(std::string_view text) : m_text(text) {
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n') {
                m_newlines.push_back(i);
            }
        }
    }

    [[nodiscard]] std::string_view text() const noexcept { return m_text; }

    /// 1-based line of byte `offset`. O(log lines).
    [[nodiscard]] std::uint32_t lineAt(std::size_t offset) const {
        const auto before = std::lower_bound(m_newlines.begin(), m_newlines.end(), offset) - m_newlines.begin();
        return static_cast<std::uint32_t>(before) + 1U;
    }

private:
    std::string_view m_text;
    std::vector<std::size_t> m_newlines;
};

/// An error found after parsing: the offset it belongs to and what is wrong.
struct Problem {
    std::size_t offset;
    std::string message;
};

/// Checks one entity or character reference starting at the '&' at `amp` of `raw`; returns its length.
std::optional<std::string> checkReference(std::string_view raw, std::size_t amp, std::size_t& length) {
    const std::size_t semicolon = raw.find(';', amp);
    if (semicolon == std::string_view::npos) {
        return "unterminated entity reference";
    }
    length = semicolon - amp + 1;
    const std::string_view ref = raw.substr(amp + 1, semicolon - amp - 1);
    if (ref == "lt" || ref == "gt" || ref == "amp" || ref == "quot" || ref == "apos") {
        return std::nullopt;
    }
    if (ref.empty() || ref[0] != '#') {
        return "unknown entity '&" + std::string(ref) + ";'";
    }
    const bool hex = ref.size() > 1 && ref[1] == 'x';
    const std::string_view digits = ref.substr(hex ? 2 : 1);
    if (digits.empty()) {
        return "empty character reference";
    }
    std::uint64_t codePoint = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), codePoint, hex ? 16 : 10);
    if (ec == std::errc::result_out_of_range) {
        return "character reference out of range";
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        return "invalid character reference '&" + std::string(ref) + ";'";
    }
    const bool valid = codePoint == 0x9 || codePoint == 0xA || codePoint == 0xD ||
                       (codePoint >= 0x20 && codePoint <= 0xD7FF) || (codePoint >= 0xE000 && codePoint <= 0xFFFD) ||
                       (codePoint >= 0x10000 && codePoint <= 0x10FFFF);
    if (codePoint > 0x10FFFF) {
        return "character reference out of range";
    }
    return valid ? std::nullopt : std::optional<std::string>("character reference to an invalid code point");
}

}  // namespace

/// Builds the flat document from pugixml's tree and checks what pugixml accepts but the map formats
/// must not contain.
class XmlTreeBuilder {
public:
    XmlTreeBuilder(const Source& source, const char* buffer, XmlDocument& doc) : m_source(source), m_buffer(buffer), m_doc(doc) {}

    /// The first problem in document order, if any.
    std::optional<Problem> build(const pugi::xml_document& tree) {
        std::optional<std::size_t> rootOffset;
        for (pugi::xml_node node = tree.first_child(); node; node = node.next_sibling()) {
            if (auto problem = checkTopLevel(node, rootOffset)) {
                return problem;
            }
        }
        if (!rootOffset) {
            return Problem{m_source.text().size(), "no root element"};
        }
        return addTree(tree.document_element());
    }

private:
    /// Offset of `text` (a name or value pugixml left in the in-place buffer) in the source.
    [[nodiscard]] std::size_t offsetOf(const char* text) const { return static_cast<std::size_t>(text - m_buffer); }

    std::optional<Problem> checkTopLevel(const pugi::xml_node& node, std::optional<std::size_t>& rootOffset) {
        switch (node.type()) {
        case pugi::node_element:
            if (rootOffset) {
                return Problem{offsetOf(node.name()), "content after the root element"};
            }
            rootOffset = offsetOf(node.name());
            return std::nullopt;
        case pugi::node_pcdata:
        case pugi::node_cdata:
            return Problem{offsetOf(node.value()), rootOffset ? "content after the root element"
                                                              : "text before the root element"};
        case pugi::node_declaration:
            return checkDeclaration(node);
        default:
            return checkMarkup(node);
        }
    }

    std::optional<Problem> checkDeclaration(const pugi::xml_node& node) const {
        const std::size_t offset = offsetOf(node.name());
        const std::size_t start = m_source.text().substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
        if (offset != start + 2) {  // "<?xml" is the first thing in the file
            return Problem{offset, "XML declaration not at the start of the file"};
        }
        const pugi::xml_attribute encoding = node.attribute("encoding");
        std::string name = encoding ? encoding.value() : "UTF-8";
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        if (name != "UTF-8") {
            return Problem{offset, "unsupported encoding '" + std::string(encoding.value()) + "' (only UTF-8)"};
        }
        return std::nullopt;
    }

    /// Comments, declarations inside the root and DOCTYPE.
    std::optional<Problem> checkMarkup(const pugi::xml_node& node) const {
        if (node.type() == pugi::node_doctype) {
            return Problem{offsetOf(node.value()), "DOCTYPE declarations are not supported"};
        }
        if (node.type() == pugi::node_declaration) {
            return Problem{offsetOf(node.name()), "XML declaration not at the start of the file"};
        }
        if (node.type() == pugi::node_comment) {
            const std::string_view text = node.value();
            if (text.find("--") != std::string_view::npos || (!text.empty() && text.back() == '-')) {
                return Problem{offsetOf(node.value()), "'--' inside a comment"};
            }
        }
        return std::nullopt;
    }

    /// Checks the references in the source text of a value or character data starting at `offset` and
    /// ending before `terminator`; `inAttribute`: '<' is not allowed either.
    std::optional<Problem> checkRaw(std::size_t offset, char terminator, bool inAttribute) const {
        const std::string_view text = m_source.text();
        const std::size_t end = std::min(text.find(terminator, offset), text.size());
        const std::string_view raw = text.substr(0, end);
        for (std::size_t i = offset; i < end; ++i) {
            if (raw[i] == '<' && inAttribute) {
                return Problem{i, "'<' in an attribute value"};
            }
            if (raw[i] == '&') {
                std::size_t length = 1;
                if (auto message = checkReference(raw, i, length)) {
                    return Problem{i, std::move(*message)};
                }
                i += length - 1;
            }
        }
        return std::nullopt;
    }

    /// Adds `root` and everything under it in document order (iterative: no recursion on hostile depth).
    std::optional<Problem> addTree(const pugi::xml_node& root) {
        struct Open {
            pugi::xml_node node;
            std::uint32_t element;
            std::uint32_t lastChild;  ///< the last child element added so far, or NONE
        };
        std::vector<Open> open;
        std::uint32_t noSibling = XmlDocument::NONE;
        if (auto problem = addElement(root, XmlDocument::NONE, noSibling)) {
            return problem;
        }
        open.push_back({root, 0, XmlDocument::NONE});
        pugi::xml_node node = root.first_child();
        while (!open.empty()) {
            if (!node) {  // the innermost open element is complete
                node = open.back().node.next_sibling();
                open.pop_back();
                continue;
            }
            if (auto problem = addNode(node, open.back().element, open.back().lastChild)) {
                return problem;
            }
            if (node.type() == pugi::node_element) {
                open.push_back({node, open.back().lastChild, XmlDocument::NONE});
                node = node.first_child();
            } else {
                node = node.next_sibling();
            }
        }
        return std::nullopt;
    }

    std::optional<Problem> addNode(const pugi::xml_node& node, std::uint32_t parent, std::uint32_t& previous) {
        switch (node.type()) {
        case pugi::node_element:
            return addElement(node, parent, previous);
        case pugi::node_pcdata:
            if (auto problem = checkRaw(offsetOf(node.value()), '<', false)) {
                return problem;
            }
            [[fallthrough]];
        case pugi::node_cdata:
            m_doc.m_elements[parent].text += node.value();
            return std::nullopt;
        default:
            return checkMarkup(node);
        }
    }

    std::optional<Problem> addElement(const pugi::xml_node& node, std::uint32_t parent, std::uint32_t& previous) {
        const auto index = static_cast<std::uint32_t>(m_doc.m_elements.size());
        XmlDocument::Element element;
        element.name = node.name();
        element.line = m_source.lineAt(offsetOf(node.name()));
        element.parent = parent;
        element.firstAttribute = static_cast<std::uint32_t>(m_doc.m_attributes.size());
        m_names.clear();
        for (const pugi::xml_attribute& attribute : node.attributes()) {
            const std::size_t valueOffset = offsetOf(attribute.value());
            if (auto problem = checkRaw(valueOffset, m_source.text()[valueOffset - 1], true)) {
                return problem;
            }
            m_names.push_back({attribute.name(), offsetOf(attribute.name())});
            m_doc.m_attributes.push_back({attribute.name(), attribute.value()});
        }
        element.attributeCount = static_cast<std::uint32_t>(m_names.size());
        if (auto problem = checkDuplicates(element.name)) {
            return problem;
        }
        if (previous != XmlDocument::NONE) {
            m_doc.m_elements[previous].nextSibling = index;
        } else if (parent != XmlDocument::NONE) {
            m_doc.m_elements[parent].firstChild = index;
        }
        previous = index;
        m_doc.m_elements.push_back(std::move(element));
        return std::nullopt;
    }

    /// The first repeated attribute name in document order. O(n log n) in the element's attributes.
    std::optional<Problem> checkDuplicates(const std::string& elementName) {
        std::sort(m_names.begin(), m_names.end(), [](const AttributeName& a, const AttributeName& b) {
            return a.name != b.name ? a.name < b.name : a.offset < b.offset;
        });
        const AttributeName* repeat = nullptr;
        for (std::size_t i = 1; i < m_names.size(); ++i) {
            if (m_names[i].name == m_names[i - 1].name && (repeat == nullptr || m_names[i].offset < repeat->offset)) {
                repeat = &m_names[i];
            }
        }
        if (repeat == nullptr) {
            return std::nullopt;
        }
        return Problem{repeat->offset, "duplicate attribute '" + std::string(repeat->name) + "' in <" + elementName + ">"};
    }

    struct AttributeName {
        std::string_view name;
        std::size_t offset;
    };

    const Source& m_source;
    const char* m_buffer;
    XmlDocument& m_doc;
    std::vector<AttributeName> m_names;  ///< of the element being added; reused
};

namespace {

/// The name that starts at `offset` (up to white space, '>' or '/').
std::string nameAt(std::string_view text, std::size_t offset) {
    std::size_t end = offset;
    while (end < text.size() && std::string_view(" \t\r\n>/").find(text[end]) == std::string_view::npos) {
        ++end;
    }
    return std::string(text.substr(offset, end - offset));
}

/// The deepest last element of a partly parsed tree: the element open where the parse stopped.
std::string openElement(const pugi::xml_document& tree) {
    pugi::xml_node open;
    for (pugi::xml_node node = tree.last_child(); node; node = node.last_child()) {
        while (node && node.type() != pugi::node_element) {
            node = node.previous_sibling();
        }
        if (!node) {
            break;
        }
        open = node;
    }
    return open ? open.name() : "";
}

/// What pugixml's parse error means in the terms of the format, with the offset to report.
Problem describe(const pugi::xml_parse_result& result, std::string_view text, const pugi::xml_document& tree) {
    const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(result.offset, 0));
    const auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
    switch (result.status) {
    case pugi::status_end_element_mismatch:
        if (offset >= 2 && text.substr(offset - 2, 2) == "</") {
            return {offset, "end tag </" + nameAt(text, offset) + "> does not match <" + openElement(tree) + ">"};
        }
        return {text.size(), "unexpected end of file inside <" + openElement(tree) + ">"};
    case pugi::status_bad_attribute:
        if (offset > 0 && at(offset - 1) == '=') {
            return {offset, "attribute value not quoted"};
        }
        if (offset > 0 && (at(offset - 1) == '"' || at(offset - 1) == '\'')) {
            return {offset, "expected white space before an attribute"};
        }
        return {offset, "malformed attribute or attribute without a value"};
    case pugi::status_unrecognized_tag:
        return {offset, "expected a name after '<'"};
    case pugi::status_bad_comment:
        return {offset, "malformed or unterminated comment"};
    case pugi::status_bad_cdata:
        return {offset, "malformed or unterminated CDATA section"};
    case pugi::status_bad_doctype:
        return {offset, "DOCTYPE declarations are not supported"};
    case pugi::status_bad_pi:
        return {offset, "malformed processing instruction or XML declaration"};
    case pugi::status_bad_start_element:
        return {offset, "malformed start tag"};
    case pugi::status_bad_end_element:
        return {offset, "malformed end tag"};
    case pugi::status_bad_pcdata:
        return {offset, "malformed character data"};
    default:
        return {offset, result.description()};
    }
}

}  // namespace

Result<XmlDocument, XmlError> XmlDocument::parse(std::string_view text, const std::string& fileName) {
    const Source source(text);
    std::vector<char> buffer(text.begin(), text.end());
    buffer.push_back('\0');
    pugi::xml_document tree;
    const pugi::xml_parse_result result =
        tree.load_buffer_inplace(buffer.data(), text.size(), PARSE_OPTIONS, pugi::encoding_utf8);
    if (!result) {
        const Problem problem = describe(result, text, tree);
        return fail(XmlError{fileName, source.lineAt(problem.offset), problem.message});
    }
    XmlDocument doc;
    doc.m_fileName = fileName;
    XmlTreeBuilder builder(source, buffer.data(), doc);
    if (auto problem = builder.build(tree)) {
        return fail(XmlError{fileName, source.lineAt(problem->offset), problem->message});
    }
    return Result<XmlDocument, XmlError>(std::move(doc));
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
