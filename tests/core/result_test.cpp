#include "augur/core/result.hpp"

#include <gtest/gtest.h>

#include <string>

namespace augur {
namespace {

enum class ParseError { Empty, Garbage };

Result<int, ParseError> parseDigit(const std::string& text) {
    if (text.empty()) {
        return fail(ParseError::Empty);
    }
    if (text.size() != 1 || text[0] < '0' || text[0] > '9') {
        return fail(ParseError::Garbage);
    }
    return text[0] - '0';
}

Result<void, ParseError> requireDigit(const std::string& text) {
    if (auto r = parseDigit(text); !r) {
        return fail(r.error());
    }
    return {};
}

TEST(Result, HoldsValueOnSuccess) {
    const auto sut = parseDigit("7");
    ASSERT_TRUE(sut.hasValue());
    EXPECT_EQ(*sut, 7);
}

TEST(Result, HoldsErrorOnFailure) {
    EXPECT_EQ(parseDigit("").error(), ParseError::Empty);
    EXPECT_EQ(parseDigit("x").error(), ParseError::Garbage);
}

TEST(Result, VoidResultPropagatesError) {
    EXPECT_TRUE(requireDigit("3").hasValue());
    const auto sut = requireDigit("33");
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), ParseError::Garbage);
}

TEST(ResultDeathTest, ValueOnErrorPanics) {
    EXPECT_DEATH({ (void)parseDigit("").value(); }, "Result::value\\(\\) on an error");
}

}  // namespace
}  // namespace augur
