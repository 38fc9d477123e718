// The work of one thread of each kf kernel, as device functions taking the thread's linear index, and the
// pass plan of the blocked smoother scan. The __global__ entries in kalman_bank.cu / smoother.cu only
// compute the index and forward here; the device-code tests run the same functions on the CPU, thread by
// thread and pass by pass, against the Eigen reference. Internal to kernels/kf.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kf_device.cuh"
#include "scan_levels.hpp"

namespace augur::kernels::kf::device {

// ---------------------------------------------------------------- bank

/// Arguments of one bank cycle (kalman_bank.hpp layout).
template <typename Real>
struct BankArgs {
    Real q;
    Real* mean;
    Real* cov;
    std::size_t count;
    std::size_t stride;
    const Real* dt;
    const Real* z;
    const Real* measVar;
    const std::uint8_t* present;
    Real* nis;  ///< nullable
    const Real* zVel;               ///< nullable: positions only
    const Real* velCov;             ///< with zVel
    const std::uint8_t* hasVelocity;  ///< with zVel
};

/// Thread t: load target t (coalesced across a warp), predict + Joseph update(s), store.
template <typename Real, int D>
AUGUR_KF_DEVICE void bankStepThread(const BankArgs<Real>& a, std::size_t t) {
    constexpr int NP = packedSize(D);
    if (t >= a.count) {
        return;
    }
    Real x[D];
    Real packed[NP];
    Real p[D * D];
    AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
        x[c] = a.mean[c * a.stride + t];
    }
    AUGUR_KF_UNROLL
    for (int c = 0; c < NP; ++c) {
        packed[c] = a.cov[c * a.stride + t];
    }
    unpack<Real, D>(packed, p);
    const bool measured = a.present[t] != 0;
    Real zx = 0;
    Real zy = 0;
    Real rx = 1;
    Real ry = 1;
    if (measured) {
        zx = a.z[t];
        zy = a.z[a.stride + t];
        rx = a.measVar[t];
        ry = a.measVar[a.stride + t];
    }
    VelocityMeasurement<Real> velocity;
    if (measured && a.zVel != nullptr && a.hasVelocity[t] != 0) {
        velocity.present = true;
        velocity.vx = a.zVel[t];
        velocity.vy = a.zVel[a.stride + t];
        velocity.rxx = a.velCov[t];
        velocity.rxy = a.velCov[a.stride + t];
        velocity.ryy = a.velCov[2 * a.stride + t];
    }
    const Real innovation = bankStep<Real, D>(x, p, a.dt[t], a.q, measured, zx, zy, rx, ry, velocity);
    packSymmetric<Real, D>(p, packed);
    AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
        a.mean[c * a.stride + t] = x[c];
    }
    AUGUR_KF_UNROLL
    for (int c = 0; c < NP; ++c) {
        a.cov[c * a.stride + t] = packed[c];
    }
    if (a.nis != nullptr) {
        a.nis[t] = innovation;
    }
}

// ---------------------------------------------------------------- smoother

/// Filtered histories and the smoothed output (smoother.hpp layout).
template <typename Real>
struct HistoryArgs {
    const Real* mean;
    const Real* cov;
    const Real* dt;
    Real* outMean;
    Real* outCov;
    std::size_t steps;
    std::size_t targets;
    Real q;
};

/// Scratch element j of target b of one level: value v at base[(j·V + v)·B + b].
template <typename Real, int D>
AUGUR_KF_DEVICE void loadStored(const Real* base, std::size_t j, std::size_t b, std::size_t bCount, Element<Real, D>& e) {
    constexpr int V = Element<Real, D>::VALUES;
    const Real* p = base + j * V * bCount + b;
    AUGUR_KF_UNROLL
    for (int i = 0; i < D * D; ++i) {
        e.e[i] = p[static_cast<std::size_t>(i) * bCount];
    }
    AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        e.g[i] = p[static_cast<std::size_t>(D * D + i) * bCount];
    }
    AUGUR_KF_UNROLL
    for (int i = 0; i < packedSize(D); ++i) {
        e.l[i] = p[static_cast<std::size_t>(D * D + D + i) * bCount];
    }
}

