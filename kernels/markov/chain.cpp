// Υ(τ) and Υ([0, τ]) by sampling (Sec. 3.4). See chain.hpp for the grid and the dynamics.
#include "augur/kernels/markov/chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <tuple>
#include <utility>

namespace augur::kernels::markov {

const char* toString(MarkovError error) noexcept {
    switch (error) {
        case MarkovError::InvalidGrid: return "invalid grid";
        case MarkovError::InvalidSampling: return "invalid sampling";
        case MarkovError::InvalidPrediction: return "invalid prediction sizes";
        case MarkovError::DeviceFailure: return "device failure";
    }
    return "unknown";
}

Result<void, MarkovError> validate(const ChainConfig& c) noexcept {
    const bool finitePositive = std::isfinite(c.positionMax_m) && c.positionMax_m > 0.0F &&
                                std::isfinite(c.speedMax_mps) && c.speedMax_mps > 0.0F &&
                                std::isfinite(c.accelMax_mps2) && c.accelMax_mps2 > 0.0F &&
                                std::isfinite(c.step_s) && c.step_s > 0.0F;
    if (!finitePositive || c.positionCells < 1 || c.speedCells < 2 || c.inputCells < 1 ||
        c.inputCells > MAX_INPUT_CELLS) {
        return fail(MarkovError::InvalidGrid);
    }
    // The state index must fit an int32 with room for the ELL offsets.
    const long long states = static_cast<long long>(c.positionCells) * c.speedCells * c.inputCells;
    if (states > (1LL << 26)) {
        return fail(MarkovError::InvalidGrid);
    }
    if (c.samplesPerAxis < 1 || c.samplesPerAxis > 64 || c.intervalSamples < 1 || c.intervalSamples > 64) {
        return fail(MarkovError::InvalidSampling);
    }
    return {};
}

namespace {

/// Coordinate (row, column, value) lists → ELL (slot-major).
SparseTransition toEll(int rows, const std::vector<std::int32_t>& rowOf, const std::vector<std::int32_t>& colOf,
                       const std::vector<float>& valueOf) {
    std::vector<int> count(static_cast<std::size_t>(rows), 0);
    for (const auto r : rowOf) {
        ++count[static_cast<std::size_t>(r)];
    }
    SparseTransition m;
    m.rows = rows;
    m.entriesPerRow = std::max(1, *std::max_element(count.begin(), count.end()));
    const std::size_t slots = static_cast<std::size_t>(m.entriesPerRow) * static_cast<std::size_t>(rows);
    m.column.resize(slots);
    m.value.assign(slots, 0.0F);
    for (int r = 0; r < rows; ++r) {
        for (int k = 0; k < m.entriesPerRow; ++k) {
            m.column[static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(r)] = r;
        }
    }
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t e = 0; e < rowOf.size(); ++e) {
        const auto r = static_cast<std::size_t>(rowOf[e]);
        const std::size_t slot = static_cast<std::size_t>(count[r]++) * static_cast<std::size_t>(rows) + r;
        m.column[slot] = colOf[e];
        m.value[slot] = valueOf[e];
    }
    return m;
}

/// One source column's hits: (target state, weight) pairs, merged by target before appending.
using Hits = std::vector<std::pair<std::int32_t, double>>;

/// Adds the exact integral over the source position cell: the cell [is·Δs, (is+1)·Δs) displaced by
/// d metres covers the cells is + ⌊d/Δs⌋ and the next one, in shares 1 − f and f (f = frac(d/Δs)).
void addDisplaced(Hits& hits, int is, float displacement_m, int iv, int j, double weight, const ChainConfig& c) {
    const double cells = static_cast<double>(displacement_m) / static_cast<double>(positionCellSize_m(c));
    const double whole = std::floor(cells);
    const double f = cells - whole;
    const int lower = std::min(c.positionCells - 1, is + static_cast<int>(whole));
    const int upper = std::min(c.positionCells - 1, lower + 1);
    const int na = c.inputCells;
    const int nv = c.speedCells;
    hits.emplace_back(static_cast<std::int32_t>((lower * nv + iv) * na + j), weight * (1.0 - f));
    if (f > 0.0) {
        hits.emplace_back(static_cast<std::int32_t>((upper * nv + iv) * na + j), weight * f);
    }
}

/// Appends the merged `hits` of source column `col` to the coordinate lists.
void appendColumn(Hits& hits, std::int32_t col, std::vector<std::int32_t>& rowOf, std::vector<std::int32_t>& colOf,
                  std::vector<float>& valueOf) {
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t i = 0;
    while (i < hits.size()) {
        double weight = 0.0;
        std::size_t j = i;
        while (j < hits.size() && hits[j].first == hits[i].first) {
            weight += hits[j].second;
            ++j;
        }
        if (weight > 0.0) {
            rowOf.push_back(hits[i].first);
            colOf.push_back(col);
            valueOf.push_back(static_cast<float>(weight));
        }
        i = j;
    }
}

/// Unclamped hits of one source (i_v, j), keyed (target speed cell, j, shift, source speed cell), with the
/// Υ(τ) and Υ([0, τ]) weights summed in double.
using ShiftHits = std::map<std::tuple<int, int, int, int>, std::pair<double, double>>;

/// The stencil form of addDisplaced: the displaced cell covers shifts ⌊d/Δs⌋ and ⌊d/Δs⌋ + 1.
void addShifted(ShiftHits& hits, float displacement_m, int ivTarget, int ivSource, int j, double weight, bool interval,
                const ChainConfig& c) {
    const double cells = static_cast<double>(displacement_m) / static_cast<double>(positionCellSize_m(c));
    const double whole = std::floor(cells);
    const double f = cells - whole;
    const int lower = static_cast<int>(whole);
    auto add = [&](int shift, double w) {
        auto& slot = hits[{ivTarget, j, shift, ivSource}];
        (interval ? slot.second : slot.first) += w;
    };
    add(lower, weight * (1.0 - f));
    if (f > 0.0) {
        add(lower + 1, weight * f);
    }
}

/// Gathers the per-target hit lists into the slot arrays of a ShiftStencil.
ShiftStencil toStencil(const ShiftHits& hits, const ChainConfig& c) {
    const int na = c.inputCells;
    const int rowTypes = c.speedCells * na;
    std::vector<int> count(static_cast<std::size_t>(rowTypes), 0);
    for (const auto& [key, weights] : hits) {
        ++count[static_cast<std::size_t>(std::get<0>(key) * na + std::get<1>(key))];
    }
    ShiftStencil st;
    st.entriesPerRow = std::max(1, *std::max_element(count.begin(), count.end()));
    const std::size_t slots = static_cast<std::size_t>(rowTypes) * static_cast<std::size_t>(st.entriesPerRow);
    st.shift.assign(slots, 0);
    st.sourceSpeed.resize(slots);
    st.stepWeight.assign(slots, 0.0F);
    st.intervalWeight.assign(slots, 0.0F);
    for (int type = 0; type < rowTypes; ++type) {
        for (int e = 0; e < st.entriesPerRow; ++e) {
            st.sourceSpeed[static_cast<std::size_t>(type * st.entriesPerRow + e)] = type / na;
        }
    }
    std::fill(count.begin(), count.end(), 0);
    bool first = true;
    for (const auto& [key, weights] : hits) {
        const auto [ivTarget, j, shift, ivSource] = key;
        const int type = ivTarget * na + j;
        const auto at = static_cast<std::size_t>(type * st.entriesPerRow + count[static_cast<std::size_t>(type)]++);
        st.shift[at] = shift;
        st.sourceSpeed[at] = ivSource;
        st.stepWeight[at] = static_cast<float>(weights.first);
        st.intervalWeight[at] = static_cast<float>(weights.second);
        st.maxShift = first ? shift : std::max(st.maxShift, shift);
        st.minShift = first ? shift : std::min(st.minShift, shift);
        first = false;
    }
    return st;
}

}  // namespace

