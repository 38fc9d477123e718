// CSV input and output of augur-flock (formats in docs/flock-tool.md).
//
// Input rows: entity_id,step,x,y (a header line starting with a non-digit is skipped; '#' lines are
// comments). Entity ids are integers; they are mapped to dense indices in ascending order, so sorted
// indices are sorted ids. Steps are integers; the run spans min(step) … max(step), and a (entity, step)
// without a row is a missing sample. Output rows: window_start,window_end,size,entity_ids with the ids
// ascending and separated by ';'. Offline tool code: allocates freely.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/flock/flock_types.hpp"

namespace augur::apps::flock {

struct Trajectories {
    std::vector<std::int64_t> entityIds;  ///< dense index → CSV id (ascending)
    std::int64_t firstStep{0};            ///< CSV step of step 0
    int stepCount{0};
    std::vector<double> x_m;  ///< step-major
    std::vector<double> y_m;
    std::vector<std::uint8_t> present;

    [[nodiscard]] kernels::flock::TrajectoryView view() const noexcept {
        return {x_m.data(), y_m.data(), present.data(), static_cast<int>(entityIds.size()), stepCount};
    }
};

struct CsvError {
    std::size_t line{0};  ///< 1-based; 0 when not about one line
    std::string message;
    bool overMemoryLimit{false};  ///< the grid the input spans exceeds the memory limit
};

/// Bytes of the dense sample grid (x, y, present per entity and step) for `steps` × `entities`.
[[nodiscard]] constexpr double gridBytes(double steps, double entities) noexcept {
    return steps * entities * (2.0 * sizeof(double) + sizeof(std::uint8_t));
}

/// The memory limit of the tool unless the caller gives another (16 GiB).
inline constexpr double DEFAULT_MAX_MEMORY_BYTES = 16.0 * 1024.0 * 1024.0 * 1024.0;

/// "31.7 GiB", "412 MiB": a byte count for messages.
[[nodiscard]] std::string formatBytes(double bytes);

/// Parses the trajectory CSV. The dense grid spans every step from the first to the last for every
/// entity, so a sparse step range (steps 0 and 10^9) is large even for a short file: its size is
/// computed from the extents and the read fails, before allocating it, when it exceeds `maxGridBytes`
/// (the message gives both figures). Errors: malformed row, non-finite coordinate, duplicate
/// (entity, step), a grid over the limit or over 2^31 - 1 samples.
[[nodiscard]] Result<Trajectories, CsvError> readTrajectories(std::istream& in, double maxGridBytes = DEFAULT_MAX_MEMORY_BYTES);

/// Writes the header and one row per flock, windows and ids in the CSV's own numbering.
void writeFlocks(std::ostream& out, const Trajectories& trajectories, const kernels::flock::FlockList& flocks, int windowSteps);

}  // namespace augur::apps::flock