template <typename Real, int D>
AUGUR_KF_DEVICE void storeElement(Real* base, std::size_t j, std::size_t b, std::size_t bCount, const Element<Real, D>& e) {
    constexpr int V = Element<Real, D>::VALUES;
    Real* p = base + j * V * bCount + b;
    AUGUR_KF_UNROLL
    for (int i = 0; i < D * D; ++i) {
        p[static_cast<std::size_t>(i) * bCount] = e.e[i];
    }
    AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        p[static_cast<std::size_t>(D * D + i) * bCount] = e.g[i];
    }
    AUGUR_KF_UNROLL
    for (int i = 0; i < packedSize(D); ++i) {
        p[static_cast<std::size_t>(D * D + D + i) * bCount] = e.l[i];
    }
}

/// The scan element of step k of target b, built from the filtered history.
template <typename Real, int D>
AUGUR_KF_DEVICE void historyElement(const HistoryArgs<Real>& h, std::size_t k, std::size_t b, Element<Real, D>& e) {
    constexpr int NP = packedSize(D);
    Real m[D];
    Real p[NP];
    AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
        m[c] = h.mean[(k * D + c) * h.targets + b];
    }
    AUGUR_KF_UNROLL
    for (int c = 0; c < NP; ++c) {
        p[c] = h.cov[(k * NP + c) * h.targets + b];
    }
    const bool last = k + 1 == h.steps;
    const Real dt = last ? Real(0) : h.dt[k * h.targets + b];
    makeElement<Real, D>(e, m, p, dt, h.q, last);
}

template <typename Real, int D>
AUGUR_KF_DEVICE void writeSmoothed(const HistoryArgs<Real>& h, std::size_t k, std::size_t b, const Element<Real, D>& e) {
    constexpr int NP = packedSize(D);
    AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
        h.outMean[(k * D + c) * h.targets + b] = e.g[c];
    }
    AUGUR_KF_UNROLL
    for (int c = 0; c < NP; ++c) {
        h.outCov[(k * NP + c) * h.targets + b] = e.l[c];
    }
}

/// One pass of the blocked scan: which kind, over which level, with how many threads.
template <typename Real>
struct ScanPass {
    enum class Kind { UpFromHistory, UpFromLevel, DownLevel, DownToOutput };
    Kind kind;
    const Real* src;        ///< UpFromLevel: the level below
    Real* data;             ///< Up*: the level written; DownLevel: the level scanned in place
    const Real* above;      ///< Down*: suffixes of the level above (nullptr for the top level)
    std::size_t count;      ///< elements per target of the level read (Up*) or scanned (Down*)
    std::size_t chunks;     ///< chunks per target = threads per target
    std::size_t threads;    ///< chunks × targets
};

/// Maximum passes of a plan: up and down over every level.
inline constexpr int MAX_SCAN_PASSES = 2 * detail::ScanLevels::MAX;

/// The passes of the blocked suffix scan, in launch order, for `levels` and a scratch of
/// V = Element::VALUES values per stored element. Returns the number of passes.
template <typename Real, int D>
int planScan(const detail::ScanLevels& levels, std::size_t targets, Real* scratch, ScanPass<Real> (&passes)[MAX_SCAN_PASSES]) {
    constexpr std::size_t V = Element<Real, D>::VALUES;
    auto levelData = [&](int l) { return scratch + levels.offset[l] * V * targets; };
    using Kind = typename ScanPass<Real>::Kind;
    int n = 0;
    for (int l = 1; l < levels.count; ++l) {
        passes[n++] = ScanPass<Real>{l == 1 ? Kind::UpFromHistory : Kind::UpFromLevel,
                                     l == 1 ? nullptr : levelData(l - 1),
                                     levelData(l),
                                     nullptr,
                                     levels.size[l - 1],
                                     levels.size[l],
                                     levels.size[l] * targets};
    }
    for (int l = levels.count - 1; l >= 0; --l) {
        const bool hasAbove = l + 1 < levels.count;
        const std::size_t chunks = hasAbove ? levels.size[l + 1] : 1;
        passes[n++] = ScanPass<Real>{l == 0 ? Kind::DownToOutput : Kind::DownLevel,
                                     nullptr,
                                     l == 0 ? nullptr : levelData(l),
                                     hasAbove ? levelData(l + 1) : nullptr,
                                     levels.size[l],
                                     chunks,
                                     chunks * targets};
    }
    return n;
}

