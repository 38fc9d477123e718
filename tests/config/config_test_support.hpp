// Helpers shared by the configuration tests.
#pragma once

#include <string>
#include <string_view>

#include "augur/config/loader.hpp"

namespace augur::config::testing {

/// Name the in-memory files carry in errors.
inline constexpr const char* SOURCE_NAME = "inline.yaml";

/// The smallest valid file: the required keys and a map format that needs no origin. Four lines, so
/// text appended to it starts on line 5.
inline constexpr std::string_view MINIMAL = "schema_version: 1\n"
                                            "map:\n"
                                            "  path: town.net.xml\n"
                                            "  format: sumo\n";
inline constexpr std::int32_t FIRST_APPENDED_LINE = 5;

inline Result<Deployment, ConfigError> loadText(std::string_view yaml) {
    return loadDeploymentFromString(yaml, SOURCE_NAME);
}

/// MINIMAL followed by `extra`.
inline Result<Deployment, ConfigError> loadMinimalWith(std::string_view extra) {
    return loadText(std::string(MINIMAL) + std::string(extra));
}

}  // namespace augur::config::testing
