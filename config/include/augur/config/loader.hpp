// Loading a deployment from YAML: parse, check every key against the schema, then check that the
// values agree with each other and with the compiled capacities.
//
// Init phase only (allocates, reads files). Never throws: every problem, including the YAML
// parser's, comes back as a ConfigError naming the file, line, column and key. The first problem in
// document order is reported; cross-key checks run only on a file whose keys are each valid.
#pragma once

#include <string>
#include <string_view>

#include "augur/config/config_error.hpp"
#include "augur/config/deployment.hpp"
#include "augur/core/result.hpp"

namespace augur::config {

/// Loads and validates the deployment file at `path`. A relative map.path is resolved against the
/// folder holding the file. Errors carry `path` as their file name.
[[nodiscard]] Result<Deployment, ConfigError> loadDeployment(const std::string& path);

/// Loads and validates YAML text; `sourceName` names it in errors (e.g. "inline.yaml").
/// map.path is kept as written.
[[nodiscard]] Result<Deployment, ConfigError> loadDeploymentFromString(std::string_view yaml,
                                                                       const std::string& sourceName);

}  // namespace augur::config
