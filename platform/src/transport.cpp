#include "augur/platform/transport.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "augur/core/transport_name.hpp"
#include "augur/platform/clock.hpp"
#include "transport_internal.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/popo/user_trigger.hpp"
#include "iceoryx_posh/popo/wait_set.hpp"
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace augur::platform {
namespace {

constexpr const char* ROUDI_SOCKET_PATH = "/tmp/roudi";  // iceoryx 2.0 UNIX-domain IPC channel of RouDi
constexpr std::int64_t PROBE_INTERVAL_NS = 50'000'000;
constexpr const char* NAME_LOCK_PREFIX = "/tmp/augur-";
constexpr const char* NAME_LOCK_SUFFIX = ".pid";

bool validId(const std::string& id) noexcept { return detail::validName(id); }

/// An application name also names a file (the name lock): no '/' (no path), no NUL (no truncation).
bool validApplicationName(const std::string& name) noexcept {
    return validId(name) && name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
}

iox::capro::ServiceDescription toIceoryx(const ServiceName& name) {
    return {iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.service.c_str()),
            iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.instance.c_str()),
            iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.event.c_str())};
}

std::mutex g_runtimeMutex;
std::string g_runtimeName;  // guarded by g_runtimeMutex
int g_nameLockFd = -1;      // guarded by g_runtimeMutex; open (and locked) for the life of the process

/// Which file RouDi's IPC socket is: a RouDi creates it anew when it starts.
struct SocketIdentity {
    dev_t device;
    ino_t inode;
    std::int64_t changed_ns;  ///< st_ctim: also tells a new file that reuses a freed inode number
};

std::optional<SocketIdentity> rouDiSocketIdentity() noexcept {
    struct stat info {};
    if (::stat(ROUDI_SOCKET_PATH, &info) != 0) {
        return std::nullopt;
    }
    return SocketIdentity{info.st_dev, info.st_ino,
                          static_cast<std::int64_t>(info.st_ctim.tv_sec) * 1'000'000'000 + info.st_ctim.tv_nsec};
}

SocketIdentity g_registeredSocket{};      // written once, before g_supervised is set (release)
std::atomic<bool> g_supervised{false};    // connectToRouDi registered this process with a RouDi daemon
std::atomic<bool> g_abandoned{false};     // a registration thread was left blocked in iceoryx

enum class NameLock { Taken, Held, Failed };

/// Takes the per-name lock (an exclusive flock, never waited for) and writes this process's pid into
/// the file. The descriptor stays open, and the lock held, until the process ends. Caller holds
/// g_runtimeMutex.
NameLock lockApplicationName(const std::string& appName) {
    const std::string path = applicationNameLockPath(appName);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == EACCES) {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);  // another user's file: lock it read-only
    }
    if (fd < 0) {
        return NameLock::Failed;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::close(fd);
        return error == EWOULDBLOCK ? NameLock::Held : NameLock::Failed;
    }
    char pid[24];
    const int length = std::snprintf(pid, sizeof(pid), "%ld\n", static_cast<long>(::getpid()));
    if (length > 0 && ::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid, static_cast<std::size_t>(length), 0) < 0) {
        // Informational only (a read-only descriptor cannot write it): the lock is what counts.
    }
    g_nameLockFd = fd;
    return NameLock::Taken;
}

void unlockApplicationName() {
    if (g_nameLockFd >= 0) {
        ::close(g_nameLockFd);
        g_nameLockFd = -1;
    }
}

/// Runs iceoryx's registration (PoshRuntime::initRuntime) on a helper thread and waits for it until
/// `deadline_ns` (monotonic). initRuntime has no timeout of ours: against a RouDi whose socket exists
/// but which never answers (stopped, hung) it waits PROCESS_WAITING_FOR_ROUDI_TIMEOUT (60 s) and then
/// reports a fatal error, which aborts the process. False: the deadline passed and the helper is left
/// detached, blocked inside iceoryx; it owns the state it shares with this function.
bool registerBefore(const std::string& appName, std::int64_t deadline_ns) {
    struct Registration {
        std::mutex mutex;
        std::condition_variable finished;
        bool done{false};
    };
    auto registration = std::make_shared<Registration>();
    const iox::RuntimeName_t name(iox::cxx::TruncateToCapacity, appName.c_str());
    std::thread helper([registration, name]() {
        iox::runtime::PoshRuntime::initRuntime(name);
        {
            std::lock_guard<std::mutex> lock(registration->mutex);
            registration->done = true;
        }
        registration->finished.notify_all();
    });
    bool done = false;
    {
        std::unique_lock<std::mutex> lock(registration->mutex);
        const std::int64_t remaining_ns = std::max<std::int64_t>(0, deadline_ns - monotonicNow_ns());
        done = registration->finished.wait_for(lock, std::chrono::nanoseconds(remaining_ns),
                                               [&registration] { return registration->done; });
    }
    if (done) {
        helper.join();
    } else {
        helper.detach();
    }
    return done;
}

}  // namespace

