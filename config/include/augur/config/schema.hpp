// The configuration schema, declared once as data.
//
// Every key of a deployment file has exactly one KeySpec: its dotted path, type, whether it is
// required, its range or allowed values, its unit, a description, and the accessors binding it to
// its Deployment field. The loader is driven by this table (which keys exist, how each is parsed
// and range-checked), the YAML writer walks it, and docs/configuration.md is generated from it
// (`augur-runtime --print-schema`); defaults are read from a default-constructed Deployment. A test
// regenerates the document and compares it with the committed one, so docs and loader cannot drift.
//
// Cross-key rules (budgets against the deadline, derived counts against compiled limits…) are data
// too: consistencyRules() lists them with a description and the check.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "augur/config/config_error.hpp"
#include "augur/config/deployment.hpp"

namespace augur::config {

enum class ValueType : std::uint8_t { Boolean = 0, Integer, Number, String, Enumeration, IntegerList };

/// What a String value must look like beyond its length.
enum class TextRule : std::uint8_t {
    Any = 0,        ///< any text
    Path,           ///< a file path: no NUL byte (the system reads paths as C strings)
    TransportName,  ///< an iceoryx name: checkTransportName of augur/core/transport_name.hpp
    Sha256,         ///< empty, or a SHA-256 as 64 hexadecimal digits
    DdsTopic,       ///< a DDS topic name in ROS 2's form: segments of A-Z a-z 0-9 _ joined by single '/'
};

/// A key's value as the schema handles it. Enumeration values are the index into KeySpec::allowed.
using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

/// One key of the file format.
struct KeySpec {
    std::string_view path;  ///< dotted, e.g. "runtime.deadline_ms"
    ValueType type{ValueType::Integer};
    bool required{false};
    /// Integer and IntegerList elements: the closed range; String: the length range.
    std::int64_t minInteger{0};
    std::int64_t maxInteger{0};
    /// Number: the range, each end closed unless marked open.
    double minNumber{0.0};
    bool minOpen{false};
    double maxNumber{0.0};
    bool maxOpen{false};
    /// Non-empty: the maximum is this constant of augur/core/messages.hpp, and exceeding it is
    /// ConfigErrorKind::OverCompiledLimit rather than OutOfRange.
    std::string_view compiledLimit{};
    std::span<const std::string_view> allowed{};  ///< Enumeration: the names, index = enumerator
    TextRule text{TextRule::Any};                 ///< String: the form of the text
    std::string_view unit{};                      ///< e.g. "ms"; empty when dimensionless
    std::string_view description{};
    void (*assign)(Deployment&, const Value&) = nullptr;  ///< stores a validated value in its field
    Value (*read)(const Deployment&) = nullptr;           ///< the field's value
};

/// A mapping that groups keys ("runtime", "runtime.watchdog").
struct SectionSpec {
    std::string_view path;
    std::string_view description;
};

/// A violated cross-key rule: the key it is reported at and what is wrong.
struct RuleViolation {
    std::string keyPath;
    std::string message;
};

/// The keys a file set explicitly (sorted full paths), for rules that depend on presence.
struct ExplicitKeys {
    std::vector<std::string> paths;
    [[nodiscard]] bool contains(std::string_view path) const noexcept;
};

/// A rule relating several keys.
struct ConsistencyRule {
    ConfigErrorKind kind{ConfigErrorKind::Inconsistent};  ///< Inconsistent, OverCompiledLimit or MissingKey
    std::string_view description;                         ///< one sentence for the docs
    /// The violation in `deployment`, if any; `explicitKeys` are the keys the file set.
    std::optional<RuleViolation> (*check)(const Deployment& deployment, const ExplicitKeys& explicitKeys) = nullptr;
};

/// Every key, grouped by section in document order.
[[nodiscard]] std::span<const KeySpec> schema() noexcept;

/// Every section, parents before children.
[[nodiscard]] std::span<const SectionSpec> sections() noexcept;

/// Every cross-key rule, in the order the loader checks them.
[[nodiscard]] std::span<const ConsistencyRule> consistencyRules() noexcept;

/// The key at `path`, or nullptr.
[[nodiscard]] const KeySpec* findKey(std::string_view path) noexcept;

/// True when `path` names a section (a mapping of keys).
[[nodiscard]] bool isSection(std::string_view path) noexcept;

/// "an integer in [1, 128]", "one of periodic, on_input", "true or false"…
[[nodiscard]] std::string describeExpected(const KeySpec& key);

/// Why `text` breaks the key's TextRule ("contains a character other than …"), or an empty string
/// when it follows it. The length range is checked separately.
[[nodiscard]] std::string textRuleViolation(const KeySpec& key, std::string_view text);

/// `value` as it is written in YAML and in the docs: 200, 0.5, periodic, [0, 1], "augur".
[[nodiscard]] std::string formatValue(const KeySpec& key, const Value& value);

/// The type's name in the docs: "integer", "number", "boolean", "string", "enum", "list of integers".
[[nodiscard]] std::string_view toString(ValueType type) noexcept;

/// docs/configuration.md: every section, key, default, range, unit and rule, in Markdown.
[[nodiscard]] std::string renderSchemaMarkdown();

}  // namespace augur::config
