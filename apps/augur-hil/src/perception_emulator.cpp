#include "augur/hil/perception_emulator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace augur::hil {
namespace {

// Random channels: each draw of a (step, id) pair has its own stream.
enum class Channel : std::uint64_t {
    NoiseX = 0, NoiseY, NoiseHeading, NoiseSpeed, Dropout, FalseId, Shuffle, ClutterCount, Clutter
};

constexpr std::size_t NEVER = static_cast<std::size_t>(-1);
constexpr std::uint32_t FRESH_ID_BITS = 30;
constexpr std::uint32_t FRESH_ID_MASK = (1U << FRESH_ID_BITS) - 1U;
constexpr std::uint64_t FRESH_IDS_PER_LIST = 512;  ///< objects use slots 0 … 127, clutter 256 … 511
constexpr std::uint64_t CLUTTER_SLOT = 256;

/// SplitMix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

/// Counter-based random bits for (seed, step, id, channel, draw).
constexpr std::uint64_t counterBits(std::uint64_t seed, std::uint64_t step, std::uint32_t id, Channel channel,
                                    std::uint64_t draw) noexcept {
    return mix64(mix64(mix64(mix64(mix64(seed) ^ step) ^ id) ^ static_cast<std::uint64_t>(channel)) ^ draw);
}

/// Uniform in the open interval (0, 1) from the top 53 bits.
constexpr double uniformOpen(std::uint64_t bits) noexcept {
    return (static_cast<double>(bits >> 11U) + 0.5) * 0x1.0p-53;
}

/// Standard normal by Box–Muller from two independent uniforms.
double standardNormal(std::uint64_t seed, std::uint64_t step, std::uint32_t id, Channel channel) noexcept {
    const double u1 = uniformOpen(counterBits(seed, step, id, channel, 0));
    const double u2 = uniformOpen(counterBits(seed, step, id, channel, 1));
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// A fresh id for slot `index` of the list of `step`: a bijection of (step, index) on 30 bits (odd
/// multiplications and xor-shifts, each invertible modulo 2^30), so ids are unique within a list (and
/// across lists below 2^21 steps) yet look random; offset to FRESH_ID_BASE.
constexpr std::uint32_t freshId(std::uint64_t seed, std::size_t step, std::uint64_t index) noexcept {
    auto x = static_cast<std::uint32_t>((static_cast<std::uint64_t>(step) * FRESH_IDS_PER_LIST + index) & FRESH_ID_MASK);
    x ^= static_cast<std::uint32_t>(mix64(seed)) & FRESH_ID_MASK;
    for (int round = 0; round < 3; ++round) {
        x = (x * 0x2C1B3C6DU) & FRESH_ID_MASK;
        x ^= x >> 15U;
        x = (x * 0x297A2D39U) & FRESH_ID_MASK;
        x ^= x >> 12U;
    }
    return FRESH_ID_BASE + x;
}

/// Poisson draw of mean `rate` (Knuth's product of uniforms), capped at `cap`.
std::uint32_t poisson(double rate, std::uint64_t seed, std::uint64_t step, std::uint32_t cap) noexcept {
    const double limit = std::exp(-rate);
    double product = 1.0;
    std::uint32_t k = 0;
    for (;;) {
        product *= uniformOpen(counterBits(seed, step, 0, Channel::ClutterCount, k));
        if (product <= limit || k == cap) {
            return k;
        }
        ++k;
    }
}

float wrapAngle(float a) noexcept {
    constexpr double TWO_PI = 2.0 * std::numbers::pi;
    double w = std::fmod(static_cast<double>(a) + std::numbers::pi, TWO_PI);
    if (w <= 0.0) {
        w += TWO_PI;
    }
    return static_cast<float>(w - std::numbers::pi);
}

bool validStd(float s) noexcept { return std::isfinite(s) && s >= 0.0F; }
bool validProbability(float p) noexcept { return std::isfinite(p) && p >= 0.0F && p <= 1.0F; }

}  // namespace

const char* toString(PerceptionConfigError error) noexcept {
    switch (error) {
        case PerceptionConfigError::EgoNotInScenario: return "ego_not_in_scenario";
        case PerceptionConfigError::InvalidRange: return "invalid_range";
        case PerceptionConfigError::InvalidNoise: return "invalid_noise";
        case PerceptionConfigError::InvalidProbability: return "invalid_probability";
        case PerceptionConfigError::InvalidCapacity: return "invalid_capacity";
        case PerceptionConfigError::InvalidClutter: return "invalid_clutter";
    }
    return "invalid";
}

PerceptionEmulator::PerceptionEmulator(const Scenario& scenario, const PerceptionConfig& config)
    : m_scenario(&scenario), m_config(config) {}

Result<PerceptionEmulator, PerceptionConfigError> PerceptionEmulator::create(const Scenario& scenario,
                                                                             const PerceptionConfig& config) {
    if (!std::isfinite(config.range_m) || config.range_m <= 0.0F) {
        return fail(PerceptionConfigError::InvalidRange);
    }
    if (!validStd(config.stdPosition_m) || !validStd(config.stdHeading_rad) || !validStd(config.stdSpeed_mps)) {
        return fail(PerceptionConfigError::InvalidNoise);
    }
    if (!validProbability(config.dropoutProbability) || !validProbability(config.falseIdProbability) ||
        !validProbability(config.idShuffleProbability)) {
        return fail(PerceptionConfigError::InvalidProbability);
    }
    if (config.maxObjects == 0 || config.maxObjects > MAX_OBJECTS) {
        return fail(PerceptionConfigError::InvalidCapacity);
    }
    if (!std::isfinite(config.clutterRate) || config.clutterRate < 0.0F ||
        config.clutterRate > static_cast<float>(MAX_OBJECTS)) {
        return fail(PerceptionConfigError::InvalidClutter);
    }
    std::uint32_t maxId = 0;
    bool egoSeen = false;
    for (std::size_t step = 0; step < scenario.stepCount(); ++step) {
        for (const GroundTruthState& s : scenario.frame(step)) {
            maxId = std::max(maxId, s.id);
            egoSeen = egoSeen || s.id == config.egoId;
        }
    }
    if (!egoSeen) {
        return fail(PerceptionConfigError::EgoNotInScenario);
    }
    AUGUR_ASSERT(maxId < FALSE_ID_BASE, "scenario ids must stay below FALSE_ID_BASE");
    PerceptionEmulator sut(scenario, config);
    sut.m_currentId.resize(static_cast<std::size_t>(maxId) + 1);
    for (std::uint32_t id = 0; id <= maxId; ++id) {
        sut.m_currentId[id] = id;
    }
    // Each state switches at most twice per step (a false id, then a re-appearance).
    sut.m_falseIdOwner.resize(2 * scenario.stateCount());
    sut.m_candidates.resize(scenario.maxStatesPerStep());
    sut.m_lastEmittedStep.assign(static_cast<std::size_t>(maxId) + 1, NEVER);
    sut.m_emitted.resize(scenario.stepCount() * config.maxObjects);
    sut.m_emittedCount.assign(scenario.stepCount(), 0);
    return Result<PerceptionEmulator, PerceptionConfigError>(std::move(sut));
}

EmitStatus PerceptionEmulator::emit(std::size_t step, ObjectList& out) noexcept {
    if (step >= m_scenario->stepCount()) {
        return EmitStatus::StepOutOfRange;
    }
    const GroundTruthState* ego = m_scenario->find(step, m_config.egoId);
    if (ego == nullptr) {
        return EmitStatus::EgoAbsent;
    }
    const auto states = m_scenario->frame(step);
    const std::size_t candidateCount = gatherCandidates(*ego, states);

    out.header.schemaVersion = MESSAGE_SCHEMA_VERSION;
    out.header.reserved = 0;
    out.header.sequence = m_nextSequence++;
    out.header.stamp_ns = m_config.startStamp_ns +
                          static_cast<std::int64_t>(std::llround(static_cast<double>(step) * m_scenario->step_s() * 1e9));
    out.ego = EgoState{ego->x_m, ego->y_m, ego->heading_rad, ego->speed_mps};
    out.reserved = 0;
    std::uint32_t count = emitTracked(step, states, candidateCount, out);
    shuffleIds(step, count, out);
    count = addClutter(step, *ego, count, out);
    for (std::uint32_t i = 0; i < count; ++i) {
        m_emitted[step * m_config.maxObjects + i].perceivedId = out.objects[i].id;
    }
    m_emittedCount[step] = count;
    out.objectCount = count;
    ++m_stats.listsEmitted;
    m_stats.objectsEmitted += count;
    return EmitStatus::Emitted;
}

/// The states within range of the ego (the ego itself aside) into m_candidates, nearest first; ties by
/// id (state order) so the list is fully determined. Returns how many.
std::size_t PerceptionEmulator::gatherCandidates(const GroundTruthState& ego,
                                                 std::span<const GroundTruthState> states) noexcept {
    std::size_t candidateCount = 0;
    for (std::size_t i = 0; i < states.size(); ++i) {
        const GroundTruthState& s = states[i];
        if (s.id == m_config.egoId) {
            continue;
        }
        const float distance_m = std::hypot(s.x_m - ego.x_m, s.y_m - ego.y_m);
        if (distance_m <= m_config.range_m) {
            m_candidates[candidateCount++] = Candidate{distance_m, static_cast<std::uint32_t>(i)};
        }
    }
    std::sort(m_candidates.begin(), m_candidates.begin() + static_cast<std::ptrdiff_t>(candidateCount),
              [](const Candidate& a, const Candidate& b) {
                  return a.distance_m != b.distance_m ? a.distance_m < b.distance_m : a.stateIndex < b.stateIndex;
              });
    return candidateCount;
}

/// The candidates as perceived objects: id switches, dropouts, the list's capacity, new ids after a
/// gap, and the measurement noise. Returns the objects written.
std::uint32_t PerceptionEmulator::emitTracked(std::size_t step, std::span<const GroundTruthState> states,
                                              std::size_t candidateCount, ObjectList& out) noexcept {
    const std::uint64_t seed = m_config.seed;
    std::uint32_t count = 0;
    for (std::size_t k = 0; k < candidateCount; ++k) {
        const GroundTruthState& s = states[m_candidates[k].stateIndex];
        // Id switches happen whether or not the object is dropped this step (the tracker upstream
        // loses the object either way); the draw is keyed by (step, true id).
        if (uniformOpen(counterBits(seed, step, s.id, Channel::FalseId, 0)) < m_config.falseIdProbability &&
            m_falseIdCount < m_falseIdOwner.size()) {
            m_falseIdOwner[m_falseIdCount] = s.id;
            m_currentId[s.id] = FALSE_ID_BASE + static_cast<std::uint32_t>(m_falseIdCount);
            ++m_falseIdCount;
            ++m_stats.idSwitches;
        }
        if (uniformOpen(counterBits(seed, step, s.id, Channel::Dropout, 0)) < m_config.dropoutProbability) {
            ++m_stats.objectsDropped;
            continue;
        }
        if (count == m_config.maxObjects) {
            ++m_stats.objectsTruncated;
            continue;
        }
        // Back after a gap (dropout, out of range): the upstream tracker starts it under a new id.
        const std::size_t last = m_lastEmittedStep[s.id];
        if (m_config.newIdOnReappearance && last != NEVER && last + 1 != step && m_falseIdCount < m_falseIdOwner.size()) {
            m_falseIdOwner[m_falseIdCount] = s.id;
            m_currentId[s.id] = FALSE_ID_BASE + static_cast<std::uint32_t>(m_falseIdCount);
            ++m_falseIdCount;
            ++m_stats.idSwitches;
        }
        m_lastEmittedStep[s.id] = step;
        m_emitted[step * m_config.maxObjects + count] = EmittedId{0, s.id};
        PerceivedObject& o = out.objects[count++];
        o.id = m_config.noIds ? freshId(seed, step, count - 1) : m_currentId[s.id];
        o.objectClass = s.objectClass;
        o.reserved[0] = o.reserved[1] = o.reserved[2] = 0;
        o.x_m = s.x_m + m_config.stdPosition_m * static_cast<float>(standardNormal(seed, step, s.id, Channel::NoiseX));
        o.y_m = s.y_m + m_config.stdPosition_m * static_cast<float>(standardNormal(seed, step, s.id, Channel::NoiseY));
        o.heading_rad = wrapAngle(s.heading_rad + m_config.stdHeading_rad *
                                                      static_cast<float>(standardNormal(seed, step, s.id, Channel::NoiseHeading)));
        o.speed_mps = std::max(0.0F, s.speed_mps + m_config.stdSpeed_mps *
                                                       static_cast<float>(standardNormal(seed, step, s.id, Channel::NoiseSpeed)));
        o.length_m = s.length_m;
        o.width_m = s.width_m;
        o.stdX_m = std::max(m_config.stdPosition_m, MIN_REPORTED_STD);
        o.stdY_m = o.stdX_m;
        o.stdHeading_rad = std::max(m_config.stdHeading_rad, MIN_REPORTED_STD);
        o.stdSpeed_mps = std::max(m_config.stdSpeed_mps, MIN_REPORTED_STD);
    }
    return count;
}

/// With idShuffleProbability, the real objects' ids permuted among them (Fisher–Yates), for this list only.
void PerceptionEmulator::shuffleIds(std::size_t step, std::uint32_t realCount, ObjectList& out) noexcept {
    const std::uint64_t seed = m_config.seed;
    if (realCount > 1 && uniformOpen(counterBits(seed, step, 0, Channel::Shuffle, 0)) < m_config.idShuffleProbability) {
        for (std::uint32_t i = realCount - 1; i > 0; --i) {
            const auto j = static_cast<std::uint32_t>(counterBits(seed, step, 0, Channel::Shuffle, i + 1) % (i + 1));
            std::swap(out.objects[i].id, out.objects[j].id);
        }
        ++m_stats.listsShuffled;
    }
}

/// Clutter: uniform in the sensor disc around the ego, under fresh ids, after the `count` objects
/// already in the list. Returns the list's new count.
std::uint32_t PerceptionEmulator::addClutter(std::size_t step, const GroundTruthState& ego, std::uint32_t count,
                                             ObjectList& out) noexcept {
    const std::uint64_t seed = m_config.seed;
    if (m_config.clutterRate > 0.0F) {
        const std::uint32_t clutter = poisson(m_config.clutterRate, seed, step, static_cast<std::uint32_t>(MAX_OBJECTS));
        for (std::uint32_t c = 0; c < clutter; ++c) {
            if (count == m_config.maxObjects) {
                ++m_stats.objectsTruncated;
                continue;
            }
            const auto draw = [&](std::uint32_t k) { return uniformOpen(counterBits(seed, step, c, Channel::Clutter, k)); };
            const double r = static_cast<double>(m_config.range_m) * std::sqrt(draw(0));
            const double bearing = 2.0 * std::numbers::pi * draw(1);
            m_emitted[step * m_config.maxObjects + count] = EmittedId{0, 0};
            PerceivedObject& o = out.objects[count++];
            o.id = freshId(seed, step, CLUTTER_SLOT + c);
            o.objectClass = ObjectClass::Car;
            o.reserved[0] = o.reserved[1] = o.reserved[2] = 0;
            o.x_m = ego.x_m + static_cast<float>(r * std::cos(bearing));
            o.y_m = ego.y_m + static_cast<float>(r * std::sin(bearing));
            o.heading_rad = wrapAngle(static_cast<float>(2.0 * std::numbers::pi * draw(2)));
            o.speed_mps = CLUTTER_MAX_SPEED_MPS * static_cast<float>(draw(3));
            o.length_m = 4.5F;
            o.width_m = 1.8F;
            o.stdX_m = std::max(m_config.stdPosition_m, MIN_REPORTED_STD);
            o.stdY_m = o.stdX_m;
            o.stdHeading_rad = std::max(m_config.stdHeading_rad, MIN_REPORTED_STD);
            o.stdSpeed_mps = std::max(m_config.stdSpeed_mps, MIN_REPORTED_STD);
            ++m_stats.clutterEmitted;
        }
    }
    return count;
}

std::uint32_t PerceptionEmulator::trueIdAt(std::size_t step, std::uint32_t perceivedId) const noexcept {
    if (step >= m_emittedCount.size()) {
        return 0;
    }
    const EmittedId* list = &m_emitted[step * m_config.maxObjects];
    for (std::uint32_t i = 0; i < m_emittedCount[step]; ++i) {
        if (list[i].perceivedId == perceivedId) {
            return list[i].trueId;
        }
    }
    return 0;
}

std::uint32_t PerceptionEmulator::trueIdOf(std::uint32_t perceivedId) const noexcept {
    if (perceivedId < FALSE_ID_BASE) {
        return perceivedId < m_currentId.size() ? perceivedId : 0;
    }
    const std::size_t index = perceivedId - FALSE_ID_BASE;
    return index < m_falseIdCount ? m_falseIdOwner[index] : 0;
}

}  // namespace augur::hil
