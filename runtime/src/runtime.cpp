#include "augur/runtime/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <thread>

#include "augur/platform/clock.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/realtime.hpp"
#include "augur/platform/service_notify.hpp"
#include "augur/platform/sm_partition.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/health.hpp"
#include "augur/runtime/link_reporter.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/stages/ingest_stage.hpp"
#include "augur/runtime/stages/intention_stage.hpp"
#include "augur/runtime/stages/motion_stage.hpp"
#include "augur/runtime/stages/platoon_stage.hpp"
#include "augur/runtime/stages/publish_stage.hpp"
#include "augur/runtime/stages/relations_stage.hpp"
#include "augur/runtime/stages/track_stage.hpp"
#include "augur/runtime/track_history.hpp"

namespace augur::runtime {

namespace {

constexpr std::int64_t NS_PER_MS = 1'000'000;
constexpr std::uint64_t INPUT_QUEUE_CAPACITY = 16;  ///< object lists queued in shared memory (≥ 2 periods of a 10 Hz sensor)
constexpr std::uint64_t LINK_STATUS_QUEUE_CAPACITY = 4;  ///< link statuses queued (the newest counts)
/// Bridge deadlines without a link status after which a bridge that reported once counts as gone (it
/// publishes at least once per deadline).
constexpr std::int64_t LINK_STALE_AFTER_DEADLINES = 2;
constexpr std::size_t PREFAULT_STACK_BYTES = 512 * 1024;
constexpr int MAX_FIFO_PRIORITY = 99;  ///< SCHED_FIFO priorities are 1 … 99 on Linux
/// Consecutive cycles whose output loans failed before health reports output_blocked (one failed
/// cycle can be a burst of late subscribers; two in a row is a peer holding the pool's chunks).
constexpr std::uint32_t OUTPUT_BLOCKED_AFTER_CYCLES = 2;

/// Decorates a stage with the test hook that delays it (watchdog tests); costs one relaxed load.
class DelayableStage final : public StageRunner {
public:
    explicit DelayableStage(StageRunner& inner) noexcept : m_inner(inner) {}
    StageStatus run(CycleContext& context) noexcept override {
        const std::int64_t delay = m_delay_ns.load(std::memory_order_relaxed);
        if (delay > 0) {
            platform::sleepUntil_ns(platform::monotonicNow_ns() + delay);
        }
        return m_inner.run(context);
    }
    void setDelay(std::int64_t delay_ns) noexcept { m_delay_ns.store(delay_ns, std::memory_order_relaxed); }

private:
    StageRunner& m_inner;
    std::atomic<std::int64_t> m_delay_ns{0};
};

platform::ServiceName serviceOf(const config::Channel& channel) {
    return {channel.service, channel.instance, channel.event};
}

void stderrLog(config::LogLevel level, const std::string& line) {
    std::fprintf(stderr, "augur-runtime: %s: %s\n", std::string(config::toString(level)).c_str(), line.c_str());
}

platform::JournalPriority journalPriority(config::LogLevel level) noexcept {
    switch (level) {
        case config::LogLevel::Error: return platform::JournalPriority::Error;
        case config::LogLevel::Warn: return platform::JournalPriority::Warning;
        case config::LogLevel::Info: return platform::JournalPriority::Info;
        case config::LogLevel::Debug: return platform::JournalPriority::Debug;
    }
    return platform::JournalPriority::Info;
}

/// A run-phase log line (output.log_sink): formatted on the stack, then written to unbuffered stderr or
/// to the journal. noexcept, allocation-free.
__attribute__((format(printf, 3, 4))) void runLog(bool journal, config::LogLevel level, const char* format, ...) noexcept {
    char line[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    if (!journal || !platform::journalWrite(journalPriority(level), line)) {
        std::fprintf(stderr, "augur-runtime: %s\n", line);
    }
}

}  // namespace

const char* toString(RunOutcome outcome) noexcept {
    switch (outcome) {
        case RunOutcome::Stopped: return "stopped";
        case RunOutcome::TransportLost: return "transport lost";
    }
    return "unknown";
}

const char* toString(RuntimeErrorKind kind) noexcept {
    switch (kind) {
        case RuntimeErrorKind::Map: return "map";
        case RuntimeErrorKind::Backend: return "backend";
        case RuntimeErrorKind::Transport: return "transport";
        case RuntimeErrorKind::RealTime: return "real-time setup";
        case RuntimeErrorKind::Kernel: return "kernel";
        case RuntimeErrorKind::Trace: return "trace";
    }
    return "unknown";
}

struct Runtime::Parts {
    /// The SM partition all GPU streams are made in (RuntimeOptions::gpuMultiprocessors), if any. First
    /// member: destroyed last, after every stream made in it.
    std::unique_ptr<platform::SmPartition> smPartition;
    bool forcedTuningPolicy{false};  ///< this runtime forced the kernels' tuning policy: it lifts it when it ends
    config::Deployment deployment;
    std::function<void(config::LogLevel, const std::string&)> log;
    std::unique_ptr<scene::RoadMap> map;
    std::unique_ptr<scene::Scene> scene;
    std::unique_ptr<platform::Subscriber<ObjectList>> objects;
    std::unique_ptr<platform::Publisher<TrackList>> tracksOut;
    std::unique_ptr<platform::Publisher<IntentionList>> intentionsOut;
    std::unique_ptr<platform::Publisher<MotionPrediction>> predictionOut;
    std::unique_ptr<platform::Publisher<Health>> healthOut;
    std::unique_ptr<platform::Publisher<Health>> alarmOut;  ///< the watchdog thread's own health publisher
    std::unique_ptr<platform::Publisher<PlatoonList>> platoonsOut;
    std::unique_ptr<PipelineState> state;
    std::unique_ptr<SceneFrame> frame;
    std::unique_ptr<TrackHistory> history;
    std::unique_ptr<IngestStage> ingest;
    std::unique_ptr<TrackStage> track;
    std::unique_ptr<RelationsStage> relations;
    std::unique_ptr<IntentionStage> intention;
    std::unique_ptr<MotionStage> motion;
    std::unique_ptr<PlatoonStage> platoons;
    std::unique_ptr<PublishStage> publish;
    std::array<std::unique_ptr<DelayableStage>, STAGE_COUNT> delayable;
    std::atomic<std::uint64_t> overruns{0};
    std::unique_ptr<TraceWriter> trace;  ///< null: no trace (destroyed after the executor stopped)
    std::unique_ptr<Executor> executor;
    GpuSpan intentionGpuTraced{};  ///< the GPU spans already in the trace
    GpuSpan motionGpuTraced{};
    Health health{};
    std::atomic<std::uint64_t> healthSequence{0};  ///< shared by the cycle's health and the watchdog's alarms
    // What the watchdog thread may read for an alarm (written by the cycle thread after each cycle).
    std::atomic<RuntimeMode> mode{RuntimeMode::Nominal};
    std::atomic<bool> backendIsCuda{false};
    bool startedOnGpu{false};  ///< the pipeline ran on the GPU after init (a later CPU backend is a fallback)
    std::atomic<std::uint64_t> alarmLoanFailures{0};  ///< the watchdog's health alarms that found no chunk
    // Transport supervision (cycle thread, afterCycle).
    bool superviseRouDi{false};           ///< registered with a RouDi daemon (not an in-process RouDi)
    std::int64_t nextRouDiProbe_ns{0};
    bool transportLost{false};            ///< final: iceoryx 2.0 cannot register this process again
    std::uint64_t traceDroppedBefore{0};  ///< the trace's dropped records as the last cycle's health had them
    std::atomic<bool> transportLossInjected{false};  ///< test hook
    // systemd (platform/service_notify.hpp): READY=1 after the first cycle, WATCHDOG=1 after every cycle.
    bool notifyService{false};
    bool notifiedReady{false};
    bool journal{false};  ///< output.log_sink: journald (and libsystemd compiled in)
    /// augur-bridge's link state and the link thread's updates (last member: stopped and destroyed
    /// first, before the health sequence it numbers with).
    std::unique_ptr<LinkReporter> linkReporter;
};

namespace {

/// The watchdog thread's overrun handler: counts every overrun and, for a cycle past its deadline,
/// publishes a health alarm at once through the watchdog's own publisher (no shared non-atomic state).
void onOverrun(void* context, const Overrun& overrun) noexcept {
    Runtime::Parts& p = *static_cast<Runtime::Parts*>(context);
    p.overruns.fetch_add(1, std::memory_order_relaxed);
    if (p.trace != nullptr) {
        TraceRecord record{};
        record.kind = overrun.kind == OverrunKind::CycleDeadline ? TraceRecordKind::WatchdogAlarm
                                                                 : TraceRecordKind::StageOverBudget;
        record.begin_ns = platform::monotonicNow_ns();
        record.end_ns = overrun.elapsed_ns;
        record.cycle = overrun.cycle;
        record.stage = overrun.stage;
        (void)p.trace->watchdogBuffer().push(record);  // this thread is the ring's one producer
    }
    if (overrun.kind != OverrunKind::CycleDeadline || p.alarmOut == nullptr) {
        return;
    }
    auto loan = p.alarmOut->loan();
    if (!loan) {
        p.alarmLoanFailures.fetch_add(1, std::memory_order_relaxed);  // in the next health's loanFailures
        return;  // the cycle's own health reports the miss
    }
    Health& alarm = *loan->get();
    alarm = Health{};
    alarm.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, p.healthSequence.fetch_add(1) + 1, platform::monotonicNow_ns()};
    alarm.cycle = overrun.cycle;
    alarm.mode = p.mode.load(std::memory_order_relaxed);
    alarm.backendIsCuda = p.backendIsCuda.load(std::memory_order_relaxed) ? 1 : 0;
    alarm.deadlineMisses = p.executor->watchdog().deadlineMisses();
    alarm.overrunAlarm = 1;
    alarm.overrunStage = overrun.stage;
    alarm.overrunElapsed_ns = overrun.elapsed_ns;
    loan->publish();
}

}  // namespace

Runtime::Runtime(std::unique_ptr<Parts> parts) noexcept : m_parts(std::move(parts)) {}

Runtime::~Runtime() {
    if (m_parts && m_parts->linkReporter) {
        m_parts->linkReporter->stop();
    }
    if (m_parts && m_parts->executor) {
        m_parts->executor->stop();
    }
    if (m_parts && m_parts->trace) {
        (void)m_parts->trace->close();
    }
    if (m_parts && m_parts->forcedTuningPolicy) {
        kernels::forceTuningArch(std::nullopt);  // a later runtime without the option takes the device's policy
    }
}

namespace {

// Runtime::create's steps, in the order it takes them. Each builds part of `Parts` (init phase: they
// allocate) and says what went wrong; none leaves a thread running when it fails.

using Log = std::function<void(config::LogLevel, const std::string&)>;
using Step = Result<void, RuntimeError>;

Log makeLog(const config::Deployment& d, const RuntimeOptions& options) {
    if (options.log) {
        return options.log;
    }
    const config::LogLevel threshold = d.output.logLevel;
    const bool journal = d.output.logSink == config::LogSink::Journald && platform::serviceNotifyCompiledIn();
    return [threshold, journal](config::LogLevel level, const std::string& line) {
        if (level <= threshold) {  // Error < Warn < Info < Debug
            if (!journal || !platform::journalWrite(journalPriority(level), line.c_str())) {
                stderrLog(level, line);
            }
        }
    };
}

/// Whether the pipeline should go on the GPU: runtime.backend against the devices present.
Result<bool, RuntimeError> chooseCuda(const config::Deployment& d, bool gpuPresent) {
    if (d.runtime.backend == config::Backend::Cuda && !gpuPresent) {
        return fail(RuntimeError{RuntimeErrorKind::Backend, "backend cuda: no usable CUDA device (or CUDA not compiled in); set "
                                                            "runtime.backend to cpu or auto"});
    }
    return d.runtime.backend == config::Backend::Cuda || (d.runtime.backend == config::Backend::Auto && gpuPresent);
}

/// The road map and the scene (corridor search) over it.
Step loadScene(Runtime::Parts& parts, const config::Deployment& d) {
    const scene::MapFileCheck mapFile{d.map.maxBytes, d.map.sha256};
    auto map = d.map.format == config::MapFormat::Sumo
                   ? scene::readSumoNet(d.map.path, mapFile)
                   : scene::readLanelet2(d.map.path, scene::Lanelet2Options{d.map.originLat_deg, d.map.originLon_deg},
                                         mapFile);
    if (!map) {
        return fail(RuntimeError{RuntimeErrorKind::Map, "map: " + map.error().describe()});
    }
    parts.map = std::make_unique<scene::RoadMap>(std::move(map).value());
    parts.log(config::LogLevel::Info, "map " + d.map.path + ": " + std::to_string(parts.map->laneCount()) + " lanes, " +
                                          std::to_string(parts.map->conflicts().size()) + " conflicts");
    scene::CorridorSearchParams search{};
    search.horizon_s = d.motion.horizon_s;
    search.accel_mps2 = d.motion.maxAccel_mps2;  // corridors reach as far as a vehicle can get in the horizon
    const scene::SceneCapacities capacities{d.capacities.maxPredictedVehicles, d.capacities.maxCorridorsPerVehicle,
                                            static_cast<std::uint32_t>(scene::MAX_RELATIONS_PER_CORRIDOR)};
    auto sceneResult = scene::Scene::create(*parts.map, capacities, search);
    if (!sceneResult) {
        return fail(RuntimeError{RuntimeErrorKind::Kernel, "scene: capacities or parameters out of range"});
    }
    parts.scene = std::make_unique<scene::Scene>(std::move(sceneResult).value());
    return {};
}

/// Registers with the RouDi daemon as transport.application_name, with a message that says what to do
/// when it cannot.
Step connectToRouDi(Runtime::Parts& parts, const config::Deployment& d) {
    const std::string& name = d.transport.applicationName;
    const std::string within = " within " + std::to_string(d.transport.roudiConnectTimeout_ms) + " ms";
    auto connected = platform::connectToRouDi(name, d.transport.roudiConnectTimeout_ms);
    if (connected) {
        parts.superviseRouDi = true;
        return {};
    }
    std::string message;
    switch (connected.error()) {
        case platform::TransportError::RouDiUnavailable:
            message = std::string("iceoryx: ") + platform::toString(connected.error()) + within +
                      "; start RouDi first (iox-roudi -c config/roudi.toml) or use --embedded-roudi";
            break;
        case platform::TransportError::RouDiNotResponding:
            message = "iceoryx: RouDi did not answer the registration" + within +
                      " (its socket /tmp/roudi exists: is iox-roudi stopped or hung?)";
            break;
        case platform::TransportError::NameInUse:
            message = "another process is registered with RouDi as '" + name + "' (it holds " +
                      platform::applicationNameLockPath(name) + ", which names its pid); stop it or set transport.application_name";
            break;
        default:
            message = std::string("iceoryx: ") + platform::toString(connected.error()) + " ('" + name + "')";
            break;
    }
    return fail(RuntimeError{RuntimeErrorKind::Transport, message});
}

/// Creates one iceoryx endpoint (`Endpoint::create(args...)`) into `out`; `what` names it in the error.
template <typename Endpoint, typename... Args>
Step createEndpoint(std::unique_ptr<Endpoint>& out, const char* what, Args&&... args) {
    auto created = Endpoint::create(std::forward<Args>(args)...);
    if (!created) {
        return fail(RuntimeError{RuntimeErrorKind::Transport,
                                 std::string("iceoryx ") + what + ": " + platform::toString(created.error())});
    }
    out = std::make_unique<Endpoint>(std::move(created).value());
    return {};
}

/// The object-list subscriber and the publishers of every output channel (health twice: the cycle's and
/// the watchdog thread's alarms).
Step createEndpoints(Runtime::Parts& p, const config::TransportConfig& t) {
    using platform::Publisher;
    Step step = createEndpoint(p.objects, "objects subscriber", serviceOf(t.objects), INPUT_QUEUE_CAPACITY);
    step = step ? createEndpoint(p.tracksOut, "tracks publisher", serviceOf(t.tracks)) : step;
    step = step ? createEndpoint(p.intentionsOut, "intentions publisher", serviceOf(t.intentions)) : step;
    step = step ? createEndpoint(p.predictionOut, "prediction publisher", serviceOf(t.prediction)) : step;
    step = step ? createEndpoint(p.healthOut, "health publisher", serviceOf(t.health)) : step;
    step = step ? createEndpoint(p.alarmOut, "health alarm publisher", serviceOf(t.health)) : step;
    step = step ? createEndpoint(p.platoonsOut, "platoons publisher", serviceOf(t.platoons)) : step;
    return step;
}

/// The link thread (LinkReporter): before the real-time setup, so it keeps the normal scheduler and may
/// run on any core, below every real-time thread of the runtime.
Step startLinkReporter(Runtime::Parts& p, const config::Deployment& d) {
    // augur-bridge publishes its link status at least once per bridge.deadline_ms (1 s without one).
    const std::int64_t statusPeriod_ns =
        static_cast<std::int64_t>(d.bridge.deadline_ms > 0 ? d.bridge.deadline_ms : 1000) * NS_PER_MS;
    LinkReporterSettings settings{};
    settings.linkStatus = serviceOf(d.transport.linkStatus);
    settings.health = serviceOf(d.transport.health);
    settings.staleAfter_ns = LINK_STALE_AFTER_DEADLINES * statusPeriod_ns;
    settings.statusQueueCapacity = LINK_STATUS_QUEUE_CAPACITY;
    auto reporter = LinkReporter::create(settings, p.healthSequence);
    if (!reporter) {
        return fail(RuntimeError{RuntimeErrorKind::Transport,
                                 std::string("iceoryx link status: ") + platform::toString(reporter.error())});
    }
    p.linkReporter = std::move(reporter).value();
    return {};
}

/// The trace file and its writer thread (output.trace_path), before the real-time setup: the writer
/// keeps the default scheduling policy and may run on any core, below every real-time thread.
Step openTrace(Runtime::Parts& parts, const config::Deployment& d) {
    if (d.output.tracePath.empty()) {
        return {};
    }
    TraceWriterSettings settings{};
    settings.processName = "augur-runtime " + d.transport.applicationName;
    settings.bufferRecords = d.output.traceBufferRecords;
    auto writer = TraceWriter::open(d.output.tracePath, settings);
    if (!writer) {
        return fail(RuntimeError{RuntimeErrorKind::Trace, writer.error() + " (output.trace_path)"});
    }
    parts.trace = std::move(writer).value();
    parts.log(config::LogLevel::Info, "trace: " + d.output.tracePath + " (Chrome trace-event JSON, written as it goes)");
    return {};
}

/// Real-time setup of the calling (cycle) thread, before any other thread is started: the CPU workers
/// and the watchdog inherit its affinity and SCHED_FIFO priority.
Step applyRealtimeSetup(const config::Deployment& d, const Log& log) {
    platform::RealtimeSetup setup{};
    setup.lockMemory = d.runtime.lockMemory;
    setup.prefaultStack_bytes = PREFAULT_STACK_BYTES;
    setup.cores = std::span<const int>(d.runtime.cpuAffinity.data(), d.runtime.cpuAffinity.size());
    setup.fifoPriority = d.runtime.rtPriority;
    setup.failOnRefusal = d.runtime.onRtSetupFailure == config::RtSetupFailurePolicy::Fail;
    const auto applied = platform::applyRealtimeSetup(setup, [&log](const platform::RealtimeOutcome& refused) {
        log(config::LogLevel::Warn, platform::describe(refused) + "; continuing without it (on_rt_setup_failure: warn)");
    });
    if (!applied) {
        return fail(RuntimeError{RuntimeErrorKind::RealTime,
                                 platform::describe(applied.error()) + " (runtime.on_rt_setup_failure: fail)"});
    }
    return {};
}

ObjectListLimits ingestLimits(const config::Deployment& d) {
    ObjectListLimits limits{};
    limits.maxObjects = d.capacities.maxObjects;
    limits.maxAge_ns = static_cast<std::int64_t>(d.runtime.maxInputAge_ms) * NS_PER_MS;
    limits.maxFuture_ns = static_cast<std::int64_t>(d.input.maxFuture_ms) * NS_PER_MS;
    limits.resyncAfterRejections = d.input.resyncAfterRejections;
    const config::PlausibilityConfig& plausible = d.input.plausibility;
    limits.plausibility = PlausibilityLimits{static_cast<float>(plausible.maxAbsPosition_m),
                                             static_cast<float>(plausible.maxSpeed_mps),
                                             static_cast<float>(plausible.maxLength_m),
                                             static_cast<float>(plausible.maxWidth_m),
                                             static_cast<float>(plausible.maxStdPosition_m),
                                             static_cast<float>(plausible.maxStdSpeed_mps)};
    return limits;
}

TrackStageSettings trackSettings(const config::Deployment& d) {
    TrackStageSettings settings{};
    settings.capacity = d.capacities.maxTracks;
    settings.model = d.tracking.model == config::MotionModel::ConstantVelocity ? kernels::kf::MotionModel::ConstantVelocity
                                                                              : kernels::kf::MotionModel::ConstantAcceleration;
    settings.noiseDensity = static_cast<float>(d.tracking.accelNoiseDensity);
    settings.maxMissedCycles = d.tracking.maxMissedCycles;
    settings.confirmAfterHits = d.tracking.confirmAfterHits;
    settings.confirmWindow = d.tracking.confirmWindow;
    settings.gateMahalanobisSq = static_cast<float>(d.tracking.gates.mahalanobisSq);
    settings.gateDistance_m = static_cast<float>(d.tracking.gates.distance_m);
    settings.idBonus = static_cast<float>(d.tracking.gates.idBonus);
    return settings;
}

/// Worker threads of the CPU stages: the option's count, else one per core the cycle thread may use.
int cpuWorkers(const config::Deployment& d, const RuntimeOptions& options) {
    if (options.cpuWorkers > 0) {
        return options.cpuWorkers;
    }
    const auto cores = d.runtime.cpuAffinity.empty() ? static_cast<int>(std::thread::hardware_concurrency())
                                                     : static_cast<int>(d.runtime.cpuAffinity.size());
    return std::clamp(cores, 1, MAX_AUTO_CPU_WORKERS);
}

IntentionStageSettings intentionSettings(const config::Deployment& d, int workers) {
    IntentionStageSettings settings{};
    settings.maxVehicles = d.capacities.maxPredictedVehicles;
    settings.particles = d.capacities.particles;
    settings.particlesReduced = d.intention.particlesReduced;
    settings.filter.seed = d.intention.seed;
    settings.filter.cpuThreads = workers;  // same results for any count
    settings.filter.resampleThreshold = static_cast<float>(d.intention.resampleThreshold);
    settings.filter.resampler = d.intention.resampling == config::Resampling::DifferentialEvolution
                                    ? kernels::pf::Resampler::DifferentialEvolution
                                    : kernels::pf::Resampler::Systematic;
    settings.filter.de.crossover = static_cast<float>(d.intention.de.crossover);
    settings.filter.de.scale = static_cast<float>(d.intention.de.scaleFactor);
    settings.filter.de.maxGenerations = d.intention.de.maxGenerations;
    settings.filter.de.minSpread = static_cast<float>(d.intention.de.minSpread);
    settings.model.noiseAccel_mps2 = static_cast<float>(d.intention.noise.accel_mps2);
    settings.model.noisePosition_m = static_cast<float>(d.intention.noise.lateral_m);
    settings.model.maxAccel_mps2 = static_cast<float>(d.motion.maxAccel_mps2);
    settings.model.maxDecel_mps2 = static_cast<float>(d.motion.maxDecel_mps2);
    settings.laneChangePrior = static_cast<float>(d.intention.laneChangePrior);
    settings.slowing.gentlest_mps2 = static_cast<float>(d.intention.braking.gentlest_mps2);
    settings.slowing.hardest_mps2 = static_cast<float>(d.intention.braking.hardest_mps2);
    settings.slowing.unexplained = static_cast<float>(d.intention.braking.unexplained);
    settings.slowing.readyToYield = static_cast<float>(d.intention.braking.readyToYield);
    settings.slowing.maxDecel_mps2 = static_cast<float>(d.motion.maxDecel_mps2);
    settings.slowing.noise_mps2 = static_cast<float>(d.intention.noise.accel_mps2);
    return settings;
}

MotionStageSettings motionSettings(const config::Deployment& d, int workers) {
    const std::uint32_t vehicles = d.capacities.maxPredictedVehicles;
    MotionStageSettings settings{};
    auto& chain = settings.chain;
    chain.positionCells = static_cast<int>(d.motion.positionCells);
    chain.positionMax_m = static_cast<float>(d.motion.positionRange_m);
    chain.speedCells = static_cast<int>(d.motion.speedCells);
    chain.speedMax_mps = static_cast<float>(d.motion.maxSpeed_mps);
    chain.inputCells = static_cast<int>(d.motion.inputCells);
    // The chain's inputs are symmetric, a_max·u with u ∈ [−1, 1]: braking sets the range.
    chain.accelMax_mps2 = static_cast<float>(std::max(d.motion.maxAccel_mps2, d.motion.maxDecel_mps2));
    chain.step_s = static_cast<float>(d.motion.step_s);
    chain.samplesPerAxis = static_cast<int>(d.motion.samplesPerCell);
    // The CPU sizing, whenever the CPU propagates: the CPU's full chain for the fullChainVehicles nearest
    // the ego and a coarser one for the others, both discretisations of the same chain (none where it
    // comes out as the chain before it). Cell counts above the chain before take that chain's
    // (docs/configuration.md, motion.cpu).
    const config::CpuChainCells cells = config::cpuChainCells(d.motion);
    if (cells.fullPosition != d.motion.positionCells || cells.fullSpeed != d.motion.speedCells) {
        kernels::markov::ChainConfig cpuFull = chain;
        cpuFull.positionCells = static_cast<int>(cells.fullPosition);
        cpuFull.speedCells = static_cast<int>(cells.fullSpeed);
        settings.cpuFullChain = cpuFull;
    }
    if (cells.coarsePosition != cells.fullPosition || cells.coarseSpeed != cells.fullSpeed) {
        kernels::markov::ChainConfig coarse = chain;
        coarse.positionCells = static_cast<int>(cells.coarsePosition);
        coarse.speedCells = static_cast<int>(cells.coarseSpeed);
        settings.cpuChain = coarse;
        settings.cpuFullChainVehicles = d.motion.cpu.fullChainVehicles;
    }
    auto& prediction = settings.prediction;
    prediction.horizonSteps = static_cast<int>(config::horizonSteps(d.motion));
    prediction.maxCorridors = static_cast<int>(vehicles * d.capacities.maxCorridorsPerVehicle);
    prediction.maxPolylinePoints = static_cast<int>(FRAME_POLYLINE_POINTS);
    prediction.gridWidthCells = static_cast<int>(d.grid.widthCells);
    prediction.gridHeightCells = static_cast<int>(d.grid.heightCells);
    prediction.gridResolution_m = static_cast<float>(d.grid.resolution_m);
    prediction.gridFrames = d.grid.enabled ? static_cast<int>(config::gridFrames(d.grid, d.motion)) : 1;
    prediction.rules.speed = kernels::markov::RuleSpeed::Typical;  // predict typical behaviour, not the reachable set
    prediction.rules.freeRoadExponent = static_cast<float>(d.motion.freeRoadExponent);
    prediction.rules.pressReaction_s = static_cast<float>(d.motion.pressReaction_s);
    settings.maxVehicles = vehicles;
    settings.cpuWorkers = workers;
    settings.gridEnabled = d.grid.enabled;
    settings.gridFrameInterval_s = static_cast<float>(d.grid.frameInterval_s);
    return settings;
}

/// The ingest, tracking and relations stages.
Step createInputStages(Runtime::Parts& parts, const config::Deployment& d) {
    parts.state = makePipelineState();
    parts.frame = makeSceneFrame();
    parts.history = std::make_unique<TrackHistory>(std::max(d.capacities.trackHistoryCycles, d.flocks.windowCycles));
    parts.ingest = std::make_unique<IngestStage>(*parts.objects, ingestLimits(d), *parts.state);
    auto track = TrackStage::create(trackSettings(d), *parts.state, *parts.frame, *parts.history);
    if (!track) {
        return fail(RuntimeError{RuntimeErrorKind::Kernel, std::string("tracking: ") + kernels::kf::toString(track.error())});
    }
    parts.track = std::move(track).value();
    const auto bound = [](const config::MotionConfig::ClassBounds& b) {
        return ClassBound{static_cast<float>(b.topSpeed_mps), static_cast<float>(b.topAccel_mps2)};
    };
    const ClassBounds classBounds{bound(d.motion.truck), bound(d.motion.bus)};
    parts.relations = std::make_unique<RelationsStage>(*parts.scene, *parts.state, *parts.frame,
                                                       d.capacities.maxPredictedVehicles, d.capacities.maxCorridorsPerVehicle,
                                                       classBounds);
    return {};
}

/// The intention and motion stages (on the CPU; useCuda() moves them to the GPU). `zeroCopy`: the motion
/// stage's GPU staging is mapped host memory.
Step createModelStages(Runtime::Parts& parts, const config::Deployment& d, int workers, bool zeroCopy) {
    parts.log(config::LogLevel::Info, "CPU stages: " + std::to_string(workers) + " worker thread(s)");
    auto intention = IntentionStage::create(intentionSettings(d, workers), *parts.state, *parts.frame);
    if (!intention) {
        return fail(RuntimeError{RuntimeErrorKind::Kernel, "intention filter: invalid particle count or parameters (error " +
                                                               std::to_string(static_cast<int>(intention.error())) + ")"});
    }
    parts.intention = std::move(intention).value();
    MotionStageSettings settings = motionSettings(d, workers);
    settings.gpuZeroCopy = zeroCopy;
    auto motion = MotionStage::create(settings, *parts.state, *parts.frame);
    if (!motion) {
        return fail(RuntimeError{RuntimeErrorKind::Kernel, std::string("motion prediction: ") +
                                                               kernels::markov::toString(motion.error())});
    }
    parts.motion = std::move(motion).value();
    const kernels::markov::ChainConfig& cpuFullChain = settings.cpuFullChain ? *settings.cpuFullChain : settings.chain;
    const std::string cpuFullCells =
        std::to_string(cpuFullChain.positionCells) + " x " + std::to_string(cpuFullChain.speedCells);
    if (settings.cpuChain) {
        parts.log(config::LogLevel::Info,
                  "motion on the CPU (backend cpu, or after a GPU error): the " +
                      std::to_string(settings.cpuFullChainVehicles) + " vehicles nearest the ego with the " +
                      cpuFullCells + " chain, the others with " + std::to_string(settings.cpuChain->positionCells) +
                      " x " + std::to_string(settings.cpuChain->speedCells));
    } else if (settings.cpuFullChain) {
        parts.log(config::LogLevel::Info,
                  "motion on the CPU (backend cpu, or after a GPU error): every vehicle with the " + cpuFullCells + " chain");
    }
    return {};
}

/// RuntimeOptions' SM partition and tuning policy, before any GPU stream or kernel family is created.
Step useSmPartition(Runtime::Parts& parts, const RuntimeOptions& options, bool wantCuda) {
    if (!wantCuda) {
        if (options.gpuMultiprocessors > 0 || options.gpuTuningPolicy) {
            return fail(RuntimeError{RuntimeErrorKind::Backend,
                                     "an SM partition or a forced tuning policy needs the CUDA backend"});
        }
        return {};
    }
    kernels::forceTuningArch(options.gpuTuningPolicy);
    parts.forcedTuningPolicy = options.gpuTuningPolicy.has_value();
    if (options.gpuTuningPolicy) {
        parts.log(config::LogLevel::Info, std::string("kernel tuning policy forced to ") +
                                              kernels::toString(*options.gpuTuningPolicy));
    }
    if (options.gpuMultiprocessors > 0) {
        auto partition = platform::SmPartition::create(options.gpuMultiprocessors);
        if (!partition) {
            return fail(RuntimeError{RuntimeErrorKind::Backend, "SM partition: " + platform::describe(partition.error())});
        }
        parts.smPartition = std::make_unique<platform::SmPartition>(std::move(partition).value());
        parts.log(config::LogLevel::Info, "GPU work in an SM partition of " + std::to_string(options.gpuMultiprocessors) +
                                              " SMs (green context)");
    }
    return {};
}

/// Moves the intention and motion stages to the GPU when `wantCuda`; with backend auto a GPU that
/// cannot take them leaves the pipeline on the CPU. Logs the backend the pipeline runs on.
Step useCuda(Runtime::Parts& parts, const config::Deployment& d, bool wantCuda, bool gpuPresent, bool zeroCopy) {
    if (wantCuda) {
        auto gpu = parts.intention->enableGpu();
        if (gpu) {
            gpu = parts.motion->enableGpu();
        }
        if (!gpu) {
            if (d.runtime.backend == config::Backend::Cuda) {
                return fail(RuntimeError{RuntimeErrorKind::Backend, "backend cuda: " + gpu.error()});
            }
            parts.intention->fallBackToCpu();
            parts.log(config::LogLevel::Warn, "backend auto: " + gpu.error() + "; the pipeline runs on the CPU");
        }
    }
    const bool onGpu = parts.intention->onGpu() && parts.motion->onGpu();
    parts.backendIsCuda.store(onGpu, std::memory_order_relaxed);
    parts.startedOnGpu = onGpu;
    parts.log(config::LogLevel::Info,
              std::string("backend ") + (onGpu ? "cuda" : "cpu") + " (configured " +
                  std::string(config::toString(d.runtime.backend)) +
                  (onGpu ? std::string("): intention filters and Markov motion prediction on the GPU (CUDA graphs, "
                                       "high-priority streams, motion staging ") +
                               (zeroCopy ? "mapped, zero copy" : "copied") + "); tracking, relations and platoons on the CPU"
                         : std::string(gpuPresent ? "; the CUDA device is not used)" : ")")));
    return {};
}

/// The platoons stage (when flocks are enabled) and the publish stage.
Step createOutputStages(Runtime::Parts& parts, const config::Deployment& d) {
    if (d.flocks.enabled) {
        auto platoons = PlatoonStage::create(PlatoonStageSettings{d.flocks.minMembers, d.flocks.windowCycles, d.flocks.radius_m},
                                             *parts.history, *parts.platoonsOut, *parts.state);
        if (!platoons) {
            return fail(RuntimeError{RuntimeErrorKind::Kernel,
                                     std::string("flocks: ") + kernels::flock::toString(platoons.error().error)});
        }
        parts.platoons = std::move(platoons).value();
    }
    parts.publish = std::make_unique<PublishStage>(
        OutputPublishers{*parts.tracksOut, *parts.intentionsOut, *parts.predictionOut}, *parts.state,
        static_cast<std::int64_t>(d.runtime.watchdog.holdLastMaxAge_ms) * NS_PER_MS);
    return {};
}

ExecutorSettings executorSettings(const config::Deployment& d) {
    ExecutorSettings settings{};
    settings.period_ns = static_cast<std::int64_t>(d.runtime.cyclePeriod_ms) * NS_PER_MS;
    settings.deadline_ns = static_cast<std::int64_t>(d.runtime.deadline_ms) * NS_PER_MS;
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        settings.stageBudget_ns[i] = static_cast<std::int64_t>(std::llround(d.runtime.stageBudget_ms[i] * 1e6));
    }
    settings.trigger = d.runtime.trigger == config::Trigger::OnInput ? Trigger::OnInput : Trigger::Periodic;
    settings.platoonEveryNCycles = d.flocks.enabled ? d.flocks.everyNCycles : 0;
    settings.missesToStepDown = d.runtime.watchdog.missesToDegrade;
    settings.goodCyclesToStepUp = d.runtime.watchdog.recoverAfterGoodCycles;
    settings.healthWindowCycles = d.runtime.healthWindowCycles;
    settings.inputLossHoldLastCycles = d.input.lossHoldLastCycles;
    settings.inputLossNoPredictionCycles = d.input.lossNoPredictionCycles;
    return settings;
}

/// The executor with every stage (each behind its delay hook), and its watchdog thread started one
/// priority above the threads it watches: a stage spinning at the cycle thread's priority on the
/// watchdog's core cannot starve it.
Step startExecutor(Runtime::Parts& parts, const config::Deployment& d) {
    parts.executor = std::make_unique<Executor>(executorSettings(d), &onOverrun, &parts);
    if (parts.trace != nullptr) {
        parts.executor->setTrace(&parts.trace->cycleBuffer());
    }
    const std::array<StageRunner*, STAGE_COUNT> runners{parts.ingest.get(),    parts.track.get(),  parts.relations.get(),
                                                        parts.intention.get(), parts.motion.get(), parts.platoons.get(),
                                                        parts.publish.get()};
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        if (runners[i] != nullptr) {
            parts.delayable[i] = std::make_unique<DelayableStage>(*runners[i]);
            parts.executor->setStage(static_cast<Stage>(i), parts.delayable[i].get());
        }
    }
    const int watchdogPriority = d.runtime.rtPriority > 0 ? std::min(d.runtime.rtPriority + 1, MAX_FIFO_PRIORITY) : 0;
    const platform::RealtimeOutcome watchdog = parts.executor->start(watchdogPriority);
    if (watchdog.errnoValue != 0) {
        if (d.runtime.onRtSetupFailure == config::RtSetupFailurePolicy::Fail) {
            return fail(RuntimeError{RuntimeErrorKind::RealTime, "watchdog " + platform::describe(watchdog) +
                                                                     " (runtime.on_rt_setup_failure: fail)"});
        }
        parts.log(config::LogLevel::Warn, "watchdog " + platform::describe(watchdog) +
                                              "; it keeps the cycle thread's priority (on_rt_setup_failure: warn)");
    }
    return {};
}