Result<MarkovChain, MarkovError> MarkovChain::build(const ChainConfig& config) {
    if (auto ok = validate(config); !ok) {
        return fail(ok.error());
    }
    const ChainConfig& c = config;
    const int na = c.inputCells;
    const int nv = c.speedCells;
    const int samples = c.samplesPerAxis;
    const int times = c.intervalSamples;
    const float dv = speedCellSize_mps(c);
    const int states = c.positionCells * nv * na;

    std::vector<std::int32_t> stepRow, stepCol, intRow, intCol;
    std::vector<float> stepValue, intValue;
    stepRow.reserve(static_cast<std::size_t>(states) * 4);
    stepCol.reserve(static_cast<std::size_t>(states) * 4);
    stepValue.reserve(static_cast<std::size_t>(states) * 4);
    intRow.reserve(static_cast<std::size_t>(states) * 8);
    intCol.reserve(static_cast<std::size_t>(states) * 8);
    intValue.reserve(static_cast<std::size_t>(states) * 8);
    Hits stepHits;
    Hits intHits;
    ShiftHits shiftHits;  // from the sources of position cell 0, unclamped: the same for every cell
    stepHits.reserve(static_cast<std::size_t>(2 * samples));
    intHits.reserve(static_cast<std::size_t>(2 * samples * times));

    // Along s the dynamics do not depend on where in the cell the vehicle is, so the uniform position
    // inside the source cell is integrated exactly (addDisplaced); speed is sampled at S midpoints.
    for (int is = 0; is < c.positionCells; ++is) {
        for (int iv = 0; iv < nv; ++iv) {
            // Standstill is a point: a single speed sample v = 0.
            const int speedSamples = iv == 0 ? 1 : samples;
            const double stepWeight = 1.0 / static_cast<double>(speedSamples);
            const double intWeight = 1.0 / static_cast<double>(speedSamples * times);
            for (int j = 0; j < na; ++j) {
                const float accel = c.accelMax_mps2 * inputValue(j, na);
                const auto col = static_cast<std::int32_t>((is * nv + iv) * na + j);
                stepHits.clear();
                intHits.clear();
                for (int b = 0; b < speedSamples; ++b) {
                    const float v0 = iv == 0 ? 0.0F
                                             : (static_cast<float>(iv - 1) +
                                                (static_cast<float>(b) + 0.5F) / static_cast<float>(samples)) * dv;
                    const Motion end = integrateMotion(0.0F, v0, accel, c.step_s, c.speedMax_mps);
                    addDisplaced(stepHits, is, end.s_m, speedCellOf(end.v_mps, c), j, stepWeight, c);
                    if (is == 0) {
                        addShifted(shiftHits, end.s_m, speedCellOf(end.v_mps, c), iv, j, stepWeight, false, c);
                    }
                    for (int t = 0; t < times; ++t) {
                        const float tm = (static_cast<float>(t) + 0.5F) / static_cast<float>(times) * c.step_s;
                        const Motion mid = integrateMotion(0.0F, v0, accel, tm, c.speedMax_mps);
                        addDisplaced(intHits, is, mid.s_m, speedCellOf(mid.v_mps, c), j, intWeight, c);
                        if (is == 0) {
                            addShifted(shiftHits, mid.s_m, speedCellOf(mid.v_mps, c), iv, j, intWeight, true, c);
                        }
                    }
                }
                appendColumn(stepHits, col, stepRow, stepCol, stepValue);
                appendColumn(intHits, col, intRow, intCol, intValue);
            }
        }
    }

    MarkovChain chain;
    chain.m_config = config;
    chain.m_step = toEll(states, stepRow, stepCol, stepValue);
    chain.m_interval = toEll(states, intRow, intCol, intValue);
    chain.m_stencil = toStencil(shiftHits, c);
    return Result<MarkovChain, MarkovError>(std::move(chain));
}

}  // namespace augur::kernels::markov
