#include "augur/hil/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <utility>

#include "augur_csv.hpp"

namespace augur::hil {
namespace {

namespace csv = apps::csv;

constexpr std::string_view SCENARIO_COLUMNS = "step,id,class,x_m,y_m,heading_rad,speed_mps,length_m,width_m";
constexpr std::string_view VEHICLE_COLUMNS = "id,sumo_id,vtype,first_step,last_step";
constexpr std::size_t SCENARIO_FIELDS = 9;
constexpr std::size_t VEHICLE_FIELDS = 5;

ScenarioError makeError(ScenarioErrorCode code, const std::string& file, std::size_t line, const std::string& what) {
    return ScenarioError{code, file + ":" + std::to_string(line) + ": " + what};
}

/// The `# key value` lines of scenario.csv up to and including its column line.
struct ScenarioHeader {
    std::string name;
    std::string mapFile;
    std::string seed;
    double step_s{0.0};
};

Result<ScenarioHeader, ScenarioError> readHeader(csv::Reader& reader, const std::string& scenarioFile,
                                                 std::string defaultName) {
    std::string name = std::move(defaultName);
    std::string mapFile;
    std::string seed;
    double step_s = 0.0;
    bool versionSeen = false;
    // Header: `# key value` lines, then the column line.
    while (true) {
        if (!reader.next(csv::Reader::Comments::Keep)) {
            return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, reader.lineNumber(), "no column header"));
        }
        const std::string_view text = reader.line();
        if (!reader.isComment()) {
            if (text != SCENARIO_COLUMNS) {
                return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, reader.lineNumber(),
                                      "columns must be " + std::string(SCENARIO_COLUMNS)));
            }
            break;
        }
        std::string_view body = text.substr(1);
        while (!body.empty() && body.front() == ' ') {
            body.remove_prefix(1);
        }
        const std::size_t space = body.find(' ');
        const std::string_view key = body.substr(0, space);
        const std::string_view value = space == std::string_view::npos ? std::string_view{} : body.substr(space + 1);
        if (key == "augur-scenario") {
            int version = 0;
            if (!csv::parseField(value, version) || version != SCENARIO_FORMAT_VERSION) {
                return fail(makeError(ScenarioErrorCode::UnsupportedVersion, scenarioFile, reader.lineNumber(),
                                      "format version '" + std::string(value) + "', this build reads " +
                                          std::to_string(SCENARIO_FORMAT_VERSION)));
            }
            versionSeen = true;
        } else if (key == "step_s") {
            if (!csv::parseField(value, step_s) || !(step_s > 0.0) || !std::isfinite(step_s)) {
                return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, reader.lineNumber(), "step_s must be finite and > 0"));
            }
        } else if (key == "map") {
            mapFile = std::string(value);
        } else if (key == "name") {
            name = std::string(value);
        } else if (key == "seed") {
            seed = std::string(value);
        }
    }
    if (!versionSeen || step_s <= 0.0 || mapFile.empty()) {
        return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, reader.lineNumber(),
                              "header needs '# augur-scenario', '# step_s' and '# map' lines"));
    }
    return ScenarioHeader{std::move(name), std::move(mapFile), std::move(seed), step_s};
}

/// The rows of scenario.csv after its header: the states and the step of each.
Result<void, ScenarioError> readStates(csv::Reader& reader, const std::string& scenarioFile,
                                       std::vector<GroundTruthState>& states, std::vector<std::size_t>& steps) {
    std::size_t previousStep = 0;
    while (reader.next()) {
        const auto& fields = reader.fields();
        if (fields.size() != SCENARIO_FIELDS) {
            return fail(makeError(ScenarioErrorCode::BadRow, scenarioFile, reader.lineNumber(),
                                  "expected " + std::to_string(SCENARIO_FIELDS) + " fields"));
        }
        std::size_t step = 0;
        GroundTruthState s;
        const bool ok = csv::parseField(fields[0], step) && step < MAX_SCENARIO_STEPS && csv::parseField(fields[1], s.id) &&
                        s.id != 0 && parseObjectClass(fields[2], s.objectClass) && csv::parseFinite(fields[3], s.x_m) &&
                        csv::parseFinite(fields[4], s.y_m) && csv::parseFinite(fields[5], s.heading_rad) &&
                        csv::parseFinite(fields[6], s.speed_mps) && s.speed_mps >= 0.0F && csv::parseFinite(fields[7], s.length_m) &&
                        s.length_m > 0.0F && csv::parseFinite(fields[8], s.width_m) && s.width_m > 0.0F;
        if (!ok) {
            return fail(makeError(ScenarioErrorCode::BadRow, scenarioFile, reader.lineNumber(),
                                  "a field is not a number in its domain (step < " + std::to_string(MAX_SCENARIO_STEPS) +
                                      ", id > 0, speed >= 0, size > 0, known class)"));
        }
        if (!states.empty() && step < previousStep) {
            return fail(makeError(ScenarioErrorCode::StepsOutOfOrder, scenarioFile, reader.lineNumber(),
                                  "step " + std::to_string(step) + " after step " + std::to_string(previousStep)));
        }
        previousStep = step;
        states.push_back(s);
        steps.push_back(step);
    }
    return {};
}

