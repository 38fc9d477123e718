// The loader: YAML → Deployment, driven by the schema table. All yaml-cpp use is in this file.
#include "augur/config/loader.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "augur/config/deployment_file.hpp"
#include "augur/config/schema.hpp"
#include "text.hpp"

namespace augur::config {
namespace {

/// 1-based position in the file; 0 when unknown.
struct Location {
    std::int32_t line{0};
    std::int32_t column{0};
};

Location locationOf(const YAML::Mark& mark) {
    if (mark.is_null() || mark.line < 0 || mark.column < 0) {
        return {};
    }
    return {mark.line + 1, mark.column + 1};
}

/// yaml-cpp marks quoted scalars with the non-specific tag "!"; plain scalars carry "?".
bool isQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

/// What a node holds, for "got …" in messages.
std::string describeNode(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined: return "nothing";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Map: return "a mapping";
        case YAML::NodeType::Scalar: break;
    }
    return isQuoted(node) ? "the quoted string \"" + node.Scalar() + "\"" : node.Scalar();
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
    }
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

/// A decimal number (integers included). Infinities and NaN parse (and are then rejected as out of range).
std::optional<double> parseNumber(std::string_view text) {
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
    }
    if (text == ".inf" || text == ".Inf" || text == ".INF") {
        return HUGE_VAL;
    }
    if (text == "-.inf" || text == "-.Inf" || text == "-.INF") {
        return -HUGE_VAL;
    }
    if (text == ".nan" || text == ".NaN" || text == ".NAN") {
        return std::nan("");
    }
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

/// An optional sign followed by decimal digits only.
bool isIntegerText(std::string_view text) {
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
        text.remove_prefix(1);
    }
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool inRange(const KeySpec& key, double value) {
    const bool aboveMin = key.minOpen ? value > key.minNumber : value >= key.minNumber;
    const bool belowMax = key.maxOpen ? value < key.maxNumber : value <= key.maxNumber;
    return std::isfinite(value) && aboveMin && belowMax;
}

/// Parses one schema key's node and stores it, or says what is wrong.
class Walker {
public:
    explicit Walker(std::string file) : m_file(std::move(file)) {}

    std::optional<ConfigError> walkDocument(const YAML::Node& root) {
        if (root.IsNull()) {
            return std::nullopt;  // empty document: the required keys are reported missing
        }
        if (!root.IsMap()) {
            return error(ConfigErrorKind::WrongType, locationOf(root.Mark()), "",
                         "expected a mapping of sections at the top of the document, got " + describeNode(root));
        }
        return walkMapping(root, "");
    }

    std::optional<ConfigError> checkRequired() const {
        for (const KeySpec& key : schema()) {
            if (key.required && m_locations.find(std::string(key.path)) == m_locations.end()) {
                return error(ConfigErrorKind::MissingKey, nearestLocation(key.path), std::string(key.path),
                             "required key missing: expected " + describeExpected(key) + " (" +
                                 std::string(key.description) + ")");
            }
        }
        return std::nullopt;
    }

    std::optional<ConfigError> checkRules() const {
        ExplicitKeys explicitKeys;
        explicitKeys.paths.reserve(m_locations.size());
        for (const auto& [path, location] : m_locations) {
            explicitKeys.paths.push_back(path);  // std::map: already sorted
        }
        for (const ConsistencyRule& rule : consistencyRules()) {
            if (std::optional<RuleViolation> violation = rule.check(m_deployment, explicitKeys)) {
                return error(rule.kind, nearestLocation(violation->keyPath), violation->keyPath, violation->message);
            }
        }
        return std::nullopt;
    }

