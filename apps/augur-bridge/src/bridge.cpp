#include "augur/bridge/bridge.hpp"

#include <dds/dds.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "augur/bridge/autoware.hpp"
#include "augur/bridge/dds_messages.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"

namespace augur::bridge {
namespace {

using config::BridgeRole;
using config::DdsReliability;

/// How long a reliable writer may wait for room in a reader's history before dds_write fails. KEEP_LAST
/// writers never wait (the oldest sample makes room), so this only bounds the worst case of a
/// misconfigured peer.
constexpr dds_duration_t RELIABLE_MAX_BLOCKING = DDS_MSECS(10);

constexpr std::uint32_t faultBit(BridgeFault fault) noexcept { return static_cast<std::uint32_t>(fault); }
static_assert(faultBit(BridgeFault::PeerLost) == augur_msg_dds__BRIDGE_FAULT_PEER_LOST &&
              faultBit(BridgeFault::DeadlineMissed) == augur_msg_dds__BRIDGE_FAULT_DEADLINE_MISSED &&
              faultBit(BridgeFault::TransportLost) == augur_msg_dds__BRIDGE_FAULT_TRANSPORT_LOST &&
              faultBit(BridgeFault::ForwardFailed) == augur_msg_dds__BRIDGE_FAULT_FORWARD_FAILED &&
              faultBit(BridgeFault::PayloadRejected) == augur_msg_dds__BRIDGE_FAULT_PAYLOAD_REJECTED,
              "the IDL's BRIDGE_FAULT_* are the LinkFault bits");

platform::ServiceName serviceName(const config::Channel& channel) {
    return {channel.service, channel.instance, channel.event};
}

/// A DDS entity deleted with its owner (the participant deletes its children).
struct Participant {
    dds_entity_t handle{0};
    Participant() = default;
    Participant(const Participant&) = delete;
    Participant& operator=(const Participant&) = delete;
    ~Participant() {
        if (handle > 0) {
            dds_delete(handle);
        }
    }
};

/// `deadlineScale`: the topic's publication period in cycles (platoons come every flocks.every_n_cycles).
dds_qos_t* makeQos(const config::BridgeConfig& bridge, DdsReliability reliability, std::uint32_t deadlineScale = 1) {
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos,
                         reliability == DdsReliability::Reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
                         RELIABLE_MAX_BLOCKING);
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, static_cast<int32_t>(bridge.historyDepth));
    dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
    if (bridge.deadline_ms > 0) {
        dds_qset_deadline(qos, DDS_MSECS(static_cast<std::int64_t>(bridge.deadline_ms) * deadlineScale));
    }
    dds_qset_liveliness(qos, DDS_LIVELINESS_AUTOMATIC, DDS_MSECS(bridge.livelinessLease_ms));
    return qos;
}

/// One bridged topic in one direction: iceoryx → DDS (a subscriber and a writer) or DDS → iceoryx (a
/// reader and a publisher), by the bridge's role; the other direction's entities stay unused.
template <typename Message>
struct Route {
    bool toDds{false};
    dds_entity_t writer{0};
    dds_entity_t reader{0};
    std::optional<platform::Subscriber<Message>> in;
    std::optional<platform::Publisher<Message>> out;
};

}  // namespace

const char* toString(BridgeError error) noexcept {
    switch (error) {
        case BridgeError::Transport: return "iceoryx transport";
        case BridgeError::Dds: return "DDS";
    }
    return "invalid";
}

struct Bridge::Impl {
    config::BridgeConfig config{};
    platform::SharedClock wireClock{platform::SharedClock::Realtime};  ///< bridge.wire_clock
    Participant participant{};
    SampleSet samples{};
    augur_msg_dds__BridgeStatus_ statusSample{};
    BridgeStatus status{};
    BridgeStatus published{};
    std::int64_t lastStatus_ns{0};
    std::uint64_t statusSequence{0};
    dds_entity_t statusWriter{0};
    std::optional<platform::Publisher<LinkStatus>> linkStatusOut;  ///< the status on iceoryx, for the runtime

