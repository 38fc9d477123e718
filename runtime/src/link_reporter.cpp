#include "augur/runtime/link_reporter.hpp"

#include <algorithm>

#include "augur/platform/clock.hpp"
#include "augur/platform/realtime.hpp"

namespace augur::runtime {

Result<std::unique_ptr<LinkReporter>, platform::TransportError> LinkReporter::create(
    const LinkReporterSettings& settings, std::atomic<std::uint64_t>& healthSequence) {
    auto statusIn = platform::Subscriber<LinkStatus>::create(settings.linkStatus, settings.statusQueueCapacity,
                                                             std::uint64_t{1});
    if (!statusIn) {
        return fail(statusIn.error());
    }
    auto healthOut = platform::Publisher<Health>::create(settings.health);
    if (!healthOut) {
        return fail(healthOut.error());
    }
    std::unique_ptr<LinkReporter> reporter(
        new LinkReporter(settings, healthSequence, std::move(statusIn).value(), std::move(healthOut).value()));
    auto wait = platform::DataWait::create(reporter->m_statusIn);
    if (!wait) {
        return fail(wait.error());
    }
    reporter->m_wait = std::move(wait).value();
    reporter->m_thread = std::thread([r = reporter.get()] { r->run(); });
    platform::nameThread(reporter->m_thread, "augur-link");
    return reporter;
}

LinkReporter::LinkReporter(const LinkReporterSettings& settings, std::atomic<std::uint64_t>& healthSequence,
                           platform::Subscriber<LinkStatus> statusIn, platform::Publisher<Health> healthOut)
    : m_settings(settings),
      m_healthSequence(healthSequence),
      m_statusIn(std::move(statusIn)),
      m_healthOut(std::move(healthOut)),
      m_supervision(settings.staleAfter_ns),
      m_shared(LinkSupervision(settings.staleAfter_ns)) {}

LinkReporter::~LinkReporter() { stop(); }

void LinkReporter::stop() noexcept {
    if (!m_thread.joinable()) {
        return;
    }
    m_stopRequested.store(true, std::memory_order_release);
    m_wait.wakeUp();
    m_thread.join();
}

LinkReporter::CycleHealthWindow LinkReporter::openCycleHealth() noexcept {
    // Sequentially consistent, before the read of the link state: either the read sees the link
    // thread's newest state, or the link thread's check of the flag (after it published that state)
    // sees the window open and waits for this health to be published first.
    m_cycleHealthOpen.store(true);
    const LinkSupervision& link = m_shared.newest();
    return CycleHealthWindow(m_cycleHealthOpen, link);
}

void LinkReporter::noteCycleHealth(const Health& health) noexcept {
    m_lastCycle.store(health.cycle, std::memory_order_relaxed);
    m_lastFaults.store(health.faults & ~bit(HealthFault::LinkLost), std::memory_order_relaxed);
    m_lastMode.store(health.mode, std::memory_order_relaxed);
    m_lastBackendIsCuda.store(health.backendIsCuda, std::memory_order_relaxed);
}

bool LinkReporter::takeStatuses() noexcept {
    bool any = false;
    for (;;) {
        auto status = m_statusIn.take();
        if (!status) {
            if (status.error() == platform::TransportError::PayloadSize) {
                continue;  // a payload of another type on the channel, released by take
            }
            return any;
        }
        if (status.value()->header.schemaVersion == MESSAGE_SCHEMA_VERSION) {
            m_supervision.onStatus(*status.value(), platform::monotonicNow_ns());
            any = true;
        }
    }
}

void LinkReporter::publishUpdate(std::int64_t now_ns) noexcept {
    // A cycle health filled from the state before this one is being published: let it go first. The
    // cycle thread holds the window for its fill and publish (microseconds) and never waits here.
    while (m_cycleHealthOpen.load()) {
        std::this_thread::yield();
    }
    auto loan = m_healthOut.loan();
    if (!loan) {
        m_loanFailures.fetch_add(1, std::memory_order_relaxed);
        return;  // the next cycle's health carries the link state
    }
    Health& update = *loan.value();
    update = Health{};
    update.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, m_healthSequence.fetch_add(1) + 1, now_ns};
    update.cycle = m_lastCycle.load(std::memory_order_relaxed);
    update.mode = m_lastMode.load(std::memory_order_relaxed);
    update.backendIsCuda = m_lastBackendIsCuda.load(std::memory_order_relaxed);
    update.faults = m_lastFaults.load(std::memory_order_relaxed);
    m_supervision.fill(update, now_ns);
    update.linkUpdate = 1;
    loan.value().publish();
    m_updates.fetch_add(1, std::memory_order_relaxed);
}

void LinkReporter::run() noexcept {
    bool reportedLost = false;  // what the health channel last said: a runtime starts without a lost link
    while (!m_stopRequested.load(std::memory_order_acquire)) {
        const std::int64_t now_ns = platform::monotonicNow_ns();
        const std::int64_t staleAt_ns = m_supervision.staleAt_ns();
        const std::int64_t idleUntil_ns = now_ns + LINK_IDLE_WAIT_NS;
        (void)m_wait.waitUntil(staleAt_ns > now_ns ? std::min(staleAt_ns, idleUntil_ns) : idleUntil_ns);
        if (m_stopRequested.load(std::memory_order_acquire)) {
            break;
        }
        if (takeStatuses()) {
            m_shared.publish(m_supervision);  // sequentially consistent: before the check in publishUpdate
        }
        const std::int64_t decided_ns = platform::monotonicNow_ns();
        const bool lost = m_supervision.lost(decided_ns);
        if (lost != reportedLost) {
            publishUpdate(decided_ns);
            reportedLost = lost;
        }
    }
}

}  // namespace augur::runtime
