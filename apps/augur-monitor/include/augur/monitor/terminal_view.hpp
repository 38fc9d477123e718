// augur-monitor's live view: a table redrawn in place (ANSI home + clear), once a second:
//
//   augur-monitor  cycle 1234  mode nominal  last health 12 ms ago  input age 80 ms  OK
//   stage       budget ms    p50 ms    p99 ms    max ms  over budget
//   ingest            5.0     0.02     0.05     0.10             0
//   ...
//   cycle           200.0    38.10    52.90    60.00   misses 0
//   counters: health 1234, watchdog alarms 0, missing 0, order violations 0, restarts 0, rejected 0, ...
//   active: degraded|input_stale
//
// p50 / p99 / max are over the whole monitoring run (the supervisor's histograms, about 9 % wide bins).
// Run phase: renderView() is noexcept and allocation-free (a fixed buffer).
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/monitor/supervisor.hpp"

namespace augur::monitor {

/// The view as text into `out` (capacity `size`, NUL-terminated, cut short if needed); `ansi` prefixes
/// the escape sequence that moves the cursor home and clears the screen. Returns the length written.
std::size_t renderView(const Supervisor& supervisor, std::int64_t now_ns, bool ansi, char* out,
                       std::size_t size) noexcept;

}  // namespace augur::monitor
