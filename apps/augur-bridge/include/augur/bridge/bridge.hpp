// augur-bridge: forwards augur's iceoryx channels to Eclipse Cyclone DDS and back (docs/dds.md).
//
// Role target (next to augur-runtime): object lists DDS → iceoryx; tracks, intentions, prediction (with
// its occupancy grid), health and platoons iceoryx → DDS (plus the optional Autoware-shaped
// prediction). Role bench (next to a perception or a HIL bench on another host): the mirror image.
// Topics <prefix>/objects, /tracks, /intentions, /prediction, /health, /platoons and /bridge_status;
// types augur::msg::dds_::*_ (ROS 2 naming).
// Every writer and reader has the deployment's reliability per topic, KEEP_LAST history, the
// deadline and an automatic liveliness lease; a DDS writer of a subscribed topic that loses its
// liveliness (its process or host vanished) is a peer loss in the bridge status. The status goes to
// DDS (<prefix>/bridge_status) and to iceoryx (transport.link_status, a LinkStatus), where the runtime
// on this host turns it into its health's link_lost fault.
//
// Init phase: create() registers with RouDi, creates the DDS participant, topics, writers, readers and
// every sample buffer. Run phase: poll() is noexcept and makes no allocation of its own (Cyclone DDS
// allocates its serialised buffers internally, docs/dds.md); it never blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "augur/config/deployment.hpp"
#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"
#include "augur/platform/clock.hpp"

namespace augur::bridge {

/// The platform clock of bridge.wire_clock: what times on DDS are on (docs/dds.md, Stamps across hosts).
/// A DDS peer that reads augur's samples with augur's headers takes shiftTimes(sample,
/// -platform::offsetFromMonotonic_ns(wireClockOf(...))) to have them on its monotonic clock.
[[nodiscard]] platform::SharedClock wireClockOf(config::WireClock clock) noexcept;

enum class BridgeError : std::uint8_t {
    Transport,  ///< RouDi registration or an iceoryx publisher / subscriber failed
    Dds,        ///< a DDS entity could not be created
};

/// What went wrong at init, with the failing step.
struct BridgeInitError {
    BridgeError kind{BridgeError::Dds};
    std::string detail{};
};

/// Bits of BridgeStatus::faults (the BRIDGE_FAULT_* constants of the IDL): the link faults of
/// core/messages.hpp, which the runtime reads from the bridge's LinkStatus.
using BridgeFault = LinkFault;

/// The bridge's counters and state (also published on <prefix>/bridge_status).
struct BridgeStatus {
    std::uint32_t faults{0};
    std::uint32_t alivePeers{0};  ///< alive DDS writers over all subscribed topics
    std::uint64_t peerLosses{0};
    std::int64_t lastPeerLoss_ns{0};  ///< monotonic time the last loss was noticed
    std::uint64_t deadlineMisses{0};
    std::uint64_t forwardedToDds{0};
    std::uint64_t forwardedToIceoryx{0};
    std::uint64_t forwardFailures{0};
    std::uint64_t rejected{0};
    std::uint32_t matchedReaders{0};   ///< DDS readers matched with this bridge's data writers now
    std::uint64_t readerLosses{0};     ///< matched readers that went away (left, or their participant's lease expired)
    std::int64_t lastReaderLoss_ns{0}; ///< monotonic time the last reader loss was noticed (0: none)
};

class Bridge {
public:
    /// Init phase. `connectRouDi` false: the caller has registered this process with RouDi already.
    [[nodiscard]] static Result<Bridge, BridgeInitError> create(const config::Deployment& deployment,
                                                                bool connectRouDi = true);
    Bridge(Bridge&&) noexcept;
    Bridge& operator=(Bridge&&) noexcept;
    ~Bridge();

    /// Forwards everything queued on either side, updates the liveliness state and publishes the
    /// status when it changed or bridge.deadline_ms passed. `now_ns`: monotonic time. Returns the
    /// number of samples forwarded. Run phase: noexcept, non-blocking.
    std::uint32_t poll(std::int64_t now_ns) noexcept;

    [[nodiscard]] const BridgeStatus& status() const noexcept;

private:
    Bridge();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

[[nodiscard]] const char* toString(BridgeError error) noexcept;

}  // namespace augur::bridge