/// The systemd journal (output.log_sink) and service notification (NOTIFY_SOCKET) when present.
Step setUpService(Runtime::Parts& parts, const config::Deployment& d) {
    parts.journal = d.output.logSink == config::LogSink::Journald && platform::serviceNotifyCompiledIn();
    if (d.output.logSink == config::LogSink::Journald && !parts.journal) {
        parts.log(config::LogLevel::Warn, "output.log_sink journald: this build has no libsystemd; logging to stderr");
    }
    parts.notifyService = platform::serviceNotifyEnabled();
    if (parts.notifyService) {
        const std::int64_t watchdog_ns = platform::serviceWatchdogInterval_ns();
        parts.log(config::LogLevel::Info,
                  "systemd notification: READY=1 after the first cycle, WATCHDOG=1 after every cycle" +
                      (watchdog_ns > 0 ? " (WatchdogSec " + std::to_string(watchdog_ns / 1'000'000) + " ms)"
                                       : std::string(" (no WatchdogSec)")));
        if (watchdog_ns > 0 && watchdog_ns < 2 * executorSettings(d).period_ns) {
            parts.log(config::LogLevel::Warn,
                      "WatchdogSec is shorter than two cycle periods: systemd may restart a runtime that is only late");
        }
    }
    return {};
}

}  // namespace

