#include "augur_csv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace augur::apps::csv {
namespace {

std::vector<std::string> fieldsOf(Reader& reader) {
    std::vector<std::string> out;
    for (const std::string_view field : reader.fields()) {
        out.emplace_back(field);
    }
    return out;
}

TEST(CsvReader, SkipsBlankAndCommentLinesAndCountsEveryLine) {
    std::istringstream in("# head\n\n  \t\na,b\n   # indented comment\nc,d\n");
    Reader sut(in);
    ASSERT_TRUE(sut.next());
    EXPECT_EQ(sut.line(), "a,b");
    EXPECT_EQ(sut.lineNumber(), 4U);
    ASSERT_TRUE(sut.next());
    EXPECT_EQ(sut.line(), "c,d");
    EXPECT_EQ(sut.lineNumber(), 6U);
    EXPECT_FALSE(sut.next());
}

TEST(CsvReader, KeepsCommentsWhenAsked) {
    std::istringstream in("# key value\nx\n");
    Reader sut(in);
    ASSERT_TRUE(sut.next(Reader::Comments::Keep));
    EXPECT_TRUE(sut.isComment());
    EXPECT_EQ(sut.line(), "# key value");
    ASSERT_TRUE(sut.next(Reader::Comments::Keep));
    EXPECT_FALSE(sut.isComment());
}

TEST(CsvReader, FieldsLoseTheirBlanksAndTheLineItsCarriageReturn) {
    std::istringstream in(" 5, 0.2 ,\tx ,\r\n");
    Reader sut(in);
    ASSERT_TRUE(sut.next());
    const std::vector<std::string> expected{"5", "0.2", "x", ""};
    EXPECT_EQ(fieldsOf(sut), expected) << "a trailing comma is an empty last field";
}

TEST(CsvReader, OneFieldWithoutComma) {
    std::istringstream in("alone\n");
    Reader sut(in);
    ASSERT_TRUE(sut.next());
    EXPECT_EQ(fieldsOf(sut), std::vector<std::string>{"alone"});
}

TEST(CsvField, NumbersAreWholeFields) {
    std::int64_t integer = 0;
    double real = 0.0;
    EXPECT_TRUE(parseField(" -42 ", integer));
    EXPECT_EQ(integer, -42);
    EXPECT_TRUE(parseField("1e3", real));
    EXPECT_EQ(real, 1000.0);
    EXPECT_FALSE(parseField("1x", integer));
    EXPECT_FALSE(parseField("", real));
    EXPECT_FALSE(parseField("+1", integer));
    EXPECT_FALSE(parseField("1.5", integer));
}

TEST(CsvField, FiniteRejectsInfinityAndNan) {
    double value = 0.0;
    EXPECT_TRUE(parseField("inf", value));
    EXPECT_TRUE(std::isinf(value));
    EXPECT_FALSE(parseFinite("inf", value));
    EXPECT_FALSE(parseFinite("nan", value));
    EXPECT_TRUE(parseFinite("-0.25", value));
    EXPECT_EQ(value, -0.25);
}

}  // namespace
}  // namespace augur::apps::csv
