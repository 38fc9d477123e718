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

/// A deployment and the SHA-256 of the exact bytes it was parsed from.
struct LoadedDeployment {
    Deployment deployment;
    std::string sha256;  ///< 64 lowercase hexadecimal digits
};

/// Loads and validates the deployment file at `path`. A relative map.path is resolved against the
/// folder holding the file. Errors carry `path` as their file name. The file must be a regular file
/// of at most MAX_CONFIG_FILE_BYTES (augur/config/deployment_file.hpp); anything else is refused
/// without blocking (FileRejected).
[[nodiscard]] Result<Deployment, ConfigError> loadDeployment(const std::string& path);

/// loadDeployment, also returning the file's SHA-256. With `expectedSha256` non-empty (64 hexadecimal
/// digits, either case) a file with any other content fails with HashMismatch before it is parsed:
/// a file cut short or edited after it was pinned is never loaded.
[[nodiscard]] Result<LoadedDeployment, ConfigError> loadDeploymentWithHash(const std::string& path,
                                                                         std::string_view expectedSha256);

/// Loads and validates YAML text; `sourceName` names it in errors (e.g. "inline.yaml").
/// map.path is kept as written.
[[nodiscard]] Result<Deployment, ConfigError> loadDeploymentFromString(std::string_view yaml,
                                                                       const std::string& sourceName);

}  // namespace augur::config
