// What `--version` prints in every augur program: the release and the commit it was built from.
#pragma once

#include <string>

#include "augur/core/version.hpp"

namespace augur::apps::cli {

/// "augur VERSION (commit ID)", with `detail` appended inside the parentheses when not empty.
[[nodiscard]] inline std::string versionLine(const std::string& detail = {}) {
    return std::string("augur ") + AUGUR_VERSION_STRING + " (commit " + buildCommit() + (detail.empty() ? "" : ", ") +
           detail + ")";
}

}  // namespace augur::apps::cli