    Deployment& deployment() { return m_deployment; }

private:
    std::optional<ConfigError> walkMapping(const YAML::Node& mapping, const std::string& prefix) {
        for (const auto& entry : mapping) {
            // Copies (cheap handles): yaml-cpp iterators hand out entries through temporary proxies.
            const YAML::Node keyNode = entry.first;
            const YAML::Node valueNode = entry.second;
            const Location keyLocation = locationOf(keyNode.Mark());
            if (!keyNode.IsScalar()) {
                return error(ConfigErrorKind::WrongType, keyLocation, prefix,
                             "expected a key name, got " + describeNode(keyNode));
            }
            const std::string path = detail::joinPath(prefix, keyNode.Scalar());
            if (const auto previous = m_locations.find(path); previous != m_locations.end()) {
                return error(ConfigErrorKind::SyntaxError, keyLocation, path,
                             "duplicate key (first set at line " + std::to_string(previous->second.line) + ")");
            }
            if (const KeySpec* key = findKey(path)) {
                m_locations.emplace(path, keyLocation);
                if (std::optional<ConfigError> problem = readKey(*key, valueNode, keyLocation)) {
                    return problem;
                }
            } else if (isSection(path)) {
                m_locations.emplace(path, keyLocation);
                if (valueNode.IsNull()) {
                    continue;  // a section whose keys are all commented out
                }
                if (!valueNode.IsMap()) {
                    return error(ConfigErrorKind::WrongType, valueLocation(valueNode, keyLocation), path,
                                 "expected a mapping of keys (a section), got " + describeNode(valueNode));
                }
                if (std::optional<ConfigError> problem = walkMapping(valueNode, path)) {
                    return problem;
                }
            } else {
                return unknownKey(path, prefix, keyLocation);
            }
        }
        return std::nullopt;
    }

    std::optional<ConfigError> readKey(const KeySpec& key, const YAML::Node& node, Location keyLocation) {
        const Location at = valueLocation(node, keyLocation);
        const std::string path(key.path);
        const auto wrongType = [&] {
            return error(ConfigErrorKind::WrongType, at, path,
                         "expected " + describeExpected(key) + ", got " + describeNode(node));
        };
        const auto outOfRange = [&](const std::string& got) {
            return error(ConfigErrorKind::OutOfRange, at, path, "expected " + describeExpected(key) + ", got " + got);
        };
        if (key.type == ValueType::IntegerList) {
            if (!node.IsSequence()) {
                return wrongType();
            }
            std::vector<std::int64_t> values;
            for (std::size_t i = 0; i < node.size(); ++i) {
                const YAML::Node element = node[i];
                const Location elementAt = valueLocation(element, at);
                const std::optional<std::int64_t> value =
                    element.IsScalar() && !isQuoted(element) ? parseInteger(element.Scalar()) : std::nullopt;
                if (!value) {
                    return error(ConfigErrorKind::WrongType, elementAt, path,
                                 "expected " + describeExpected(key) + ", got " + describeNode(element) +
                                     " as element " + std::to_string(i + 1));
                }
                if (*value < key.minInteger || *value > key.maxInteger) {
                    return error(ConfigErrorKind::OutOfRange, elementAt, path,
                                 "expected " + describeExpected(key) + ", got " + std::to_string(*value) +
                                     " as element " + std::to_string(i + 1));
                }
                values.push_back(*value);
            }
            key.assign(m_deployment, Value(std::move(values)));
            return std::nullopt;
        }
        if (!node.IsScalar()) {
            return wrongType();
        }
        const std::string& text = node.Scalar();
        switch (key.type) {
            case ValueType::Boolean: {
                bool value = false;
                if (isQuoted(node) || !YAML::convert<bool>::decode(node, value)) {
                    return wrongType();
                }
                key.assign(m_deployment, Value(value));
                return std::nullopt;
            }
            case ValueType::Integer: {
                if (isQuoted(node)) {
                    return wrongType();
                }
                const std::optional<std::int64_t> value = parseInteger(text);
                if (!value) {
                    return isIntegerText(text) ? outOfRange(text) : wrongType();  // digits beyond 64 bits
                }
                if (*value < key.minInteger) {
                    return outOfRange(text);
                }
                if (*value > key.maxInteger) {
                    if (!key.compiledLimit.empty()) {
                        return error(ConfigErrorKind::OverCompiledLimit, at, path,
                                     "expected " + describeExpected(key) + ", got " + text +
                                         ", over the compiled limit " + std::string(key.compiledLimit) + " = " +
                                         std::to_string(key.maxInteger) +
                                         " (core/include/augur/core/messages.hpp; raising it means rebuilding)");
                    }
                    return outOfRange(text);
                }
                key.assign(m_deployment, Value(*value));
                return std::nullopt;
            }
            case ValueType::Number: {
                const std::optional<double> value = isQuoted(node) ? std::nullopt : parseNumber(text);
                if (!value) {
                    return wrongType();
                }
                if (!inRange(key, *value)) {
                    return outOfRange(text);
                }
                key.assign(m_deployment, Value(*value));
                return std::nullopt;
            }
            case ValueType::String: {
                const auto length = static_cast<std::int64_t>(text.size());
                if (length < key.minInteger || length > key.maxInteger) {
                    return outOfRange(text.empty() ? std::string("an empty string")
                                                   : "a string of " + std::to_string(length) + " characters");
                }
                if (const std::string problem = textRuleViolation(key, text); !problem.empty()) {
                    return outOfRange(formatValue(key, Value(text)) + ", which " + problem);
                }
                key.assign(m_deployment, Value(text));
                return std::nullopt;
            }
            case ValueType::Enumeration: {
                const auto match = std::find(key.allowed.begin(), key.allowed.end(), text);
                if (match == key.allowed.end()) {
                    return error(ConfigErrorKind::OutOfRange, at, path,
                                 "expected " + describeExpected(key) + ", got " + describeNode(node) +
                                     closestNameHint(text, key.allowed));
                }
                key.assign(m_deployment, Value(static_cast<std::int64_t>(match - key.allowed.begin())));
                return std::nullopt;
            }
            case ValueType::IntegerList: break;  // handled above
        }
        return wrongType();
    }