    // The bridged topics, in the order a poll forwards them (tracks before the prediction of the same
    // cycle: the Autoware topic joins the two).
    Route<ObjectList> objects;
    Route<TrackList> tracks;
    Route<IntentionList> intentions;
    Route<MotionPrediction> prediction;
    Route<Health> health;
    Route<PlatoonList> platoons;

    // The Autoware-shaped prediction joins the newest track list (a copy, allocated at init).
    std::unique_ptr<AutowarePredictions> autoware;
    std::unique_ptr<TrackList> lastTracks;
    dds_entity_t autowareWriter{0};

    std::vector<dds_entity_t> dataWriters;         ///< every DDS writer but the status's, for matched readers
    std::vector<dds_entity_t> readers;             ///< every DDS reader, for liveliness and deadlines
    std::vector<std::uint8_t> readerEverAlive;     ///< per reader: a writer was alive once
    std::uint32_t transientFaults{0};              ///< faults since the last poll

    void forwardFailed() noexcept {
        ++status.forwardFailures;
        transientFaults |= faultBit(BridgeFault::ForwardFailed);
    }

    /// Forwards what `route` has waiting, in its direction, through `sample`.
    template <typename Message, typename DdsSample>
    std::uint32_t forward(Route<Message>& route, DdsSample& sample) noexcept {
        return route.toDds ? toDdsAll(route.in, route.writer, sample) : toIceoryxAll(route.reader, sample, route.out);
    }

    template <typename Message, typename DdsSample>
    std::uint32_t toDdsAll(std::optional<platform::Subscriber<Message>>& in, dds_entity_t writer,
                           DdsSample& sample) noexcept {
        std::uint32_t forwarded = 0;
        if (!in) {
            return 0;
        }
        for (;;) {
            auto taken = in->take();
            if (!taken) {
                if (taken.error() == platform::TransportError::PayloadSize) {
                    ++status.rejected;
                    transientFaults |= faultBit(BridgeFault::PayloadRejected);
                    continue;
                }
                break;
            }
            const Message& message = *taken.value();
            toDds(message, sample);
            const std::int64_t wireOffset_ns = platform::offsetFromMonotonic_ns(wireClock);
            shiftTimes(sample, wireOffset_ns);
            if (dds_write(writer, &sample) < 0) {
                forwardFailed();
            } else {
                ++status.forwardedToDds;
                ++forwarded;
            }
            if constexpr (std::is_same_v<Message, TrackList>) {
                if (lastTracks) {
                    *lastTracks = message;
                }
            }
            if constexpr (std::is_same_v<Message, MotionPrediction>) {
                if (autoware && lastTracks) {
                    (void)autoware->fill(message, *lastTracks, wireOffset_ns);
                    if (dds_write(autowareWriter, &autoware->sample()) < 0) {
                        forwardFailed();
                    }
                }
            }
        }
        return forwarded;
    }

    template <typename Message, typename DdsSample>
    std::uint32_t toIceoryxAll(dds_entity_t reader, DdsSample& sample,
                               std::optional<platform::Publisher<Message>>& out) noexcept {
        std::uint32_t forwarded = 0;
        if (!out) {
            return 0;
        }
        for (;;) {
            void* buffer[1] = {&sample};
            dds_sample_info_t info{};
            const dds_return_t n = dds_take(reader, buffer, &info, 1, 1);
            samples.rebind();
            if (n <= 0) {
                break;
            }
            if (!info.valid_data) {
                continue;  // a dispose or unregister: the liveliness status reports it
            }
            auto loan = out->loan();
            if (!loan) {
                forwardFailed();
                continue;
            }
            shiftTimes(sample, -platform::offsetFromMonotonic_ns(wireClock));
            ConversionError error{};
            if (!fromDds(sample, *loan.value(), error)) {
                ++status.rejected;
                transientFaults |= faultBit(BridgeFault::PayloadRejected);
                continue;  // the loan goes back unpublished
            }
            loan.value().publish();
            ++status.forwardedToIceoryx;
            ++forwarded;
        }
        return forwarded;
    }

