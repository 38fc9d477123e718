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

}  // namespace

const char* toString(AssociationError error) noexcept {
    switch (error) {
        case AssociationError::ZeroCapacity: return "association capacity is zero";
        case AssociationError::CapacityTooLarge: return "association capacity exceeds MAX_ASSOCIATION_SIDE";
        case AssociationError::InvalidGate: return "association gate or id bonus out of range";
    }
    return "invalid";
}

float Associator::mahalanobisSq(float dx, float dy, float sxx, float sxy, float syy) noexcept {
    const float det = sxx * syy - sxy * sxy;
    if (!(det > 0.0F) || !(sxx > 0.0F)) {
        return std::numeric_limits<float>::infinity();
    }
    // νᵀ S⁻¹ ν with the closed-form 2×2 inverse.
    return (syy * dx * dx - 2.0F * sxy * dx * dy + sxx * dy * dy) / det;
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
    return Result<Associator, AssociationError>(std::move(sut));
}

std::uint32_t Associator::findRoot(std::uint32_t node) noexcept {
    while (m_parent[node] != node) {
        m_parent[node] = m_parent[m_parent[node]];  // path halving
        node = m_parent[node];
    }
    return node;
}

void Associator::unite(std::uint32_t a, std::uint32_t b) noexcept {
    const std::uint32_t ra = findRoot(a);
    const std::uint32_t rb = findRoot(b);
    if (ra != rb) {
        m_parent[std::max(ra, rb)] = std::min(ra, rb);  // deterministic: the lower node is the root
    }
}

void Associator::solveSparse(std::size_t rows, std::size_t cols) noexcept {
    // Shortest augmenting paths with potentials (Jonker & Volgenant 1987), 1-based rows and columns;
    // column 0 is the virtual start. Row i's finite entries are m_entryCol/m_entryCost[m_entryBegin[i−1] …
    // m_entryBegin[i]) (m_entryBegin[0] = 0); every other entry is +∞ and is never scanned: a column no visited row reaches keeps
    // minv = +∞ and cannot be chosen, so each step costs the columns reached so far (m_touched), not all.
    // Requires a perfect assignment of the rows to exist (each row's own "unassigned" column).
    for (std::size_t j = 0; j <= cols; ++j) {
        m_v[j] = 0.0;
        m_p[j] = 0;
        m_way[j] = 0;
        m_minv[j] = INFINITE_COST;
        m_used[j] = 0;
    }
    for (std::size_t i = 0; i <= rows; ++i) {
        m_u[i] = 0.0;
    }
    for (std::size_t i = 1; i <= rows; ++i) {
        m_p[0] = static_cast<std::uint32_t>(i);
        std::size_t j0 = 0;
        std::size_t touched = 0;
        std::size_t usedCount = 0;
        do {
            m_used[j0] = 1;
            m_usedList[usedCount++] = static_cast<std::uint32_t>(j0);
            const std::size_t i0 = m_p[j0];
            for (std::uint32_t e = m_entryBegin[i0 - 1]; e < m_entryBegin[i0]; ++e) {
                const std::size_t j = m_entryCol[e] + 1U;
                if (m_used[j] != 0) {
                    continue;
                }
                const double reduced = m_entryCost[e] - m_u[i0] - m_v[j];
                if (reduced < m_minv[j]) {
                    if (m_minv[j] == INFINITE_COST) {
                        m_touched[touched++] = static_cast<std::uint32_t>(j);
                    }
                    m_minv[j] = reduced;
                    m_way[j] = static_cast<std::uint32_t>(j0);
                }
            }
            double delta = INFINITE_COST;
            std::size_t j1 = 0;
            for (std::size_t k = 0; k < touched; ++k) {
                const std::size_t j = m_touched[k];
                if (m_used[j] == 0 && m_minv[j] < delta) {
                    delta = m_minv[j];
                    j1 = j;
                }
            }
            for (std::size_t k = 0; k < usedCount; ++k) {
                const std::size_t j = m_usedList[k];
                m_u[m_p[j]] += delta;
                m_v[j] -= delta;
            }
            for (std::size_t k = 0; k < touched; ++k) {
                const std::size_t j = m_touched[k];
                if (m_used[j] == 0) {
                    m_minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (m_p[j0] != 0);
        do {
            const std::size_t j1 = m_way[j0];
            m_p[j0] = m_p[j1];
            j0 = j1;
        } while (j0 != 0);
        // Back to "unreached" for the next row.
        for (std::size_t k = 0; k < touched; ++k) {
            m_minv[m_touched[k]] = INFINITE_COST;
            m_used[m_touched[k]] = 0;
        }
        m_used[0] = 0;
    }
    for (std::size_t j = 1; j <= cols; ++j) {
        if (m_p[j] != 0) {
            m_rowToCol[m_p[j] - 1] = static_cast<std::uint32_t>(j - 1);
        }
    }
}

AssociationStats Associator::associate(const PredictedTracks& tracks, const Detections& objects,
                                       std::span<std::uint32_t> objectToTrack, std::span<std::uint8_t> gated) noexcept {
    AssociationStats stats;
    const std::size_t objectCount = std::min(objects.count, m_config.maxObjects);
    const std::size_t trackCount = std::min(tracks.count, m_config.maxTracks);
    const std::size_t maxObjects = m_config.maxObjects;
    const float gateSq = m_config.mahalanobisGateSq;
    const float distanceSq = m_config.distanceGate_m * m_config.distanceGate_m;

    // 1. Gating: candidate pairs, object-major.
    std::uint32_t edges = 0;
    for (std::size_t j = 0; j < objectCount; ++j) {
        m_edgeBegin[j] = edges;
        const float zx = objects.x_m[j];
        const float zy = objects.y_m[j];
        const float rx = objects.varX_m2[j];
        const float ry = objects.varY_m2[j];
        const std::uint32_t id = objects.perceptionId != nullptr ? objects.perceptionId[j] : 0;
        for (std::size_t t = 0; t < trackCount; ++t) {
            if (tracks.live[t] == 0) {
                continue;
            }
            const float dx = zx - tracks.x_m[t];
            const float dy = zy - tracks.y_m[t];
            if (!(dx * dx + dy * dy <= distanceSq)) {
                continue;
            }
            const float d2 = mahalanobisSq(dx, dy, tracks.covXX_m2[t] + rx, tracks.covXY_m2[t], tracks.covYY_m2[t] + ry);
            if (!(d2 <= gateSq)) {
                continue;
            }
            const bool sameId = tracks.perceptionId != nullptr && id != 0 && tracks.perceptionId[t] == id;
            m_edgeTrack[edges] = static_cast<std::uint32_t>(t);
            m_edgeCost[edges] = sameId ? d2 - m_config.idBonus : d2;
            ++edges;
        }
        stats.contestedObjects += edges - m_edgeBegin[j] > 1 ? 1U : 0U;
    }
    m_edgeBegin[objectCount] = edges;
    stats.candidatePairs = edges;

    // 2. Connected components of the candidate graph.
    for (std::size_t node = 0; node < maxObjects + trackCount; ++node) {
        m_parent[node] = static_cast<std::uint32_t>(node);
        m_componentOf[node] = UNSET;
    }
    for (std::size_t j = 0; j < objectCount; ++j) {
        objectToTrack[j] = NO_TRACK;
        gated[j] = m_edgeBegin[j + 1] > m_edgeBegin[j] ? 1 : 0;
        for (std::uint32_t e = m_edgeBegin[j]; e < m_edgeBegin[j + 1]; ++e) {
            unite(static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(maxObjects + m_edgeTrack[e]));
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