/// Up-sweep thread: folds chunk j of target b (idx = j·B + b) of the level below (the history when
/// FROM_HISTORY) into its aggregate.
template <typename Real, int D, bool FROM_HISTORY>
AUGUR_KF_DEVICE void upsweepThread(const HistoryArgs<Real>& h, const ScanPass<Real>& pass, std::size_t chunk,
                                   std::size_t idx) {
    if (idx >= pass.threads) {
        return;
    }
    const std::size_t bCount = h.targets;
    const std::size_t j = idx / bCount;
    const std::size_t b = idx % bCount;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < pass.count ? begin + chunk : pass.count;
    Element<Real, D> acc;
    if constexpr (FROM_HISTORY) {
        historyElement<Real, D>(h, end - 1, b, acc);
    } else {
        loadStored<Real, D>(pass.src, end - 1, b, bCount, acc);
    }
    for (std::size_t i = end - 1; i-- > begin;) {
        Element<Real, D> e;
        if constexpr (FROM_HISTORY) {
            historyElement<Real, D>(h, i, b, e);
        } else {
            loadStored<Real, D>(pass.src, i, b, bCount, e);
        }
        combineInto<Real, D>(e, acc);
    }
    storeElement<Real, D>(pass.data, j, b, bCount, acc);
}

/// Down-sweep thread: scans chunk j of target b from the suffix carried in from the level above,
/// in place (DownLevel) or into the smoothed output (DownToOutput).
template <typename Real, int D, bool TO_OUTPUT>
AUGUR_KF_DEVICE void downsweepThread(const HistoryArgs<Real>& h, const ScanPass<Real>& pass, std::size_t chunk,
                                     std::size_t idx) {
    if (idx >= pass.threads) {
        return;
    }
    const std::size_t bCount = h.targets;
    const std::size_t j = idx / bCount;
    const std::size_t b = idx % bCount;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < pass.count ? begin + chunk : pass.count;
    auto load = [&](std::size_t i, Element<Real, D>& e) {
        if constexpr (TO_OUTPUT) {
            historyElement<Real, D>(h, i, b, e);
        } else {
            loadStored<Real, D>(pass.data, i, b, bCount, e);
        }
    };
    auto store = [&](std::size_t i, const Element<Real, D>& e) {
        if constexpr (TO_OUTPUT) {
            writeSmoothed<Real, D>(h, i, b, e);
        } else {
            storeElement<Real, D>(pass.data, i, b, bCount, e);
        }
    };
    Element<Real, D> acc;
    if (pass.above != nullptr && j + 1 < pass.chunks) {
        Element<Real, D> e;
        loadStored<Real, D>(pass.above, j + 1, b, bCount, acc);
        load(end - 1, e);
        combineInto<Real, D>(e, acc);
    } else {
        load(end - 1, acc);
    }
    store(end - 1, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        Element<Real, D> e;
        load(i, e);
        combineInto<Real, D>(e, acc);
        store(i, acc);
    }
}

