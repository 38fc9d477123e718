// CUDA streams, events and graphs as RAII handles (UniqueHandle) with opaque types (no CUDA headers
// needed). Move-only.
#pragma once

#include <cstdint>

#include <functional>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/unique_handle.hpp"

struct CUstream_st;
struct CUevent_st;
struct CUgraphExec_st;

namespace augur::platform {

/// The same type as cudaStream_t; kernels' host APIs take it as their last argument.
using StreamHandle = CUstream_st*;
using EventHandle = CUevent_st*;

enum class StreamPriority { Normal, High };

class Stream {
public:
    Stream() = default;
    Stream(Stream&& other) noexcept = default;
    Stream& operator=(Stream&& other) noexcept = default;

    /// A non-blocking stream; High takes the device's greatest priority (planner-critical chain). While
    /// an SmPartition is active (sm_partition.hpp) the stream is made in its green context, so what is
    /// enqueued on it runs on the partition's SMs.
    [[nodiscard]] static Result<Stream, GpuError> create(StreamPriority priority = StreamPriority::Normal) noexcept;

    [[nodiscard]] StreamHandle get() const noexcept { return m_stream.get(); }
    /// Blocks until all work on the stream is done. Not for the run phase's critical path: use events.
    [[nodiscard]] GpuStatus synchronize() const noexcept;

private:
    UniqueHandle<StreamHandle, &detail::destroyStream> m_stream;
};

enum class EventState { Complete, Pending };

class Event {
public:
    Event() = default;
    Event(Event&& other) noexcept = default;
    Event& operator=(Event&& other) noexcept = default;

    /// `timing`: the event can measure elapsed time (slightly more expensive to record).
    [[nodiscard]] static Result<Event, GpuError> create(bool timing) noexcept;

    [[nodiscard]] EventHandle get() const noexcept { return m_event.get(); }
    [[nodiscard]] GpuStatus record(StreamHandle stream) noexcept;
    /// Non-blocking completion check (cudaEventQuery). Run-phase safe.
    [[nodiscard]] Result<EventState, GpuError> query() const noexcept;
    [[nodiscard]] GpuStatus synchronize() const noexcept;
    /// Waits for the recorded work by polling query() every `poll_ns` (sleeping in between, never a
    /// blocking device synchronise) until it completes (true) or `timeout_ns` has passed (false). A
    /// CUDA error is returned as the error. Run-phase safe: bounded by the timeout.
    [[nodiscard]] Result<bool, GpuError> waitPolling(std::int64_t poll_ns, std::int64_t timeout_ns) const noexcept;
    /// Milliseconds between two completed timing events.
    [[nodiscard]] static Result<float, GpuError> elapsed_ms(const Event& start, const Event& stop) noexcept;

private:
    UniqueHandle<EventHandle, &detail::destroyEvent> m_event;
};

/// An instantiated CUDA graph captured from the work a callable enqueues on a stream.
class Graph {
public:
    Graph() = default;
    Graph(Graph&& other) noexcept = default;
    Graph& operator=(Graph&& other) noexcept = default;

    /// Captures everything `enqueue` puts on `stream` (which must not be the legacy default stream)
    /// and instantiates it. `enqueue` returns the status of its own CUDA calls; a failure aborts the
    /// capture cleanly. Init phase.
    [[nodiscard]] static Result<Graph, GpuError> capture(StreamHandle stream,
                                                         const std::function<GpuStatus(StreamHandle)>& enqueue) noexcept;

    /// Replays the graph on `stream`. Run-phase safe.
    [[nodiscard]] GpuStatus launch(StreamHandle stream) const noexcept;

private:
    UniqueHandle<CUgraphExec_st*, &detail::destroyGraphExec> m_exec;
};

}  // namespace augur::platform
