#include "augur/hil/recording.hpp"

#include <cstring>

#include "augur/core/panic.hpp"

namespace augur::hil {

bool recordTrackList(const TrackList& message, RecordedTrackList& out) {
    if (message.header.schemaVersion != MESSAGE_SCHEMA_VERSION || message.trackCount > MAX_TRACKS) {
        return false;
    }
    out.cycle = message.header.sequence;
    out.stamp_ns = message.header.stamp_ns;
    out.stale = message.stale != 0;
    out.tracks.assign(message.tracks, message.tracks + message.trackCount);
    return true;
}

bool recordIntentionList(const IntentionList& message, RecordedIntentionList& out) {
    if (message.header.schemaVersion != MESSAGE_SCHEMA_VERSION || message.vehicleCount > MAX_PREDICTED_VEHICLES) {
        return false;
    }
    out.cycle = message.header.sequence;
    out.stamp_ns = message.header.stamp_ns;
    out.stale = message.stale != 0;
    out.vehicles.assign(message.vehicles, message.vehicles + message.vehicleCount);
    return true;
}

bool recordPrediction(const MotionPrediction& message, RecordedPrediction& out) {
    const OccupancyGrid& grid = message.grid;
    if (message.header.schemaVersion != MESSAGE_SCHEMA_VERSION || message.vehicleCount > MAX_PREDICTED_VEHICLES ||
        message.horizonSteps > MAX_HORIZON_STEPS || grid.frameCount > MAX_GRID_FRAMES ||
        grid.widthCells > MAX_GRID_SIDE_CELLS || grid.heightCells > MAX_GRID_SIDE_CELLS) {
        return false;
    }
    for (std::uint32_t v = 0; v < message.vehicleCount; ++v) {
        if (message.vehicles[v].corridorCount > MAX_CORRIDORS_PER_VEHICLE) {
            return false;
        }
    }
    out.cycle = message.header.sequence;
    out.stamp_ns = message.header.stamp_ns;
    out.sourceStamp_ns = message.sourceStamp_ns;
    out.mode = message.mode;
    out.stale = message.stale != 0;
    out.step_s = message.step_s;
    out.horizonSteps = message.horizonSteps;
    out.vehicles.assign(message.vehicles, message.vehicles + message.vehicleCount);
    RecordedGrid& g = out.grid;
    g.originX_m = grid.originX_m;
    g.originY_m = grid.originY_m;
    g.resolution_m = grid.resolution_m;
    g.frameInterval_s = grid.frameInterval_s;
    g.widthCells = grid.widthCells;
    g.heightCells = grid.heightCells;
    g.frameCount = grid.frameCount;
    const std::size_t cellsPerFrame = static_cast<std::size_t>(grid.widthCells) * grid.heightCells;
    g.cells.resize(cellsPerFrame * grid.frameCount);
    for (std::uint32_t f = 0; f < grid.frameCount; ++f) {
        std::memcpy(g.cells.data() + f * cellsPerFrame, grid.cells[f], cellsPerFrame * sizeof(std::uint16_t));
    }
    return true;
}

bool recordPlatoonList(const PlatoonList& message, RecordedPlatoonList& out) {
    if (message.header.schemaVersion != MESSAGE_SCHEMA_VERSION || message.platoonCount > MAX_PLATOONS) {
        return false;
    }
    out.cycle = message.header.sequence;
    out.stamp_ns = message.header.stamp_ns;
    out.stale = message.stale != 0;
    out.windowCycles = message.windowCycles;
    out.truncated = message.truncated;
    out.platoons.assign(message.platoons, message.platoons + message.platoonCount);
    return true;
}

void restoreGrid(const RecordedGrid& recorded, OccupancyGrid& out) noexcept {
    AUGUR_ASSERT(recorded.frameCount <= MAX_GRID_FRAMES && recorded.widthCells <= MAX_GRID_SIDE_CELLS &&
                     recorded.heightCells <= MAX_GRID_SIDE_CELLS &&
                     recorded.cells.size() ==
                         static_cast<std::size_t>(recorded.frameCount) * recorded.widthCells * recorded.heightCells,
                 "restoreGrid: recorded grid out of the compiled limits");
    out.originX_m = recorded.originX_m;
    out.originY_m = recorded.originY_m;
    out.resolution_m = recorded.resolution_m;
    out.frameInterval_s = recorded.frameInterval_s;
    out.widthCells = recorded.widthCells;
    out.heightCells = recorded.heightCells;
    out.frameCount = recorded.frameCount;
    const std::size_t cellsPerFrame = static_cast<std::size_t>(recorded.widthCells) * recorded.heightCells;
    for (std::uint32_t f = 0; f < recorded.frameCount; ++f) {
        std::memcpy(out.cells[f], recorded.cells.data() + f * cellsPerFrame, cellsPerFrame * sizeof(std::uint16_t));
    }
}

}  // namespace augur::hil
