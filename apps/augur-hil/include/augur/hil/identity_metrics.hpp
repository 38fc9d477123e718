// Track identity over a run: how well the published track ids follow the road users, the CLEAR MOT
// figures, and GOSPA split into its parts.
//
// Each scored cycle, tracks (by their published id) are matched to road users (by scenario id) as in
// CLEAR MOT (Bernardin & Stiefelhagen, "Evaluating multiple object tracking performance: the CLEAR MOT
// metrics", EURASIP JIVP 2008, §2.1): a correspondence of the previous cycle is kept while the pair is
// still closer than the match gate; the rest are matched by minimum summed squared distance among pairs
// closer than the gate (Kuhn–Munkres, assignment.hpp). Road users are matched whether or not they are
// within sensor range (a track of a road user just leaving range is not a false track); only those within
// range count as ground truth (misses, MOTA's denominator).
//   identity switch   a road user matched to a track id other than the one it was last matched to;
//   fragmentation     a road user matched again after cycles within range without a match (having been
//                     matched before);
//   MOTA = 1 − (misses + false positives + identity switches) / ground-truth objects, summed over cycles;
//   MOTP = mean distance of the matched pairs (metres);
//   false track       a track id that was never matched in its whole published life; its lifetime is the
//                     time from its first to its last published cycle;
//   GOSPA parts       (α = 2, set_distance.hpp) per cycle: localisation Σ‖x − y‖^p over GOSPA's assigned
//                     pairs, missed c^p/2 · |missed|, false c^p/2 · |false|; their sum is GOSPA^p. Means over
//                     cycles, in m^p, of the in-range road users against all tracks.
// Offline code (allocates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "augur/hil/run_record.hpp"

namespace augur::hil {

/// A road user or a track at one cycle.
struct IdentifiedPosition {
    std::uint32_t id{0};
    double x_m{0.0};
    double y_m{0.0};
    bool inRange{true};  ///< road users: counts as ground truth (ignored for tracks)
};

struct IdentitySummary {
    std::size_t cycles{0};
    std::size_t groundTruth{0};     ///< in-range road users, summed over cycles
    std::size_t matches{0};
    std::size_t misses{0};          ///< in-range road users without a match, summed over cycles
    std::size_t falsePositives{0};  ///< tracks without a match, summed over cycles
    std::size_t idSwitches{0};
    std::size_t fragmentations{0};
    double mota{0.0};
    double motp_m{0.0};
    std::size_t trackIds{0};         ///< distinct published track ids
    std::size_t falseTrackIds{0};    ///< never matched
    double longestFalseTrack_s{0.0};
    double gospaLocalisation{0.0};   ///< mean per cycle, m^p
    double gospaMissed{0.0};
    double gospaFalse{0.0};
};

class IdentityAccumulator {
public:
    /// Preconditions: matchGate_m > 0; cutoff_m > 0 and order ≥ 1 (GOSPA's c and p).
    IdentityAccumulator(double matchGate_m, double cutoff_m, double order);

    /// Scores one cycle at scenario time t_s (increasing). Either span may be empty.
    void addCycle(double t_s, std::span<const IdentifiedPosition> roadUsers, std::span<const IdentifiedPosition> tracks);

    [[nodiscard]] IdentitySummary summary() const;

private:
    // The steps of addCycle, in order. trackOf[i]: the track matched to road user i (−1: none);
    // trackTaken[j]: track j is matched.
    void addGospa(std::span<const IdentifiedPosition> roadUsers, std::span<const IdentifiedPosition> tracks);
    void keepPreviousPairs(std::span<const IdentifiedPosition> roadUsers, std::span<const IdentifiedPosition> tracks,
                           std::vector<int>& trackOf, std::vector<std::uint8_t>& trackTaken) const;
    void assignFreePairs(std::span<const IdentifiedPosition> roadUsers, std::span<const IdentifiedPosition> tracks,
                         std::vector<int>& trackOf, std::vector<std::uint8_t>& trackTaken) const;
    void countCycle(double t_s, std::span<const IdentifiedPosition> roadUsers,
                    std::span<const IdentifiedPosition> tracks,
                    const std::vector<int>& trackOf, const std::vector<std::uint8_t>& trackTaken);
    struct RoadUserHistory {
        std::uint32_t lastTrack{0};  ///< 0: never matched
        bool matchedLastTime{false};
    };
    struct TrackLife {
        double first_s{0.0};
        double last_s{0.0};
        bool matched{false};
    };

    double m_gate_m;
    double m_cutoff_m;
    double m_order;
    IdentitySummary m_sums;
    double m_distanceSum_m{0.0};
    std::unordered_map<std::uint32_t, RoadUserHistory> m_roadUsers;
    std::unordered_map<std::uint32_t, TrackLife> m_tracks;
    std::unordered_map<std::uint32_t, std::uint32_t> m_previousPairs;  ///< road user → track, last cycle
};

/// The metrics.csv rows of an identity summary (names prefixed `identity_`, `mot`, `gospa_`).
std::vector<MetricRecord> identityMetrics(const IdentitySummary& s);

}  // namespace augur::hil
