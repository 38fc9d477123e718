// The runtime's link thread: it sleeps on transport.link_status until augur-bridge publishes a status
// (platform::DataWait), keeps the LinkSupervision, and publishes a link update on the health channel as
// soon as link_lost changes (Health::linkUpdate = 1): a vanished DDS peer reaches the runtime's health
// within the bridge's notice plus a thread wake-up, not at the end of the next cycle (docs/dds.md).
//
// The cycle thread reads the link's state for its own health from here (openCycleHealth), so both
// kinds of health message describe one link state, handed over without locks (LatestValue). A handshake
// keeps them in order on the channel: a link update waits until a cycle health that was filled from an
// older link state is published, so a subscriber never sees the cycle's health undo a newer update.
// The cycle thread never waits for the link thread.
//
// Threads: the link thread is started by create() and keeps the scheduling of the thread that called
// it (the runtime creates it before its real-time setup: the normal scheduler, any core), below every
// real-time thread of the runtime; its wait is bounded (LINK_IDLE_WAIT_NS), and stop() (or the
// destructor) wakes and joins it. Init phase: create() allocates (a subscriber, a publisher, a wait set,
// the thread). Run phase: everything else is noexcept and allocation-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/latest_value.hpp"
#include "augur/runtime/link_supervision.hpp"

namespace augur::runtime {

/// The longest single wait of the link thread (a status, a bridge going stale or stop() end it sooner).
inline constexpr std::int64_t LINK_IDLE_WAIT_NS = 1'000'000'000;

struct LinkReporterSettings {
    platform::ServiceName linkStatus;  ///< where augur-bridge publishes its LinkStatus
    platform::ServiceName health;      ///< where the runtime publishes its Health
    std::int64_t staleAfter_ns{0};     ///< LinkSupervision's limit (> 0)
    std::uint64_t statusQueueCapacity{4};
};

class LinkReporter {
public:
    /// Init phase: subscribes, advertises, makes the wait and starts the link thread. `healthSequence`
    /// numbers every health message of the runtime (cycle, watchdog alarm, link update); it must outlive
    /// the reporter.
    [[nodiscard]] static Result<std::unique_ptr<LinkReporter>, platform::TransportError> create(
        const LinkReporterSettings& settings, std::atomic<std::uint64_t>& healthSequence);

    LinkReporter(const LinkReporter&) = delete;
    LinkReporter& operator=(const LinkReporter&) = delete;
    ~LinkReporter();

    /// Stops and joins the link thread. Idempotent.
    void stop() noexcept;

    /// The cycle thread's side, around the publication of a cycle's health:
    ///
    ///   {
    ///       auto window = reporter.openCycleHealth();     // the link's newest state
    ///       window.fill(health, now_ns);                  // link fields and LinkLost
    ///       ... complete the health, reporter.noteCycleHealth(health), publish it ...
    ///   }                                                  // closes: a waiting link update may follow
    class CycleHealthWindow {
    public:
        CycleHealthWindow(const CycleHealthWindow&) = delete;
        CycleHealthWindow& operator=(const CycleHealthWindow&) = delete;
        ~CycleHealthWindow() { m_open.store(false, std::memory_order_release); }
        /// LinkSupervision::fill with the newest link state. O(1).
        void fill(Health& health, std::int64_t now_ns) const noexcept { m_link.fill(health, now_ns); }

    private:
        friend class LinkReporter;
        CycleHealthWindow(std::atomic<bool>& open, const LinkSupervision& link) noexcept : m_open(open), m_link(link) {}
        std::atomic<bool>& m_open;
        const LinkSupervision& m_link;
    };
    /// Cycle thread. noexcept, allocation-free, wait-free.
    [[nodiscard]] CycleHealthWindow openCycleHealth() noexcept;

    /// Cycle thread: what a link update repeats of the last cycle's health (cycle, mode, backend, faults
    /// other than LinkLost). noexcept, allocation-free.
    void noteCycleHealth(const Health& health) noexcept;

    /// Link updates published, and those that found no chunk (counted in the next cycle's loanFailures).
    /// Thread-safe.
    [[nodiscard]] std::uint64_t updatesPublished() const noexcept { return m_updates.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t loanFailures() const noexcept { return m_loanFailures.load(std::memory_order_relaxed); }

private:
    LinkReporter(const LinkReporterSettings& settings, std::atomic<std::uint64_t>& healthSequence,
                 platform::Subscriber<LinkStatus> statusIn, platform::Publisher<Health> healthOut);
    void run() noexcept;
    /// Takes every queued status into m_supervision; whether one arrived.
    bool takeStatuses() noexcept;
    void publishUpdate(std::int64_t now_ns) noexcept;

    LinkReporterSettings m_settings;
    std::atomic<std::uint64_t>& m_healthSequence;
    platform::Subscriber<LinkStatus> m_statusIn;
    platform::Publisher<Health> m_healthOut;
    platform::DataWait m_wait;
    LinkSupervision m_supervision;            ///< link thread
    LatestValue<LinkSupervision> m_shared;    ///< link thread → cycle thread
    std::atomic<bool> m_cycleHealthOpen{false};
    // The last cycle's health, for link updates (cycle thread → link thread).
    std::atomic<std::uint64_t> m_lastCycle{0};
    std::atomic<std::uint32_t> m_lastFaults{0};
    std::atomic<RuntimeMode> m_lastMode{RuntimeMode::Nominal};
    std::atomic<std::uint8_t> m_lastBackendIsCuda{0};
    std::atomic<std::uint64_t> m_updates{0};
    std::atomic<std::uint64_t> m_loanFailures{0};
    std::atomic<bool> m_stopRequested{false};
    std::thread m_thread;
};

}  // namespace augur::runtime
