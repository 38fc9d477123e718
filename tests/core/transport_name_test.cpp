// The iceoryx name rule: every class of bad name is refused with its reason, good names pass.
#include "augur/core/transport_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace augur {
namespace {

using namespace std::string_view_literals;

struct NameCase {
    const char* name;
    std::string text;
    TransportNameError expected;
};

void PrintTo(const NameCase& c, std::ostream* os) { *os << c.name; }

class BadTransportName : public ::testing::TestWithParam<NameCase> {};

TEST_P(BadTransportName, IsRefusedWithItsReason) {
    const NameCase& c = GetParam();

    const auto sut = checkTransportName(c.text);

    ASSERT_TRUE(sut.has_value()) << "accepted: " << c.text;
    EXPECT_EQ(*sut, c.expected);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(TransportName, BadTransportName, ::testing::Values(
    NameCase{"Empty", "", TransportNameError::Empty},
    NameCase{"OverLength", std::string(TRANSPORT_NAME_MAX_CHARS + 1, 'a'), TransportNameError::TooLong},
    NameCase{"Space", "augur main", TransportNameError::BadCharacter},
    NameCase{"NonAscii", "augur\xc3\xa9", TransportNameError::BadCharacter},
    NameCase{"LeadingSlash", "/augur", TransportNameError::BadCharacter},
    NameCase{"ParentPath", "../x", TransportNameError::BadCharacter},
    NameCase{"Nul", std::string("a\0b", 3), TransportNameError::BadCharacter},
    NameCase{"ControlCharacter", "a\nb", TransportNameError::BadCharacter},
    NameCase{"Dot", ".", TransportNameError::DotName},
    NameCase{"DotDot", "..", TransportNameError::DotName},
    NameCase{"TrailingDot", "augur.", TransportNameError::TrailingDot}),
    [](const ::testing::TestParamInfo<NameCase>& param) { return std::string(param.param.name); });
// clang-format on

TEST(TransportName, LettersDigitsAndTheFourMarksAreAccepted) {
    EXPECT_FALSE(checkTransportName("augur").has_value());
    EXPECT_FALSE(checkTransportName("Augur-main_2.0:tracks").has_value());
    EXPECT_FALSE(checkTransportName(".hidden").has_value());  // iceoryx accepts a leading dot
    EXPECT_FALSE(checkTransportName("x").has_value());
}

TEST(TransportName, ExactlyTheMaximumLengthIsAccepted) {
    const std::string sut(TRANSPORT_NAME_MAX_CHARS, 'n');

    EXPECT_FALSE(checkTransportName(sut).has_value());
}

TEST(TransportName, FirstBadCharacterIsLocated) {
    EXPECT_EQ(firstBadTransportNameChar("ab cd"), 2U);
    EXPECT_EQ(firstBadTransportNameChar("abcd"), 4U);
    EXPECT_EQ(firstBadTransportNameChar(""), 0U);
}

TEST(TransportName, VisibleNameStopsAtTheFirstNulAndAtTheCapacity) {
    EXPECT_EQ(transportVisibleName(std::string_view("tracks\0health", 13)), "tracks"sv);
    EXPECT_EQ(transportVisibleName(std::string(TRANSPORT_NAME_MAX_CHARS + 5, 'a')).size(), TRANSPORT_NAME_MAX_CHARS);
    EXPECT_EQ(transportVisibleName("augur"), "augur"sv);
}

TEST(TransportName, EveryReasonHasAPhrase) {
    for (const auto error : {TransportNameError::Empty, TransportNameError::TooLong, TransportNameError::BadCharacter,
                             TransportNameError::DotName, TransportNameError::TrailingDot}) {
        EXPECT_STRNE(toString(error), "is invalid");
    }
}

}  // namespace
}  // namespace augur
