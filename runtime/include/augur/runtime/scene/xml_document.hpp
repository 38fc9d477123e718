// A strict XML reader for the map formats augur loads (Lanelet2 OSM, SUMO .net.xml), on pugixml (as
// Lanelet2's own reader), with the document stored flat for the map readers.
//
// Supported: the XML declaration, elements, attributes (single or double quotes), the five predefined
// entities and numeric character references (decoded to UTF-8), comments, processing instructions
// (skipped), CDATA sections and character data (kept as element text). Not supported, and reported as
// an error rather than guessed at: DOCTYPE declarations (and so custom entities: no entity expansion
// of any kind), namespaces beyond treating `a:b` as a plain name, encodings other than UTF-8/ASCII.
//
// Strictness: pugixml's syntax errors (mismatched or unclosed tags, unquoted values, unterminated
// comments or CDATA) and the checks pugixml leaves to its caller — duplicate attributes, unknown
// entities and invalid character references, `--` inside a comment, `<` in an attribute value, a
// second root element or non-space text outside the root — all fail with the file name and the line
// where the problem was found.
//
// Init-phase only: parsing allocates (the document owns its strings). Complexity O(file size), plus
// O(n log n) per start tag with n attributes for the duplicate check (names sorted, not compared pairwise),
// so a hostile tag with 10^5 attributes costs milliseconds, not minutes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "augur/config/deployment.hpp"
#include "augur/core/result.hpp"

namespace augur::runtime::scene {

/// Why a file could not be read as XML: where, and what was wrong.
struct XmlError {
    std::string file;
    std::uint32_t line{0};  ///< 1-based; 0 when the file could not be opened
    std::string message;
};

/// One parsed document, stored flat: elements in document order, attributes in one array.
class XmlDocument {
public:
    static constexpr std::uint32_t NONE = 0xFFFFFFFFU;

    struct Attribute {
        std::string name;
        std::string value;  ///< entities already decoded
    };

    struct Element {
        std::string name;
        std::string text;  ///< character data and CDATA directly inside this element, decoded
        std::uint32_t line{0};
        std::uint32_t firstAttribute{0};
        std::uint32_t attributeCount{0};
        std::uint32_t parent{NONE};
        std::uint32_t firstChild{NONE};
        std::uint32_t nextSibling{NONE};
    };

    /// Parses `text`; `fileName` is only used in error messages.
    [[nodiscard]] static Result<XmlDocument, XmlError> parse(std::string_view text, const std::string& fileName);

    /// Reads and parses the regular file at `path` of at most `maxBytes` bytes (special files are
    /// refused without blocking: config::readRegularFile).
    [[nodiscard]] static Result<XmlDocument, XmlError> load(const std::string& path,
                                                            std::uint64_t maxBytes = config::DEFAULT_MAP_MAX_BYTES);

    /// Index of the root element (always 0 for a parsed document).
    [[nodiscard]] std::uint32_t root() const noexcept { return 0; }
    [[nodiscard]] const Element& element(std::uint32_t index) const { return m_elements.at(index); }
    [[nodiscard]] std::size_t elementCount() const noexcept { return m_elements.size(); }

    /// The value of attribute `name` of element `index`, or nullptr when absent. O(attributes of the element).
    [[nodiscard]] const std::string* attribute(std::uint32_t index, std::string_view name) const;

    /// All attributes of element `index`.
    [[nodiscard]] const Attribute* attributesBegin(std::uint32_t index) const;
    [[nodiscard]] const Attribute* attributesEnd(std::uint32_t index) const;

    [[nodiscard]] const std::string& fileName() const noexcept { return m_fileName; }

private:
    friend class XmlTreeBuilder;
    std::string m_fileName;
    std::vector<Element> m_elements;
    std::vector<Attribute> m_attributes;
};

}  // namespace augur::runtime::scene