/// Sequential RTS for target b (the one-thread-per-target GPU baseline).
template <typename Real, int D>
AUGUR_KF_DEVICE void sequentialRtsThread(const HistoryArgs<Real>& h, std::size_t b) {
    constexpr int NP = packedSize(D);
    if (b >= h.targets) {
        return;
    }
    const std::size_t bCount = h.targets;
    Real ms[D];
    Real ps[D * D];
    Real packed[NP];
    const std::size_t lastStep = h.steps - 1;
    AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
        ms[c] = h.mean[(lastStep * D + c) * bCount + b];
        h.outMean[(lastStep * D + c) * bCount + b] = ms[c];
    }
    AUGUR_KF_UNROLL
    for (int c = 0; c < NP; ++c) {
        packed[c] = h.cov[(lastStep * NP + c) * bCount + b];
        h.outCov[(lastStep * NP + c) * bCount + b] = packed[c];
    }
    unpack<Real, D>(packed, ps);
    for (std::size_t k = lastStep; k-- > 0;) {
        Real m[D];
        Real p[D * D];
        AUGUR_KF_UNROLL
        for (int c = 0; c < D; ++c) {
            m[c] = h.mean[(k * D + c) * bCount + b];
        }
        AUGUR_KF_UNROLL
        for (int c = 0; c < NP; ++c) {
            packed[c] = h.cov[(k * NP + c) * bCount + b];
        }
        unpack<Real, D>(packed, p);
        const Real dt = h.dt[k * bCount + b];
        Real gt[D * D];  // F P, then Gᵀ = (P⁻)⁻¹ F P
        AUGUR_KF_UNROLL
        for (int i = 0; i < D * D; ++i) {
            gt[i] = p[i];
        }
        applyTransitionRows<Real, D, D>(gt, dt);
        Real predicted[D * D];
        AUGUR_KF_UNROLL
        for (int i = 0; i < D * D; ++i) {
            predicted[i] = gt[i];
        }
        applyTransitionCols<Real, D>(predicted, dt);
        addProcessNoise<Real, D>(predicted, dt, h.q);
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            AUGUR_KF_UNROLL
            for (int j = i + 1; j < D; ++j) {
                const Real s = Real(0.5) * (predicted[i * D + j] + predicted[j * D + i]);
                predicted[i * D + j] = s;
                predicted[j * D + i] = s;
            }
        }
        Real factor[D * D];
        AUGUR_KF_UNROLL
        for (int i = 0; i < D * D; ++i) {
            factor[i] = predicted[i];
        }
        cholesky<Real, D>(factor);
        choleskySolve<Real, D>(factor, gt);
        // mˢ = m + G (mˢ − F m)
        Real fm[D];
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            fm[i] = m[i];
        }
        applyTransitionRows<Real, D, 1>(fm, dt);
        Real diff[D];
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            diff[i] = ms[i] - fm[i];
        }
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            Real s = m[i];
            AUGUR_KF_UNROLL
            for (int k2 = 0; k2 < D; ++k2) {
                s += gt[k2 * D + i] * diff[k2];
            }
            ms[i] = s;
        }
        // Pˢ = P + G (Pˢ − P⁻) Gᵀ
        AUGUR_KF_UNROLL
        for (int i = 0; i < D * D; ++i) {
            ps[i] -= predicted[i];
        }
        Real t[D * D];  // G (Pˢ − P⁻)
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            AUGUR_KF_UNROLL
            for (int j = 0; j < D; ++j) {
                Real s = Real(0);
                AUGUR_KF_UNROLL
                for (int k2 = 0; k2 < D; ++k2) {
                    s += gt[k2 * D + i] * ps[k2 * D + j];
                }
                t[i * D + j] = s;
            }
        }
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            AUGUR_KF_UNROLL
            for (int j = i; j < D; ++j) {
                Real s = p[i * D + j];
                AUGUR_KF_UNROLL
                for (int k2 = 0; k2 < D; ++k2) {
                    s += t[i * D + k2] * gt[k2 * D + j];
                }
                ps[i * D + j] = s;
            }
        }
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            AUGUR_KF_UNROLL
            for (int j = 0; j < i; ++j) {
                ps[i * D + j] = ps[j * D + i];
            }
        }
        AUGUR_KF_UNROLL
        for (int c = 0; c < D; ++c) {
            h.outMean[(k * D + c) * bCount + b] = ms[c];
        }
        AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            AUGUR_KF_UNROLL
            for (int j = i; j < D; ++j) {
                h.outCov[(k * NP + packedIndex(D, i, j)) * bCount + b] = ps[i * D + j];
            }
        }
    }
}

}  // namespace augur::kernels::kf::device
