// The runtime's view of its DDS link: the newest LinkStatus that augur-bridge publishes on
// transport.link_status, turned into Health's link fields and the link_lost fault (docs/dds.md).
//
// The link is lost while the bridge reports a lost peer (LinkFault::PeerLost), or when its status,
// published at least once per bridge deadline, has not arrived for `staleAfter_ns` after one did. A
// runtime without a bridge never receives a status and never reports the link. Time is injected
// (monotonic nanoseconds), so the logic is tested without sleeping. Run phase: noexcept,
// allocation-free; trivially copyable, so the link thread hands copies to the cycle thread (LinkReporter).
#pragma once

#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur::runtime {

class LinkSupervision {
public:
    /// `staleAfter_ns` (> 0): time without a status after which a bridge that reported once counts as gone.
    explicit LinkSupervision(std::int64_t staleAfter_ns) noexcept : m_staleAfter_ns(staleAfter_ns) {}

    /// A status taken from transport.link_status at `now_ns`. O(1).
    void onStatus(const LinkStatus& status, std::int64_t now_ns) noexcept {
        m_status = status;
        m_received_ns = now_ns;
        m_haveStatus = true;
    }

    /// Whether the link counts as lost at `now_ns`. O(1).
    [[nodiscard]] bool lost(std::int64_t now_ns) const noexcept {
        return m_haveStatus &&
               ((m_status.faults & bit(LinkFault::PeerLost)) != 0 || now_ns - m_received_ns > m_staleAfter_ns);
    }

    /// The first time at which a bridge that has gone quiet counts as gone (lost() turns true without a
    /// new status); INT64_MAX while no status has arrived. O(1).
    [[nodiscard]] std::int64_t staleAt_ns() const noexcept {
        return m_haveStatus ? m_received_ns + m_staleAfter_ns + 1 : INT64_MAX;
    }

    /// Writes Health's link fields and sets HealthFault::LinkLost in `health.faults` while the link is
    /// lost. O(1).
    void fill(Health& health, std::int64_t now_ns) const noexcept {
        health.linkFaults = m_haveStatus ? m_status.faults : 0;
        health.linkAlivePeers = m_haveStatus ? m_status.alivePeers : 0;
        health.linkPeerLosses = m_haveStatus ? m_status.peerLosses : 0;
        health.linkLastPeerLoss_ns = m_haveStatus ? m_status.lastPeerLoss_ns : 0;
        health.linkStatusAge_ns = m_haveStatus ? now_ns - m_received_ns : -1;
        if (lost(now_ns)) {
            health.faults |= bit(HealthFault::LinkLost);
        }
    }

private:
    std::int64_t m_staleAfter_ns;
    LinkStatus m_status{};
    std::int64_t m_received_ns{0};
    bool m_haveStatus{false};
};

}  // namespace augur::runtime