/// vehicles.csv, sorted by id.
Result<std::vector<ScenarioVehicle>, ScenarioError> readVehicles(const std::string& vehiclesFile) {
    std::ifstream vin(vehiclesFile);
    if (!vin) {
        return fail(ScenarioError{ScenarioErrorCode::CannotOpen, vehiclesFile + ": cannot open"});
    }
    std::vector<ScenarioVehicle> vehicles;
    csv::Reader vehicleReader(vin);
    bool columnsSeen = false;
    while (vehicleReader.next()) {
        const std::string_view text = vehicleReader.line();
        if (!columnsSeen) {
            if (text != VEHICLE_COLUMNS) {
                return fail(makeError(ScenarioErrorCode::BadHeader, vehiclesFile, vehicleReader.lineNumber(),
                                      "columns must be " + std::string(VEHICLE_COLUMNS)));
            }
            columnsSeen = true;
            continue;
        }
        const auto& fields = vehicleReader.fields();
        if (fields.size() != VEHICLE_FIELDS) {
            return fail(makeError(ScenarioErrorCode::BadRow, vehiclesFile, vehicleReader.lineNumber(),
                                  "expected " + std::to_string(VEHICLE_FIELDS) + " fields"));
        }
        ScenarioVehicle v;
        v.sumoId = std::string(fields[1]);
        v.vehicleType = std::string(fields[2]);
        if (!csv::parseField(fields[0], v.id) || v.id == 0 || !csv::parseField(fields[3], v.firstStep) ||
            !csv::parseField(fields[4], v.lastStep) || v.lastStep < v.firstStep) {
            return fail(makeError(ScenarioErrorCode::BadRow, vehiclesFile, vehicleReader.lineNumber(), "bad id or step range"));
        }
        vehicles.push_back(std::move(v));
    }
    std::sort(vehicles.begin(), vehicles.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return Result<std::vector<ScenarioVehicle>, ScenarioError>(std::move(vehicles));
}

/// Every state's road user has an entry in vehicles.csv (sorted by id).
Result<void, ScenarioError> checkVehiclesKnown(const std::vector<GroundTruthState>& states,
                                               const std::vector<ScenarioVehicle>& vehicles,
                                               const std::string& vehiclesFile) {
    for (const GroundTruthState& s : states) {
        const auto it = std::lower_bound(vehicles.begin(), vehicles.end(), s.id,
                                         [](const ScenarioVehicle& v, std::uint32_t id) { return v.id < id; });
        if (it == vehicles.end() || it->id != s.id) {
            return fail(ScenarioError{ScenarioErrorCode::UnknownVehicle,
                                      vehiclesFile + ": no entry for id " + std::to_string(s.id)});
        }
    }
    return {};
}

}  // namespace

const char* toString(ScenarioErrorCode code) noexcept {
    switch (code) {
        case ScenarioErrorCode::CannotOpen: return "cannot_open";
        case ScenarioErrorCode::BadHeader: return "bad_header";
        case ScenarioErrorCode::UnsupportedVersion: return "unsupported_version";
        case ScenarioErrorCode::BadRow: return "bad_row";
        case ScenarioErrorCode::StepsOutOfOrder: return "steps_out_of_order";
        case ScenarioErrorCode::DuplicateState: return "duplicate_state";
        case ScenarioErrorCode::UnknownVehicle: return "unknown_vehicle";
    }
    return "invalid";
}

bool parseObjectClass(std::string_view name, ObjectClass& out) noexcept {
    for (std::size_t i = 0; i < static_cast<std::size_t>(ObjectClass::Count); ++i) {
        const auto candidate = static_cast<ObjectClass>(i);
        if (name == toString(candidate)) {
            out = candidate;
            return true;
        }
    }
    return false;
}

