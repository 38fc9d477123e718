// The schema table itself: bindings, structure, and the generated reference kept in sync.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "augur/config/schema.hpp"
#include "augur/testing/testing.hpp"

namespace augur::config {
namespace {

std::string parentOf(std::string_view path) {
    const std::size_t dot = path.rfind('.');
    return dot == std::string_view::npos ? std::string() : std::string(path.substr(0, dot));
}

/// A valid value of `key` that differs from `current` (its default).
Value otherValidValue(const KeySpec& key, const Value& current) {
    switch (key.type) {
        case ValueType::Boolean: return Value(!std::get<bool>(current));
        case ValueType::Integer: {
            const std::int64_t now = std::get<std::int64_t>(current);
            return Value(now == key.maxInteger ? key.minInteger : key.maxInteger);
        }
        case ValueType::Number: {
            const double now = std::get<double>(current);
            const double candidate = key.maxOpen ? key.maxNumber / 2.0 : key.maxNumber;
            return Value(now == candidate ? (key.minNumber + candidate) / 2.0 : candidate);
        }
        case ValueType::String: return Value(std::get<std::string>(current) + "x");
        case ValueType::Enumeration: {
            const auto now = std::get<std::int64_t>(current);
            return Value(static_cast<std::int64_t>((now + 1) % static_cast<std::int64_t>(key.allowed.size())));
        }
        case ValueType::IntegerList: return Value(std::vector<std::int64_t>{key.minInteger, key.maxInteger});
    }
    return current;
}

TEST(ConfigSchema, EveryKeyChangesItsOwnFieldAndNoOther) {
    const Deployment defaults{};
    for (const KeySpec& key : schema()) {
        if (key.required && key.minInteger == key.maxInteger && key.type == ValueType::Integer) {
            continue;  // schema_version has a single valid value
        }
        SCOPED_TRACE(std::string(key.path));
        Deployment sut{};
        const Value value = otherValidValue(key, key.read(defaults));

        key.assign(sut, value);

        EXPECT_TRUE(key.read(sut) == value);
        for (const KeySpec& other : schema()) {
            if (&other != &key) {
                EXPECT_TRUE(other.read(sut) == other.read(defaults)) << "also changed " << other.path;
            }
        }
    }
}

TEST(ConfigSchema, EveryKeyReadsAValueOfItsDeclaredType) {
    const Deployment defaults{};
    for (const KeySpec& key : schema()) {
        const Value value = key.read(defaults);
        switch (key.type) {
            case ValueType::Boolean: EXPECT_TRUE(std::holds_alternative<bool>(value)) << key.path; break;
            case ValueType::Integer:
            case ValueType::Enumeration: EXPECT_TRUE(std::holds_alternative<std::int64_t>(value)) << key.path; break;
            case ValueType::Number: EXPECT_TRUE(std::holds_alternative<double>(value)) << key.path; break;
            case ValueType::String: EXPECT_TRUE(std::holds_alternative<std::string>(value)) << key.path; break;
            case ValueType::IntegerList:
                EXPECT_TRUE(std::holds_alternative<std::vector<std::int64_t>>(value)) << key.path;
                break;
        }
    }
}

TEST(ConfigSchema, EveryDefaultIsWithinItsOwnRange) {
    const Deployment defaults{};
    for (const KeySpec& key : schema()) {
        const Value value = key.read(defaults);
        if (key.type == ValueType::Integer) {
            const std::int64_t v = std::get<std::int64_t>(value);
            EXPECT_TRUE(v >= key.minInteger && v <= key.maxInteger) << key.path;
        } else if (key.type == ValueType::Number) {
            const double v = std::get<double>(value);
            EXPECT_TRUE(key.minOpen ? v > key.minNumber : v >= key.minNumber) << key.path;
            EXPECT_TRUE(key.maxOpen ? v < key.maxNumber : v <= key.maxNumber) << key.path;
        } else if (key.type == ValueType::String && !key.required) {
            const auto length = static_cast<std::int64_t>(std::get<std::string>(value).size());
            EXPECT_TRUE(length >= key.minInteger && length <= key.maxInteger) << key.path;
        }
    }
}

TEST(ConfigSchema, PathsAreUniqueAndGroupedUnderDeclaredSections) {
    std::set<std::string> seen;
    std::set<std::string> closedParents;
    std::string currentParent;
    for (const KeySpec& key : schema()) {
        EXPECT_TRUE(seen.insert(std::string(key.path)).second) << "duplicate " << key.path;
        EXPECT_FALSE(isSection(key.path)) << key.path << " is both a key and a section";
        const std::string parent = parentOf(key.path);
        EXPECT_TRUE(parent.empty() || isSection(parent)) << key.path << ": undeclared section " << parent;
        if (parent != currentParent) {
            // The YAML writer opens each section once: a parent, once left for a sibling, never returns.
            for (std::string p = currentParent; !p.empty() && parent.rfind(p, 0) != 0; p = parentOf(p)) {
                closedParents.insert(p);
            }
            EXPECT_EQ(closedParents.count(parent), 0U) << key.path << " reopens " << parent;
            currentParent = parent;
        }
    }
    for (const SectionSpec& section : sections()) {
        const std::string parent = parentOf(section.path);
        EXPECT_TRUE(parent.empty() || isSection(parent)) << section.path;
        EXPECT_FALSE(section.description.empty()) << section.path;
    }
}

TEST(ConfigSchema, EveryKeyIsDocumented) {
    for (const KeySpec& key : schema()) {
        EXPECT_FALSE(key.description.empty()) << key.path;
        EXPECT_TRUE(key.type != ValueType::Enumeration || !key.allowed.empty()) << key.path;
    }
}

TEST(ConfigSchema, EveryStageHasABudgetKey) {
    for (std::size_t s = 0; s < STAGE_COUNT; ++s) {
        const std::string path = std::string("runtime.stage_budgets_ms.") + toString(static_cast<Stage>(s));
        EXPECT_NE(findKey(path), nullptr) << path;
    }
}

TEST(ConfigSchema, CommittedReferenceMatchesTheSchema) {
    const std::string path = augur::testing::sourcePath("docs/configuration.md");
    std::ifstream file(path);
    ASSERT_TRUE(file) << "cannot open " << path;
    std::stringstream committed;
    committed << file.rdbuf();

    const std::string generated = renderSchemaMarkdown();

    EXPECT_TRUE(committed.str() == generated)
        << "docs/configuration.md is out of date with the schema (config/src/schema.cpp). Regenerate it:\n"
           "  ninja -C <build dir> augur-runtime && <build dir>/apps/augur-runtime/augur-runtime --print-schema "
           "> docs/configuration.md";
}

}  // namespace
}  // namespace augur::config