namespace detail {
bool validName(const std::string& name) noexcept { return !checkTransportName(name).has_value(); }

bool claimRuntimeName(const std::string& appName) {
    std::lock_guard<std::mutex> lock(g_runtimeMutex);
    if (!g_runtimeName.empty()) {
        return false;
    }
    g_runtimeName = appName;
    return true;
}

void releaseRuntimeName() {
    std::lock_guard<std::mutex> lock(g_runtimeMutex);
    g_runtimeName.clear();
}
}  // namespace detail

const char* toString(TransportError error) noexcept {
    switch (error) {
        case TransportError::RouDiUnavailable: return "no RouDi (iceoryx daemon) is running";
        case TransportError::RouDiNotResponding:
            return "RouDi (iceoryx daemon) has its socket open but did not answer the registration";
        case TransportError::NameInUse: return "another process is registered with RouDi under this name";
        case TransportError::NameLockFailed: return "the application-name lock file cannot be opened";
        case TransportError::RouDiAlreadyRunning: return "another RouDi already runs on this machine";
        case TransportError::AlreadyConnected: return "this process is already registered with RouDi";
        case TransportError::InvalidName: return "invalid iceoryx name: 1-100 of A-Z a-z 0-9 - _ . :, not . or ..";
        case TransportError::LoanFailed: return "no shared-memory chunk available";
        case TransportError::NoData: return "no new message";
        case TransportError::TooManyChunksHeld: return "subscriber holds too many messages";
        case TransportError::PayloadSize: return "received payload is not the size of the subscribed type";
        case TransportError::WaitUnavailable:
            return "no wait set: this process has no iceoryx runtime, or RouDi has no condition variable left";
    }
    return "unknown transport error";
}

bool rouDiListening() noexcept {
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd < 0) {
        return false;
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, ROUDI_SOCKET_PATH, sizeof(address.sun_path) - 1);
    const bool listening = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
    ::close(fd);
    return listening;
}

std::string applicationNameLockPath(const std::string& appName) {
    return NAME_LOCK_PREFIX + appName + NAME_LOCK_SUFFIX;
}

void setTransportLogLevel(TransportLogLevel level) noexcept {
    iox::log::LogLevel iox = iox::log::LogLevel::kWarn;
    switch (level) {
        case TransportLogLevel::Error: iox = iox::log::LogLevel::kError; break;
        case TransportLogLevel::Warn: iox = iox::log::LogLevel::kWarn; break;
        case TransportLogLevel::Info: iox = iox::log::LogLevel::kInfo; break;
        case TransportLogLevel::Debug: iox = iox::log::LogLevel::kVerbose; break;
    }
    iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox, iox::log::LogLevelOutput::kHideLogLevel);
}

bool registrationAbandoned() noexcept { return g_abandoned.load(std::memory_order_acquire); }