Result<std::unique_ptr<Runtime>, RuntimeError> Runtime::create(const config::Deployment& d, const RuntimeOptions& options) {
    auto parts = std::make_unique<Parts>();
    parts->deployment = d;
    parts->log = makeLog(d, options);
    const bool gpuPresent = platform::cudaCompiledIn() && platform::gpuCount() > 0;
    const auto wantCuda = chooseCuda(d, gpuPresent);
    if (!wantCuda) {
        return fail(wantCuda.error());
    }
    bool zeroCopy = false;
    if (*wantCuda) {
        const auto gpu = platform::queryGpu();
        zeroCopy = options.gpuZeroCopy.value_or(gpu.hasValue() && gpu.value().integrated);
    }
    const int workers = cpuWorkers(d, options);
    // iceoryx's own log follows output.log_level (set before iceoryx logs anything).
    static_assert(static_cast<int>(config::LogLevel::Debug) == static_cast<int>(platform::TransportLogLevel::Debug));
    platform::setTransportLogLevel(static_cast<platform::TransportLogLevel>(d.output.logLevel));
    Step step = loadScene(*parts, d);
    step = step && options.connectToRouDi ? connectToRouDi(*parts, d) : step;
    step = step ? createEndpoints(*parts, d.transport) : step;
    step = step ? openTrace(*parts, d) : step;
    step = step ? startLinkReporter(*parts, d) : step;
    step = step ? applyRealtimeSetup(d, parts->log) : step;
    step = step ? createInputStages(*parts, d) : step;
    step = step ? useSmPartition(*parts, options, *wantCuda) : step;
    step = step ? createModelStages(*parts, d, workers, zeroCopy) : step;
    step = step ? useCuda(*parts, d, *wantCuda, gpuPresent, zeroCopy) : step;
    step = step ? createOutputStages(*parts, d) : step;
    step = step ? startExecutor(*parts, d) : step;
    step = step ? setUpService(*parts, d) : step;
    if (!step) {
        return fail(step.error());
    }
    return std::unique_ptr<Runtime>(new Runtime(std::move(parts)));
}

