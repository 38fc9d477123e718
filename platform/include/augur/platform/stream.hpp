// CUDA streams, events and graphs as RAII handles with opaque types (no CUDA headers needed).
#pragma once

#include <cstdint>

#include <functional>

#include "augur/platform/cuda_check.hpp"

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
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream();

    /// A non-blocking stream; High takes the device's greatest priority (planner-critical chain).
    [[nodiscard]] static Result<Stream, GpuError> create(StreamPriority priority = StreamPriority::Normal) noexcept;

    [[nodiscard]] StreamHandle get() const noexcept { return m_stream; }
    /// Blocks until all work on the stream is done. Not for the run phase's critical path: use events.
    [[nodiscard]] GpuStatus synchronize() const noexcept;

private:
    StreamHandle m_stream{nullptr};
};

enum class EventState { Complete, Pending };

class Event {
public:
    Event() = default;
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event();

    /// `timing`: the event can measure elapsed time (slightly more expensive to record).
    [[nodiscard]] static Result<Event, GpuError> create(bool timing) noexcept;

    [[nodiscard]] EventHandle get() const noexcept { return m_event; }
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
    EventHandle m_event{nullptr};
};

/// An instantiated CUDA graph captured from the work a callable enqueues on a stream.
class Graph {
public:
    Graph() = default;
    Graph(Graph&& other) noexcept;
    Graph& operator=(Graph&& other) noexcept;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph();

    /// Captures everything `enqueue` puts on `stream` (which must not be the legacy default stream)
    /// and instantiates it. `enqueue` returns the status of its own CUDA calls; a failure aborts the
    /// capture cleanly. Init phase.
    [[nodiscard]] static Result<Graph, GpuError> capture(StreamHandle stream,
                                                         const std::function<GpuStatus(StreamHandle)>& enqueue) noexcept;

    /// Replays the graph on `stream`. Run-phase safe.
    [[nodiscard]] GpuStatus launch(StreamHandle stream) const noexcept;

private:
    CUgraphExec_st* m_exec{nullptr};
};

}  // namespace augur::platform