Result<Scenario, ScenarioError> Scenario::fromStates(std::string name, double step_s, std::vector<GroundTruthState> states,
                                                     const std::vector<std::size_t>& stepOfState) {
    AUGUR_ASSERT(states.size() == stepOfState.size(), "Scenario::fromStates: one step per state");
    AUGUR_ASSERT(step_s > 0.0, "Scenario::fromStates: step_s must be positive");
    std::vector<std::size_t> order(states.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return stepOfState[a] != stepOfState[b] ? stepOfState[a] < stepOfState[b] : states[a].id < states[b].id;
    });
    Scenario sut;
    sut.m_name = std::move(name);
    sut.m_step_s = step_s;
    const std::size_t steps = states.empty() ? 0 : stepOfState[order.back()] + 1;
    sut.m_frameOffsets.assign(steps + 1, 0);
    sut.m_states.reserve(states.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        if (k > 0 && stepOfState[order[k - 1]] == stepOfState[i] && states[order[k - 1]].id == states[i].id) {
            return fail(ScenarioError{ScenarioErrorCode::DuplicateState,
                                      "id " + std::to_string(states[i].id) + " twice in step " +
                                          std::to_string(stepOfState[i])});
        }
        sut.m_states.push_back(states[i]);
        ++sut.m_frameOffsets[stepOfState[i] + 1];
    }
    for (std::size_t s = 0; s < steps; ++s) {
        sut.m_maxStatesPerStep = std::max(sut.m_maxStatesPerStep, sut.m_frameOffsets[s + 1]);
        sut.m_frameOffsets[s + 1] += sut.m_frameOffsets[s];
    }
    return Result<Scenario, ScenarioError>(std::move(sut));
}

Result<Scenario, ScenarioError> Scenario::load(const std::string& directory) {
    namespace fs = std::filesystem;
    const std::string scenarioFile = (fs::path(directory) / "scenario.csv").string();
    const std::string vehiclesFile = (fs::path(directory) / "vehicles.csv").string();
    std::ifstream in(scenarioFile);
    if (!in) {
        return fail(ScenarioError{ScenarioErrorCode::CannotOpen, scenarioFile + ": cannot open"});
    }
    csv::Reader reader(in);
    auto header = readHeader(reader, scenarioFile, fs::path(directory).filename().string());
    if (!header) {
        return fail(header.error());
    }
    std::vector<GroundTruthState> states;
    std::vector<std::size_t> steps;
    if (auto read = readStates(reader, scenarioFile, states, steps); !read) {
        return fail(read.error());
    }
    auto vehicles = readVehicles(vehiclesFile);
    if (!vehicles) {
        return fail(vehicles.error());
    }
    if (auto known = checkVehiclesKnown(states, *vehicles, vehiclesFile); !known) {
        return fail(known.error());
    }
    auto built = fromStates(std::move(header->name), header->step_s, std::move(states), steps);
    if (!built) {
        return fail(ScenarioError{built.error().code, scenarioFile + ": " + built.error().detail});
    }
    Scenario sut = std::move(built).value();
    sut.m_mapPath = fs::absolute(fs::path(directory) / header->mapFile).lexically_normal().string();
    sut.m_seed = std::move(header->seed);
    sut.m_vehicles = std::move(vehicles).value();
    return Result<Scenario, ScenarioError>(std::move(sut));
}

std::span<const GroundTruthState> Scenario::frame(std::size_t step) const noexcept {
    AUGUR_ASSERT(step < stepCount(), "Scenario::frame: step out of range");
    return std::span<const GroundTruthState>(m_states.data() + m_frameOffsets[step],
                                             m_frameOffsets[step + 1] - m_frameOffsets[step]);
}

const GroundTruthState* Scenario::find(std::size_t step, std::uint32_t id) const noexcept {
    if (step >= stepCount()) {
        return nullptr;
    }
    const auto states = frame(step);
    const auto it = std::lower_bound(states.begin(), states.end(), id,
                                     [](const GroundTruthState& s, std::uint32_t key) { return s.id < key; });
    return it != states.end() && it->id == id ? &*it : nullptr;
}

std::uint32_t Scenario::idOfSumoVehicle(std::string_view sumoId) const noexcept {
    for (const ScenarioVehicle& v : m_vehicles) {
        if (v.sumoId == sumoId) {
            return v.id;
        }
    }
    return 0;
}

}  // namespace augur::hil
