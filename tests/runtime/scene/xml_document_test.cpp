#include "augur/runtime/scene/xml_document.hpp"

#include <gtest/gtest.h>

#include <string>

namespace augur::runtime::scene {
namespace {

const std::string FILE_NAME = "test.xml";

XmlDocument parseOk(const std::string& text) {
    auto result = XmlDocument::parse(text, FILE_NAME);
    EXPECT_TRUE(result.hasValue()) << (result.hasError() ? result.error().message : "");
    return result.hasValue() ? std::move(result).value() : XmlDocument{};
}

XmlError parseError(const std::string& text) {
    auto result = XmlDocument::parse(text, FILE_NAME);
    EXPECT_TRUE(result.hasError());
    return result.hasError() ? result.error() : XmlError{};
}

TEST(XmlDocument, ParsesNestedElementsAndAttributesInDocumentOrder) {
    const auto sut = parseOk("<?xml version='1.0'?>\n<a x=\"1\" y='two'>\n  <b/>\n  <c k=\"v\">text</c>\n</a>\n");
    ASSERT_EQ(sut.elementCount(), 3U);
    const auto& root = sut.element(sut.root());
    EXPECT_EQ(root.name, "a");
    ASSERT_NE(sut.attribute(0, "x"), nullptr);
    EXPECT_EQ(*sut.attribute(0, "x"), "1");
    EXPECT_EQ(*sut.attribute(0, "y"), "two");
    EXPECT_EQ(sut.attribute(0, "z"), nullptr);
    const auto b = root.firstChild;
    EXPECT_EQ(sut.element(b).name, "b");
    EXPECT_EQ(sut.element(b).line, 3U);
    const auto c = sut.element(b).nextSibling;
    EXPECT_EQ(sut.element(c).name, "c");
    EXPECT_EQ(sut.element(c).text, "text");
    EXPECT_EQ(sut.element(c).parent, sut.root());
    EXPECT_EQ(sut.element(c).nextSibling, XmlDocument::NONE);
}

TEST(XmlDocument, DecodesPredefinedEntitiesAndCharacterReferences) {
    const auto sut = parseOk("<a v=\"&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#xe9;\">x &amp; y</a>");
    EXPECT_EQ(*sut.attribute(0, "v"), "<>&\"'AB\xC3\xA9");
    EXPECT_EQ(sut.element(0).text, "x & y");
}

TEST(XmlDocument, SkipsCommentsAndProcessingInstructionsAndKeepsCdata) {
    const auto sut = parseOk("<!-- head -->\n<?pi data?>\n<a><!-- c --><?x y?><![CDATA[<raw> & ]]></a>\n<!-- tail -->");
    EXPECT_EQ(sut.elementCount(), 1U);
    EXPECT_EQ(sut.element(0).text, "<raw> & ");
}

TEST(XmlDocument, AcceptsUtf8DeclarationsInAnyCase) {
    EXPECT_EQ(parseOk("<?xml version='1.0' encoding='UTF-8'?><a/>").element(0).name, "a");
    EXPECT_EQ(parseOk("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<a/>").element(0).name, "a");
}

TEST(XmlDocument, AcceptsSelfClosingRootAndByteOrderMark) {
    const auto sut = parseOk("\xEF\xBB\xBF<root a='1'/>");
    EXPECT_EQ(sut.element(0).name, "root");
    EXPECT_EQ(sut.element(0).firstChild, XmlDocument::NONE);
}

TEST(XmlDocument, ReportsMismatchedEndTagWithLine) {
    const auto error = parseError("<a>\n<b>\n</c>\n</a>");
    EXPECT_EQ(error.file, FILE_NAME);
    EXPECT_EQ(error.line, 3U);
    EXPECT_NE(error.message.find("</c>"), std::string::npos);
}

TEST(XmlDocument, RejectsMalformedInputWithAReason) {
    struct Case {
        const char* text;
        const char* reason;
    };
    const Case cases[] = {
        {"", "no root element"},
        {"<a>", "end of file"},
        {"<a x='1' x='2'/>", "duplicate attribute"},
        {"<a x=1/>", "not quoted"},
        {"<a x='<'/>", "'<'"},
        {"<a>&nbsp;</a>", "unknown entity"},
        {"<a>&#xZZ;</a>", "invalid character reference"},
        {"<!DOCTYPE a><a/>", "DOCTYPE"},
        {"<a><!-- a -- b --></a>", "'--'"},
        {"<a><!-- open</a>", "unterminated comment"},
        {"<a/><b/>", "content after the root"},
        {"<a/>text", "content after the root"},
        {"<a><![CDATA[x</a>", "unterminated CDATA"},
        {"<a x='1'y='2'/>", "white space"},
        {"< a/>", "expected a name"},
        {"<?xml version='1.0' encoding='ISO-8859-1'?><a/>", "unsupported encoding"},
        {"<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>", "DOCTYPE"},
        {"<a><!DOCTYPE b></a>", "DOCTYPE"},
        {"text<a/>", "text before the root"},
        {"<a/><?xml version='1.0'?>", "XML declaration not at the start"},
        {"<a>&#0;</a>", "invalid code point"},
        {"<a v='&#x110000;'/>", "out of range"},
        {"<a>&amp</a>", "unterminated entity"},
        {"<a><b></a>", "</a> does not match <b>"},
    };
    for (const Case& c : cases) {
        const auto error = parseError(c.text);
        EXPECT_NE(error.message.find(c.reason), std::string::npos) << c.text << " -> " << error.message;
    }
}

TEST(XmlDocument, CountsLinesAcrossCrLfAndNormalisesWhiteSpaceInAttributes) {
    const auto sut = parseOk("<a\r\n  v='x\ty\nz'>\r\n<b/>\r\n</a>");
    EXPECT_EQ(*sut.attribute(0, "v"), "x y z");
    EXPECT_EQ(sut.element(sut.element(0).firstChild).line, 4U);  // the value spans lines 2–3
    const auto error = parseError("<a>\r\n\r\n<b></c></a>");
    EXPECT_EQ(error.line, 3U);
}

/// `count` attributes a0 … a(count-1), one per line after the first, on one element; `repeatFirst` adds a0 again.
std::string manyAttributes(int count, bool repeatFirst) {
    std::string text = "<a";
    for (int i = 0; i < count; ++i) {
        text += "\n a" + std::to_string(i) + "='" + std::to_string(i) + "'";
    }
    if (repeatFirst) {
        text += "\n a0='again'";
    }
    return text + "/>";
}

// Hostile elements with very many attributes. The duplicate check sorts the names (n log n: milliseconds);
// a pairwise check needs n²/2 comparisons: 7.2·10^9 for 120,000 (about 23 s), and sixteen times that, six
// minutes or more, for 480,000. No wall-clock assertion: a quadratic check shows as a test that hangs.
constexpr int HOSTILE_ATTRIBUTES = 120'000;
constexpr int VERY_HOSTILE_ATTRIBUTES = 480'000;

TEST(XmlDocument, ElementWithFourHundredEightyThousandAttributesParses) {
    const auto sut = parseOk(manyAttributes(VERY_HOSTILE_ATTRIBUTES, false));
    ASSERT_EQ(sut.element(0).attributeCount, static_cast<std::uint32_t>(VERY_HOSTILE_ATTRIBUTES));
    EXPECT_EQ(*sut.attribute(0, "a479999"), "479999");
}

TEST(XmlDocument, DuplicateAmongOneHundredTwentyThousandAttributesIsNamedWithItsLine) {
    constexpr std::uint32_t REPEAT_LINE = HOSTILE_ATTRIBUTES + 2;  // line 1 is "<a"
    const auto error = parseError(manyAttributes(HOSTILE_ATTRIBUTES, true));
    EXPECT_NE(error.message.find("duplicate attribute 'a0' in <a>"), std::string::npos) << error.message;
    EXPECT_EQ(error.line, REPEAT_LINE);
}

TEST(XmlDocument, FirstRepeatInDocumentOrderIsTheOneReported) {
    const auto error = parseError("<a\n z='1'\n b='2'\n b='3'\n z='4'/>");
    EXPECT_NE(error.message.find("duplicate attribute 'b'"), std::string::npos) << error.message;
    EXPECT_EQ(error.line, 4U);
}

TEST(XmlDocument, MissingFileIsAnIoErrorWithoutLine) {
    auto result = XmlDocument::load("/nonexistent/augur/map.osm");
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().line, 0U);
    EXPECT_EQ(result.error().file, "/nonexistent/augur/map.osm");
}

}  // namespace
}  // namespace augur::runtime::scene