namespace {

/// The GPU work of `stage` since the last one traced, on the GPU track; `traced` remembers it.
void traceGpuSpan(TraceBuffer& buffer, Stage stage, GpuSpan span, GpuSpan& traced, std::uint64_t cycle) noexcept {
    if (span.end_ns == 0 || span.end_ns == traced.end_ns) {
        return;
    }
    traced = span;
    TraceRecord record{};
    record.kind = TraceRecordKind::Gpu;
    record.begin_ns = span.begin_ns;
    record.end_ns = span.end_ns;
    record.cycle = cycle;
    record.stage = stage;
    (void)buffer.push(record);
}

/// The trace's records of a cycle that only the runtime knows: its GPU work and the counters.
void traceCycle(Runtime::Parts& p, const CycleReport& report) noexcept {
    TraceBuffer& buffer = p.trace->cycleBuffer();
    traceGpuSpan(buffer, Stage::Intention, p.intention->lastGpuSpan(), p.intentionGpuTraced, report.cycle);
    traceGpuSpan(buffer, Stage::Motion, p.motion->lastGpuSpan(), p.motionGpuTraced, report.cycle);
    const RuntimeMode mode = report.mode;
    const config::Deployment& d = p.deployment;
    TraceRecord counters{};
    counters.kind = TraceRecordKind::Counters;
    counters.begin_ns = platform::monotonicNow_ns();
    counters.cycle = report.cycle;
    counters.count = p.state->prediction.vehicleCount;
    counters.count2 = mode == RuntimeMode::Nominal            ? d.capacities.particles
                      : mode == RuntimeMode::ReducedParticles ? d.intention.particlesReduced
                                                              : 0U;
    const std::int64_t stamp = p.state->counters.newestInputStamp_ns;
    counters.value = stamp > 0 ? std::max<std::int64_t>(counters.begin_ns - stamp, 0) : -1;
    (void)buffer.push(counters);
}

}  // namespace