Result<void, TransportError> connectToRouDi(const std::string& appName, std::int64_t timeout_ms) noexcept {
    if (!validApplicationName(appName)) {
        return fail(TransportError::InvalidName);
    }
    std::lock_guard<std::mutex> lock(g_runtimeMutex);
    if (g_abandoned.load(std::memory_order_relaxed)) {
        return fail(TransportError::RouDiNotResponding);  // iceoryx is off limits for this process
    }
    if (!g_runtimeName.empty()) {
        return g_runtimeName == appName ? Result<void, TransportError>{} : fail(TransportError::AlreadyConnected);
    }
    const std::int64_t deadline = monotonicNow_ns() + timeout_ms * 1'000'000;
    try {
        switch (lockApplicationName(appName)) {
            case NameLock::Taken: break;
            case NameLock::Held: return fail(TransportError::NameInUse);
            case NameLock::Failed: return fail(TransportError::NameLockFailed);
        }
        while (!rouDiListening()) {
            if (monotonicNow_ns() >= deadline) {
                unlockApplicationName();
                return fail(TransportError::RouDiUnavailable);
            }
            sleepUntil_ns(monotonicNow_ns() + PROBE_INTERVAL_NS);
        }
        if (!registerBefore(appName, deadline)) {
            g_abandoned.store(true, std::memory_order_release);
            return fail(TransportError::RouDiNotResponding);  // the name lock stays: the process ends
        }
    } catch (...) {  // the helper thread or its shared state could not be created
        unlockApplicationName();
        return fail(TransportError::RouDiUnavailable);
    }
    // The socket of the RouDi that answered: registeredRouDiAlive() compares against it (none left
    // already: no file matches the zero identity, so the first probe reports the loss).
    g_registeredSocket = rouDiSocketIdentity().value_or(SocketIdentity{});
    g_supervised.store(true, std::memory_order_release);
    g_runtimeName = appName;
    return {};
}

bool registeredRouDiAlive() noexcept {
    if (!g_supervised.load(std::memory_order_acquire)) {
        return true;
    }
    const auto identity = rouDiSocketIdentity();
    if (!identity) {
        return false;  // removed: RouDi shut down
    }
    if (identity->device != g_registeredSocket.device || identity->inode != g_registeredSocket.inode ||
        identity->changed_ns != g_registeredSocket.changed_ns) {
        return false;  // another RouDi's socket: ours is gone, and the new one does not know this process
    }
    return rouDiListening();  // refused: the file outlived its RouDi (killed)
}

// ---- RawPublisher ----------------------------------------------------------------------------------

struct RawPublisher::Impl {
    explicit Impl(const ServiceName& name, std::uint64_t historyCapacity)
        : publisher(toIceoryx(name), makeOptions(historyCapacity)) {}
    static iox::popo::PublisherOptions makeOptions(std::uint64_t historyCapacity) {
        iox::popo::PublisherOptions options;
        options.historyCapacity = historyCapacity;
        return options;
    }
    iox::popo::UntypedPublisher publisher;
};

RawPublisher::RawPublisher() = default;
RawPublisher::RawPublisher(RawPublisher&&) noexcept = default;
RawPublisher& RawPublisher::operator=(RawPublisher&&) noexcept = default;
RawPublisher::~RawPublisher() = default;

Result<RawPublisher, TransportError> RawPublisher::create(const ServiceName& name,
                                                          std::uint64_t historyCapacity) noexcept {
    if (!validId(name.service) || !validId(name.instance) || !validId(name.event)) {
        return fail(TransportError::InvalidName);
    }
    RawPublisher publisher;
    publisher.m_impl = std::make_unique<Impl>(name, historyCapacity);
    return Result<RawPublisher, TransportError>(std::move(publisher));
}

Result<void*, TransportError> RawPublisher::loan(std::uint32_t size, std::uint32_t alignment) noexcept {
    auto chunk = m_impl->publisher.loan(size, alignment);
    if (chunk.has_error()) {
        return fail(TransportError::LoanFailed);
    }
    return chunk.value();
}

void RawPublisher::publish(void* payload) noexcept { m_impl->publisher.publish(payload); }

void RawPublisher::release(void* payload) noexcept { m_impl->publisher.release(payload); }

bool RawPublisher::hasSubscribers() const noexcept { return m_impl->publisher.hasSubscribers(); }

// ---- RawSubscriber ---------------------------------------------------------------------------------

struct RawSubscriber::Impl {
    Impl(const ServiceName& name, std::uint64_t queueCapacity, std::uint64_t historyRequest)
        : subscriber(toIceoryx(name), makeOptions(queueCapacity, historyRequest)) {}
    static iox::popo::SubscriberOptions makeOptions(std::uint64_t queueCapacity, std::uint64_t historyRequest) {
        iox::popo::SubscriberOptions options;
        options.queueCapacity = queueCapacity;
        options.historyRequest = historyRequest;
        return options;
    }
    iox::popo::UntypedSubscriber subscriber;
};