    void updateLiveliness(std::int64_t now_ns) noexcept {
        std::uint32_t alive = 0;
        bool lost = false;
        for (std::size_t i = 0; i < readers.size(); ++i) {
            dds_liveliness_changed_status_t liveliness{};
            if (dds_get_liveliness_changed_status(readers[i], &liveliness) == DDS_RETCODE_OK) {
                alive += liveliness.alive_count;
                if (liveliness.not_alive_count_change > 0 ||
                    (liveliness.alive_count_change < 0 && liveliness.alive_count == 0)) {
                    status.peerLosses += liveliness.not_alive_count_change > 0
                                             ? static_cast<std::uint64_t>(liveliness.not_alive_count_change)
                                             : 1U;
                    status.lastPeerLoss_ns = now_ns;
                }
                if (liveliness.alive_count > 0) {
                    readerEverAlive[i] = 1;
                } else if (readerEverAlive[i] != 0) {
                    lost = true;
                }
            }
            dds_requested_deadline_missed_status_t deadline{};
            if (dds_get_requested_deadline_missed_status(readers[i], &deadline) == DDS_RETCODE_OK &&
                deadline.total_count_change > 0) {
                status.deadlineMisses += deadline.total_count_change;
                transientFaults |= faultBit(BridgeFault::DeadlineMissed);
            }
        }
        status.alivePeers = alive;
        // Readers of this bridge's topics: one that vanished is unmatched when its participant's lease
        // (Cyclone's Discovery/LeaseDuration on the reader's side) expires.
        std::uint32_t matched = 0;
        for (const dds_entity_t writer : dataWriters) {
            dds_publication_matched_status_t publication{};
            if (dds_get_publication_matched_status(writer, &publication) == DDS_RETCODE_OK) {
                matched += publication.current_count;
                if (publication.current_count_change < 0) {
                    status.readerLosses += static_cast<std::uint64_t>(-publication.current_count_change);
                    status.lastReaderLoss_ns = now_ns;
                }
            }
        }
        status.matchedReaders = matched;
        std::uint32_t faults = transientFaults;
        if (lost) {
            faults |= faultBit(BridgeFault::PeerLost);
        }
        if (!platform::registeredRouDiAlive()) {
            faults |= faultBit(BridgeFault::TransportLost);
        }
        status.faults = faults;
        transientFaults = 0;
    }

