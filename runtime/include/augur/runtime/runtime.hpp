// The runtime: everything augur-runtime runs, built from one deployment.
//
//   auto runtime = Runtime::create(deployment, options);   // init: allocates, may fail, never half-starts
//   runtime.value()->run(stopFlag, maxCycles);              // run phase: the static executor's cycle loop
//
// create() loads the map, picks the backend (logged), builds the scene, the Kalman bank, the intention
// filters, the Markov chains and the flock finder with all their run-phase memory, connects to RouDi
// with the configured timeout (or uses the iceoryx runtime this process already has, e.g. next to an
// EmbeddedRouDi), creates the subscriber and the publishers, and applies the real-time setup (a refusal
// is logged once and is fatal or not as the deployment says). Any failure returns a RuntimeError naming
// the step; nothing is left running.
//
// Backends: backend: auto picks CUDA when it is compiled in and a device is present, else the CPU;
// backend: cuda without a usable device is a clear error. On CUDA the intention particle filters and
// the Markov motion prediction run on the GPU (graphs captured at init, high-priority streams,
// completion polled with events); tracking, relations and platoons run on the CPU
// (docs/design/runtime.md). A CUDA error makes that cycle's stage return GpuError (Intention restarts
// its filters on the CPU, Motion publishes constant-velocity predictions), the ladder is forced down to
// ConstantVelocity, and both stages run on the CPU from then on: a device that failed once is not trusted.
// Wherever the CPU propagates the motion prediction (backend cpu, or after a GPU error), the CPU sizing
// of motion.cpu applies: the nearest motion.cpu.full_chain_vehicles vehicles keep the deployment's chain,
// the others take its coarser discretisation (MotionStage, docs/design/motion-prediction.md).
//
// Trace: with output.trace_path set, create() opens the file and starts its writer thread before the
// real-time setup (so the writer keeps the default scheduling and cores); the executor records each
// cycle's slice, stages, misses and mode changes, the runtime adds the counters and the GPU work after
// each cycle, the watchdog thread its alarms (trace_writer.hpp, docs/design/runtime.md).
//
// Transport supervision: a runtime that registered with a RouDi daemon (RuntimeOptions::connectToRouDi)
// checks every ROUDI_PROBE_INTERVAL_NS, after a cycle, that this RouDi still runs
// (platform::registeredRouDiAlive). iceoryx 2.0.3 cannot register a process again, with the same RouDi
// or a new one, so a lost RouDi is final: that cycle's health carries HealthFault::TransportLost, the
// ladder's floor becomes NoPrediction, one line goes to stderr, and run() stops after the cycle and
// returns RunOutcome::TransportLost (augur-runtime exits with status 4, for a supervisor to restart it).
//
// Link supervision: the link thread (LinkReporter, started by create() before the real-time setup)
// takes the link statuses augur-bridge publishes on transport.link_status as they arrive
// (LinkSupervision). Each cycle's health carries the newest one's counters and HealthFault::LinkLost
// while the bridge reports a lost DDS peer or its status stopped arriving; when link_lost changes, the
// link thread publishes a link update (Health::linkUpdate) at once, without waiting for the cycle.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "augur/config/deployment.hpp"
#include "augur/core/result.hpp"
#include "augur/kernels/tuning_policy.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/trace_writer.hpp"

namespace augur::runtime {

enum class RuntimeErrorKind : std::uint8_t {
    Map,          ///< the map file could not be read
    Backend,      ///< the configured backend is not available (no device, not built, not supported)
    Transport,    ///< RouDi unreachable within the timeout, or a channel could not be created
    RealTime,     ///< the real-time setup was refused and on_rt_setup_failure is fail
    Kernel,       ///< a kernel rejected its configuration or could not allocate
    Trace,        ///< output.trace_path could not be created
};

[[nodiscard]] const char* toString(RuntimeErrorKind kind) noexcept;

struct RuntimeError {
    RuntimeErrorKind kind;
    std::string message;  ///< one line saying what failed and what to do
};

/// How create() reaches iceoryx and reports its progress.
struct RuntimeOptions {
    /// true: register with a RouDi daemon (connectToRouDi with transport.roudi_connect_timeout_ms);
    /// false: this process already has its iceoryx runtime (an EmbeddedRouDi).
    bool connectToRouDi{true};
    /// Init-phase log lines (backend choice, real-time refusals, map summary). Null: stderr, filtered
    /// by output.log_level.
    std::function<void(config::LogLevel, const std::string&)> log{};
    /// CPU threads of the data-parallel stages (Motion's corridor chunks, the intention filters), the
    /// cycle thread included; started at init. 0: one per core of runtime.cpu_affinity when that is set,
    /// else one per hardware thread (at most MAX_AUTO_CPU_WORKERS). The outputs are identical for any count.
    int cpuWorkers{0};
    /// CUDA backend: whether the motion prediction's kernels address mapped page-locked staging and
    /// results directly instead of copying them (zero copy). Unset: zero copy exactly on an integrated
    /// GPU (cudaDevAttrIntegrated: Jetson / Drive, one physical memory). Set: forced either way.
    std::optional<bool> gpuZeroCopy{};
    /// CUDA backend: > 0 runs all of the runtime's GPU work in an SM partition of this many SMs
    /// (platform::SmPartition, a CUDA green context made before any stream); its grids are sized for
    /// those SMs. 0: the whole device. For measuring a smaller GPU's compute on a large one (docs/gpu.md,
    /// "Orin-sized proxy"); create() fails with a Backend error saying why when the device cannot.
    int gpuMultiprocessors{0};
    /// CUDA backend: the kernel families take this architecture's launch-time tuning policy instead of
    /// the device's (kernels::forceTuningArch, process-wide). Unset: the device's.
    std::optional<kernels::TuningArch> gpuTuningPolicy{};
};

inline constexpr int MAX_AUTO_CPU_WORKERS = 8;

/// How often the runtime checks that its RouDi still runs (after the first cycle that ends this long
/// after the previous check). A check costs a few microseconds on the cycle thread (four system calls
/// that do not wait, platform::registeredRouDiAlive); a loss is noticed within this interval plus a cycle.
inline constexpr std::int64_t ROUDI_PROBE_INTERVAL_NS = 500'000'000;

/// Why run() returned.
enum class RunOutcome : std::uint8_t {
    Stopped,        ///< `stopRequested` became true, or `maxCycles` cycles ran
    TransportLost,  ///< the RouDi this process registered with is gone: the loop stopped itself
};

[[nodiscard]] const char* toString(RunOutcome outcome) noexcept;

class Runtime {
public:
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;
    ~Runtime();

