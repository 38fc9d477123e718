// Reading deployment files: only regular files under the limit, never blocking on special files, and
// a SHA-256 pin that refuses a truncated or edited configuration.
#include "augur/config/deployment_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "augur/config/loader.hpp"
#include "augur/config/schema.hpp"
#include "augur/core/transport_name.hpp"
#include "config_test_support.hpp"

namespace augur::config {
namespace {

using Clock = std::chrono::steady_clock;

/// A refusal must come at once: no wait for a writer, no reading of an endless device.
constexpr auto PROMPTLY = std::chrono::seconds(1);
constexpr std::uint64_t LIMIT_BYTES = 1000;
/// FIPS 180-4 example: SHA-256("abc").
constexpr const char* SHA256_OF_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
/// SHA-256 of no bytes.
constexpr const char* SHA256_OF_NOTHING = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// A fresh folder under the system's temporary folder, removed with the fixture.
class DeploymentFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (std::filesystem::temp_directory_path() / "augur-file-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        m_folder = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(m_folder); }

    std::string write(const std::string& name, const std::string& content) const {
        const std::filesystem::path file = m_folder / name;
        std::ofstream(file, std::ios::binary) << content;
        return file.string();
    }
    std::string fifo(const std::string& name) const {
        const std::filesystem::path file = m_folder / name;
        EXPECT_EQ(::mkfifo(file.c_str(), 0600), 0);
        return file.string();
    }
    std::string folder() const { return m_folder.string(); }

private:
    std::filesystem::path m_folder;
};

TEST_F(DeploymentFile, RegularFileIsReadWhole) {
    const std::string path = write("a.txt", "abc");

    const auto sut = readRegularFile(path, LIMIT_BYTES);

    ASSERT_TRUE(sut.hasValue()) << sut.error().message;
    EXPECT_EQ(sut.value(), "abc");
}

TEST_F(DeploymentFile, EmptyFileAndFileOfExactlyTheLimitAreRead) {
    const auto empty = readRegularFile(write("empty.txt", ""), LIMIT_BYTES);
    const auto full = readRegularFile(write("full.txt", std::string(LIMIT_BYTES, 'x')), LIMIT_BYTES);

    ASSERT_TRUE(empty.hasValue());
    EXPECT_TRUE(empty.value().empty());
    ASSERT_TRUE(full.hasValue());
    EXPECT_EQ(full.value().size(), LIMIT_BYTES);
}

TEST_F(DeploymentFile, FileOneByteOverTheLimitIsTooLarge) {
    const auto sut = readRegularFile(write("big.txt", std::string(LIMIT_BYTES + 1, 'x')), LIMIT_BYTES);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::TooLarge);
    EXPECT_EQ(sut.error().message, "is 1001 bytes, over the limit of 1000 bytes");
}

TEST_F(DeploymentFile, DevZeroIsRefusedPromptly) {
    const auto start = Clock::now();

    const auto sut = readRegularFile("/dev/zero", LIMIT_BYTES);

    EXPECT_LT(Clock::now() - start, PROMPTLY);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::NotRegular);
    EXPECT_EQ(sut.error().message, "is a character device, not a regular file");
}

TEST_F(DeploymentFile, FifoWithoutWriterIsRefusedWithoutBlocking) {
    const std::string path = fifo("pipe");
    const auto start = Clock::now();

    const auto sut = readRegularFile(path, LIMIT_BYTES);

    EXPECT_LT(Clock::now() - start, PROMPTLY);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::NotRegular);
    EXPECT_EQ(sut.error().message, "is a FIFO, not a regular file");
}

TEST_F(DeploymentFile, DirectoryIsRefused) {
    const auto sut = readRegularFile(folder(), LIMIT_BYTES);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::NotRegular);
    EXPECT_EQ(sut.error().message, "is a directory, not a regular file");
}

TEST_F(DeploymentFile, MissingFileCannotBeOpened) {
    const auto sut = readRegularFile(folder() + "/none.yaml", LIMIT_BYTES);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::CannotOpen);
}

TEST_F(DeploymentFile, PathWithANulCannotBeOpened) {
    const std::string path = write("a.txt", "abc");

    const auto sut = readRegularFile(path + std::string(1, '\0') + "tail", LIMIT_BYTES);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, FileErrorKind::CannotOpen);
}