    void publishStatus(std::int64_t now_ns) noexcept {
        const bool changed = status.faults != published.faults || status.alivePeers != published.alivePeers ||
                             status.peerLosses != published.peerLosses ||
                             status.matchedReaders != published.matchedReaders ||
                             status.readerLosses != published.readerLosses;
        const std::int64_t period_ns = static_cast<std::int64_t>(config.deadline_ms > 0 ? config.deadline_ms : 1000) *
                                       1'000'000;
        if (!changed && now_ns - lastStatus_ns < period_ns) {
            return;
        }
        augur_msg_dds__BridgeStatus_& s = statusSample;
        s.header = {MESSAGE_SCHEMA_VERSION, ++statusSequence, now_ns};
        s.role = static_cast<std::uint8_t>(config.role);
        s.faults = status.faults;
        s.alive_peers = status.alivePeers;
        s.peer_losses = status.peerLosses;
        s.last_peer_loss_ns = status.lastPeerLoss_ns;
        s.deadline_misses = status.deadlineMisses;
        s.forwarded_to_dds = status.forwardedToDds;
        s.forwarded_to_iceoryx = status.forwardedToIceoryx;
        s.forward_failures = status.forwardFailures;
        s.rejected = status.rejected;
        s.matched_readers = status.matchedReaders;
        s.reader_losses = status.readerLosses;
        s.last_reader_loss_ns = status.lastReaderLoss_ns;
        shiftTimes(s, platform::offsetFromMonotonic_ns(wireClock));
        (void)dds_write(statusWriter, &s);
        if (linkStatusOut) {
            auto loan = linkStatusOut->loan();
            if (loan) {
                LinkStatus& link = *loan.value();
                link = LinkStatus{};
                link.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, statusSequence, now_ns};
                link.role = s.role;
                link.faults = status.faults;
                link.alivePeers = status.alivePeers;
                link.peerLosses = status.peerLosses;
                link.lastPeerLoss_ns = status.lastPeerLoss_ns;
                link.deadlineMisses = status.deadlineMisses;
                link.forwardedToDds = status.forwardedToDds;
                link.forwardedToIceoryx = status.forwardedToIceoryx;
                link.forwardFailures = status.forwardFailures;
                link.rejected = status.rejected;
                link.matchedReaders = status.matchedReaders;
                link.readerLosses = status.readerLosses;
                link.lastReaderLoss_ns = status.lastReaderLoss_ns;
                loan.value().publish();
            } else {
                ++status.forwardFailures;  // counted; the next status reports it
            }
        }
        published = status;
        lastStatus_ns = now_ns;
    }
};

Bridge::Bridge() : m_impl(std::make_unique<Impl>()) {}
Bridge::Bridge(Bridge&&) noexcept = default;
Bridge& Bridge::operator=(Bridge&&) noexcept = default;
Bridge::~Bridge() = default;

platform::SharedClock wireClockOf(config::WireClock clock) noexcept {
    switch (clock) {
        case config::WireClock::Tai: return platform::SharedClock::Tai;
        case config::WireClock::Monotonic: return platform::SharedClock::Monotonic;
        case config::WireClock::Realtime: break;
    }
    return platform::SharedClock::Realtime;
}

const BridgeStatus& Bridge::status() const noexcept { return m_impl->status; }

namespace {

/// Creates a participant's topics, writers and readers with the bridge's QoS; keeps the first failure.
/// A writer or reader on a topic that failed is not created. Readers are also listed in `readers`
/// (with a cleared ever-alive flag each) for the liveliness and deadline checks.
struct DdsFactory {
    dds_entity_t participant;
    const config::BridgeConfig& cfg;
    std::vector<dds_entity_t>& readers;
    std::vector<std::uint8_t>& readerEverAlive;
    std::vector<dds_entity_t>& dataWriters;  ///< the writers whose matched readers the status counts
    std::string failure;

    dds_entity_t topic(const dds_topic_descriptor_t* descriptor, const std::string& name) {
        const dds_entity_t handle = dds_create_topic(participant, descriptor, name.c_str(), nullptr, nullptr);
        if (handle < 0 && failure.empty()) {
            failure = "topic " + name + ": " + dds_strretcode(handle);
        }
        return handle;
    }
    /// `deadlineScale`: the topic comes every that many deadlines (platoons).
    dds_entity_t writer(dds_entity_t t, DdsReliability reliability, const std::string& name, std::uint32_t deadlineScale = 1) {
        if (t < 0) {
            return t;
        }
        dds_qos_t* qos = makeQos(cfg, reliability, deadlineScale);
        const dds_entity_t handle = dds_create_writer(participant, t, qos, nullptr);
        dds_delete_qos(qos);
        if (handle < 0 && failure.empty()) {
            failure = "writer " + name + ": " + dds_strretcode(handle);
        }
        if (handle > 0) {
            dataWriters.push_back(handle);
        }
        return handle;
    }
    dds_entity_t reader(dds_entity_t t, DdsReliability reliability, const std::string& name, std::uint32_t deadlineScale = 1) {
        if (t < 0) {
            return t;
        }
        dds_qos_t* qos = makeQos(cfg, reliability, deadlineScale);
        const dds_entity_t handle = dds_create_reader(participant, t, qos, nullptr);
        dds_delete_qos(qos);
        if (handle < 0 && failure.empty()) {
            failure = "reader " + name + ": " + dds_strretcode(handle);
        }
        if (handle > 0) {
            readers.push_back(handle);
            readerEverAlive.push_back(0);
        }
        return handle;
    }
};

/// Creates the iceoryx subscribers and publishers of the bridge's channels; keeps the first failure.
struct IceoryxFactory {
    std::optional<platform::TransportError> error;

