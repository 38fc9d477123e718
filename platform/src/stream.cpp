#include "augur/platform/stream.hpp"

#include <utility>

#include "augur/platform/clock.hpp"
#include "augur/platform/sm_partition.hpp"

#if AUGUR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace augur::platform {
namespace {
#if !AUGUR_HAVE_CUDA
constexpr int CUDA_ERROR_NO_DEVICE = 100;  // cudaErrorNoDevice: a CPU-only build has no device
GpuError noCuda(const char* what) noexcept { return GpuError{CUDA_ERROR_NO_DEVICE, what, __FILE__, __LINE__}; }
#endif
}  // namespace

namespace detail {

void destroyStream(CUstream_st* stream) noexcept {
#if AUGUR_HAVE_CUDA
    (void)cudaStreamDestroy(stream);
#else
    (void)stream;
#endif
}

void destroyEvent(CUevent_st* event) noexcept {
#if AUGUR_HAVE_CUDA
    (void)cudaEventDestroy(event);
#else
    (void)event;
#endif
}

void destroyGraphExec(CUgraphExec_st* exec) noexcept {
#if AUGUR_HAVE_CUDA
    (void)cudaGraphExecDestroy(exec);
#else
    (void)exec;
#endif
}

}  // namespace detail

// ---- Stream ----------------------------------------------------------------------------------------

Result<Stream, GpuError> Stream::create(StreamPriority priority) noexcept {
#if AUGUR_HAVE_CUDA
    int leastPriority = 0;
    int greatestPriority = 0;
    if (auto s = AUGUR_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority)); !s) {
        return fail(s.error());
    }
    Stream stream;
    const int value = priority == StreamPriority::High ? greatestPriority : leastPriority;
    if (smPartitionActive()) {  // every stream of the process in the partition's green context
        if (auto s = detail::createPartitionStream(stream.m_stream.out(), value); !s) {
            return fail(s.error());
        }
        return stream;
    }
    if (auto s = AUGUR_CUDA_CHECK(cudaStreamCreateWithPriority(stream.m_stream.out(), cudaStreamNonBlocking, value)); !s) {
        return fail(s.error());
    }
    return stream;
#else
    (void)priority;
    return fail(noCuda("Stream::create"));
#endif
}

GpuStatus Stream::synchronize() const noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
#else
    return fail(noCuda("Stream::synchronize"));
#endif
}

// ---- Event -----------------------------------------------------------------------------------------

Result<Event, GpuError> Event::create(bool timing) noexcept {
#if AUGUR_HAVE_CUDA
    Event event;
    const unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
    if (auto s = AUGUR_CUDA_CHECK(cudaEventCreateWithFlags(event.m_event.out(), flags)); !s) {
        return fail(s.error());
    }
    return event;
#else
    (void)timing;
    return fail(noCuda("Event::create"));
#endif
}

GpuStatus Event::record(StreamHandle stream) noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaEventRecord(m_event.get(), stream));
#else
    (void)stream;
    return fail(noCuda("Event::record"));
#endif
}

Result<EventState, GpuError> Event::query() const noexcept {
#if AUGUR_HAVE_CUDA
    const cudaError_t err = cudaEventQuery(m_event.get());
    if (err == cudaSuccess) {
        return EventState::Complete;
    }
    if (err == cudaErrorNotReady) {
        return EventState::Pending;
    }
    return fail(GpuError{static_cast<int>(err), "cudaEventQuery", __FILE__, __LINE__});
#else
    return fail(noCuda("Event::query"));
#endif
}

GpuStatus Event::synchronize() const noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaEventSynchronize(m_event.get()));
#else
    return fail(noCuda("Event::synchronize"));
#endif
}

Result<bool, GpuError> Event::waitPolling(std::int64_t poll_ns, std::int64_t timeout_ns) const noexcept {
    const std::int64_t start = monotonicNow_ns();
    for (;;) {
        auto state = query();
        if (!state) {
            return fail(state.error());
        }
        if (state.value() == EventState::Complete) {
            return true;
        }
        const std::int64_t now = monotonicNow_ns();
        if (now - start > timeout_ns) {
            return false;
        }
        sleepUntil_ns(now + poll_ns);
    }
}

Result<float, GpuError> Event::elapsed_ms(const Event& start, const Event& stop) noexcept {
#if AUGUR_HAVE_CUDA
    float ms = 0.0F;
    if (auto s = AUGUR_CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_event.get(), stop.m_event.get())); !s) {
        return fail(s.error());
    }
    return ms;
#else
    (void)start, (void)stop;
    return fail(noCuda("Event::elapsed_ms"));
#endif
}

// ---- Graph -----------------------------------------------------------------------------------------

Result<Graph, GpuError> Graph::capture(StreamHandle stream,
                                       const std::function<GpuStatus(StreamHandle)>& enqueue) noexcept {
#if AUGUR_HAVE_CUDA
    if (auto s = AUGUR_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal)); !s) {
        return fail(s.error());
    }
    const GpuStatus enqueued = enqueue(stream);
    cudaGraph_t graph = nullptr;
    const GpuStatus ended = AUGUR_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    if (!enqueued || !ended) {
        if (graph != nullptr) {
            (void)cudaGraphDestroy(graph);
        }
        (void)cudaGetLastError();
        return fail(!enqueued ? enqueued.error() : ended.error());
    }
    Graph result;
    const GpuStatus instantiated = AUGUR_CUDA_CHECK(cudaGraphInstantiate(result.m_exec.out(), graph, 0ULL));
    (void)cudaGraphDestroy(graph);
    if (!instantiated) {
        return fail(instantiated.error());
    }
    return result;
#else
    (void)stream;
    (void)enqueue;
    return fail(noCuda("Graph::capture"));
#endif
}

GpuStatus Graph::launch(StreamHandle stream) const noexcept {
#if AUGUR_HAVE_CUDA
    return AUGUR_CUDA_CHECK(cudaGraphLaunch(m_exec.get(), stream));
#else
    (void)stream;
    return fail(noCuda("Graph::launch"));
#endif
}

}  // namespace augur::platform
