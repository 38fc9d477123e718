// Measurement-to-track association for the Kalman bank: gating on the position innovation and a global
// nearest-neighbour (GNN) assignment, inside capacities fixed at init.
//
// Terms (Bar-Shalom, Willett, Tian, "Tracking and Data Fusion", 2011, §3.2 and §7.3; Blackman & Popoli,
// "Design and Analysis of Modern Tracking Systems", 1999, §6.5):
//   ν = z − H x̂⁻ (position innovation of object j against the predicted track t),
//   S = H P⁻ Hᵀ + R, R = diag(σx², σy²) (the object's reported variances),
//   d² = νᵀ S⁻¹ ν (χ² with 2 degrees of freedom when j is t's object).
// A pair (j, t) is a candidate when ‖ν‖ ≤ distanceGate_m (Euclidean pre-gate, cheap) and d² ≤
// mahalanobisGateSq. Its cost is d², less idBonus when the object's perception id equals the id last
// associated with the track (the id is a hint that breaks near-ties, never a key). An object may stay
// unassigned at cost mahalanobisGateSq (a pair is preferred to leaving the object out whenever it is
// inside the gate). The assignment minimises the summed cost over all objects: each object takes at most
// one track, each track at most one object.
//
// Solution: candidate pairs form a bipartite graph; its connected components (union-find) are solved
// independently. A component of one object and one track is assigned directly; a larger one by the
// Jonker–Volgenant algorithm ("A shortest augmenting path algorithm for dense and sparse linear assignment
// problems", Computing 38, 1987) on an r × (c + r) matrix held sparsely: its r objects against its c
// tracks (the candidate pairs) and r "unassigned" columns, one per object (only its own is finite).
// An augmenting row reduction (the auction algorithm with ε = 0, a bounded number of bids) assigns most
// rows of a contested component; shortest augmenting paths (Dijkstra on the reduced costs, scanning only
// the columns reached) assign the rest. The result is the exact optimum: the reduction keeps
// complementary slackness and leaves the columns it never assigned at potential 0, which is all the paths
// need. Worst case (every pair a candidate) O(r²(c + r)); a traffic scene splits into components of a
// few objects. Measured with augur-bench-association (docs/results/association.csv).
//
// Run phase: associate() is noexcept and allocation-free (all scratch is sized at create for
// maxObjects × maxTracks), not thread-safe (one Associator per caller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "augur/core/result.hpp"

namespace augur::kernels::kf {

enum class AssociationError : std::uint8_t { ZeroCapacity, CapacityTooLarge, InvalidGate };

[[nodiscard]] const char* toString(AssociationError error) noexcept;

struct AssociationConfig {
    std::size_t maxObjects{0};       ///< objects per call, 1 … MAX_ASSOCIATION_SIDE
    std::size_t maxTracks{0};        ///< tracks per call, 1 … MAX_ASSOCIATION_SIDE
    float mahalanobisGateSq{9.21F};  ///< gate on d² (χ², 2 dof: 9.21 = 99 %), > 0
    float distanceGate_m{5.0F};      ///< Euclidean pre-gate on ‖ν‖, > 0
    float idBonus{1.0F};             ///< cost reduction when the perception ids agree, [0, mahalanobisGateSq)
};

/// Largest side of the assignment (objects or tracks) accepted by create.
inline constexpr std::size_t MAX_ASSOCIATION_SIDE = 1024;

/// Predicted tracks, structure of arrays indexed by slot 0 … count−1 (the bank's layout).
struct PredictedTracks {
    const float* x_m{nullptr};
    const float* y_m{nullptr};
    const float* covXX_m2{nullptr};  ///< predicted position covariance H P⁻ Hᵀ
    const float* covXY_m2{nullptr};
    const float* covYY_m2{nullptr};
    const std::uint8_t* live{nullptr};           ///< 0: free slot, never associated
    const std::uint32_t* perceptionId{nullptr};  ///< id last associated; nullptr: no id hint
    std::size_t count{0};                        ///< ≤ maxTracks
};

/// One list's objects, structure of arrays indexed 0 … count−1.
struct Detections {
    const float* x_m{nullptr};
    const float* y_m{nullptr};
    const float* varX_m2{nullptr};  ///< > 0
    const float* varY_m2{nullptr};  ///< > 0
    const std::uint32_t* perceptionId{nullptr};  ///< nullptr: no id hint
    std::size_t count{0};  ///< ≤ maxObjects
};

struct AssociationStats {
    std::uint32_t candidatePairs{0};  ///< pairs inside both gates
    std::uint32_t contestedObjects{0};  ///< objects with more than one candidate track (ambiguous)
    std::uint32_t assigned{0};
    std::uint32_t components{0};       ///< connected components with at least one candidate pair
    std::uint32_t largestComponent{0};  ///< objects + tracks of the largest one
};

class Associator {
public:
    static constexpr std::uint32_t NO_TRACK = 0xFFFF'FFFFU;

    /// Validates `config` and sizes every scratch array. Init phase.
    [[nodiscard]] static Result<Associator, AssociationError> create(const AssociationConfig& config);

