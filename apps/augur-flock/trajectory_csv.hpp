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
};

/// Parses the trajectory CSV. Errors: malformed row, non-finite coordinate, duplicate (entity, step),
/// a span of steps too large to hold.
[[nodiscard]] Result<Trajectories, CsvError> readTrajectories(std::istream& in);

/// Writes the header and one row per flock, windows and ids in the CSV's own numbering.
void writeFlocks(std::ostream& out, const Trajectories& trajectories, const kernels::flock::FlockList& flocks, int windowSteps);

}  // namespace augur::apps::flock