    /// "; did you mean X?" when one of `names` is close to `text`.
    static std::string closestNameHint(std::string_view text, std::span<const std::string_view> names) {
        const std::string_view* best = nullptr;
        std::size_t bestDistance = 0;
        for (const std::string_view& name : names) {
            const std::size_t distance = detail::editDistance(text, name);
            if (best == nullptr || distance < bestDistance) {
                best = &name;
                bestDistance = distance;
            }
        }
        return best != nullptr && isClose(text, bestDistance) ? "; did you mean " + std::string(*best) + "?"
                                                                : std::string();
    }

    /// Close enough to be a likely typo: at most 2 edits, or a third of the name.
    static bool isClose(std::string_view text, std::size_t distance) {
        return distance <= std::max<std::size_t>(2, text.size() / 3);
    }

    std::optional<ConfigError> unknownKey(const std::string& path, const std::string& prefix, Location at) const {
        const std::string_view name = detail::leafName(path);
        // Known names directly under `prefix`: keys and sections.
        std::vector<std::string_view> siblings;
        const auto addSibling = [&](std::string_view candidate) {
            if (detail::parentPath(candidate) == prefix) {
                siblings.push_back(detail::leafName(candidate));
            }
        };
        for (const KeySpec& key : schema()) {
            addSibling(key.path);
        }
        for (const SectionSpec& section : sections()) {
            addSibling(section.path);
        }
        std::string suggestion;
        std::size_t bestDistance = 0;
        for (const std::string_view sibling : siblings) {
            const std::size_t distance = detail::editDistance(name, sibling);
            if (suggestion.empty() || distance < bestDistance) {
                suggestion = detail::joinPath(prefix, sibling);
                bestDistance = distance;
            }
        }
        if (suggestion.empty() || !isClose(name, bestDistance)) {
            suggestion.clear();
            // The same name in another section (e.g. `particles` under intention instead of capacities).
            for (const KeySpec& key : schema()) {
                if (detail::leafName(key.path) == name) {
                    suggestion = std::string(key.path);
                    break;
                }
            }
        }
        ConfigError problem;
        if (!suggestion.empty()) {
            problem = *error(ConfigErrorKind::UnknownKey, at, path, "unknown key; did you mean " + suggestion + "?");
            problem.suggestion = suggestion;
            return problem;
        }
        std::string known;
        for (const std::string_view sibling : siblings) {
            known += (known.empty() ? "" : ", ") + std::string(sibling);
        }
        return error(ConfigErrorKind::UnknownKey, at, path,
                     "unknown key; the keys " + (prefix.empty() ? std::string("at the top level") : "of " + prefix) +
                         " are: " + known);
    }