    /// Assigns objects to tracks (see the banner). Writes, for each object j < objects.count, its track
    /// slot or NO_TRACK into objectToTrack[j], and whether it lay inside the gates of any live track into
    /// gated[j] (1/0: an unassigned object that was gated is a second report of a tracked road user, not a
    /// new one). Preconditions: objects.count ≤ maxObjects, tracks.count ≤ maxTracks, both spans ≥
    /// objects.count. noexcept, allocation-free; O(objects · tracks) gating plus the components' solves.
    AssociationStats associate(const PredictedTracks& tracks, const Detections& objects,
                               std::span<std::uint32_t> objectToTrack, std::span<std::uint8_t> gated) noexcept;

    [[nodiscard]] const AssociationConfig& config() const noexcept { return m_config; }

    /// Squared Mahalanobis distance of a position innovation (dx, dy) under S = [sxx sxy; sxy syy];
    /// +∞ when S is not positive definite. noexcept, O(1).
    [[nodiscard]] static float mahalanobisSq(float dx, float dy, float sxx, float sxy, float syy) noexcept {
        const float det = sxx * syy - sxy * sxy;
        if (!(det > 0.0F) || !(sxx > 0.0F)) {
            return std::numeric_limits<float>::infinity();
        }
        // νᵀ S⁻¹ ν with the closed-form 2×2 inverse.
        return (syy * dx * dx - 2.0F * sxy * dx * dy + sxx * dy * dy) / det;
    }

private:
    Associator() = default;
    [[nodiscard]] std::uint32_t findRoot(std::uint32_t node) noexcept;
    /// Step 1 of associate: the candidate pairs of every object into m_edgeBegin/m_edgeTrack/m_edgeCost
    /// (object-major); counts the contested objects into `stats`; returns the number of pairs.
    std::uint32_t gatePairs(const PredictedTracks& tracks, const Detections& objects, std::size_t objectCount,
                            std::size_t trackCount, AssociationStats& stats) noexcept;
    /// Solves the component's r × (c + r) problem held in m_entry*; writes m_rowToCol[0 … r−1].
    void solveSparse(std::size_t rows, std::size_t cols) noexcept;
    /// One shortest augmenting path of solveSparse from the free row `row` (1-based), then the flip.
    void augment(std::uint32_t row) noexcept;
    /// The augmenting row reduction that starts solveSparse: assigns rows and sets m_u, m_v, m_p; leaves
    /// the rows still free (1-based) in m_freeRows[0 … returned count).
    [[nodiscard]] std::size_t reduceRows(std::size_t rows) noexcept;

    AssociationConfig m_config{};
    // Candidate pairs, object-major: object j's pairs are m_edgeTrack/m_edgeCost[m_edgeBegin[j] … m_edgeBegin[j+1]).
    std::vector<std::uint32_t> m_edgeBegin;  // maxObjects + 1
    std::vector<std::uint32_t> m_edgeTrack;  // maxObjects · maxTracks
    std::vector<float> m_edgeCost;           // maxObjects · maxTracks
    // Union-find over nodes: objects 0 … maxObjects−1, tracks maxObjects … maxObjects + maxTracks − 1.
    std::vector<std::uint32_t> m_parent;
    std::vector<std::uint32_t> m_componentOf;     // per root node: component index
    std::vector<std::uint32_t> m_componentRows;   // objects grouped by component
    std::vector<std::uint32_t> m_componentCols;   // tracks grouped by component
    std::vector<std::uint32_t> m_rowBegin;        // per component (+1)
    std::vector<std::uint32_t> m_colBegin;        // per component (+1)
    std::vector<std::uint32_t> m_localCol;        // per track: its column in the component's matrix
    // Solve of one component (rows ≤ maxObjects, cols ≤ maxTracks + maxObjects): row r's (0-based) finite
    // entries are m_entryCol/m_entryCost[m_entryBegin[r] … m_entryBegin[r + 1]).
    std::vector<std::uint32_t> m_entryBegin;  // maxObjects + 1
    std::vector<std::uint32_t> m_entryCol;    // maxObjects · (maxTracks + 1)
    std::vector<double> m_entryCost;
    std::vector<std::uint32_t> m_touched;     // columns reached by the current search, cols + 1
    std::vector<std::uint32_t> m_usedList;    // columns on the current search's tree, cols + 1
    std::vector<double> m_u;         // row potentials, rows + 1
    std::vector<double> m_v;         // column potentials, cols + 1
    std::vector<double> m_minv;      // cols + 1
    std::vector<std::uint32_t> m_p;    // column → row (1-based, 0 = free), cols + 1
    std::vector<std::uint32_t> m_way;  // cols + 1
    std::vector<std::uint8_t> m_used;  // cols + 1
    std::vector<std::uint32_t> m_rowToCol;  // rows
    std::vector<std::uint32_t> m_freeRows;  // rows left free by the row reduction (1-based), rows
};

}  // namespace augur::kernels::kf
