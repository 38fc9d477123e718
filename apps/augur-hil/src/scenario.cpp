#include "augur/hil/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <utility>

namespace augur::hil {
namespace {

constexpr std::string_view SCENARIO_COLUMNS = "step,id,class,x_m,y_m,heading_rad,speed_mps,length_m,width_m";
constexpr std::string_view VEHICLE_COLUMNS = "id,sumo_id,vtype,first_step,last_step";
constexpr std::size_t SCENARIO_FIELDS = 9;
constexpr std::size_t VEHICLE_FIELDS = 5;

ScenarioError makeError(ScenarioErrorCode code, const std::string& file, std::size_t line, const std::string& what) {
    return ScenarioError{code, file + ":" + std::to_string(line) + ": " + what};
}

/// Splits `line` at commas into `out` (views into `line`); returns the field count.
std::size_t splitCsv(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        out.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) {
            break;
        }
        start = comma + 1;
    }
    return out.size();
}

template <typename T>
bool parseNumber(std::string_view text, T& out) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

bool parseFloat(std::string_view text, float& out) { return parseNumber(text, out) && std::isfinite(out); }

std::string_view trimRight(std::string_view s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) {
        s.remove_suffix(1);
    }
    return s;
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
    std::string name = fs::path(directory).filename().string();
    std::string mapFile;
    std::string seed;
    double step_s = 0.0;
    bool versionSeen = false;
    std::string line;
    std::size_t lineNo = 0;
    std::vector<std::string_view> fields;
    // Header: `# key value` lines, then the column line.
    while (true) {
        if (!std::getline(in, line)) {
            return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, lineNo, "no column header"));
        }
        ++lineNo;
        const std::string_view text = trimRight(line);
        if (text.empty()) {
            continue;
        }
        if (text.front() != '#') {
            if (text != SCENARIO_COLUMNS) {
                return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, lineNo,
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
            if (!parseNumber(value, version) || version != SCENARIO_FORMAT_VERSION) {
                return fail(makeError(ScenarioErrorCode::UnsupportedVersion, scenarioFile, lineNo,
                                      "format version '" + std::string(value) + "', this build reads " +
                                          std::to_string(SCENARIO_FORMAT_VERSION)));
            }
            versionSeen = true;
        } else if (key == "step_s") {
            if (!parseNumber(value, step_s) || !(step_s > 0.0) || !std::isfinite(step_s)) {
                return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, lineNo, "step_s must be finite and > 0"));
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
        return fail(makeError(ScenarioErrorCode::BadHeader, scenarioFile, lineNo,
                              "header needs '# augur-scenario', '# step_s' and '# map' lines"));
    }

    std::vector<GroundTruthState> states;
    std::vector<std::size_t> steps;
    std::size_t previousStep = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const std::string_view text = trimRight(line);
        if (text.empty()) {
            continue;
        }
        if (splitCsv(text, fields) != SCENARIO_FIELDS) {
            return fail(makeError(ScenarioErrorCode::BadRow, scenarioFile, lineNo,
                                  "expected " + std::to_string(SCENARIO_FIELDS) + " fields"));
        }
        std::size_t step = 0;
        GroundTruthState s;
        const bool ok = parseNumber(fields[0], step) && step < MAX_SCENARIO_STEPS && parseNumber(fields[1], s.id) &&
                        s.id != 0 && parseObjectClass(fields[2], s.objectClass) && parseFloat(fields[3], s.x_m) &&
                        parseFloat(fields[4], s.y_m) && parseFloat(fields[5], s.heading_rad) &&
                        parseFloat(fields[6], s.speed_mps) && s.speed_mps >= 0.0F && parseFloat(fields[7], s.length_m) &&
                        s.length_m > 0.0F && parseFloat(fields[8], s.width_m) && s.width_m > 0.0F;
        if (!ok) {
            return fail(makeError(ScenarioErrorCode::BadRow, scenarioFile, lineNo,
                                  "a field is not a number in its domain (step < " + std::to_string(MAX_SCENARIO_STEPS) +
                                      ", id > 0, speed >= 0, size > 0, known class)"));
        }
        if (!states.empty() && step < previousStep) {
            return fail(makeError(ScenarioErrorCode::StepsOutOfOrder, scenarioFile, lineNo,
                                  "step " + std::to_string(step) + " after step " + std::to_string(previousStep)));
        }
        previousStep = step;
        states.push_back(s);
        steps.push_back(step);
    }

    std::ifstream vin(vehiclesFile);
    if (!vin) {
        return fail(ScenarioError{ScenarioErrorCode::CannotOpen, vehiclesFile + ": cannot open"});
    }
    std::vector<ScenarioVehicle> vehicles;
    lineNo = 0;
    bool columnsSeen = false;
    while (std::getline(vin, line)) {
        ++lineNo;
        const std::string_view text = trimRight(line);
        if (text.empty() || text.front() == '#') {
            continue;
        }
        if (!columnsSeen) {
            if (text != VEHICLE_COLUMNS) {
                return fail(makeError(ScenarioErrorCode::BadHeader, vehiclesFile, lineNo,
                                      "columns must be " + std::string(VEHICLE_COLUMNS)));
            }
            columnsSeen = true;
            continue;
        }
        if (splitCsv(text, fields) != VEHICLE_FIELDS) {
            return fail(makeError(ScenarioErrorCode::BadRow, vehiclesFile, lineNo,
                                  "expected " + std::to_string(VEHICLE_FIELDS) + " fields"));
        }
        ScenarioVehicle v;
        v.sumoId = std::string(fields[1]);
        v.vehicleType = std::string(fields[2]);
        if (!parseNumber(fields[0], v.id) || v.id == 0 || !parseNumber(fields[3], v.firstStep) ||
            !parseNumber(fields[4], v.lastStep) || v.lastStep < v.firstStep) {
            return fail(makeError(ScenarioErrorCode::BadRow, vehiclesFile, lineNo, "bad id or step range"));
        }
        vehicles.push_back(std::move(v));
    }
    std::sort(vehicles.begin(), vehicles.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (const GroundTruthState& s : states) {
        const auto it = std::lower_bound(vehicles.begin(), vehicles.end(), s.id,
                                         [](const ScenarioVehicle& v, std::uint32_t id) { return v.id < id; });
        if (it == vehicles.end() || it->id != s.id) {
            return fail(ScenarioError{ScenarioErrorCode::UnknownVehicle,
                                      vehiclesFile + ": no entry for id " + std::to_string(s.id)});
        }
    }

    auto built = fromStates(std::move(name), step_s, std::move(states), steps);
    if (!built) {
        return fail(ScenarioError{built.error().code, scenarioFile + ": " + built.error().detail});
    }
    Scenario sut = std::move(built).value();
    sut.m_mapPath = fs::absolute(fs::path(directory) / mapFile).lexically_normal().string();
    sut.m_seed = std::move(seed);
    sut.m_vehicles = std::move(vehicles);
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
