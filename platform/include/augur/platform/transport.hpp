// Zero-copy publish/subscribe over iceoryx shared memory, without iceoryx types in the interface.
//
// Init phase: connectToRouDi() (or an EmbeddedRouDi), then create publishers and subscribers (and a
// DataWait for a thread that sleeps until a subscriber has data).
// Run phase: loan → fill → publish; take → read → release. No allocation, no blocking, noexcept;
// registeredRouDiAlive() tells whether the RouDi this process registered with still runs.
// A failed loan (all chunks in use, or the iceoryx limit of 8 outstanding loans per publisher) is a
// returned error that the caller counts, never fatal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "augur/core/result.hpp"

namespace augur::platform {

enum class TransportError {
    RouDiUnavailable,    ///< no RouDi answered within the timeout
    RouDiNotResponding,  ///< RouDi's socket exists but registration got no answer within the timeout
    NameInUse,           ///< another process on this machine is registered under this application name
    NameLockFailed,      ///< the application-name lock file could not be opened (see applicationNameLockPath)
    RouDiAlreadyRunning, ///< an embedded RouDi cannot start: another RouDi runs on this machine
    AlreadyConnected,    ///< this process already has an iceoryx runtime under another name
    InvalidName,         ///< breaks augur/core/transport_name.hpp (characters, length, . or ..)
    LoanFailed,          ///< no chunk available (pool exhausted or too many outstanding loans)
    NoData,              ///< nothing new to take
    TooManyChunksHeld,   ///< the subscriber holds the maximum number of samples
    PayloadSize,         ///< a received payload is not the size of the subscribed type (released unread)
    WaitUnavailable,     ///< no iceoryx runtime in this process, or RouDi refused a wait set's condition variable
};

[[nodiscard]] const char* toString(TransportError error) noexcept;

/// An iceoryx service description: service / instance / event, each following checkTransportName.
struct ServiceName {
    std::string service;
    std::string instance;
    std::string event;
};

/// Least severe message of iceoryx's own log that is written (to stderr), as the deployment's
/// output.log_level: Error, Warn, Info, Debug (iceoryx's debug and verbose lines).
enum class TransportLogLevel : std::uint8_t { Error = 0, Warn, Info, Debug };

/// Sets the level of iceoryx's own log in this process, without the line iceoryx prints about it. Call
/// before connectToRouDi and EmbeddedRouDi::start: iceoryx 2.0 fixes a logger's level when the logger is
/// first used. (Its lines keep their ANSI colour codes: iceoryx 2.0.3 writes them unconditionally.)
/// Init phase.
void setTransportLogLevel(TransportLogLevel level) noexcept;

/// Registers this process with a running RouDi as `appName`, all of it bounded by `timeout_ms`. Init
/// phase; once per process (a second call with the same name succeeds without effect).
///
/// 1. `appName` must be a valid iceoryx name without '/' or NUL (InvalidName).
/// 2. An exclusive advisory lock (flock) on applicationNameLockPath(appName), held for the life of the
///    process, keeps a second process from registering under the same name: NameInUse. (iceoryx 2.0.3
///    aborts such a process: its runtime finds its own per-name lock taken, a fatal error.)
/// 3. RouDi's IPC socket must accept a connection within the timeout: RouDiUnavailable otherwise
///    (iceoryx's own wait would take 60 s).
/// 4. iceoryx's registration (PoshRuntime::initRuntime) runs on a helper thread, waited for until the
///    deadline: a RouDi that holds its socket but does not answer (hung, or stopped by SIGSTOP) makes
///    iceoryx wait 60 s and then abort the process. On the deadline the helper is left blocked inside
///    iceoryx and RouDiNotResponding returned: from then on this process must not use iceoryx and
///    must end with std::_Exit (no destructors, no atexit handlers), see registrationAbandoned().
[[nodiscard]] Result<void, TransportError> connectToRouDi(const std::string& appName, std::int64_t timeout_ms) noexcept;

/// The lock file connectToRouDi takes for `appName`: /tmp/augur-<appName>.pid (it holds the pid of
/// the process that has the lock). A file of its own: iceoryx locks /tmp/<appName>.lock itself, and
/// two flocks of one process on one file conflict. Precondition: `appName` has no '/' or NUL.
[[nodiscard]] std::string applicationNameLockPath(const std::string& appName);

/// True once connectToRouDi has returned RouDiNotResponding: a thread of this process is blocked in
/// iceoryx's registration, and iceoryx aborts the process when its own 60 s pass. The process must
/// end with std::_Exit: destructors of static iceoryx objects would run under that thread, and the
/// runtime it may still create would try to talk to RouDi on the way out. Thread-safe.
[[nodiscard]] bool registrationAbandoned() noexcept;

/// True when a RouDi daemon is listening on this machine (checks its IPC socket). Init phase.
[[nodiscard]] bool rouDiListening() noexcept;

/// Whether the RouDi this process registered with (connectToRouDi) still runs: its IPC socket
/// /tmp/roudi is still the file it was at registration (a RouDi that shut down removed it; a RouDi
/// started since made a new one, and knows nothing of this process) and still accepts a connection
/// (a killed RouDi leaves the file behind, and a connection to it is refused). iceoryx 2.0.3 cannot
/// register a process again: PoshRuntime is a process-wide singleton created once by initRuntime (a
/// function-local static in PoshRuntime::defaultRuntimeFactory, posh_runtime.cpp; posh_runtime.hpp
/// has no shutdown or re-registration, and IpcRuntimeInterface registers once, in its constructor),
/// so a process that lost its RouDi can only end and be restarted. Always true without connectToRouDi (an EmbeddedRouDi lives in this process).
/// A hung RouDi (stopped, deadlocked) still looks alive.
/// Run-phase safe: noexcept, allocation-free, lock-free; four system calls that do not wait
/// (stat, socket, connect, close on a UNIX datagram socket: a path lookup in /tmp, no peer round
/// trip), a few microseconds (the RouDiProbe test prints the mean).
[[nodiscard]] bool registeredRouDiAlive() noexcept;

/// Untyped publisher; see Publisher<T>.
class RawPublisher {
public:
    RawPublisher();
    RawPublisher(RawPublisher&&) noexcept;
    RawPublisher& operator=(RawPublisher&&) noexcept;
    ~RawPublisher();