void Runtime::afterCycle(const CycleReport& report) noexcept {
    Parts& p = *m_parts;
    if (p.trace != nullptr) {
        traceCycle(p, report);
    }
    if (std::find(report.status.begin(), report.status.end(), StageStatus::GpuError) != report.status.end()) {
        p.intention->fallBackToCpu();  // a device that failed once is not trusted by any stage
        p.motion->fallBackToCpu();
    }
    fillHealth(p.health, report, *p.executor, p.state->counters, backendIsCuda());
    // Conditions outside the pipeline: they show in this cycle's health and hold the ladder's floor
    // from the next cycle on, for as long as they last.
    std::uint32_t faults = 0;
    if (p.startedOnGpu && !backendIsCuda()) {
        faults |= bit(HealthFault::GpuFallback);
    }
    if (p.state->counters.loanFailureCycles >= OUTPUT_BLOCKED_AFTER_CYCLES) {
        faults |= bit(HealthFault::OutputBlocked);  // the planner is not getting predictions: say so
    }
    if (!p.transportLost && rouDiLost()) {
        p.transportLost = true;
        // Formatted on the stack, to unbuffered stderr or the journal: no allocation on this path. Once:
        // the loss is final.
        runLog(p.journal, config::LogLevel::Error,
               "error: transport lost after cycle %llu: RouDi (the iceoryx daemon) this process registered with is "
               "gone, and iceoryx 2.0 cannot register again; stopping",
               static_cast<unsigned long long>(report.cycle));
        p.executor->requestStop();
    }
    if (p.transportLost) {
        faults |= bit(HealthFault::TransportLost);  // may reach no one; the log line and run()'s outcome do
    }
    if (p.trace != nullptr) {
        // The cycle's records and the watchdog's since the last health (its own thread's ring).
        const std::uint64_t dropped = p.trace->dropped();
        if (dropped != p.traceDroppedBefore) {
            faults |= bit(HealthFault::TraceDropped);
        }
        p.traceDroppedBefore = dropped;
        p.health.traceRecordsDropped = dropped;
    }
    p.health.faults |= faults;
    p.health.loanFailures +=
        p.alarmLoanFailures.load(std::memory_order_relaxed) + p.linkReporter->loanFailures();
    constexpr std::uint32_t NO_OUTPUT = bit(HealthFault::OutputBlocked) | bit(HealthFault::TransportLost);
    p.executor->setExternalFloor((faults & NO_OUTPUT) != 0 ? RuntimeMode::NoPrediction : RuntimeMode::Nominal);
    p.mode.store(report.transition ? report.transition->to : report.mode, std::memory_order_relaxed);
    p.backendIsCuda.store(backendIsCuda(), std::memory_order_relaxed);
    {
        // The link's newest state (the link thread's), and the health published before the window
        // closes: a link update from a newer state waits for it (link_reporter.hpp).
        const LinkReporter::CycleHealthWindow link = p.linkReporter->openCycleHealth();
        const std::int64_t now_ns = platform::monotonicNow_ns();
        link.fill(p.health, now_ns);
        p.health.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, p.healthSequence.fetch_add(1) + 1, now_ns};
        p.linkReporter->noteCycleHealth(p.health);
        auto loan = p.healthOut->loan();
        if (loan) {
            *loan->get() = p.health;
            loan->publish();
        } else {
            ++p.state->counters.loanFailures;
        }
    }
    if (p.notifyService) {
        // From the cycle thread: a cycle thread that hangs stops the pings, and systemd's WatchdogSec=
        // restarts the service.
        if (!p.notifiedReady) {
            p.notifiedReady = platform::serviceNotify("READY=1");
        }
        (void)platform::serviceNotify("WATCHDOG=1");
    }
    if (report.transition) {
        // Formatted on the stack, to unbuffered stderr or the journal: no allocation on this path.
        runLog(p.journal, config::LogLevel::Warn, "mode %s -> %s after cycle %llu", augur::toString(report.transition->from),
               augur::toString(report.transition->to), static_cast<unsigned long long>(report.cycle));
    }
}