TEST(Sha256, MatchesTheStandardExamples) {
    EXPECT_EQ(sha256Hex("abc"), SHA256_OF_ABC);
    EXPECT_EQ(sha256Hex(""), SHA256_OF_NOTHING);
}

TEST(Sha256, HexTextIsRecognisedAndComparedIgnoringCase) {
    std::string upper(SHA256_OF_ABC);
    for (char& c : upper) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    EXPECT_TRUE(isSha256Hex(SHA256_OF_ABC));
    EXPECT_TRUE(isSha256Hex(upper));
    EXPECT_TRUE(sameSha256(SHA256_OF_ABC, upper));
    EXPECT_FALSE(sameSha256(SHA256_OF_ABC, SHA256_OF_NOTHING));
    EXPECT_FALSE(isSha256Hex(std::string(SHA256_OF_ABC).substr(1)));
    EXPECT_FALSE(isSha256Hex(std::string(64, 'g')));
}

TEST_F(DeploymentFile, ConfigurationHashIsTheHashOfItsBytes) {
    const std::string text(testing::MINIMAL);
    const std::string path = write("deployment.yaml", text);

    const auto sut = loadDeploymentWithHash(path, {});

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().sha256, sha256Hex(text));
}

TEST_F(DeploymentFile, ConfigurationWithThePinnedHashIsLoaded) {
    const std::string text(testing::MINIMAL);
    const std::string path = write("deployment.yaml", text);

    const auto sut = loadDeploymentWithHash(path, sha256Hex(text));

    EXPECT_TRUE(sut.hasValue());
}

TEST_F(DeploymentFile, TruncatedConfigurationIsRefusedByItsPin) {
    // Cut after "map:": still valid YAML, and every lost key would silently take its default.
    const std::string whole = std::string(testing::MINIMAL) + "capacities:\n  particles: 64\n";
    const std::string cut = whole.substr(0, whole.find("map:") + 5);
    const std::string path = write("deployment.yaml", cut);

    const auto sut = loadDeploymentWithHash(path, sha256Hex(whole));

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::HashMismatch);
    EXPECT_EQ(sut.error().file, path);
}

TEST_F(DeploymentFile, MalformedPinIsRefused) {
    const std::string path = write("deployment.yaml", std::string(testing::MINIMAL));

    const auto sut = loadDeploymentWithHash(path, "abc");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::HashMismatch);
}

TEST_F(DeploymentFile, ConfigurationThatIsAFifoIsRejectedWithoutBlocking) {
    const std::string path = fifo("deployment.yaml");
    const auto start = Clock::now();

    const auto sut = loadDeployment(path);

    EXPECT_LT(Clock::now() - start, PROMPTLY);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::FileRejected);
    EXPECT_EQ(sut.error().file, path);
}

TEST_F(DeploymentFile, ConfigurationThatIsDevZeroIsRejectedPromptly) {
    const auto start = Clock::now();

    const auto sut = loadDeployment("/dev/zero");

    EXPECT_LT(Clock::now() - start, PROMPTLY);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::FileRejected);
}

TEST_F(DeploymentFile, ConfigurationOverTheLimitIsRejected) {
    const std::string path =
        write("deployment.yaml", std::string(testing::MINIMAL) + "#" + std::string(MAX_CONFIG_FILE_BYTES, 'x') + "\n");

    const auto sut = loadDeployment(path);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::FileRejected);
}

TEST(ChannelRule, NamesEqualUpToANulAreOneTopic) {
    // The loader refuses a NUL in a name before the rules run; the rule still compares names as
    // iceoryx would store them, so it does not depend on that order.
    Deployment sut{};
    sut.transport.health.event = sut.transport.tracks.event + std::string(1, '\0') + "health";
    const ConsistencyRule* distinct = nullptr;
    for (const ConsistencyRule& rule : consistencyRules()) {
        if (std::string_view(rule.description).find("`transport` channels") != std::string_view::npos) {
            distinct = &rule;
        }
    }
    ASSERT_NE(distinct, nullptr);

    const auto violation = distinct->check(sut, ExplicitKeys{});

    ASSERT_TRUE(violation.has_value());
    EXPECT_EQ(violation->keyPath, "transport.health");
}

}  // namespace
}  // namespace augur::config
