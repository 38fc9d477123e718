// What `--version` prints in every augur program: the release and the commit it was built from.
#pragma once

#include <string>

namespace augur::apps::cli {

/// The source tree's commit at build time (`git describe --always --dirty`: 12 hex digits, "-dirty"
/// with uncommitted changes), or "unknown" when built outside a git checkout. Generated at build time.
[[nodiscard]] const char* commitId() noexcept;

/// "augur VERSION (commit ID)", with `detail` appended inside the parentheses when not empty.
[[nodiscard]] inline std::string versionLine(const std::string& detail = {}) {
    return std::string("augur ") + AUGUR_VERSION_STRING + " (commit " + commitId() + (detail.empty() ? "" : ", ") +
           detail + ")";
}

}  // namespace augur::apps::cli