CycleReport Runtime::runCycle() noexcept {
    const CycleReport report = m_parts->executor->runCycle(platform::monotonicNow_ns());
    afterCycle(report);
    return report;
}

bool Runtime::rouDiLost() noexcept {
    Parts& p = *m_parts;
    if (p.transportLossInjected.exchange(false, std::memory_order_relaxed)) {
        return true;
    }
    if (!p.superviseRouDi) {
        return false;
    }
    const std::int64_t now = platform::monotonicNow_ns();
    if (now < p.nextRouDiProbe_ns) {
        return false;
    }
    p.nextRouDiProbe_ns = now + ROUDI_PROBE_INTERVAL_NS;
    return !platform::registeredRouDiAlive();
}

RunOutcome Runtime::run(const std::atomic<bool>& stopRequested, std::uint64_t maxCycles) noexcept {
    Parts& p = *m_parts;
    if (!p.transportLost) {
        p.executor->runLoop(
            stopRequested, maxCycles, [&p]() noexcept { return p.objects->hasData(); },
            [this](const CycleReport& report) noexcept { afterCycle(report); });
    }
    if (p.notifyService) {
        (void)platform::serviceNotify("STOPPING=1");
    }
    return p.transportLost ? RunOutcome::TransportLost : RunOutcome::Stopped;
}

