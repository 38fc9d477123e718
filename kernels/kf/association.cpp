// Measurement-to-track association (association.hpp): gating, connected components, and the
// shortest-augmenting-path assignment of each component.
#include "augur/kernels/kf/association.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace augur::kernels::kf {
namespace {

constexpr std::uint32_t UNSET = 0xFFFF'FFFFU;
constexpr double INFINITE_COST = std::numeric_limits<double>::infinity();
/// Passes of the augmenting row reduction over the rows still free (Jonker & Volgenant use two).
constexpr std::size_t REDUCTION_PASSES = 2;
/// Bids per row and pass before a pass ends (bounds the reduction; what it leaves, the paths finish).
/// Chosen on the pile-up scene of augur-bench-association (AMD EPYC); never measured on Orin.
constexpr std::size_t REDUCTION_STEPS_PER_ROW = 4;

}  // namespace

const char* toString(AssociationError error) noexcept {
    switch (error) {
        case AssociationError::ZeroCapacity: return "association capacity is zero";
        case AssociationError::CapacityTooLarge: return "association capacity exceeds MAX_ASSOCIATION_SIDE";
        case AssociationError::InvalidGate: return "association gate or id bonus out of range";
    }
    return "invalid";
}

Result<Associator, AssociationError> Associator::create(const AssociationConfig& config) {
    if (config.maxObjects == 0 || config.maxTracks == 0) {
        return fail(AssociationError::ZeroCapacity);
    }
    if (config.maxObjects > MAX_ASSOCIATION_SIDE || config.maxTracks > MAX_ASSOCIATION_SIDE) {
        return fail(AssociationError::CapacityTooLarge);
    }
    constexpr float MAX_GATE_SQ = 1000.0F;  // the schema's bound
    if (!(config.mahalanobisGateSq > 0.0F) || !(config.mahalanobisGateSq <= MAX_GATE_SQ) ||
        !(config.distanceGate_m > 0.0F) || !std::isfinite(config.distanceGate_m) || !(config.idBonus >= 0.0F) ||
        !(config.idBonus < config.mahalanobisGateSq)) {
        return fail(AssociationError::InvalidGate);
    }
    Associator sut;
    sut.m_config = config;
    const std::size_t objects = config.maxObjects;
    const std::size_t tracks = config.maxTracks;
    const std::size_t nodes = objects + tracks;
    const std::size_t cols = tracks + objects;
    sut.m_edgeBegin.assign(objects + 1, 0);
    sut.m_edgeTrack.assign(objects * tracks, 0);
    sut.m_edgeCost.assign(objects * tracks, 0.0F);
    sut.m_parent.assign(nodes, 0);
    sut.m_componentOf.assign(nodes, UNSET);
    sut.m_componentRows.assign(objects, 0);
    sut.m_componentCols.assign(tracks, 0);
    sut.m_rowBegin.assign(objects + 1, 0);
    sut.m_colBegin.assign(objects + 1, 0);  // a component holds at least one object
    sut.m_localCol.assign(tracks, UNSET);
    sut.m_entryBegin.assign(objects + 1, 0);
    sut.m_entryCol.assign(objects * (tracks + 1), 0);
    sut.m_entryCost.assign(objects * (tracks + 1), 0.0);
    sut.m_touched.assign(cols + 1, 0);
    sut.m_usedList.assign(cols + 1, 0);
    sut.m_u.assign(objects + 1, 0.0);
    sut.m_v.assign(cols + 1, 0.0);
    sut.m_minv.assign(cols + 1, 0.0);
    sut.m_p.assign(cols + 1, 0);
    sut.m_way.assign(cols + 1, 0);
    sut.m_used.assign(cols + 1, 0);
    sut.m_rowToCol.assign(objects, 0);
    sut.m_freeRows.assign(objects, 0);
    return Result<Associator, AssociationError>(std::move(sut));
}

std::uint32_t Associator::findRoot(std::uint32_t node) noexcept {
    while (m_parent[node] != node) {
        m_parent[node] = m_parent[m_parent[node]];  // path halving
        node = m_parent[node];
    }
    return node;
}

