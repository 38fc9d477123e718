// The schema in words: expected-value phrases, values as YAML text, and the Markdown reference.
#include <array>
#include <charconv>
#include <optional>
#include <string>

#include "augur/config/deployment_file.hpp"
#include "augur/config/schema.hpp"
#include "augur/core/messages.hpp"
#include "augur/core/transport_name.hpp"
#include "text.hpp"

namespace augur::config {
namespace {

/// The transport-name rule (augur/core/transport_name.hpp) in words, for messages and the reference.
constexpr std::string_view TRANSPORT_NAME_RULE =
    "1 to 100 of the characters A-Z a-z 0-9 - _ . : (neither \".\" nor \"..\", no final dot)";

/// Shortest round-trip text without a forced ".0": range ends read "[0, 1]".
std::string compactNumber(double value) {
    std::array<char, 64> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20U) {
                    constexpr std::string_view HEX = "0123456789abcdef";
                    out += "\\x";
                    out += HEX[(static_cast<unsigned char>(c) >> 4U) & 0xFU];
                    out += HEX[static_cast<unsigned char>(c) & 0xFU];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

std::string escapeCell(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '|') {
            out += "\\|";
        } else {
            out += c;
        }
    }
    return out;
}

std::string rangeText(const KeySpec& key) {
    switch (key.type) {
        case ValueType::Integer:
        case ValueType::IntegerList:
            return "[" + std::to_string(key.minInteger) + ", " + std::to_string(key.maxInteger) + "]";
        case ValueType::Number:
            return std::string(key.minOpen ? "(" : "[") + compactNumber(key.minNumber) + ", " +
                   compactNumber(key.maxNumber) + (key.maxOpen ? ")" : "]");
        case ValueType::Boolean:
        case ValueType::String:
        case ValueType::Enumeration:
            break;
    }
    return {};
}

/// The "Allowed" column of the reference.
std::string allowedCell(const KeySpec& key) {
    switch (key.type) {
        case ValueType::Boolean: return "`true`, `false`";
        case ValueType::Integer:
        case ValueType::Number: {
            std::string cell = rangeText(key);
            if (!key.compiledLimit.empty()) {
                cell += " (max = `" + std::string(key.compiledLimit) + "`)";
            }
            return cell;
        }
        case ValueType::IntegerList: return "each in " + rangeText(key);
        case ValueType::String:
            switch (key.text) {
                case TextRule::TransportName: return "iceoryx name (see Names and files)";
                case TextRule::Sha256: return "empty, or 64 hexadecimal digits";
                case TextRule::DdsTopic:
                    return std::to_string(key.minInteger) + " to " + std::to_string(key.maxInteger) +
                           " characters: A-Z a-z 0-9 _ in segments joined by /";
                case TextRule::Path:
                    return std::to_string(key.minInteger) + " to " + std::to_string(key.maxInteger) +
                           " characters, no NUL byte";
                case TextRule::Any: break;
            }
            return std::to_string(key.minInteger) + " to " + std::to_string(key.maxInteger) + " characters";
        case ValueType::Enumeration: {
            std::string cell;
            for (const std::string_view name : key.allowed) {
                cell += (cell.empty() ? "`" : ", `") + std::string(name) + "`";
            }
            return cell;
        }
    }
    return {};
}

void appendKeyTable(std::string& out, std::string_view section) {
    const Deployment defaults{};
    out += "| Key | Type | Default | Allowed | Unit | Description |\n";
    out += "| --- | --- | --- | --- | --- | --- |\n";
    for (const KeySpec& key : schema()) {
        if (detail::parentPath(key.path) != section) {
            continue;
        }
        const std::string defaultCell =
            key.required ? std::string("**required**") : "`" + formatValue(key, key.read(defaults)) + "`";
        out += "| `" + std::string(key.path) + "` | " + std::string(toString(key.type)) + " | " + defaultCell + " | " +
               escapeCell(allowedCell(key)) + " | " + escapeCell(key.unit) + " | " + escapeCell(key.description) +
               " |\n";
    }
}

constexpr std::array<ConfigErrorKind, 10> ALL_ERROR_KINDS{
    ConfigErrorKind::FileNotFound, ConfigErrorKind::FileRejected,      ConfigErrorKind::HashMismatch,
    ConfigErrorKind::SyntaxError,  ConfigErrorKind::WrongType,         ConfigErrorKind::OutOfRange,
    ConfigErrorKind::UnknownKey,   ConfigErrorKind::MissingKey,        ConfigErrorKind::Inconsistent,
    ConfigErrorKind::OverCompiledLimit};

std::string_view errorKindMeaning(ConfigErrorKind kind) {
    switch (kind) {
        case ConfigErrorKind::FileNotFound: return "the file cannot be opened";
        case ConfigErrorKind::FileRejected:
            return "the file is not a regular file (a directory, FIFO, device…) or is larger than the limit; it is "
                   "refused without being read";
        case ConfigErrorKind::HashMismatch:
            return "the file's SHA-256 is not the one given with `--config-sha256` (a truncated or changed file)";
        case ConfigErrorKind::SyntaxError: return "the text is not valid YAML, or a key appears twice in one mapping";
        case ConfigErrorKind::WrongType:
            return "a value of the wrong type: text or a quoted string where a number or boolean is expected, "
                   "a list or mapping where a single value is expected, a single value where a section is expected";
        case ConfigErrorKind::OutOfRange:
            return "a number outside its range, a string of the wrong length, a name that is not among the "
                   "allowed values";
        case ConfigErrorKind::UnknownKey:
            return "a key the schema does not have; the message suggests the closest known key";
        case ConfigErrorKind::MissingKey: return "a required key is absent";
        case ConfigErrorKind::Inconsistent:
            return "values that are each valid but contradict each other (see the rules below)";
        case ConfigErrorKind::OverCompiledLimit:
            return "a capacity, or a count derived from several keys, above a limit compiled into "
                   "`core/include/augur/core/messages.hpp`; raising it means rebuilding";
    }
    return "";
}

}  // namespace

