// Flock geometry shared bit for bit by the CPU reference and the CUDA kernels.
//
// seeds/002 §2.1, Lemma 3: for every pair of points at distance ≤ 2ε only ONE disk of radius ε with
// both points on its boundary needs testing — the one on the right side of the pair. We orient each pair
// from the lower to the higher entity index and take the disk whose centre lies to the right of that
// directed segment (the vertex argument in docs/design/flocks.md shows one such disk always exists for
// every maximal set). Disk centres are stored as an offset from the anchor (lower-index) point and
// every distance is taken from that anchor, so precision does not degrade with large coordinates.
//
// Every operation is an explicitly rounded IEEE double operation (no fused multiply-add on the device,
// -ffp-contract=off on the host), so the CPU and the GPU make the same inside/outside decisions.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define AUGUR_FLOCK_HD __host__ __device__ __forceinline__
#else
#define AUGUR_FLOCK_HD inline
#endif

namespace augur::kernels::flock::detail {

AUGUR_FLOCK_HD double mulRn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
AUGUR_FLOCK_HD double addRn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
AUGUR_FLOCK_HD double subRn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
AUGUR_FLOCK_HD double divRn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
AUGUR_FLOCK_HD double sqrtRn(double a) {
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}

AUGUR_FLOCK_HD double squaredNorm(double dx, double dy) { return addRn(mulRn(dx, dx), mulRn(dy, dy)); }

/// Distance thresholds derived once from ε (host) and passed to every kernel, so both sides compare
/// against the same doubles.
struct Limits {
    double radius2{0.0};    ///< ε² (exact square, for the centre construction)
    double member2{0.0};    ///< (ε(1+tol))²: a point is inside a disk when its squared distance ≤ this
    double pair2{0.0};      ///< (2ε(1+tol))²: a pair defines a disk when its squared distance ≤ this
    double cellMin_m{0.0};  ///< smallest grid cell edge: ε(1 + 1e-6), see makeStepGrid
};

inline Limits makeLimits(double radius_m, double tolerance) {
    Limits limits;
    const double inflated = radius_m * (1.0 + tolerance);
    limits.radius2 = radius_m * radius_m;
    limits.member2 = inflated * inflated;
    limits.pair2 = 4.0 * limits.member2;
    limits.cellMin_m = radius_m * (1.0 + 1e-6);
    return limits;
}

/// Offset from the anchor point to a disk centre.
struct DiskOffset {
    double dx{0.0};
    double dy{0.0};
};

/// The Lemma-3 disk for the pair (anchor, other) with other − anchor = (dx, dy): radius ε, both points on
/// its boundary, centre to the right of anchor → other. Coincident points (d = 0) get the disk centred
/// on the anchor (any disk through a single location covers a superset of its maximal set).
/// Precondition: dx² + dy² ≤ pair2.
AUGUR_FLOCK_HD DiskOffset rightDiskOffset(double dx, double dy, double radius2) {
    const double d2 = squaredNorm(dx, dy);
    if (d2 == 0.0) {
        return {};
    }
    const double h2 = subRn(radius2, mulRn(d2, 0.25));
    const double h = h2 > 0.0 ? sqrtRn(h2) : 0.0;  // rounding at exactly 2ε: the midpoint
    const double k = divRn(h, sqrtRn(d2));
    // Right-hand normal of (dx, dy) is (dy, -dx).
    return {addRn(mulRn(dx, 0.5), mulRn(k, dy)), subRn(mulRn(dy, 0.5), mulRn(k, dx))};
}

/// True when the point at (px, py) − anchor = (rx, ry) lies in the disk whose centre is anchor + offset.
AUGUR_FLOCK_HD bool insideDisk(double rx, double ry, DiskOffset offset, double member2) {
    return squaredNorm(subRn(rx, offset.dx), subRn(ry, offset.dy)) <= member2;
}

/// Neighbourhood searched around a cell: ±2 cells. Cells are ≥ ε(1+1e-6) wide, so every point within
/// 2ε(1+tol) of a point lies in the 5 × 5 block around that point's cell, rounding included.
inline constexpr int NEIGHBOUR_REACH = 2;

/// … and ±1 cell on a grid made coarser than 2ε(1+1e-6) (see makeStepGrid): every point within
/// 2ε(1+tol) of a point then lies in the 3 × 3 block around that point's cell, with the same margin.
inline constexpr int COARSE_NEIGHBOUR_REACH = 1;

/// One step's regular grid: square, `side` × `side` cells of edge cell_m from (minX, minY); neighbourhoods
/// reach ±`reach` cells. Cell coordinates multiply by inverseCell (1 / cell_m, rounded): its relative
/// error of 2⁻⁵³ is far inside the 1e-6 margin of the cell edges.
struct StepGrid {
    double minX_m{0.0};
    double minY_m{0.0};
    double cell_m{1.0};
    double inverseCell{1.0};
    int side{1};
    int reach{NEIGHBOUR_REACH};
};

/// The grid for a step whose present points span [minX, maxX] × [minY, maxY]: cells of edge
/// ε(1+1e-6) (seeds/002 §4.1 uses edge ε), made coarser when more than sideCap² cells would be needed
/// (cells of at least 2ε(1+1e-6) are searched ±1 cell instead of ±2).
AUGUR_FLOCK_HD StepGrid makeStepGrid(double minX, double maxX, double minY, double maxY, double cellMin_m, int sideCap) {
    StepGrid grid;
    grid.minX_m = minX;
    grid.minY_m = minY;
    grid.cell_m = cellMin_m;
    grid.inverseCell = divRn(1.0, cellMin_m);
    grid.side = 1;
    if (!(maxX >= minX) || !(maxY >= minY)) {
        return grid;  // no present point
    }
    const double extent = fmax(maxX - minX, maxY - minY);
    const double needed = floor(extent / cellMin_m) + 1.0;
    if (needed <= static_cast<double>(sideCap)) {
        grid.side = static_cast<int>(needed);
    } else if (sideCap > 1) {
        grid.side = sideCap;
        grid.cell_m = fmax(cellMin_m, (extent / static_cast<double>(sideCap - 1)) * (1.0 + 1e-6));
        grid.reach = grid.cell_m >= 2.0 * cellMin_m ? COARSE_NEIGHBOUR_REACH : NEIGHBOUR_REACH;
        grid.inverseCell = divRn(1.0, grid.cell_m);
    }
    return grid;
}

AUGUR_FLOCK_HD int cellCoordinate(double v, double min, double inverseCell, int side) {
    const double f = floor(mulRn(subRn(v, min), inverseCell));
    if (!(f >= 0.0)) {
        return 0;
    }
    if (f >= static_cast<double>(side - 1)) {
        return side - 1;
    }
    return static_cast<int>(f);
}

}  // namespace augur::kernels::flock::detail