std::size_t Associator::reduceRows(std::size_t rows) noexcept {
    // Augmenting row reduction (Jonker & Volgenant 1987, §3, procedure AUGMENTING ROW REDUCTION): each free
    // row takes the column of its least reduced cost c − v and lowers that column's potential until its
    // second-best column ties, evicting the column's previous row, which bids next. It is the auction
    // algorithm (Bertsekas 1988) with ε = 0. It keeps complementary slackness (every assigned row sits on a
    // column of least reduced cost) and a column once assigned stays assigned, so the columns left free keep
    // v = 0; the shortest augmenting paths that follow therefore still end at the exact optimum. A tie
    // without a lowering could cycle: REDUCTION_STEPS_PER_ROW · rows bids per pass bound it.
    std::size_t freeCount = rows;
    for (std::size_t r = 0; r < rows; ++r) {
        m_freeRows[r] = static_cast<std::uint32_t>(r + 1U);
    }
    for (std::size_t pass = 0; pass < REDUCTION_PASSES && freeCount > 0; ++pass) {
        const std::size_t previous = freeCount;
        const std::size_t maxSteps = REDUCTION_STEPS_PER_ROW * rows;
        std::size_t steps = 0;
        std::size_t k = 0;
        freeCount = 0;
        while (k < previous) {
            const std::uint32_t i = m_freeRows[k++];
            double best = INFINITE_COST;
            double second = INFINITE_COST;
            std::size_t jBest = 0;
            std::size_t jSecond = 0;
            for (std::uint32_t e = m_entryBegin[i - 1]; e < m_entryBegin[i]; ++e) {
                const std::size_t j = m_entryCol[e] + 1U;
                const double reduced = m_entryCost[e] - m_v[j];
                if (reduced < second) {
                    if (reduced < best) {
                        second = best;
                        jSecond = jBest;
                        best = reduced;
                        jBest = j;
                    } else {
                        second = reduced;
                        jSecond = j;
                    }
                }
            }
            std::uint32_t evicted = m_p[jBest];
            if (second < INFINITE_COST && steps < maxSteps) {
                ++steps;
                const bool lowers = best < second;
                if (lowers) {
                    m_v[jBest] -= second - best;
                } else if (evicted != 0) {
                    jBest = jSecond;  // a tie: take the other column rather than evict
                    evicted = m_p[jSecond];
                }
                if (evicted != 0) {
                    if (lowers) {
                        m_freeRows[--k] = evicted;  // bids at once, against the new potential
                    } else {
                        m_freeRows[freeCount++] = evicted;
                    }
                }
            } else if (evicted != 0) {
                m_freeRows[freeCount++] = evicted;
            }
            m_p[jBest] = i;
        }
    }
    // Row potentials: each row's least reduced cost (zero on the assigned column: complementary slackness).
    for (std::size_t i = 1; i <= rows; ++i) {
        double least = INFINITE_COST;
        for (std::uint32_t e = m_entryBegin[i - 1]; e < m_entryBegin[i]; ++e) {
            least = std::min(least, m_entryCost[e] - m_v[m_entryCol[e] + 1U]);
        }
        m_u[i] = least;
    }
    return freeCount;
}