    template <typename Slot>
    void subscribe(Slot& slot, const config::Channel& channel) {
        auto created = Slot::value_type::create(serviceName(channel), 16, 0);
        if (!created) {
            error = error ? error : created.error();
            return;
        }
        slot.emplace(std::move(created).value());
    }
    template <typename Slot>
    void advertise(Slot& slot, const config::Channel& channel) {
        auto created = Slot::value_type::create(serviceName(channel), 1);
        if (!created) {
            error = error ? error : created.error();
            return;
        }
        slot.emplace(std::move(created).value());
    }
};

/// The bridge's topics, named after the configured prefix.
struct BridgeTopics {
    std::string objectsName;
    std::string tracksName;
    std::string intentionsName;
    std::string predictionName;
    std::string healthName;
    std::string platoonsName;
    dds_entity_t objects;
    dds_entity_t tracks;
    dds_entity_t intentions;
    dds_entity_t prediction;
    dds_entity_t health;
    dds_entity_t platoons;
    dds_entity_t status;
};

/// Opens `route` towards DDS (`toDds`) or from it: the DDS entity on `topic` and the iceoryx endpoint on
/// `channel`. `deadlineScale` as DdsFactory's.
template <typename Message>
void openRoute(Route<Message>& route, bool toDds, DdsFactory& dds, IceoryxFactory& iceoryx, dds_entity_t topic,
               DdsReliability reliability, const std::string& name, const config::Channel& channel,
               std::uint32_t deadlineScale = 1) {
    route.toDds = toDds;
    if (toDds) {
        route.writer = dds.writer(topic, reliability, name, deadlineScale);
        iceoryx.subscribe(route.in, channel);
    } else {
        route.reader = dds.reader(topic, reliability, name, deadlineScale);
        iceoryx.advertise(route.out, channel);
    }
}

BridgeTopics createTopics(DdsFactory& dds, const std::string& prefix) {
    BridgeTopics t{prefix + "/objects", prefix + "/tracks", prefix + "/intentions", prefix + "/prediction",
                   prefix + "/health", prefix + "/platoons", 0, 0, 0, 0, 0, 0, 0};
    t.objects = dds.topic(&augur_msg_dds__ObjectList__desc, t.objectsName);
    t.tracks = dds.topic(&augur_msg_dds__TrackList__desc, t.tracksName);
    t.intentions = dds.topic(&augur_msg_dds__IntentionList__desc, t.intentionsName);
    t.prediction = dds.topic(&augur_msg_dds__MotionPrediction__desc, t.predictionName);
    t.health = dds.topic(&augur_msg_dds__Health__desc, t.healthName);
    t.platoons = dds.topic(&augur_msg_dds__PlatoonList__desc, t.platoonsName);
    t.status = dds.topic(&augur_msg_dds__BridgeStatus__desc, prefix + "/bridge_status");
    return t;
}

}  // namespace

