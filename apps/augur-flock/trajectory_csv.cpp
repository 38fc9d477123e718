// CSV input and output of augur-flock.
#include "trajectory_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <istream>
#include <limits>
#include <ostream>
#include <string_view>
#include <unordered_map>

#include "augur_csv.hpp"

namespace augur::apps::flock {

namespace {

struct Row {
    std::int64_t entity;
    std::int64_t step;
    double x;
    double y;
};

}  // namespace

std::string formatBytes(double bytes) {
    constexpr double MIB = 1024.0 * 1024.0;
    constexpr double GIB = 1024.0 * MIB;
    char text[64];
    if (bytes >= GIB) {
        std::snprintf(text, sizeof(text), "%.1f GiB", bytes / GIB);
    } else {
        std::snprintf(text, sizeof(text), "%.0f MiB", std::ceil(bytes / MIB));
    }
    return text;
}

Result<Trajectories, CsvError> readTrajectories(std::istream& in, double maxGridBytes) {
    std::vector<Row> rows;
    csv::Reader reader(in);
    while (reader.next()) {
        const std::string_view text = reader.line();
        if (rows.empty() && !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' || text.front() == '+')) {
            continue;  // header
        }
        const auto& fields = reader.fields();
        Row row{};
        if (fields.size() != 4 || !csv::parseField(fields[0], row.entity) || !csv::parseField(fields[1], row.step) ||
            !csv::parseField(fields[2], row.x) || !csv::parseField(fields[3], row.y)) {
            return fail(CsvError{reader.lineNumber(), "expected entity_id,step,x,y"});
        }
        if (!std::isfinite(row.x) || !std::isfinite(row.y)) {
            return fail(CsvError{reader.lineNumber(), "coordinates must be finite"});
        }
        rows.push_back(row);
    }
    Trajectories t;
    if (rows.empty()) {
        return Result<Trajectories, CsvError>(std::move(t));
    }
    std::int64_t minStep = std::numeric_limits<std::int64_t>::max();
    std::int64_t maxStep = std::numeric_limits<std::int64_t>::min();
    for (const Row& row : rows) {
        t.entityIds.push_back(row.entity);
        minStep = std::min(minStep, row.step);
        maxStep = std::max(maxStep, row.step);
    }
    std::sort(t.entityIds.begin(), t.entityIds.end());
    t.entityIds.erase(std::unique(t.entityIds.begin(), t.entityIds.end()), t.entityIds.end());
    const double span = static_cast<double>(maxStep) - static_cast<double>(minStep) + 1.0;
    const auto n = static_cast<double>(t.entityIds.size());
    const std::string extent = "steps " + std::to_string(minStep) + " … " + std::to_string(maxStep) + " × " +
                               std::to_string(t.entityIds.size()) + " entities";
    if (gridBytes(span, n) > maxGridBytes) {
        return fail(CsvError{0, extent + " need a dense grid of " + formatBytes(gridBytes(span, n)) +
                                    ", over the memory limit of " + formatBytes(maxGridBytes), true});
    }
    if (span * n > static_cast<double>(std::numeric_limits<std::int32_t>::max())) {
        char samples[32];
        std::snprintf(samples, sizeof(samples), "%.0f", span * n);
        return fail(CsvError{0, extent + " are " + samples + " samples, over the limit of 2147483647"});
    }
    t.firstStep = minStep;
    t.stepCount = static_cast<int>(maxStep - minStep + 1);
    const std::size_t samples = static_cast<std::size_t>(t.stepCount) * t.entityIds.size();
    t.x_m.assign(samples, 0.0);
    t.y_m.assign(samples, 0.0);
    t.present.assign(samples, 0);
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < t.entityIds.size(); ++i) {
        index.emplace(t.entityIds[i], i);
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const Row& row = rows[r];
        const std::size_t k = static_cast<std::size_t>(row.step - minStep) * t.entityIds.size() + index.at(row.entity);
        if (t.present[k] != 0) {
            return fail(CsvError{0, "duplicate sample for entity " + std::to_string(row.entity) + " at step " + std::to_string(row.step)});
        }
        t.present[k] = 1;
        t.x_m[k] = row.x;
        t.y_m[k] = row.y;
    }
    return Result<Trajectories, CsvError>(std::move(t));
}

void writeFlocks(std::ostream& out, const Trajectories& trajectories, const kernels::flock::FlockList& flocks, int windowSteps) {
    out << "window_start,window_end,size,entity_ids\n";
    for (const kernels::flock::Flock& flock : flocks.flocks()) {
        const std::int64_t start = trajectories.firstStep + flock.windowStart;
        out << start << ',' << start + windowSteps - 1 << ',' << flock.memberCount << ',';
        const auto members = flocks.members(flock);
        for (std::size_t i = 0; i < members.size(); ++i) {
            out << (i == 0 ? "" : ";") << trajectories.entityIds[static_cast<std::size_t>(members[i])];
        }
        out << '\n';
    }
}

}  // namespace augur::apps::flock