void Associator::augment(std::uint32_t row) noexcept {
    // One shortest augmenting path from the free `row` (see solveSparse); m_minv holds the distances of
    // the columns reached, m_used marks the scanned ones, m_way the path back.
    m_p[0] = row;
    m_minv[0] = 0.0;
    m_used[0] = 1;
    m_usedList[0] = 0;
    std::size_t scanned = 1;
    std::size_t open = 0;
    std::size_t j0 = 0;
    double distance = 0.0;  // of column j0
    for (;;) {
        const std::size_t i0 = m_p[j0];
        const double base = distance - m_u[i0];
        for (std::uint32_t e = m_entryBegin[i0 - 1]; e < m_entryBegin[i0]; ++e) {
            const std::size_t j = m_entryCol[e] + 1U;
            if (m_used[j] != 0) {
                continue;
            }
            const double reached = base + m_entryCost[e] - m_v[j];
            if (reached < m_minv[j]) {
                if (m_minv[j] == INFINITE_COST) {
                    m_touched[open++] = static_cast<std::uint32_t>(j);
                }
                m_minv[j] = reached;
                m_way[j] = static_cast<std::uint32_t>(j0);
            }
        }
        // The nearest reached column (the root's own "unassigned" column is always reached).
        std::size_t nearest = 0;
        for (std::size_t k = 1; k < open; ++k) {
            if (m_minv[m_touched[k]] < m_minv[m_touched[nearest]]) {
                nearest = k;
            }
        }
        j0 = m_touched[nearest];
        m_touched[nearest] = m_touched[--open];
        distance = m_minv[j0];
        if (m_p[j0] == 0) {
            break;  // a free column: the path ends here
        }
        m_used[j0] = 1;
        m_usedList[scanned++] = static_cast<std::uint32_t>(j0);
    }
    // Potentials: every scanned column (and its row) moves by how much nearer than the path's end it was.
    for (std::size_t k = 0; k < scanned; ++k) {
        const std::size_t j = m_usedList[k];
        const double shift = distance - m_minv[j];
        m_u[m_p[j]] += shift;
        m_v[j] -= shift;
    }
    const std::size_t end = j0;
    do {
        const std::size_t j1 = m_way[j0];
        m_p[j0] = m_p[j1];
        j0 = j1;
    } while (j0 != 0);
    // Back to "unreached" for the next row.
    for (std::size_t k = 0; k < scanned; ++k) {
        m_minv[m_usedList[k]] = INFINITE_COST;
        m_used[m_usedList[k]] = 0;
    }
    for (std::size_t k = 0; k < open; ++k) {
        m_minv[m_touched[k]] = INFINITE_COST;
    }
    m_minv[end] = INFINITE_COST;
}

void Associator::solveSparse(std::size_t rows, std::size_t cols) noexcept {
    // 1-based rows and columns; column 0 is the virtual start. Row i's finite entries are
    // m_entryCol/m_entryCost[m_entryBegin[i−1] … m_entryBegin[i]); every other entry is +∞ and is never
    // scanned. The augmenting row reduction (reduceRows) assigns most rows; each row it leaves free is
    // then assigned by a shortest augmenting path (Jonker & Volgenant 1987, §3, procedure AUGMENTATION):
    // Dijkstra over the reduced costs c − u − v ≥ 0 from the free row until a free column, the potentials
    // moved once at the end by each scanned column's distance, then the path flipped. Only the columns
    // reached so far are held (m_touched: reached, not yet scanned), so a search costs the columns it
    // reaches, not all. Requires a perfect assignment of the rows to exist (each row's own "unassigned"
    // column).
    for (std::size_t j = 0; j <= cols; ++j) {
        m_v[j] = 0.0;
        m_p[j] = 0;
        m_way[j] = 0;
        m_minv[j] = INFINITE_COST;
        m_used[j] = 0;
    }
    m_u[0] = 0.0;
    const std::size_t freeRows = reduceRows(rows);
    for (std::size_t f = 0; f < freeRows; ++f) {
        augment(m_freeRows[f]);
    }
    for (std::size_t j = 1; j <= cols; ++j) {
        if (m_p[j] != 0) {
            m_rowToCol[m_p[j] - 1] = static_cast<std::uint32_t>(j - 1);
        }
    }
}

