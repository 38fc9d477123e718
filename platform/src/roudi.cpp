#include "augur/platform/roudi.hpp"

#include <algorithm>

#include "augur/core/messages.hpp"
#include "augur/platform/clock.hpp"
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_hoofs/posix_wrapper/file_lock.hpp"
#include "iceoryx_hoofs/posix_wrapper/posix_access_rights.hpp"
#include "iceoryx_posh/iceoryx_posh_types.hpp"
#include "iceoryx_posh/iceoryx_posh_config.hpp"
#include "iceoryx_posh/internal/roudi/roudi.hpp"
#include "iceoryx_posh/roudi/iceoryx_roudi_components.hpp"
#include "iceoryx_posh/runtime/posh_runtime_single_process.hpp"
#include "transport_internal.hpp"

namespace augur::platform {
namespace {

constexpr std::uint32_t KIB = 1024;

constexpr std::uint32_t roundUpToPowerOfTwo(std::size_t bytes) {
    std::uint32_t size = KIB;
    while (size < bytes) {
        size *= 2;
    }
    return size;
}

constexpr std::int64_t LOCK_POLL_NS = 100'000'000;

/// Waits until no RouDi holds the machine-wide lock (taking and releasing it), or `wait_ms` passed.
bool waitForRouDiLock(std::int64_t wait_ms) {
    const std::int64_t deadline = monotonicNow_ns() + wait_ms * 1'000'000;
    for (;;) {
        auto lock = iox::posix::FileLock::create(iox::roudi::ROUDI_LOCK_NAME);
        if (!lock.has_error()) {
            return true;  // released here; the RouDi takes it right away
        }
        if (lock.get_error() != iox::posix::FileLockError::LOCKED_BY_OTHER_PROCESS || monotonicNow_ns() >= deadline) {
            return false;
        }
        sleepUntil_ns(monotonicNow_ns() + LOCK_POLL_NS);
    }
}

}  // namespace

std::vector<MempoolEntry> augurMempools() {
    // Health and small control messages; the three lists; the motion prediction with its grids.
    // Counts cover every publisher's 8 loans + history and every subscriber's queue (up to 64 for the
    // HIL recorder) with margin.
    constexpr std::size_t LIST_BYTES = std::max({sizeof(ObjectList), sizeof(TrackList), sizeof(IntentionList), sizeof(PlatoonList)});
    return {
        {roundUpToPowerOfTwo(sizeof(Health)), 512},
        {roundUpToPowerOfTwo(LIST_BYTES), 512},
        {roundUpToPowerOfTwo(sizeof(MotionPrediction)), 96},
    };
}

struct EmbeddedRouDi::Impl {
    iox::RouDiConfig_t config;
    std::unique_ptr<iox::roudi::IceOryxRouDiComponents> components;
    std::unique_ptr<iox::roudi::RouDi> roudi;
    std::unique_ptr<iox::runtime::PoshRuntimeSingleProcess> runtime;
};

EmbeddedRouDi::EmbeddedRouDi() : m_impl(std::make_unique<Impl>()) {}

EmbeddedRouDi::~EmbeddedRouDi() {
    // Order matters: the runtime before RouDi, RouDi before its memory.
    m_impl->runtime.reset();
    m_impl->roudi.reset();
    m_impl->components.reset();
    detail::releaseRuntimeName();
}

Result<std::unique_ptr<EmbeddedRouDi>, TransportError> EmbeddedRouDi::start(const std::string& appName,
                                                                          const std::vector<MempoolEntry>& pools,
                                                                          std::int64_t lockWait_ms) {
    if (!detail::validName(appName) || pools.empty()) {
        return fail(TransportError::InvalidName);
    }
    iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kError);
    if (!waitForRouDiLock(lockWait_ms)) {
        return fail(TransportError::RouDiAlreadyRunning);
    }
    if (!detail::claimRuntimeName(appName)) {
        return fail(TransportError::AlreadyConnected);
    }
    std::unique_ptr<EmbeddedRouDi> self(new EmbeddedRouDi());
    iox::mepoo::MePooConfig mempools;
    for (const MempoolEntry& entry : pools) {
        mempools.addMemPool({entry.payloadBytes, entry.count});
    }
    const auto group = iox::posix::PosixGroup::getGroupOfCurrentProcess().getName();
    self->m_impl->config.m_sharedMemorySegments.push_back({group, group, mempools});
    static_cast<iox::config::RouDiConfig&>(self->m_impl->config).setDefaults();
    self->m_impl->components = std::make_unique<iox::roudi::IceOryxRouDiComponents>(self->m_impl->config);
    self->m_impl->roudi = std::make_unique<iox::roudi::RouDi>(
        self->m_impl->components->rouDiMemoryManager, self->m_impl->components->portManager,
        iox::roudi::RouDi::RoudiStartupParameters{iox::roudi::MonitoringMode::OFF, false});
    self->m_impl->runtime = std::make_unique<iox::runtime::PoshRuntimeSingleProcess>(
        iox::RuntimeName_t(iox::cxx::TruncateToCapacity, appName.c_str()));
    return Result<std::unique_ptr<EmbeddedRouDi>, TransportError>(std::move(self));
}

}  // namespace augur::platform
