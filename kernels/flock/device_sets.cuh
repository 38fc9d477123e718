// Device operations on sorted entity sets, shared by the flock kernels of both stages: the 64-bit
// membership signature (a one-word Bloom filter: disjoint signatures mean disjoint sets, a signature
// that is not contained in another means not a subset), intersection size (merge of sorted runs),
// intersection members (by the whole warp), subset and lexicographic order (the CPU reference's
// lexLess). Included by .cu files.
#pragma once

#include "cuda_launch.cuh"

namespace augur::kernels::flock::detail {

/// The signature bit of one entity (Fibonacci hashing of the id into 64 bits).
__device__ __forceinline__ unsigned long long signatureBit(int id) {
    const unsigned int h = static_cast<unsigned int>(id) * 0x9E3779B1U;
    return 1ULL << (h >> 26U);
}

__device__ __forceinline__ unsigned long long signatureOf(const int* set, long long size) {
    unsigned long long signature = 0;
    for (long long i = 0; i < size; ++i) {
        signature |= signatureBit(set[i]);
    }
    return signature;
}

// The merges below index with 32-bit ints (a set holds fewer than 2³¹ entities): with 64-bit indices a
// merge step took 28 instructions (H100 SASS of the intersection stage's count kernel), most of them
// carry halves of index and address arithmetic.

/// |a ∩ b| of two sorted runs. O(na + nb).
__device__ __forceinline__ int intersectionSize(const int* a, int na, const int* b, int nb) {
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < na && j < nb) {
        const int va = a[i];
        const int vb = b[j];
        n += va == vb ? 1 : 0;
        i += va <= vb ? 1 : 0;
        j += vb <= va ? 1 : 0;
    }
    return n;
}

/// a ⊆ b for sorted runs. O(na + nb).
__device__ __forceinline__ bool isSubset(const int* a, int na, const int* b, int nb) {
    int j = 0;
    for (int i = 0; i < na; ++i) {
        const int va = a[i];
        while (j < nb && b[j] < va) {
            ++j;
        }
        if (j == nb || b[j] != va) {
            return false;
        }
        ++j;
    }
    return true;
}

/// The size and signature of an intersection written by warpWriteIntersection.
struct WrittenSet {
    int size;
    unsigned long long signature;
};

/// Writes a ∩ b (sorted) to out by the whole warp — every lane calls it with the same runs: lane i tests
/// a[i], a[i + 32], … against b, whose members come 32 at a time from the lanes that loaded them
/// (one shuffle and compare each); the members found go to out in a's order (ballot ranks). Returns
/// the size and signature in every lane. For one pair at a time — the kept intersections of a set,
/// which a lane-per-pair merge wrote with one active lane of 32.
__device__ __forceinline__ WrittenSet warpWriteIntersection(const int* a, int na, const int* b, int nb, int* out, int lane) {
    int size = 0;
    unsigned long long signature = 0;
    for (int first = 0; first < na; first += WARP_THREADS) {
        const int i = first + lane;
        const int x = i < na ? a[i] : -1;  // entity indices are ≥ 0
        bool found = false;
        for (int chunk = 0; chunk < nb; chunk += WARP_THREADS) {
            const int j = chunk + lane;
            const int y = j < nb ? b[j] : -2;
            const int count = nb - chunk < WARP_THREADS ? nb - chunk : WARP_THREADS;
            for (int k = 0; k < count; ++k) {
                found |= x == __shfl_sync(FULL_WARP, y, k);  // every lane shuffles: no short circuit
            }
        }
        const unsigned int ballot = __ballot_sync(FULL_WARP, found);
        if (found) {
            out[size + __popc(ballot & ((1U << lane) - 1U))] = x;
            signature |= signatureBit(x);
        }
        size += __popc(ballot);
    }
    return WrittenSet{size, warpOr(signature)};
}

/// Lexicographic order of sorted runs (a proper prefix first), as the CPU reference's lexLess.
__device__ __forceinline__ bool lexLess(const int* a, int na, const int* b, int nb) {
    const int n = na < nb ? na : nb;
    for (int i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return na < nb;
}

}  // namespace augur::kernels::flock::detail