std::uint32_t Associator::gatePairs(const PredictedTracks& tracks, const Detections& objects, std::size_t objectCount,
                                    std::size_t trackCount, AssociationStats& stats) noexcept {
    const float gateSq = m_config.mahalanobisGateSq;
    const float distanceSq = m_config.distanceGate_m * m_config.distanceGate_m;
    // The Euclidean pre-gate branches (in traffic it rejects
    // nearly every pair, in a crowd it passes nearly every one: either way predictable); the Mahalanobis
    // gate does not: a pair is written in any case and counted only when inside, because in a dense scene
    // whether it is inside is a coin toss a branch predictor keeps losing. The tracks' arrays are read
    // through local pointers so that the writes cannot be taken to alias them.
    const float* const trackX = tracks.x_m;
    const float* const trackY = tracks.y_m;
    const float* const trackXX = tracks.covXX_m2;
    const float* const trackXY = tracks.covXY_m2;
    const float* const trackYY = tracks.covYY_m2;
    const std::uint8_t* const live = tracks.live;
    const std::uint32_t* const trackIds = tracks.perceptionId;
    std::uint32_t* const edgeTrack = m_edgeTrack.data();
    float* const edgeCost = m_edgeCost.data();
    const float idBonus = m_config.idBonus;
    std::uint32_t edges = 0;
    for (std::size_t j = 0; j < objectCount; ++j) {
        m_edgeBegin[j] = edges;
        const float zx = objects.x_m[j];
        const float zy = objects.y_m[j];
        const float rx = objects.varX_m2[j];
        const float ry = objects.varY_m2[j];
        const std::uint32_t id = objects.perceptionId != nullptr && trackIds != nullptr ? objects.perceptionId[j] : 0;
        for (std::size_t t = 0; t < trackCount; ++t) {
            if (live[t] == 0) {
                continue;
            }
            const float dx = zx - trackX[t];
            const float dy = zy - trackY[t];
            if (!(dx * dx + dy * dy <= distanceSq)) {
                continue;
            }
            const float d2 = mahalanobisSq(dx, dy, trackXX[t] + rx, trackXY[t], trackYY[t] + ry);
            const bool sameId = id != 0 && trackIds[t] == id;
            edgeTrack[edges] = static_cast<std::uint32_t>(t);  // room: edges ≤ j · tracks + t
            edgeCost[edges] = sameId ? d2 - idBonus : d2;
            edges += d2 <= gateSq ? 1U : 0U;
        }
        stats.contestedObjects += edges - m_edgeBegin[j] > 1 ? 1U : 0U;
    }
    m_edgeBegin[objectCount] = edges;
    return edges;
}

