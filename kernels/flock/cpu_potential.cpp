// CPU reference of the potential-flock stage for one step (seeds/002 §4.1–4.2), mirroring the kernels
// in cuda_batch.cu pass for pass.
#include "cpu_potential.hpp"

#include <algorithm>
#include <limits>

namespace augur::kernels::flock::detail {

namespace {

template <typename T>
std::unique_ptr<T[]> uninitialised(std::int64_t count) {
    return std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)));
}

bool isPresent(const TrajectoryView& view, std::int64_t sample) noexcept {
    return view.present == nullptr || view.present[sample] != 0;
}

}  // namespace

StepScratch::StepScratch(int entities, int gridCellsPerStep, std::int64_t maxDisks, std::int64_t maxMembers)
    : maxEntities(entities),
      cellCapacity(gridCellsPerStep),
      diskCapacity(maxDisks),
      memberCapacity(maxMembers),
      cellCount(uninitialised<std::int32_t>(gridCellsPerStep + 1)),
      cellStart(uninitialised<std::int32_t>(gridCellsPerStep + 1)),
      cellFill(uninitialised<std::int32_t>(gridCellsPerStep + 1)),
      pointCell(uninitialised<std::int32_t>(entities)),
      sortedId(uninitialised<std::int32_t>(entities)),
      sortedX(uninitialised<double>(entities)),
      sortedY(uninitialised<double>(entities)),
      anchorDiskBegin(uninitialised<std::int64_t>(entities + 1)),
      diskOffset(uninitialised<DiskOffset>(maxDisks)),
      diskAnchor(uninitialised<std::int32_t>(maxDisks)),
      diskSize(uninitialised<std::int32_t>(maxDisks)),
      diskMemberStart(uninitialised<std::int64_t>(maxDisks)),
      diskSignature(uninitialised<std::uint64_t>(maxDisks)),
      members(uninitialised<std::int32_t>(maxMembers)) {}

