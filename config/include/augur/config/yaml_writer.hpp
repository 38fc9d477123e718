// Writing a deployment back as YAML: every key of the schema, in schema order, with its value.
//
// Loading the text gives back an equal Deployment (tests check this for the shipped files).
#pragma once

#include <string>

#include "augur/config/deployment.hpp"

namespace augur::config {

/// The complete YAML form of `deployment` (all keys, defaults included). Init phase; allocates.
[[nodiscard]] std::string toYaml(const Deployment& deployment);

}  // namespace augur::config