std::string describeExpected(const KeySpec& key) {
    switch (key.type) {
        case ValueType::Boolean: return "true or false";
        case ValueType::Integer:
            if (key.minInteger == key.maxInteger) {
                return "the integer " + std::to_string(key.minInteger);
            }
            return "an integer in " + rangeText(key);
        case ValueType::Number: return "a number in " + rangeText(key);
        case ValueType::String:
            switch (key.text) {
                case TextRule::TransportName: return "an iceoryx name: " + std::string(TRANSPORT_NAME_RULE);
                case TextRule::Sha256: return "an empty string or a SHA-256 of 64 hexadecimal digits";
                case TextRule::DdsTopic:
                    return "a DDS topic name of at most " + std::to_string(key.maxInteger) +
                           " characters: A-Z a-z 0-9 _ in segments joined by /";
                case TextRule::Path:
                case TextRule::Any: break;
            }
            return std::string(key.minInteger > 0 ? "a non-empty string" : "a string") + " of at most " +
                   std::to_string(key.maxInteger) + " characters";
        case ValueType::Enumeration: {
            std::string text = "one of ";
            for (std::size_t i = 0; i < key.allowed.size(); ++i) {
                text += (i == 0 ? "" : ", ") + std::string(key.allowed[i]);
            }
            return text;
        }
        case ValueType::IntegerList: return "a list of integers in " + rangeText(key);
    }
    return {};
}

std::string textRuleViolation(const KeySpec& key, std::string_view text) {
    switch (key.text) {
        case TextRule::Any: return {};
        case TextRule::Path:
            return text.find('\0') == std::string_view::npos ? std::string() : std::string("contains a NUL byte");
        case TextRule::TransportName: {
            const std::optional<TransportNameError> problem = checkTransportName(text);
            if (!problem) {
                return {};
            }
            std::string reason = toString(*problem);
            if (*problem == TransportNameError::BadCharacter) {
                const auto byte = static_cast<unsigned char>(text[firstBadTransportNameChar(text)]);
                constexpr std::string_view HEX = "0123456789abcdef";
                reason += std::string(" (byte 0x") + HEX[byte >> 4U] + HEX[byte & 0xFU] + " at offset " +
                          std::to_string(firstBadTransportNameChar(text)) + ")";
            }
            return reason;
        }
        case TextRule::Sha256:
            return text.empty() || isSha256Hex(text) ? std::string() : std::string("is not 64 hexadecimal digits");
        case TextRule::DdsTopic: {
            // ROS 2 (rmw) topic names: no empty segment, no leading or trailing slash, no other byte.
            char previous = '/';
            for (std::size_t i = 0; i < text.size(); ++i) {
                const char c = text[i];
                const bool word = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
                if (!word && c != '/') {
                    return "contains a character other than A-Z a-z 0-9 _ / (at offset " + std::to_string(i) + ")";
                }
                if (c == '/' && previous == '/') {
                    return "has an empty segment (a leading '/' or '//') at offset " + std::to_string(i);
                }
                previous = c;
            }
            return !text.empty() && text.back() == '/' ? std::string("ends in '/'") : std::string();
        }
    }
    return {};
}

std::string formatValue(const KeySpec& key, const Value& value) {
    if (const bool* b = std::get_if<bool>(&value)) {
        return *b ? "true" : "false";
    }
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) {
        if (key.type == ValueType::Enumeration) {
            const auto index = static_cast<std::size_t>(*i);
            return index < key.allowed.size() ? std::string(key.allowed[index]) : std::string("?");
        }
        return std::to_string(*i);
    }
    if (const double* d = std::get_if<double>(&value)) {
        return detail::formatNumber(*d);
    }
    if (const std::string* s = std::get_if<std::string>(&value)) {
        return quoted(*s);
    }
    if (const std::vector<std::int64_t>* list = std::get_if<std::vector<std::int64_t>>(&value)) {
        std::string text = "[";
        for (std::size_t i = 0; i < list->size(); ++i) {
            text += (i == 0 ? "" : ", ") + std::to_string((*list)[i]);
        }
        return text + "]";
    }
    return "?";
}

