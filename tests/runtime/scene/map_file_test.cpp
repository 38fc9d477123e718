// The map file itself: only a regular file under map.max_bytes with the pinned SHA-256 is parsed;
// special files are refused at once, without blocking.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "augur/config/deployment_file.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/testing/testing.hpp"

namespace augur::runtime::scene {
namespace {

using Clock = std::chrono::steady_clock;

/// A refusal must come at once: no wait for a writer, no reading of an endless device.
constexpr auto PROMPTLY = std::chrono::seconds(1);
constexpr std::uint64_t SMALL_LIMIT_BYTES = 100;
const std::string T_JUNCTION = augur::testing::sourcePath("tests/data/maps/t_junction.osm");

/// A fresh folder under the system's temporary folder, removed with the fixture.
class MapFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (std::filesystem::temp_directory_path() / "augur-map-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        m_folder = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(m_folder); }

    std::string fifo(const std::string& name) const {
        const std::filesystem::path file = m_folder / name;
        EXPECT_EQ(::mkfifo(file.c_str(), 0600), 0);
        return file.string();
    }
    std::string folder() const { return m_folder.string(); }

private:
    std::filesystem::path m_folder;
};

void expectRejectedPromptly(const std::function<Result<RoadMap, MapError>()>& read, const std::string& reason) {
    const auto start = Clock::now();

    const auto sut = read();

    EXPECT_LT(Clock::now() - start, PROMPTLY);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().code, MapErrorCode::FileRejected) << sut.error().describe();
    EXPECT_NE(sut.error().message.find(reason), std::string::npos) << sut.error().describe();
}

TEST_F(MapFile, DevZeroIsRejectedPromptly) {
    expectRejectedPromptly([] { return readSumoNet("/dev/zero"); }, "character device");
}

TEST_F(MapFile, FifoIsRejectedWithoutBlocking) {
    const std::string path = fifo("map.osm");
    expectRejectedPromptly([&] { return readLanelet2(path, Lanelet2Options{}); }, "FIFO");
}

TEST_F(MapFile, DirectoryIsRejected) {
    expectRejectedPromptly([&] { return readSumoNet(folder()); }, "directory");
}

TEST_F(MapFile, FileOverMaxBytesIsRejectedNamingTheKey) {
    const MapFileCheck check{SMALL_LIMIT_BYTES, {}};
    expectRejectedPromptly([&] { return readLanelet2(T_JUNCTION, Lanelet2Options{}, check); }, "(map.max_bytes)");
}

TEST_F(MapFile, MissingFileIsAnIoError) {
    const auto sut = readSumoNet(folder() + "/none.net.xml");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().code, MapErrorCode::Io);
}

TEST_F(MapFile, ContentHashIsTheHashOfTheFilesBytes) {
    std::ifstream file(T_JUNCTION, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    const std::string bytes = contents.str();

    const auto sut = readMapFile(T_JUNCTION, MapFileCheck{});

    ASSERT_TRUE(sut.hasValue()) << sut.error().describe();
    EXPECT_EQ(sut.value().text, bytes);
    EXPECT_EQ(sut.value().sha256, config::sha256Hex(bytes));
}

TEST_F(MapFile, MapWithItsPinnedHashIsParsed) {
    const auto content = readMapFile(T_JUNCTION, MapFileCheck{});
    ASSERT_TRUE(content.hasValue());

    const auto sut = readLanelet2(T_JUNCTION, Lanelet2Options{}, MapFileCheck{config::DEFAULT_MAP_MAX_BYTES,
                                                                               content.value().sha256});

    EXPECT_TRUE(sut.hasValue()) << sut.error().describe();
}

TEST_F(MapFile, MapWithAnotherHashIsRefused) {
    const std::string otherHash = config::sha256Hex("another map");
    const MapFileCheck check{config::DEFAULT_MAP_MAX_BYTES, otherHash};

    const auto sut = readLanelet2(T_JUNCTION, Lanelet2Options{}, check);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().code, MapErrorCode::HashMismatch);
    EXPECT_NE(sut.error().message.find(otherHash), std::string::npos);
}

}  // namespace
}  // namespace augur::runtime::scene