    /// Init phase: builds everything (see the header comment). The real-time setup (affinity, SCHED_FIFO,
    /// pre-faulted stack) applies to the calling thread: call run() on the same thread.
    [[nodiscard]] static Result<std::unique_ptr<Runtime>, RuntimeError> create(const config::Deployment& deployment,
                                                                                const RuntimeOptions& options = {});

    /// Run phase: cycles on the configured trigger until `stopRequested` or `maxCycles` cycles (0: no
    /// limit), or until the RouDi is lost (see the header comment); health is published after every
    /// cycle, ladder transitions are logged. noexcept.
    RunOutcome run(const std::atomic<bool>& stopRequested, std::uint64_t maxCycles) noexcept;

    /// Runs one cycle now (tests and benchmarks drive the pipeline at their own pace). noexcept.
    CycleReport runCycle() noexcept;

    /// Whether a trace is written (output.trace_path set).
    [[nodiscard]] bool tracing() const noexcept;
    /// Trace records dropped so far because a trace ring was full (0 without a trace). Thread-safe.
    [[nodiscard]] std::uint64_t traceRecordsDropped() const noexcept;
    /// Shutdown: stops the watchdog, writes what the trace rings hold and closes the trace file's JSON
    /// array; returns the events written and the records dropped ({0, 0} without a trace). After it, no
    /// cycle may run. Idempotent; the destructor does it too.
    TraceTotals closeTrace() noexcept;

    /// Whether the RouDi was found lost (final: iceoryx 2.0 cannot register again).
    [[nodiscard]] bool transportLost() const noexcept;
    /// Test hook: the next check of the RouDi (after the next cycle) finds it lost. Thread-safe.
    void injectTransportLoss() noexcept;

    /// Test hook: every run of `stage` first waits `delay_ns` (0 removes the delay). Thread-safe.
    void injectStageDelay(Stage stage, std::int64_t delay_ns) noexcept;

    [[nodiscard]] const Executor& executor() const noexcept;
    [[nodiscard]] const PipelineCounters& counters() const noexcept;
    [[nodiscard]] const PipelineState& state() const noexcept;
    [[nodiscard]] const Health& lastHealth() const noexcept;
    /// Whether the GPU carries the intention filters and the motion prediction now (CUDA chosen at init
    /// and no CUDA error since).
    [[nodiscard]] bool backendIsCuda() const noexcept;
    /// Vehicles the last cycle's motion prediction propagated with the CPU sizing's coarser chain
    /// (motion.cpu; 0 while the GPU propagates, and when every vehicle was among the nearest).
    [[nodiscard]] std::uint32_t coarseMotionVehicles() const noexcept;
    /// CUDA graph replays so far, all stages (0 on the CPU backend).
    [[nodiscard]] std::uint64_t graphReplays() const noexcept;
    /// Test hook: the next GPU work of `stage` (Intention or Motion) fails as if a CUDA call had
    /// returned an error (no effect on the CPU backend or on other stages). Thread-safe.
    void injectGpuError(Stage stage) noexcept;

    struct Parts;

private:
    explicit Runtime(std::unique_ptr<Parts> parts) noexcept;
    void afterCycle(const CycleReport& report) noexcept;
    /// Whether the RouDi is found lost now (checked at most every ROUDI_PROBE_INTERVAL_NS).
    bool rouDiLost() noexcept;

    std::unique_ptr<Parts> m_parts;
};

}  // namespace augur::runtime