Result<Bridge, BridgeInitError> Bridge::create(const config::Deployment& deployment, bool connectRouDi) {
    const config::BridgeConfig& cfg = deployment.bridge;
    const config::TransportConfig& transport = deployment.transport;
    Bridge bridge;
    Impl& impl = *bridge.m_impl;
    impl.config = cfg;
    impl.wireClock = wireClockOf(cfg.wireClock);

    if (connectRouDi) {
        auto connected = platform::connectToRouDi(cfg.applicationName, transport.roudiConnectTimeout_ms);
        if (!connected) {
            return fail(BridgeInitError{BridgeError::Transport,
                                        std::string("RouDi: ") + platform::toString(connected.error())});
        }
    }

    impl.participant.handle = dds_create_participant(static_cast<dds_domainid_t>(cfg.domainId), nullptr, nullptr);
    if (impl.participant.handle < 0) {
        return fail(BridgeInitError{BridgeError::Dds, std::string("participant: ") +
                                                          dds_strretcode(impl.participant.handle)});
    }
    DdsFactory dds{impl.participant.handle, cfg, impl.readers, impl.readerEverAlive, impl.dataWriters, {}};
    const BridgeTopics topics = createTopics(dds, cfg.topicPrefix);
    // Platoons come every flocks.every_n_cycles cycles: their deadline is that many deadlines.
    const std::uint32_t platoonsEvery = std::max<std::uint32_t>(deployment.flocks.everyNCycles, 1);
    impl.statusWriter = dds.writer(topics.status, cfg.qos.health, "bridge_status");
    impl.dataWriters.clear();  // the status's own readers (monitoring tools) are not counted

    IceoryxFactory iceoryx;
    iceoryx.advertise(impl.linkStatusOut, transport.linkStatus);
    // The target (the vehicle) receives object lists and sends what the runtime publishes; the bench
    // the other way round.
    const bool target = cfg.role == BridgeRole::Target;
    openRoute(impl.objects, !target, dds, iceoryx, topics.objects, cfg.qos.objects, topics.objectsName, transport.objects);
    openRoute(impl.tracks, target, dds, iceoryx, topics.tracks, cfg.qos.tracks, topics.tracksName, transport.tracks);
    openRoute(impl.intentions, target, dds, iceoryx, topics.intentions, cfg.qos.intentions, topics.intentionsName,
              transport.intentions);
    openRoute(impl.prediction, target, dds, iceoryx, topics.prediction, cfg.qos.prediction, topics.predictionName,
              transport.prediction);
    openRoute(impl.health, target, dds, iceoryx, topics.health, cfg.qos.health, topics.healthName, transport.health);
    openRoute(impl.platoons, target, dds, iceoryx, topics.platoons, cfg.qos.platoons, topics.platoonsName,
              transport.platoons, platoonsEvery);
    if (target && cfg.autoware.enabled) {
        const dds_entity_t autowareTopic =
            dds.topic(&autoware_perception_msgs_msg_dds__PredictedObjects__desc, cfg.autoware.topic);
        impl.autowareWriter = dds.writer(autowareTopic, cfg.qos.prediction, cfg.autoware.topic);
        impl.autoware = std::make_unique<AutowarePredictions>(cfg.autoware.frameId);
        impl.lastTracks = std::make_unique<TrackList>();
    }
    if (!dds.failure.empty()) {
        return fail(BridgeInitError{BridgeError::Dds, dds.failure});
    }
    if (iceoryx.error) {
        return fail(BridgeInitError{BridgeError::Transport, platform::toString(*iceoryx.error)});
    }
    return Result<Bridge, BridgeInitError>(std::move(bridge));
}

std::uint32_t Bridge::poll(std::int64_t now_ns) noexcept {
    Impl& impl = *m_impl;
    SampleSet& s = impl.samples;
    std::uint32_t forwarded = 0;
    forwarded += impl.forward(impl.objects, s.objects);
    forwarded += impl.forward(impl.tracks, s.tracks);
    forwarded += impl.forward(impl.intentions, s.intentions);
    forwarded += impl.forward(impl.prediction, s.prediction);
    forwarded += impl.forward(impl.health, s.health);
    forwarded += impl.forward(impl.platoons, s.platoons);
    impl.updateLiveliness(now_ns);
    impl.publishStatus(now_ns);
    return forwarded;
}

}  // namespace augur::bridge
