// Shared benchmark harness: timing by median over repetitions after warm-up, and Markdown output.
//
// Host timings use the monotonic clock; device timings use CUDA events around the enqueued work
// (never a host clock around asynchronous work). Every benchmark prints rows of Markdown tables so
// that scripts/gpu-check can collect them; a program that records its tables (recordTablesInto) also
// writes each numeric cell to its result file (result_file.hpp), from which docs/benchmarks.md is made.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "augur/bench/result_file.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::bench {

/// Median of `values` (copied; empty → 0).
inline double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

/// The q-quantile of `values` (copied; q in [0, 1], 1 the largest; the nearest of the sorted values by
/// linear rank; empty → 0).
inline double percentile(std::vector<double> values, double q) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const auto i = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(i, values.size() - 1)];
}

/// Median wall time of `fn()` in microseconds.
template <typename Fn>
double hostMedian_us(Fn&& fn, int warmup = 3, int repetitions = 20) {
    for (int i = 0; i < warmup; ++i) {
        fn();
    }
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(repetitions));
    for (int i = 0; i < repetitions; ++i) {
        const auto start = platform::monotonicNow_ns();
        fn();
        times.push_back(static_cast<double>(platform::monotonicNow_ns() - start) * 1e-3);
    }
    return median(std::move(times));
}

/// No work before a timed call (deviceMedian_us's default).
struct NothingBefore {
    bool operator()(platform::StreamHandle /*stream*/) const { return true; }
};

/// Median device time of the work `enqueue(stream)` puts on `stream`, in microseconds, measured with
/// CUDA events. `before(stream)` runs before each timed call's start event (false: a failure), e.g. to
/// queue work that keeps the device busy while the host submits the call. Returns a negative value if
/// a CUDA call failed (the caller reports it).
template <typename Fn, typename Before = NothingBefore>
double deviceMedian_us(platform::StreamHandle stream, Fn&& enqueue, int warmup = 5, int repetitions = 50, Before&& before = {}) {
    auto start = platform::Event::create(true);
    auto stop = platform::Event::create(true);
    if (!start || !stop) {
        return -1.0;
    }
    for (int i = 0; i < warmup; ++i) {
        enqueue(stream);
    }
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(repetitions));
    for (int i = 0; i < repetitions; ++i) {
        if (!before(stream) || !start->record(stream)) {
            return -1.0;
        }
        enqueue(stream);
        if (!stop->record(stream) || !stop->synchronize()) {
            return -1.0;
        }
        auto ms = platform::Event::elapsed_ms(*start, *stop);
        if (!ms) {
            return -1.0;
        }
        times.push_back(static_cast<double>(*ms) * 1e3);
    }
    return median(std::move(times));
}

/// Bytes of the memset that queuedDeviceMedian_us runs before each timed call: about 20 µs at 3 TB/s,
/// longer than the host takes to submit one call (a graph launch, a few kernels).
inline constexpr std::size_t QUEUE_BEHIND_BYTES = std::size_t{64} << 20U;

/// deviceMedian_us with each timed call queued behind a memset of `busy` (QUEUE_BEHIND_BYTES) that
/// keeps the device occupied while the host submits the call: the interval is the device time of one
/// call without the host's submission latency, which the plain single-call time includes. The memset
/// also evicts the call's data from L2, as other work between two calls would.
template <typename Fn>
double queuedDeviceMedian_us(platform::StreamHandle stream, const platform::DeviceMemory& busy, Fn&& enqueue,
                             int warmup = 5, int repetitions = 50) {
    int fill = 0;
    return deviceMedian_us(stream, std::forward<Fn>(enqueue), warmup, repetitions, [&](platform::StreamHandle s) {
        return platform::fillDevice(busy.get(), fill++ & 0xFF, busy.bytes(), s).hasValue();
    });
}

/// Achievable device memory bandwidth (GB/s, read + write bytes per second) from a device-to-device
/// copy of `bytes` (far larger than the L2), the source filled first; negative if a CUDA call failed.
/// What the benchmarks divide by for their bytes-over-bandwidth floors and fractions of bandwidth.
inline double measureCopyBandwidth_GBps(platform::StreamHandle stream, std::size_t bytes) {
    auto src = platform::DeviceMemory::allocate(bytes);
    auto dst = platform::DeviceMemory::allocate(bytes);
    if (!src || !dst || !platform::fillDevice(src->get(), 1, bytes, stream)) {
        return -1.0;
    }
    const double us = deviceMedian_us(stream, [&](platform::StreamHandle s) {
        static_cast<void>(platform::copyDeviceToDevice(dst->get(), src->get(), bytes, s));
    });
    return us > 0.0 ? 2.0 * static_cast<double>(bytes) / (us * 1e3) : -1.0;
}

/// The result file that Tables record their rows into (recordTablesInto); null: none.
inline ResultFile*& tableResults() {
    static ResultFile* results = nullptr;
    return results;
}

/// From now on, every Table row adds its numeric cells to `results` (null: stop), one result per cell:
/// metric "TITLE; KEY COLUMN VALUE, …: COLUMN" (ResultFile::addPrinted). Offline benchmark code, one thread.
inline void recordTablesInto(ResultFile* results) { tableResults() = results; }

/// A Markdown table printed as it fills, so partial output survives a timeout. The first `keyColumns`
/// cells of a row name it (in the recorded metrics); the others are its figures.
class Table {
public:
    Table(std::string title, std::vector<std::string> columns, std::size_t keyColumns = 1)
        : m_title(std::move(title)), m_columns(std::move(columns)), m_keyColumns(keyColumns) {
        // A column named like an earlier one ("speed-up" after each time) is named after the column
        // before it in the metrics, so that every metric of a row is distinct.
        for (std::size_t i = 0; i < m_columns.size(); ++i) {
            const bool repeated = std::find(m_columns.begin(), m_columns.begin() + static_cast<std::ptrdiff_t>(i),
                                            m_columns[i]) != m_columns.begin() + static_cast<std::ptrdiff_t>(i);
            m_metricColumns.push_back(repeated ? m_columns[i] + " (" + m_columns[i - 1] + ")" : m_columns[i]);
        }
        std::printf("\n### %s\n\n|", m_title.c_str());
        for (const auto& c : m_columns) {
            std::printf(" %s |", c.c_str());
        }
        std::printf("\n|");
        for (std::size_t i = 0; i < m_columns.size(); ++i) {
            std::printf(" --- |");
        }
        std::printf("\n");
        std::fflush(stdout);
    }

    void row(const std::vector<std::string>& cells) const {
        std::printf("|");
        for (const auto& c : cells) {
            std::printf(" %s |", c.c_str());
        }
        std::printf("\n");
        std::fflush(stdout);
        if (ResultFile* results = tableResults()) {
            std::string key;
            for (std::size_t i = 0; i < std::min(m_keyColumns, cells.size()); ++i) {
                key += (i == 0 ? "; " : ", ") + (i < m_columns.size() ? m_columns[i] + " " : std::string()) + cells[i];
            }
            for (std::size_t i = m_keyColumns; i < cells.size() && i < m_columns.size(); ++i) {
                results->addPrinted(m_title + key + ": " + m_metricColumns[i], cells[i]);
            }
        }
    }

private:
    std::string m_title;
    std::vector<std::string> m_columns;
    std::vector<std::string> m_metricColumns;
    std::size_t m_keyColumns;
};

/// Formats a number with `digits` significant decimals.
inline std::string fmt(double value, int digits = 2) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
    return buffer;
}

}  // namespace augur::bench
