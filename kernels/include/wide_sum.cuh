// Exact 192-bit sums of full 128-bit products, reduced once at the end: the inner products of
// the RNS conversions (kernels/rns.cu) and of key switching (kernels/keyswitch.cu).
//
// With factors below 2^62 every product is below 2^124, so up to 2^68 terms fit; the kernels
// use at most a few hundred. The reduction gives the residue of the exact sum, which is the
// canonical word the CPU's (lazily reduced) sums end at: different forms, same value.
#pragma once

#include "modarith.cuh"

namespace wide_sum {

using modarith::u64;

// (s2, s1, s0) = s2 2^128 + s1 2^64 + s0.
struct Sum192 {
    u64 s0, s1, s2;
};

// The 128-bit value hi 2^64 + lo.
__device__ __forceinline__ Sum192 sum192(const u64 lo, const u64 hi) {
    Sum192 a;
    a.s0 = lo;
    a.s1 = hi;
    a.s2 = 0;
    return a;
}

// a += x * w (the full 128-bit product).
__device__ __forceinline__ void sum192_mad(Sum192& a, const u64 x, const u64 w) {
    const u64 lo = x * w;
    const u64 hi = __umul64hi(x, w);
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u64 %2, %2, 0;"
        : "+l"(a.s0), "+l"(a.s1), "+l"(a.s2)
        : "l"(lo), "l"(hi));
}

// a += b.
__device__ __forceinline__ void sum192_merge(Sum192& a, const Sum192& b) {
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u64 %2, %2, %5;"
        : "+l"(a.s0), "+l"(a.s1), "+l"(a.s2)
        : "l"(b.s0), "l"(b.s1), "l"(b.s2));
}

// a mod p. A sum below 2^128 takes one Barrett reduction; otherwise (s2 2^64 + s1) mod p
// first (s2 < 2^64 for any sum these kernels form), then (that 2^64 + s0) mod p.
__device__ __forceinline__ u64 sum192_reduce(const Sum192& a, const modarith::Modulus& m) {
    if (a.s2 == 0) return modarith::reduce_u128(a.s0, a.s1, m);
    const u64 top = modarith::reduce_u128(a.s1, a.s2, m);
    return modarith::reduce_u128(a.s0, top, m);
}

}  // namespace wide_sum