AssociationStats Associator::associate(const PredictedTracks& tracks, const Detections& objects,
                                       std::span<std::uint32_t> objectToTrack, std::span<std::uint8_t> gated) noexcept {
    AssociationStats stats;
    const std::size_t objectCount = std::min(objects.count, m_config.maxObjects);
    const std::size_t trackCount = std::min(tracks.count, m_config.maxTracks);
    const std::size_t maxObjects = m_config.maxObjects;
    const float gateSq = m_config.mahalanobisGateSq;

    // 1. Gating: candidate pairs, object-major.
    const std::uint32_t edges = gatePairs(tracks, objects, objectCount, trackCount, stats);
    stats.candidatePairs = edges;

    // 2. Connected components of the candidate graph.
    for (std::size_t node = 0; node < maxObjects + trackCount; ++node) {
        m_parent[node] = static_cast<std::uint32_t>(node);
        m_componentOf[node] = UNSET;
    }
    for (std::size_t j = 0; j < objectCount; ++j) {
        objectToTrack[j] = NO_TRACK;
        gated[j] = m_edgeBegin[j + 1] > m_edgeBegin[j] ? 1 : 0;
        // The object's root, kept across its edges: each edge then costs one find.
        std::uint32_t root = findRoot(static_cast<std::uint32_t>(j));
        for (std::uint32_t e = m_edgeBegin[j]; e < m_edgeBegin[j + 1]; ++e) {
            const std::uint32_t other = findRoot(static_cast<std::uint32_t>(maxObjects + m_edgeTrack[e]));
            if (other != root) {
                m_parent[std::max(root, other)] = std::min(root, other);  // deterministic: the lower node is the root
                root = std::min(root, other);
            }
        }
    }
    for (std::size_t t = 0; t < trackCount; ++t) {
        m_localCol[t] = UNSET;
    }
    std::uint32_t components = 0;
    for (std::size_t j = 0; j < objectCount; ++j) {
        if (gated[j] == 0) {
            continue;
        }
        const std::uint32_t root = findRoot(static_cast<std::uint32_t>(j));
        if (m_componentOf[root] == UNSET) {
            m_componentOf[root] = components;
            m_rowBegin[components] = 0;
            m_colBegin[components] = 0;
            ++components;
        }
        ++m_rowBegin[m_componentOf[root]];
        for (std::uint32_t e = m_edgeBegin[j]; e < m_edgeBegin[j + 1]; ++e) {
            const std::uint32_t t = m_edgeTrack[e];
            if (m_localCol[t] == UNSET) {
                m_localCol[t] = 0;  // marked: counted once
                ++m_colBegin[m_componentOf[root]];
            }
        }
    }
    stats.components = components;
    // Counts → begin offsets (exclusive prefix sums), then fill.
    std::uint32_t rowSum = 0;
    std::uint32_t colSum = 0;
    for (std::uint32_t k = 0; k < components; ++k) {
        const std::uint32_t rows = m_rowBegin[k];
        const std::uint32_t cols = m_colBegin[k];
        stats.largestComponent = std::max(stats.largestComponent, rows + cols);
        m_rowBegin[k] = rowSum;
        m_colBegin[k] = colSum;
        rowSum += rows;
        colSum += cols;
    }
    m_rowBegin[components] = rowSum;
    m_colBegin[components] = colSum;
    // Fill using the begin offsets as cursors, then restore them.
    for (std::size_t j = 0; j < objectCount; ++j) {
        if (gated[j] != 0) {
            const std::uint32_t k = m_componentOf[findRoot(static_cast<std::uint32_t>(j))];
            m_componentRows[m_rowBegin[k]++] = static_cast<std::uint32_t>(j);
        }
    }
    for (std::size_t t = 0; t < trackCount; ++t) {
        if (m_localCol[t] != UNSET) {
            const std::uint32_t k = m_componentOf[findRoot(static_cast<std::uint32_t>(maxObjects + t))];
            m_componentCols[m_colBegin[k]++] = static_cast<std::uint32_t>(t);
        }
    }
    for (std::uint32_t k = components; k > 0; --k) {
        m_rowBegin[k] = m_rowBegin[k - 1];
        m_colBegin[k] = m_colBegin[k - 1];
    }
    m_rowBegin[0] = 0;
    m_colBegin[0] = 0;

    // 3. Each component: direct for one pair, else the dense solve.
    for (std::uint32_t k = 0; k < components; ++k) {
        const std::uint32_t r0 = m_rowBegin[k];
        const std::size_t rows = m_rowBegin[k + 1] - r0;
        const std::uint32_t c0 = m_colBegin[k];
        const std::size_t cols = m_colBegin[k + 1] - c0;
        if (rows == 1 && cols == 1) {
            // Inside the gate, so the pair costs at most the gate: always taken.
            objectToTrack[m_componentRows[r0]] = m_componentCols[c0];
            ++stats.assigned;
            continue;
        }
        for (std::size_t c = 0; c < cols; ++c) {
            m_localCol[m_componentCols[c0 + c]] = static_cast<std::uint32_t>(c);
        }
        const std::size_t width = cols + rows;
        std::uint32_t entries = 0;
        m_entryBegin[0] = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            const std::uint32_t j = m_componentRows[r0 + r];
            for (std::uint32_t e = m_edgeBegin[j]; e < m_edgeBegin[j + 1]; ++e) {
                m_entryCol[entries] = m_localCol[m_edgeTrack[e]];
                m_entryCost[entries] = static_cast<double>(m_edgeCost[e]);
                ++entries;
            }
            m_entryCol[entries] = static_cast<std::uint32_t>(cols + r);  // this object left unassigned
            m_entryCost[entries] = static_cast<double>(gateSq);
            ++entries;
            m_entryBegin[r + 1] = entries;
        }
        solveSparse(rows, width);
        for (std::size_t r = 0; r < rows; ++r) {
            const std::uint32_t c = m_rowToCol[r];
            if (c < cols) {
                objectToTrack[m_componentRows[r0 + r]] = m_componentCols[c0 + c];
                ++stats.assigned;
            }
        }
    }
    return stats;
}

}  // namespace augur::kernels::kf