StepResult potentialFlocksOfStep(const TrajectoryView& view, int step, int minEntities, const Limits& limits,
                                 int sideCap, StepScratch& s, FamilyBuffer& out) noexcept {
    StepResult result;
    const int n = view.entityCount;
    const std::int64_t base = static_cast<std::int64_t>(step) * n;
    const double* xs = view.x_m + base;
    const double* ys = view.y_m + base;

    // Bounding box of the present points → this step's grid (§4.1).
    double minX = std::numeric_limits<double>::infinity();
    double minY = minX;
    double maxX = -minX;
    double maxY = -minX;
    for (int i = 0; i < n; ++i) {
        if (isPresent(view, base + i)) {
            minX = std::min(minX, xs[i]);
            maxX = std::max(maxX, xs[i]);
            minY = std::min(minY, ys[i]);
            maxY = std::max(maxY, ys[i]);
        }
    }
    const StepGrid grid = makeStepGrid(minX, maxX, minY, maxY, limits.cellMin_m, sideCap);
    const int cells = grid.side * grid.side;

    // Counting pass, prefix sum, placement pass.
    std::fill(s.cellCount.get(), s.cellCount.get() + cells, 0);
    for (int i = 0; i < n; ++i) {
        if (!isPresent(view, base + i)) {
            s.pointCell[i] = -1;
            continue;
        }
        const int cx = cellCoordinate(xs[i], grid.minX_m, grid.inverseCell, grid.side);
        const int cy = cellCoordinate(ys[i], grid.minY_m, grid.inverseCell, grid.side);
        s.pointCell[i] = cy * grid.side + cx;
        ++s.cellCount[s.pointCell[i]];
    }
    s.cellStart[0] = 0;
    for (int c = 0; c < cells; ++c) {
        s.cellStart[c + 1] = s.cellStart[c] + s.cellCount[c];
        s.cellFill[c] = s.cellStart[c];
    }
    for (int i = 0; i < n; ++i) {
        if (s.pointCell[i] >= 0) {
            const std::int32_t slot = s.cellFill[s.pointCell[i]]++;
            s.sortedId[slot] = i;
            s.sortedX[slot] = xs[i];
            s.sortedY[slot] = ys[i];
        }
    }

    // Visits the sorted slots of the 5 × 5 (coarse grids: 3 × 3) cells around `cell`.
    const auto forNeighbours = [&](int cell, auto&& visit) {
        const int cx = cell % grid.side;
        const int cy = cell / grid.side;
        const int y0 = std::max(cy - grid.reach, 0);
        const int y1 = std::min(cy + grid.reach, grid.side - 1);
        const int x0 = std::max(cx - grid.reach, 0);
        const int x1 = std::min(cx + grid.reach, grid.side - 1);
        for (int y = y0; y <= y1; ++y) {
            const int row = y * grid.side;
            for (std::int32_t k = s.cellStart[row + x0]; k < s.cellStart[row + x1 + 1]; ++k) {
                visit(k);
            }
        }
    };

    // One disk per pair at distance ≤ 2ε, anchored at the lower index, centre to the right (Lemma 3).
    std::int64_t disks = 0;
    for (int a = 0; a < n; ++a) {
        s.anchorDiskBegin[a] = disks;
        if (s.pointCell[a] < 0) {
            continue;
        }
        const double ax = xs[a];
        const double ay = ys[a];
        forNeighbours(s.pointCell[a], [&](std::int32_t k) {
            if (s.sortedId[k] <= a) {
                return;
            }
            const double dx = subRn(s.sortedX[k], ax);
            const double dy = subRn(s.sortedY[k], ay);
            if (squaredNorm(dx, dy) > limits.pair2) {
                return;
            }
            if (disks < s.diskCapacity) {
                s.diskAnchor[disks] = a;
                s.diskOffset[disks] = rightDiskOffset(dx, dy, limits.radius2);
            }
            ++disks;
        });
    }
    s.anchorDiskBegin[n] = disks;
    result.disks = disks;
    if (disks > s.diskCapacity) {
        result.overflow = Capacity::DisksPerStep;
        result.needed = disks;
        return result;
    }

    // Points per disk; disks with ≥ μ points are the potential flocks (members sorted ascending).
    std::int64_t cursor = 0;
    for (std::int64_t d = 0; d < disks; ++d) {
        const int a = s.diskAnchor[d];
        const double ax = xs[a];
        const double ay = ys[a];
        const DiskOffset offset = s.diskOffset[d];
        std::int64_t count = 0;
        forNeighbours(s.pointCell[a], [&](std::int32_t k) {
            if (insideDisk(subRn(s.sortedX[k], ax), subRn(s.sortedY[k], ay), offset, limits.member2)) {
                if (cursor + count < s.memberCapacity) {
                    s.members[cursor + count] = s.sortedId[k];
                }
                ++count;
            }
        });
        s.diskMemberStart[d] = cursor;
        s.diskSize[d] = 0;
        if (count < minEntities) {
            continue;
        }
        if (cursor + count > s.memberCapacity) {
            result.overflow = Capacity::CandidateMembersPerStep;
            result.needed = cursor + count;
            return result;
        }
        std::sort(s.members.get() + cursor, s.members.get() + cursor + count);
        s.diskSize[d] = static_cast<std::int32_t>(count);
        s.diskSignature[d] = setSignature({s.members.get() + cursor, static_cast<std::size_t>(count)});
        cursor += count;
    }

    // Maximal sets: a disk's set is dropped when a disk anchored near it holds a strict superset, or the
    // same set with a lower disk index. A superset contains the anchor, so its own anchor is within 2ε.
    const auto setOf = [&s](std::int64_t d) {
        return std::span<const std::int32_t>(s.members.get() + s.diskMemberStart[d], static_cast<std::size_t>(s.diskSize[d]));
    };
    for (std::int64_t d = 0; d < disks; ++d) {
        const std::int32_t size = s.diskSize[d];
        if (size == 0) {
            continue;
        }
        const auto set = setOf(d);
        const std::uint64_t signature = s.diskSignature[d];
        bool dominated = false;
        forNeighbours(s.pointCell[s.diskAnchor[d]], [&](std::int32_t k) {
            const int b = s.sortedId[k];
            for (std::int64_t e = s.anchorDiskBegin[b]; e < s.anchorDiskBegin[b + 1] && !dominated; ++e) {
                const std::int32_t other = s.diskSize[e];
                if (e == d || other < size || (signature & ~s.diskSignature[e]) != 0) {
                    continue;
                }
                if (other == size) {
                    dominated = e < d && isSubset(set, setOf(e));
                } else {
                    dominated = isSubset(set, setOf(e));
                }
            }
        });
        if (!dominated && !out.push(set)) {
            result.overflow = out.count() >= out.setCapacity() ? Capacity::FamilySetsPerBatch : Capacity::FamilyMembersPerBatch;
            result.needed = out.count() + 1;
            return result;
        }
    }
    return result;
}

}  // namespace augur::kernels::flock::detail