std::string renderSchemaMarkdown() {
    std::string out;
    out += "# Configuration reference\n\n";
    out += "<!-- Generated from the schema in config/src/schema.cpp; do not edit by hand. Regenerate with\n"
           "     augur-runtime --print-schema > docs/configuration.md\n"
           "     (a test compares this file with the schema). -->\n\n";
    out += "One YAML file describes a deployment of augur: cycle timing and real-time setup, capacities, the map,\n"
           "one section per algorithm, the iceoryx transport and output options. `augur-runtime --config FILE`\n"
           "runs the deployment a file describes; `augur-runtime --check FILE` loads and validates it, checks\n"
           "its map file and prints the deployment it describes. Shipped examples:\n"
           "`config/default.yaml` (PC / HIL bench) and `config/jetson-orin.yaml` (Jetson AGX Orin).\n\n";
    out += "Every key below except the required ones may be left out; it then takes its default. Units are in the\n"
           "key names (`_ms`, `_s`, `_m`, `_mps`, `_mps2`, `_deg`) or in the Unit column. Ranges: `[a, b]` includes\n"
           "both ends, `(a, b]` excludes a. Values are checked at load time; the first problem in document order\n"
           "is reported as `file:line:column: key.path: what was expected, got what`, and `augur-runtime` exits\n"
           "with status 2.\n\n";
    out += "## Errors\n\n| Kind | Meaning |\n| --- | --- |\n";
    for (const ConfigErrorKind kind : ALL_ERROR_KINDS) {
        out += "| " + std::string(toString(kind)) + " | " + std::string(errorKindMeaning(kind)) + " |\n";
    }
    out += "\n## Names and files\n\n"
           "**iceoryx names.** `transport.application_name` and every channel's `service`, `instance` and `event`\n"
           "are " + std::string(TRANSPORT_NAME_RULE) + ". This is\n"
           "iceoryx 2.0.3's own file-name rule: it makes the application name the socket `/tmp/<name>` (which it\n"
           "unlinks first), so a slash or `..` would point outside that folder, and it copies names as C strings\n"
           "into fields of 100 characters, so a NUL byte would shorten a name. The loader reports a name that breaks\n"
           "the rule as *out of range*, and the transport checks every name again before it reaches iceoryx.\n\n"
           "**Files.** The configuration file and the map must be regular files: a directory, FIFO, device (such\n"
           "as `/dev/zero`) or socket is refused at once, without being read and without blocking. The\n"
           "configuration file may be at most " + std::to_string(MAX_CONFIG_FILE_BYTES >> 20U) +
           " MiB, the map at most `map.max_bytes`.\n\n"
           "**Truncated or altered files.** YAML cannot tell a file cut short at a line end from a shorter file:\n"
           "every key that is lost takes its default. What protects a deployment is pinning the content:\n"
           "`augur-runtime --check FILE` prints the SHA-256 of the configuration file and of its map;\n"
           "`augur-runtime --config FILE --config-sha256 HEX` refuses (exit status 2, *hash mismatch*) a\n"
           "configuration file with any other content, before parsing it; and `map.sha256` in the configuration\n"
           "pins the map the same way (init fails otherwise), so the configuration's hash covers both files.\n"
           "Without a pin, only the required keys (`schema_version`, `map.path`) and the rules between keys\n"
           "catch a damaged file.\n";
    out += "\n## Compiled limits\n\n"
           "From `core/include/augur/core/messages.hpp` (the sizes of the messages that cross process boundaries):\n\n"
           "| Limit | Value |\n| --- | --- |\n";
    const std::array<std::pair<std::string_view, std::size_t>, 7> limits{{
        {"MAX_OBJECTS", MAX_OBJECTS},
        {"MAX_TRACKS", MAX_TRACKS},
        {"MAX_PREDICTED_VEHICLES", MAX_PREDICTED_VEHICLES},
        {"MAX_CORRIDORS_PER_VEHICLE", MAX_CORRIDORS_PER_VEHICLE},
        {"MAX_HORIZON_STEPS", MAX_HORIZON_STEPS},
        {"MAX_GRID_SIDE_CELLS", MAX_GRID_SIDE_CELLS},
        {"MAX_GRID_FRAMES", MAX_GRID_FRAMES},
    }};
    for (const auto& [name, value] : limits) {
        out += "| `" + std::string(name) + "` | " + std::to_string(value) + " |\n";
    }
    out += "\n## Keys\n\n### Top level\n\n";
    appendKeyTable(out, "");
    for (const SectionSpec& section : sections()) {
        out += "\n### `" + std::string(section.path) + "`\n\n" + std::string(section.description) + "\n\n";
        appendKeyTable(out, section.path);
    }
    out += "\n## Rules between keys\n\nChecked after every key is valid on its own, in this order:\n\n";
    for (const ConsistencyRule& rule : consistencyRules()) {
        out += "- *" + std::string(toString(rule.kind)) + "*: " + std::string(rule.description) + "\n";
    }
    return out;
}

}  // namespace augur::config