    /// Where a scalar value is; for anything else (empty values, mappings and lists, whose marks
    /// point past the key) the key's location.
    static Location valueLocation(const YAML::Node& node, Location fallback) {
        const Location location = locationOf(node.Mark());
        return !node.IsScalar() || location.line == 0 ? fallback : location;
    }

    /// The location of `path`, or of its nearest ancestor the file sets, or 0:0.
    Location nearestLocation(std::string_view path) const {
        for (std::string_view current = path; !current.empty(); current = detail::parentPath(current)) {
            if (const auto found = m_locations.find(std::string(current)); found != m_locations.end()) {
                return found->second;
            }
        }
        return {};
    }

    std::optional<ConfigError> error(ConfigErrorKind kind, Location at, std::string keyPath,
                                     std::string message) const {
        return ConfigError{kind, m_file, at.line, at.column, std::move(keyPath), std::move(message), {}};
    }

    std::string m_file;
    Deployment m_deployment{};
    std::map<std::string, Location> m_locations;  ///< every key and section the file sets
};

/// Notes where each document of a YAML stream starts and where its root node is, without building nodes.
class DocumentStarts final : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  const std::string& /*value*/) override {
        node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                         YAML::EmitterStyle::value /*style*/) override {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                    YAML::EmitterStyle::value /*style*/) override {
        node(mark);
    }
    void OnMapEnd() override {}

    std::vector<YAML::Mark> starts;  ///< per document: its first token
    std::vector<YAML::Mark> roots;   ///< per document: its root node

private:
    void node(const YAML::Mark& mark) {
        if (roots.size() < starts.size()) {
            roots.push_back(mark);
        }
    }
};

/// Parses the one document of `text` into `root` (left null for an empty stream), or says why not.
/// Not YAML::LoadAll: yaml-cpp 0.7's loops forever, adding a null document per turn, on a token no
/// document can start with, such as a ',' at the start of a line (fixed upstream in yaml-cpp PR 1319).
/// So a first pass stops at the second document start: one where the first started is that case
/// (no progress), one further on is a real second document. Throws YAML::Exception on invalid YAML.
std::optional<ConfigError> parseSingleDocument(std::string_view text, const std::string& sourceName,
                                               YAML::Node& root) {
    const std::string owned(text);
    std::istringstream stream(owned);
    YAML::Parser parser(stream);
    DocumentStarts documents;
    while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
    }
    if (documents.starts.size() == 2) {
        const YAML::Mark& second = documents.starts[1];
        if (second.pos == documents.starts[0].pos) {
            const Location at = locationOf(second);
            const auto offset = static_cast<std::size_t>(second.pos);
            const std::string found = offset < owned.size() ? "'" + owned.substr(offset, 1) + "'" : "the end";
            return ConfigError{ConfigErrorKind::SyntaxError, sourceName, at.line, at.column, {},
                               "invalid YAML: no value can start with " + found, {}};
        }
        const Location at = locationOf(documents.roots.size() == 2 ? documents.roots[1] : second);
        return ConfigError{ConfigErrorKind::SyntaxError, sourceName, at.line, at.column, {},
                           "more than one YAML document; a deployment is one document", {}};
    }
    if (!documents.starts.empty()) {
        root = YAML::Load(owned);
    }
    return std::nullopt;
}

