// Device operations on sorted entity sets, shared by the flock kernels of both stages: the 64-bit
// membership signature (a one-word Bloom filter: disjoint signatures mean disjoint sets, a signature
// that is not contained in another means not a subset), intersection size and members (merge of sorted
// runs), subset, equality and lexicographic order (the CPU reference's lexLess). Included by .cu files.
#pragma once

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

/// |a ∩ b| of two sorted runs. O(na + nb).
__device__ __forceinline__ long long intersectionSize(const int* a, long long na, const int* b, long long nb) {
    long long i = 0;
    long long j = 0;
    long long n = 0;
    while (i < na && j < nb) {
        const int va = a[i];
        const int vb = b[j];
        n += va == vb ? 1 : 0;
        i += va <= vb ? 1 : 0;
        j += vb <= va ? 1 : 0;
    }
    return n;
}

/// Writes a ∩ b (sorted) to out and returns its signature. O(na + nb).
__device__ __forceinline__ unsigned long long writeIntersection(const int* a, long long na, const int* b, long long nb, int* out) {
    unsigned long long signature = 0;
    long long i = 0;
    long long j = 0;
    while (i < na && j < nb) {
        const int va = a[i];
        const int vb = b[j];
        if (va == vb) {
            *out++ = va;
            signature |= signatureBit(va);
        }
        i += va <= vb ? 1 : 0;
        j += vb <= va ? 1 : 0;
    }
    return signature;
}

/// a ⊆ b for sorted runs. O(na + nb).
__device__ __forceinline__ bool isSubset(const int* a, long long na, const int* b, long long nb) {
    long long j = 0;
    for (long long i = 0; i < na; ++i) {
        while (j < nb && b[j] < a[i]) {
            ++j;
        }
        if (j == nb || b[j] != a[i]) {
            return false;
        }
        ++j;
    }
    return true;
}

/// Lexicographic order of sorted runs (a proper prefix first), as the CPU reference's lexLess.
__device__ __forceinline__ bool lexLess(const int* a, long long na, const int* b, long long nb) {
    const long long n = na < nb ? na : nb;
    for (long long i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return na < nb;
}

}  // namespace augur::kernels::flock::detail
