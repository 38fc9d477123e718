// Fixed CPU worker threads for the CPU references' data-parallel loops (named "augur-worker").
#include "worker_pool.hpp"

#include "augur/platform/realtime.hpp"

namespace augur::kernels::detail {

WorkerPool::WorkerPool(int workers) : m_workers(workers < 1 ? 1 : workers) {
    m_threads.reserve(static_cast<std::size_t>(m_workers - 1));
    for (int w = 1; w < m_workers; ++w) {
        m_threads.emplace_back([this, w] { loop(w); });
        platform::nameThread(m_threads.back(), "augur-worker");
    }
}

WorkerPool::~WorkerPool() {
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_start.notify_all();
    for (auto& thread : m_threads) {
        thread.join();
    }
}

void WorkerPool::run(Task task, void* context) noexcept {
    {
        const std::lock_guard lock(m_mutex);
        m_task = task;
        m_context = context;
        m_pending = m_workers - 1;
        ++m_generation;
    }
    m_start.notify_all();
    task(context, 0);
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [this] { return m_pending == 0; });
}

void WorkerPool::loop(int worker) noexcept {
    std::uint64_t seen = 0;
    for (;;) {
        Task task = nullptr;
        void* context = nullptr;
        {
            std::unique_lock lock(m_mutex);
            m_start.wait(lock, [this, seen] { return m_stop || m_generation != seen; });
            if (m_stop) {
                return;
            }
            seen = m_generation;
            task = m_task;
            context = m_context;
        }
        task(context, worker);
        {
            const std::lock_guard lock(m_mutex);
            --m_pending;
        }
        m_done.notify_one();
    }
}

}  // namespace augur::kernels::detail