Result<Deployment, ConfigError> load(std::string_view text, const std::string& sourceName) {
    try {
        YAML::Node root;
        try {
            if (std::optional<ConfigError> problem = parseSingleDocument(text, sourceName, root)) {
                return fail(std::move(*problem));
            }
        } catch (const YAML::Exception& e) {
            const Location at = locationOf(e.mark);
            return fail(ConfigError{ConfigErrorKind::SyntaxError, sourceName, at.line, at.column, {},
                                    "invalid YAML: " + e.msg, {}});
        }
        Walker walker(sourceName);
        if (std::optional<ConfigError> problem = walker.walkDocument(root)) {
            return fail(std::move(*problem));
        }
        if (std::optional<ConfigError> problem = walker.checkRequired()) {
            return fail(std::move(*problem));
        }
        if (std::optional<ConfigError> problem = walker.checkRules()) {
            return fail(std::move(*problem));
        }
        return Result<Deployment, ConfigError>(std::move(walker.deployment()));
    } catch (const std::exception& e) {
        return fail(ConfigError{ConfigErrorKind::SyntaxError, sourceName, 0, 0, {},
                                std::string("cannot be read: ") + e.what(), {}});
    } catch (...) {
        return fail(ConfigError{ConfigErrorKind::SyntaxError, sourceName, 0, 0, {}, "cannot be read", {}});
    }
}

}  // namespace

Result<Deployment, ConfigError> loadDeploymentFromString(std::string_view yaml, const std::string& sourceName) {
    return load(yaml, sourceName);
}

Result<LoadedDeployment, ConfigError> loadDeploymentWithHash(const std::string& path,
                                                            std::string_view expectedSha256) {
    if (!expectedSha256.empty() && !isSha256Hex(expectedSha256)) {
        return fail(ConfigError{ConfigErrorKind::HashMismatch, path, 0, 0, {},
                                "the expected SHA-256 \"" + std::string(expectedSha256) +
                                    "\" is not 64 hexadecimal digits",
                                {}});
    }
    Result<std::string, FileError> read = readRegularFile(path, MAX_CONFIG_FILE_BYTES);
    if (read.hasError()) {
        const FileError& problem = read.error();
        const bool rejected = problem.kind == FileErrorKind::NotRegular || problem.kind == FileErrorKind::TooLarge;
        const ConfigErrorKind kind = rejected ? ConfigErrorKind::FileRejected : ConfigErrorKind::FileNotFound;
        return fail(ConfigError{kind, path, 0, 0, {}, problem.message, {}});
    }
    const std::string& text = read.value();
    std::string sha256 = sha256Hex(text);
    if (!expectedSha256.empty() && !sameSha256(sha256, expectedSha256)) {
        return fail(ConfigError{ConfigErrorKind::HashMismatch, path, 0, 0, {},
                                "SHA-256 is " + sha256 + ", expected " + std::string(expectedSha256) +
                                    " (the file is truncated or was changed since it was pinned)",
                                {}});
    }
    Result<Deployment, ConfigError> loaded = load(text, path);
    if (loaded.hasError()) {
        return fail(std::move(loaded).error());
    }
    LoadedDeployment result{std::move(loaded).value(), std::move(sha256)};
    std::string& mapPath = result.deployment.map.path;
    try {
        const std::filesystem::path mapFile(mapPath);
        if (mapFile.is_relative()) {
            mapPath = (std::filesystem::path(path).parent_path() / mapFile).lexically_normal().string();
        }
    } catch (const std::exception& e) {
        return fail(ConfigError{ConfigErrorKind::OutOfRange, path, 0, 0, "map.path",
                                std::string("cannot be resolved: ") + e.what(), {}});
    }
    return result;
}

Result<Deployment, ConfigError> loadDeployment(const std::string& path) {
    Result<LoadedDeployment, ConfigError> loaded = loadDeploymentWithHash(path, {});
    if (loaded.hasError()) {
        return fail(std::move(loaded).error());
    }
    return std::move(loaded).value().deployment;
}

}  // namespace augur::config
