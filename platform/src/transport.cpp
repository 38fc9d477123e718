#include "augur/platform/transport.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "augur/core/transport_name.hpp"
#include "augur/platform/clock.hpp"
#include "transport_internal.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace augur::platform {
namespace {

constexpr const char* ROUDI_SOCKET_PATH = "/tmp/roudi";  // iceoryx 2.0 UNIX-domain IPC channel of RouDi
constexpr std::int64_t PROBE_INTERVAL_NS = 50'000'000;

bool validId(const std::string& id) noexcept { return detail::validName(id); }

iox::capro::ServiceDescription toIceoryx(const ServiceName& name) {
    return {iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.service.c_str()),
            iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.instance.c_str()),
            iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name.event.c_str())};
}

std::mutex g_runtimeMutex;
std::string g_runtimeName;  // guarded by g_runtimeMutex

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
        case TransportError::RouDiAlreadyRunning: return "another RouDi already runs on this machine";
        case TransportError::AlreadyConnected: return "this process is already registered with RouDi";
        case TransportError::InvalidName: return "invalid iceoryx name: 1-100 of A-Z a-z 0-9 - _ . :, not . or ..";
        case TransportError::LoanFailed: return "no shared-memory chunk available";
        case TransportError::NoData: return "no new message";
        case TransportError::TooManyChunksHeld: return "subscriber holds too many messages";
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

Result<void, TransportError> connectToRouDi(const std::string& appName, std::int64_t timeout_ms) noexcept {
    if (!validId(appName)) {
        return fail(TransportError::InvalidName);
    }
    std::lock_guard<std::mutex> lock(g_runtimeMutex);
    if (!g_runtimeName.empty()) {
        return g_runtimeName == appName ? Result<void, TransportError>{} : fail(TransportError::AlreadyConnected);
    }
    const std::int64_t deadline = monotonicNow_ns() + timeout_ms * 1'000'000;
    while (!rouDiListening()) {
        if (monotonicNow_ns() >= deadline) {
            return fail(TransportError::RouDiUnavailable);
        }
        sleepUntil_ns(monotonicNow_ns() + PROBE_INTERVAL_NS);
    }
    iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, appName.c_str()));
    g_runtimeName = appName;
    return {};
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

Result<const void*, TransportError> RawSubscriber::take() noexcept {
    auto chunk = m_impl->subscriber.take();
    if (chunk.has_error()) {
        return fail(chunk.get_error() == iox::popo::ChunkReceiveResult::TOO_MANY_CHUNKS_HELD_IN_PARALLEL
                        ? TransportError::TooManyChunksHeld
                        : TransportError::NoData);
    }
    return chunk.value();
}

void RawSubscriber::release(const void* payload) noexcept { m_impl->subscriber.release(payload); }

bool RawSubscriber::hasMissedData() noexcept { return m_impl->subscriber.hasMissedData(); }

bool RawSubscriber::hasData() const noexcept { return m_impl->subscriber.hasData(); }

}  // namespace augur::platform