    /// `historyCapacity`: samples a late subscriber receives on subscription (≤ 16).
    [[nodiscard]] static Result<RawPublisher, TransportError> create(const ServiceName& name,
                                                                     std::uint64_t historyCapacity) noexcept;
    [[nodiscard]] Result<void*, TransportError> loan(std::uint32_t size, std::uint32_t alignment) noexcept;
    void publish(void* payload) noexcept;
    void release(void* payload) noexcept;
    [[nodiscard]] bool hasSubscribers() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

class DataWait;

/// Untyped subscriber; see Subscriber<T>.
class RawSubscriber {
public:
    RawSubscriber();
    RawSubscriber(RawSubscriber&&) noexcept;
    RawSubscriber& operator=(RawSubscriber&&) noexcept;
    ~RawSubscriber();

    /// `queueCapacity`: samples queued before the oldest is discarded (counted by missedSamples()).
    [[nodiscard]] static Result<RawSubscriber, TransportError> create(const ServiceName& name,
                                                                      std::uint64_t queueCapacity,
                                                                      std::uint64_t historyRequest) noexcept;
    /// The oldest queued payload. One whose size is not `expectedBytes` is released at once and
    /// reported as PayloadSize (a publisher of another type, or a truncated chunk, on this topic).
    [[nodiscard]] Result<const void*, TransportError> take(std::uint32_t expectedBytes) noexcept;
    void release(const void* payload) noexcept;
    /// True once since the last call if the queue overflowed and samples were discarded.
    [[nodiscard]] bool hasMissedData() noexcept;
    [[nodiscard]] bool hasData() const noexcept;

private:
    friend class DataWait;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// A loaned, not yet published message. Releases its chunk unless published. Move-only.
template <typename T>
class Loan {
public:
    Loan(RawPublisher& publisher, T* payload) noexcept : m_publisher(&publisher), m_payload(payload) {}
    Loan(Loan&& other) noexcept : m_publisher(other.m_publisher), m_payload(other.m_payload) { other.m_payload = nullptr; }
    Loan& operator=(Loan&&) = delete;
    Loan(const Loan&) = delete;
    Loan& operator=(const Loan&) = delete;
    ~Loan() {
        if (m_payload != nullptr) {
            m_publisher->release(m_payload);
        }
    }

    T* operator->() noexcept { return m_payload; }
    T& operator*() noexcept { return *m_payload; }
    T* get() noexcept { return m_payload; }

    /// Hands the message to the subscribers; the loan is empty afterwards.
    void publish() noexcept {
        m_publisher->publish(m_payload);
        m_payload = nullptr;
    }

private:
    RawPublisher* m_publisher;
    T* m_payload;
};

/// A received message, read-only, returned to the pool when destroyed. Move-only.
template <typename T>
class Sample {
public:
    Sample(RawSubscriber& subscriber, const T* payload) noexcept : m_subscriber(&subscriber), m_payload(payload) {}
    Sample(Sample&& other) noexcept : m_subscriber(other.m_subscriber), m_payload(other.m_payload) {
        other.m_payload = nullptr;
    }
    Sample& operator=(Sample&&) = delete;
    Sample(const Sample&) = delete;
    Sample& operator=(const Sample&) = delete;
    ~Sample() {
        if (m_payload != nullptr) {
            m_subscriber->release(m_payload);
        }
    }

