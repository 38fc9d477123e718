// Build identification for every program's --version: the release and the commit it was built from.
#pragma once

#include <cstring>

namespace augur {

/// The commit the build came from: 12 hexadecimal digits, with "-dirty" when the tree had uncommitted
/// changes, or "unknown" (built outside a git checkout). noexcept, a static string.
[[nodiscard]] const char* buildCommit() noexcept;

/// "augur 0.1.0 (commit 0123456789ab)". noexcept, a static string.
[[nodiscard]] const char* versionString() noexcept;

/// True when the command line is exactly `PROGRAM --version`: the program then prints versionString()
/// (or a longer line of its own that starts with it) and exits with status 0.
[[nodiscard]] inline bool versionRequested(int argc, const char* const* argv) noexcept {
    return argc == 2 && std::strcmp(argv[1], "--version") == 0;
}

}  // namespace augur