bool Runtime::transportLost() const noexcept { return m_parts->transportLost; }

void Runtime::injectTransportLoss() noexcept { m_parts->transportLossInjected.store(true, std::memory_order_relaxed); }

bool Runtime::tracing() const noexcept { return m_parts->trace != nullptr; }

std::uint64_t Runtime::traceRecordsDropped() const noexcept {
    return m_parts->trace != nullptr ? m_parts->trace->dropped() : 0U;
}

TraceTotals Runtime::closeTrace() noexcept {
    if (m_parts->trace == nullptr) {
        return {};
    }
    m_parts->executor->stop();  // the watchdog thread is the other producer
    return m_parts->trace->close();
}

void Runtime::injectStageDelay(Stage stage, std::int64_t delay_ns) noexcept {
    auto& stageRunner = m_parts->delayable[static_cast<std::size_t>(stage)];
    if (stageRunner) {
        stageRunner->setDelay(delay_ns);
    }
}

std::uint32_t Runtime::coarseMotionVehicles() const noexcept { return m_parts->motion->coarseVehicles(); }

bool Runtime::backendIsCuda() const noexcept { return m_parts->motion->onGpu() && m_parts->intention->onGpu(); }

std::uint64_t Runtime::graphReplays() const noexcept {
    return m_parts->motion->graphReplays() + m_parts->intention->graphReplays();
}

void Runtime::injectGpuError(Stage stage) noexcept {
    if (stage == Stage::Motion) {
        m_parts->motion->injectGpuError();
    } else if (stage == Stage::Intention) {
        m_parts->intention->injectGpuError();
    }
}

const Executor& Runtime::executor() const noexcept { return *m_parts->executor; }
const PipelineCounters& Runtime::counters() const noexcept { return m_parts->state->counters; }
const PipelineState& Runtime::state() const noexcept { return *m_parts->state; }
const Health& Runtime::lastHealth() const noexcept { return m_parts->health; }

}  // namespace augur::runtime
