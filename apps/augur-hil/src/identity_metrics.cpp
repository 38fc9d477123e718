#include "augur/hil/identity_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "augur/core/panic.hpp"
#include "augur/hil/assignment.hpp"
#include "augur/hil/set_distance.hpp"

namespace augur::hil {
namespace {

double distanceBetween(const IdentifiedPosition& a, const IdentifiedPosition& b) {
    return std::hypot(a.x_m - b.x_m, a.y_m - b.y_m);
}

}  // namespace

IdentityAccumulator::IdentityAccumulator(double matchGate_m, double cutoff_m, double order)
    : m_gate_m(matchGate_m), m_cutoff_m(cutoff_m), m_order(order) {
    AUGUR_ASSERT(matchGate_m > 0.0 && cutoff_m > 0.0 && order >= 1.0, "IdentityAccumulator: gate, cutoff > 0, order >= 1");
}

void IdentityAccumulator::addCycle(double t_s, std::span<const IdentifiedPosition> roadUsers,
                                   std::span<const IdentifiedPosition> tracks) {
    ++m_sums.cycles;
    addGospa(roadUsers, tracks);
    // CLEAR MOT matching: keep last cycle's pairs still inside the gate, then assign the rest.
    std::vector<int> trackOf(roadUsers.size(), -1);
    std::vector<std::uint8_t> trackTaken(tracks.size(), 0);
    keepPreviousPairs(roadUsers, tracks, trackOf, trackTaken);
    assignFreePairs(roadUsers, tracks, trackOf, trackTaken);
    countCycle(t_s, roadUsers, tracks, trackOf, trackTaken);
}

/// GOSPA parts: in-range road users against every track.
void IdentityAccumulator::addGospa(std::span<const IdentifiedPosition> roadUsers,
                                   std::span<const IdentifiedPosition> tracks) {
    std::vector<Point2> truthPoints;
    for (const IdentifiedPosition& r : roadUsers) {
        if (r.inRange) {
            truthPoints.push_back({r.x_m, r.y_m});
        }
    }
    std::vector<Point2> trackPoints;
    for (const IdentifiedPosition& t : tracks) {
        trackPoints.push_back({t.x_m, t.y_m});
    }
    const GospaResult g = gospa(truthPoints, trackPoints, m_cutoff_m, m_order);
    const double penalty = std::pow(m_cutoff_m, m_order) / 2.0;
    m_sums.gospaLocalisation += g.localisationSum;
    m_sums.gospaMissed += penalty * static_cast<double>(g.missed);
    m_sums.gospaFalse += penalty * static_cast<double>(g.falseTargets);
}

/// Last cycle's pairs that are still inside the gate.
void IdentityAccumulator::keepPreviousPairs(std::span<const IdentifiedPosition> roadUsers,
                                            std::span<const IdentifiedPosition> tracks, std::vector<int>& trackOf,
                                            std::vector<std::uint8_t>& trackTaken) const {
    for (std::size_t i = 0; i < roadUsers.size(); ++i) {
        const auto previous = m_previousPairs.find(roadUsers[i].id);
        if (previous == m_previousPairs.end()) {
            continue;
        }
        for (std::size_t j = 0; j < tracks.size(); ++j) {
            if (tracks[j].id == previous->second && trackTaken[j] == 0 &&
                distanceBetween(roadUsers[i], tracks[j]) < m_gate_m) {
                trackOf[i] = static_cast<int>(j);
                trackTaken[j] = 1;
                break;
            }
        }
    }
}

/// The unmatched road users and tracks by minimum-cost assignment of squared distances, pairs inside
/// the gate only.
void IdentityAccumulator::assignFreePairs(std::span<const IdentifiedPosition> roadUsers,
                                          std::span<const IdentifiedPosition> tracks, std::vector<int>& trackOf,
                                          std::vector<std::uint8_t>& trackTaken) const {
    std::vector<std::size_t> freeUsers;
    std::vector<std::size_t> freeTracks;
    for (std::size_t i = 0; i < roadUsers.size(); ++i) {
        if (trackOf[i] < 0) {
            freeUsers.push_back(i);
        }
    }
    for (std::size_t j = 0; j < tracks.size(); ++j) {
        if (trackTaken[j] == 0) {
            freeTracks.push_back(j);
        }
    }
    if (!freeUsers.empty() && !freeTracks.empty()) {
        const double outside = 2.0 * m_gate_m * m_gate_m;  // any pair at the gate or beyond costs the same
        std::vector<double> cost(freeUsers.size() * freeTracks.size());
        for (std::size_t a = 0; a < freeUsers.size(); ++a) {
            for (std::size_t b = 0; b < freeTracks.size(); ++b) {
                const double d = distanceBetween(roadUsers[freeUsers[a]], tracks[freeTracks[b]]);
                cost[a * freeTracks.size() + b] = d < m_gate_m ? d * d : outside;
            }
        }
        const std::vector<int> assignment = minimumCostAssignment(cost, freeUsers.size(), freeTracks.size());
        for (std::size_t a = 0; a < freeUsers.size(); ++a) {
            if (assignment[a] < 0) {
                continue;
            }
            const std::size_t i = freeUsers[a];
            const std::size_t j = freeTracks[static_cast<std::size_t>(assignment[a])];
            if (distanceBetween(roadUsers[i], tracks[j]) < m_gate_m) {
                trackOf[i] = static_cast<int>(j);
                trackTaken[j] = 1;
            }
        }
    }
}

/// Counts: ground truth, misses, matches and their distance, id switches, fragmentations, false
/// positives; the track lifetimes and this cycle's pairs for the next.
void IdentityAccumulator::countCycle(double t_s, std::span<const IdentifiedPosition> roadUsers,
                                     std::span<const IdentifiedPosition> tracks, const std::vector<int>& trackOf,
                                     const std::vector<std::uint8_t>& trackTaken) {
    m_previousPairs.clear();
    for (const IdentifiedPosition& t : tracks) {
        auto [life, born] = m_tracks.try_emplace(t.id, TrackLife{t_s, t_s, false});
        life->second.last_s = t_s;
        (void)born;
    }
    for (std::size_t i = 0; i < roadUsers.size(); ++i) {
        const IdentifiedPosition& r = roadUsers[i];
        RoadUserHistory& history = m_roadUsers[r.id];
        if (r.inRange) {
            ++m_sums.groundTruth;
        }
        if (trackOf[i] < 0) {
            if (r.inRange) {
                ++m_sums.misses;
                history.matchedLastTime = false;
            }
            continue;
        }
        const IdentifiedPosition& t = tracks[static_cast<std::size_t>(trackOf[i])];
        ++m_sums.matches;
        m_distanceSum_m += distanceBetween(r, t);
        if (history.lastTrack != 0 && history.lastTrack != t.id) {
            ++m_sums.idSwitches;
        }
        if (history.lastTrack != 0 && !history.matchedLastTime) {
            ++m_sums.fragmentations;
        }
        history.lastTrack = t.id;
        history.matchedLastTime = true;
        m_tracks[t.id].matched = true;
        m_previousPairs[r.id] = t.id;
    }
    for (std::size_t j = 0; j < tracks.size(); ++j) {
        m_sums.falsePositives += trackTaken[j] == 0 ? 1U : 0U;
    }
}

IdentitySummary IdentityAccumulator::summary() const {
    IdentitySummary s = m_sums;
    if (s.groundTruth > 0) {
        s.mota = 1.0 - static_cast<double>(s.misses + s.falsePositives + s.idSwitches) / static_cast<double>(s.groundTruth);
    }
    if (s.matches > 0) {
        s.motp_m = m_distanceSum_m / static_cast<double>(s.matches);
    }
    if (s.cycles > 0) {
        const auto cycles = static_cast<double>(s.cycles);
        s.gospaLocalisation /= cycles;
        s.gospaMissed /= cycles;
        s.gospaFalse /= cycles;
    }
    s.trackIds = m_tracks.size();
    for (const auto& [id, life] : m_tracks) {
        if (!life.matched) {
            ++s.falseTrackIds;
            s.longestFalseTrack_s = std::max(s.longestFalseTrack_s, life.last_s - life.first_s);
        }
    }
    return s;
}

std::vector<MetricRecord> identityMetrics(const IdentitySummary& s) {
    return {{"identity_switches", static_cast<double>(s.idSwitches), "switches"},
            {"identity_fragmentations", static_cast<double>(s.fragmentations), "fragmentations"},
            {"identity_track_ids", static_cast<double>(s.trackIds), "tracks"},
            {"identity_false_track_ids", static_cast<double>(s.falseTrackIds), "tracks"},
            {"identity_longest_false_track", s.longestFalseTrack_s, "s"},
            {"mota", s.mota, ""},
            {"motp", s.motp_m, "m"},
            {"mot_matches", static_cast<double>(s.matches), "pairs"},
            {"mot_misses", static_cast<double>(s.misses), "object-cycles"},
            {"mot_false_positives", static_cast<double>(s.falsePositives), "track-cycles"},
            {"gospa_localisation", s.gospaLocalisation, "m^p"},
            {"gospa_missed", s.gospaMissed, "m^p"},
            {"gospa_false", s.gospaFalse, "m^p"}};
}

}  // namespace augur::hil
