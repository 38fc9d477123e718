// A deployment in words: what `augur-runtime --config FILE` prints after loading a file.
#pragma once

#include <string>

#include "augur/config/deployment.hpp"

namespace augur::runtime {

/// A multi-line, human-readable summary of `deployment`: cycle timing and budgets, real-time setup,
/// capacities, map, each algorithm's parameters with the derived counts (horizon steps, grid frames),
/// transport channels and output. Ends with a newline. Init phase; allocates.
[[nodiscard]] std::string describeDeployment(const config::Deployment& deployment);

}  // namespace augur::runtime
