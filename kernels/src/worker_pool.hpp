// A fixed set of CPU worker threads started at init, for the CPU references' data-parallel loops
// (particle filter, flocks).
//
// Work is split by a fixed partition (worker w of W takes the w-th contiguous share), so results do not
// depend on scheduling. run() allocates nothing: the task is a function pointer plus a context pointer.
// The calling thread acts as worker 0.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace augur::kernels::detail {

class WorkerPool {
public:
    using Task = void (*)(void* context, int worker) noexcept;

    /// Starts `workers` - 1 threads (workers ≥ 1). Init phase.
    explicit WorkerPool(int workers);
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool();

    [[nodiscard]] int size() const noexcept { return m_workers; }

    /// Runs task(context, w) for every worker w and returns when all have finished. Not reentrant.
    void run(Task task, void* context) noexcept;

    /// Convenience: runs `fn(worker)` on every worker.
    template <typename Fn>
    void forEach(Fn& fn) noexcept {
        run([](void* context, int worker) noexcept { (*static_cast<Fn*>(context))(worker); }, &fn);
    }

private:
    void loop(int worker) noexcept;

    int m_workers{1};
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_start;
    std::condition_variable m_done;
    Task m_task{nullptr};
    void* m_context{nullptr};
    std::uint64_t m_generation{0};
    int m_pending{0};
    bool m_stop{false};
};

/// The share [begin, end) of `count` items that worker `worker` of `workers` takes.
struct Share {
    std::int64_t begin;
    std::int64_t end;
};
[[nodiscard]] inline Share shareOf(std::int64_t count, int worker, int workers) noexcept {
    return {count * worker / workers, count * (worker + 1) / workers};
}

}  // namespace augur::kernels::detail
