#include "augur/bench/result_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "augur/bench/bench.hpp"
#include "augur/core/version.hpp"

namespace augur::bench {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
    EXPECT_EQ(jsonString("plain"), "\"plain\"");
    EXPECT_EQ(jsonString("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
    EXPECT_EQ(jsonString("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
    EXPECT_EQ(jsonString(std::string("\x01", 1)), "\"\\u0001\"");
    EXPECT_EQ(jsonString("µs ×"), "\"µs ×\"");  // UTF-8 passes through
}

TEST(IsJsonNumber, AcceptsTheGrammarOfRfc8259AndNothingElse) {
    for (const char* number : {"0", "22.90", "-1", "1e6", "2.5E-3", "1000"}) {
        EXPECT_TRUE(isJsonNumber(number)) << number;
    }
    for (const char* text : {"", "-", "01", "1.", ".5", "1e", "+1", "nan", "inf", "1,000", "-  ", "12 us"}) {
        EXPECT_FALSE(isJsonNumber(text)) << text;
    }
}

TEST(WithThousands, SeparatesGroupsOfThreeDigits) {
    EXPECT_EQ(withThousands(0), "0");
    EXPECT_EQ(withThousands(999), "999");
    EXPECT_EQ(withThousands(1000), "1,000");
    EXPECT_EQ(withThousands(20000), "20,000");
    EXPECT_EQ(withThousands(1234567), "1,234,567");
    EXPECT_EQ(withThousands(-1000), "-1,000");
}

TEST(CommandLine, KeepsTheBaseNameAndQuotesWhatTheShellWouldSplit) {
    const char* argv[] = {"/build/apps/augur-bench-kf", "--quick", "--json", "out dir/kf.json", "it's"};
    EXPECT_EQ(commandLine(5, argv), "augur-bench-kf --quick --json 'out dir/kf.json' 'it'\\''s'");
}

TEST(ResultFile, WritesTheDefaultsAndOneRowPerFigure) {
    ResultFile sut("kalman", "Kalman \"bank\"", 20);
    sut.setDevice("a device");
    sut.setCommand("augur-bench-kf --quick");

    sut.add("bank, 10^6 targets", 54.5349, 2, "us", "<= 60 us");
    sut.add("ratio", 3.0, 1, "x");

    const std::string expected = "{\n  \"family\": \"kalman\",\n  \"order\": 20,\n  \"title\": \"Kalman \\\"bank\\\"\",\n"
                                 "  \"defaults\": {\n    \"device\": \"a device\",\n    \"date\": \"" + utcDate() +
                                 "\",\n    \"commit\": \"" + buildCommit() +
                                 "\",\n    \"command\": \"augur-bench-kf --quick\"\n  },\n  \"results\": [\n"
                                 "    {\"metric\": \"bank, 10^6 targets\", \"target\": \"<= 60 us\", \"value\": 54.53, \"unit\": \"us\"},\n"
                                 "    {\"metric\": \"ratio\", \"target\": \"\", \"value\": 3.0, \"unit\": \"x\"}\n  ]\n}\n";
    EXPECT_EQ(sut.json(), expected);
}

TEST(ResultFile, WithoutFiguresWritesAnEmptyList) {
    ResultFile sut("scene", "Scene", 50);
    EXPECT_NE(sut.json().find("\"results\": []\n}"), std::string::npos);
}

TEST(ResultFile, LeavesOutAValueThatIsNotFinite) {
    ResultFile sut("kalman", "Kalman", 20);

    sut.add("missing", std::numeric_limits<double>::quiet_NaN(), 2, "us");
    sut.add("infinite", std::numeric_limits<double>::infinity(), 2, "us");

    EXPECT_TRUE(sut.rows().empty());
}

TEST(ResultFile, AddPrintedKeepsTheDigitsAndTakesTheSuffixAsUnit) {
    ResultFile sut("flocks", "Flocks", 40);

    sut.addPrinted("plain", "22.90");
    sut.addPrinted("times", "83.6×");
    sut.addPrinted("times ascii", "39.4x");
    sut.addPrinted("share", "84 %");
    sut.addPrinted("not measured", "-");
    sut.addPrinted("flag", "NO");
    sut.addPrinted("text", "12 us");

    ASSERT_EQ(sut.rows().size(), 4U);
    EXPECT_EQ(sut.rows()[0].value, "22.90");
    EXPECT_EQ(sut.rows()[0].unit, "");
    EXPECT_EQ(sut.rows()[1].value, "83.6");
    EXPECT_EQ(sut.rows()[1].unit, "x");
    EXPECT_EQ(sut.rows()[2].value, "39.4");
    EXPECT_EQ(sut.rows()[2].unit, "x");
    EXPECT_EQ(sut.rows()[3].value, "84");
    EXPECT_EQ(sut.rows()[3].unit, "%");
}

TEST(ResultFile, WriteToAnUnwritablePathNamesIt) {
    ResultFile sut("kalman", "Kalman", 20);

    const auto written = sut.write("/nonexistent-directory/kalman.json");

    ASSERT_FALSE(written);
    EXPECT_EQ(written.error(), "/nonexistent-directory/kalman.json: cannot write");
}

TEST(ResultFile, WriteStoresTheJsonText) {
    ResultFile sut("kalman", "Kalman", 20);
    sut.add("bank", 1.5, 1, "us");
    const auto path = std::filesystem::temp_directory_path() / "augur_result_file_test.json";

    ASSERT_TRUE(sut.write(path.string()));

    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), sut.json());
    std::filesystem::remove(path);
}

TEST(TableRecording, RecordsEachNumericCellNamedByTitleKeysAndColumn) {
    ResultFile sut("particle-filter", "PF", 10);
    recordTablesInto(&sut);
    {
        const Table table("Step (µs)", {"K", "layout", "step", "speed-up", "same", "speed-up"}, 2);
        table.row({"1000", "SoA", "22.90", "3.5x", "yes", "-"});
        table.row({"20000", "AoS", "180", "-", "NO", "2.0x"});
    }
    recordTablesInto(nullptr);
    const Table unrecorded("Other", {"n", "value"});
    unrecorded.row({"1", "2"});

    ASSERT_EQ(sut.rows().size(), 4U);
    EXPECT_EQ(sut.rows()[0].metric, "Step (µs); K 1000, layout SoA: step");
    EXPECT_EQ(sut.rows()[0].value, "22.90");
    EXPECT_EQ(sut.rows()[1].metric, "Step (µs); K 1000, layout SoA: speed-up");
    EXPECT_EQ(sut.rows()[1].unit, "x");
    EXPECT_EQ(sut.rows()[2].metric, "Step (µs); K 20000, layout AoS: step");
    EXPECT_EQ(sut.rows()[3].metric, "Step (µs); K 20000, layout AoS: speed-up (same)");
    EXPECT_EQ(sut.rows()[3].value, "2.0");
}

}  // namespace
}  // namespace augur::bench
