// Build identification for every program's --version: the commit it was built from.
#pragma once

namespace augur {

/// The commit the build came from: 12 hexadecimal digits, with "-dirty" when the tree had uncommitted
/// changes, or "unknown" (built outside a git checkout). noexcept, a static string.
[[nodiscard]] const char* buildCommit() noexcept;

}  // namespace augur

/// buildCommit() with C linkage, for programs written in C: `const char* augur_build_commit(void);`.
extern "C" [[nodiscard]] const char* augur_build_commit(void) noexcept;