RawSubscriber::RawSubscriber() = default;
RawSubscriber::RawSubscriber(RawSubscriber&&) noexcept = default;
RawSubscriber& RawSubscriber::operator=(RawSubscriber&&) noexcept = default;
RawSubscriber::~RawSubscriber() = default;

Result<RawSubscriber, TransportError> RawSubscriber::create(const ServiceName& name, std::uint64_t queueCapacity,
                                                            std::uint64_t historyRequest) noexcept {
    if (!validId(name.service) || !validId(name.instance) || !validId(name.event)) {
        return fail(TransportError::InvalidName);
    }
    RawSubscriber subscriber;
    subscriber.m_impl = std::make_unique<Impl>(name, queueCapacity, historyRequest);
    return Result<RawSubscriber, TransportError>(std::move(subscriber));
}

Result<const void*, TransportError> RawSubscriber::take(std::uint32_t expectedBytes) noexcept {
    auto chunk = m_impl->subscriber.take();
    if (chunk.has_error()) {
        return fail(chunk.get_error() == iox::popo::ChunkReceiveResult::TOO_MANY_CHUNKS_HELD_IN_PARALLEL
                        ? TransportError::TooManyChunksHeld
                        : TransportError::NoData);
    }
    const void* payload = chunk.value();
    if (iox::mepoo::ChunkHeader::fromUserPayload(payload)->userPayloadSize() != expectedBytes) {
        m_impl->subscriber.release(payload);
        return fail(TransportError::PayloadSize);
    }
    return payload;
}

void RawSubscriber::release(const void* payload) noexcept { m_impl->subscriber.release(payload); }

bool RawSubscriber::hasMissedData() noexcept { return m_impl->subscriber.hasMissedData(); }

bool RawSubscriber::hasData() const noexcept { return m_impl->subscriber.hasData(); }

// ---- DataWait --------------------------------------------------------------------------------------

struct DataWait::Impl {
    explicit Impl(iox::popo::UntypedSubscriber& watched) : subscriber(watched) {}
    iox::popo::UntypedSubscriber& subscriber;
    iox::popo::WaitSet<> waitSet;  // destroyed after the trigger, which detaches itself first
    iox::popo::UserTrigger wake;
};

DataWait::DataWait() = default;
DataWait::DataWait(DataWait&&) noexcept = default;
DataWait& DataWait::operator=(DataWait&&) noexcept = default;
DataWait::~DataWait() = default;

Result<DataWait, TransportError> DataWait::create(RawSubscriber& subscriber) noexcept {
    {
        std::lock_guard<std::mutex> lock(g_runtimeMutex);
        if (g_runtimeName.empty() || g_abandoned.load(std::memory_order_relaxed)) {
            return fail(TransportError::WaitUnavailable);  // iceoryx would end the process without a runtime
        }
    }
    DataWait wait;
    try {
        wait.m_impl = std::make_unique<Impl>(subscriber.m_impl->subscriber);
    } catch (...) {
        return fail(TransportError::WaitUnavailable);
    }
    Impl& impl = *wait.m_impl;
    if (impl.waitSet.attachState(impl.subscriber, iox::popo::SubscriberState::HAS_DATA).has_error() ||
        impl.waitSet.attachEvent(impl.wake).has_error()) {
        return fail(TransportError::WaitUnavailable);
    }
    return Result<DataWait, TransportError>(std::move(wait));
}

WaitOutcome DataWait::waitUntil(std::int64_t deadline_ns) noexcept {
    Impl& impl = *m_impl;
    const std::int64_t remaining_ns = std::max<std::int64_t>(0, deadline_ns - monotonicNow_ns());
    const auto notifications =
        impl.waitSet.timedWait(iox::units::Duration::fromNanoseconds(static_cast<std::uint64_t>(remaining_ns)));
    bool woken = false;
    for (const iox::popo::NotificationInfo* notification : notifications) {
        woken = woken || notification->doesOriginateFrom(&impl.wake);
    }
    if (impl.subscriber.hasData()) {
        return WaitOutcome::Data;
    }
    return woken ? WaitOutcome::Woken : WaitOutcome::Timeout;
}

void DataWait::wakeUp() noexcept { m_impl->wake.trigger(); }

}  // namespace augur::platform
