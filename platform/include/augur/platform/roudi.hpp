// RouDi, iceoryx's shared-memory daemon: the memory pools augur's messages need, and a RouDi
// embedded in the current process (tests, the HIL bench) as in iceoryx 2.0.3's `singleprocess` example.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "augur/platform/transport.hpp"

namespace augur::platform {

/// One memory pool: `count` chunks able to hold `payloadBytes` of user payload each.
struct MempoolEntry {
    std::uint32_t payloadBytes;
    std::uint32_t count;
};

/// The pools augur's messages need (sized from core/messages.hpp), smallest first. config/roudi.toml
/// ships the same pools for an external iox-roudi; a test keeps the two in agreement.
[[nodiscard]] std::vector<MempoolEntry> augurMempools();

/// A RouDi running inside this process. Other processes can connect to it like to iox-roudi; in this
/// process, publishers and subscribers work directly (no connectToRouDi). iceoryx 2.0 allows one RouDi
/// per machine (a file lock in /tmp): start() waits up to `lockWait_ms` for another one to end, then
/// fails with RouDiAlreadyRunning. One per process.
class EmbeddedRouDi {
public:
    EmbeddedRouDi(const EmbeddedRouDi&) = delete;
    EmbeddedRouDi& operator=(const EmbeddedRouDi&) = delete;
    ~EmbeddedRouDi();

    [[nodiscard]] static Result<std::unique_ptr<EmbeddedRouDi>, TransportError> start(
        const std::string& appName, const std::vector<MempoolEntry>& pools = augurMempools(),
        std::int64_t lockWait_ms = 0);

private:
    EmbeddedRouDi();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::platform