    const T* operator->() const noexcept { return m_payload; }
    const T& operator*() const noexcept { return *m_payload; }

private:
    RawSubscriber* m_subscriber;
    const T* m_payload;
};

/// Publishes messages of type T (trivially copyable, see core/messages.hpp).
template <typename T>
class Publisher {
public:
    [[nodiscard]] static Result<Publisher, TransportError> create(const ServiceName& name,
                                                                  std::uint64_t historyCapacity = 1) noexcept {
        auto raw = RawPublisher::create(name, historyCapacity);
        if (!raw) {
            return fail(raw.error());
        }
        Publisher publisher;
        publisher.m_raw = std::move(raw).value();
        return Result<Publisher, TransportError>(std::move(publisher));
    }

    /// Loans an uninitialised T in shared memory. Run-phase safe.
    [[nodiscard]] Result<Loan<T>, TransportError> loan() noexcept {
        auto chunk = m_raw.loan(static_cast<std::uint32_t>(sizeof(T)), static_cast<std::uint32_t>(alignof(T)));
        if (!chunk) {
            return fail(chunk.error());
        }
        return Loan<T>(m_raw, static_cast<T*>(chunk.value()));
    }

    [[nodiscard]] bool hasSubscribers() const noexcept { return m_raw.hasSubscribers(); }

private:
    RawPublisher m_raw;
};

/// Receives messages of type T.
template <typename T>
class Subscriber {
public:
    [[nodiscard]] static Result<Subscriber, TransportError> create(const ServiceName& name,
                                                                   std::uint64_t queueCapacity = 16,
                                                                   std::uint64_t historyRequest = 0) noexcept {
        auto raw = RawSubscriber::create(name, queueCapacity, historyRequest);
        if (!raw) {
            return fail(raw.error());
        }
        Subscriber subscriber;
        subscriber.m_raw = std::move(raw).value();
        return Result<Subscriber, TransportError>(std::move(subscriber));
    }

    /// The oldest queued message, or NoData, or PayloadSize for a payload that is not a T (released).
    /// Run-phase safe.
    [[nodiscard]] Result<Sample<T>, TransportError> take() noexcept {
        auto chunk = m_raw.take(static_cast<std::uint32_t>(sizeof(T)));
        if (!chunk) {
            return fail(chunk.error());
        }
        return Sample<T>(m_raw, static_cast<const T*>(chunk.value()));
    }

    [[nodiscard]] bool hasMissedData() noexcept { return m_raw.hasMissedData(); }
    [[nodiscard]] bool hasData() const noexcept { return m_raw.hasData(); }

private:
    friend class DataWait;
    RawSubscriber m_raw;
};

/// Why DataWait::waitUntil returned.
enum class WaitOutcome : std::uint8_t {
    Data,     ///< the subscriber has data queued
    Timeout,  ///< the deadline passed with no data
    Woken,    ///< another thread called wakeUp()
};

/// Puts one thread to sleep until a subscriber has data, a deadline passes or another thread wakes it
/// (an iceoryx WaitSet with the subscriber's has-data state and a user trigger attached): a thread that
/// reacts to a message at once without polling. Init phase: create() (asks RouDi for a condition
/// variable; the subscriber must outlive the wait). Run phase: waitUntil() and wakeUp() are noexcept and
/// allocation-free. One waiting thread; wakeUp() from any thread.
class DataWait {
public:
    DataWait();
    DataWait(DataWait&&) noexcept;
    DataWait& operator=(DataWait&&) noexcept;
    ~DataWait();

    template <typename T>
    [[nodiscard]] static Result<DataWait, TransportError> create(Subscriber<T>& subscriber) noexcept {
        return create(subscriber.m_raw);
    }
    [[nodiscard]] static Result<DataWait, TransportError> create(RawSubscriber& subscriber) noexcept;

    /// Blocks until the subscriber has data (returns at once if it has), until `deadline_ns` (monotonic)
    /// or until wakeUp(). A wake-up that came while no thread waited makes the next call return Woken at
    /// once. Data takes precedence over a wake-up, a wake-up over the timeout. The wait is iceoryx's
    /// futex-backed condition variable: the thread is runnable again within the scheduler's wake-up
    /// latency of the publish.
    WaitOutcome waitUntil(std::int64_t deadline_ns) noexcept;

    /// Wakes the waiting thread (or the next call of waitUntil). Thread-safe.
    void wakeUp() noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::platform
