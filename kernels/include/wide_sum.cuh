// Exact 192-bit sums of full 128-bit products, reduced once at the end: the inner products of
// the RNS conversions (kernels/rns.cu) and of key switching (kernels/keyswitch.cu); and
// 128-bit sums for inner products whose bound the host has checked (Sum128).
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

// A sum known to stay below 2^128 (the caller bounds the number and size of its terms). With
// x = x1 2^32 + x0 and w = w1 2^32 + w0, the partial products x0 w0 + x1 w1 2^64 go into
// (hi, lo) with one carry, and the middle ones x0 w1 + x1 w0 into a 96-bit (mc, mid) weighted
// 2^32: every addition is one wide multiply-add on aligned register pairs (about 8 instructions
// a product, where sum192_mad takes about 20).
struct Sum128 {
    u64 lo, hi, mid;
    uint32_t mc;
};

// The 128-bit value hi 2^64 + lo.
__device__ __forceinline__ Sum128 sum128(const u64 lo, const u64 hi) {
    Sum128 a;
    a.lo = lo;
    a.hi = hi;
    a.mid = 0;
    a.mc = 0;
    return a;
}

// a += x * w. (hi, lo) stays at most the true sum, so with the sum below 2^128 its carry out is
// zero; (mc, mid) takes at most 2^31 products.
__device__ __forceinline__ void sum128_mad(Sum128& a, const u64 x, const u64 w) {
    asm("{\n\t"
        ".reg .u32 x0, x1, w0, w1;\n\t"
        ".reg .u64 t;\n\t"
        "mov.b64 {x0, x1}, %4;\n\t"
        "mov.b64 {w0, w1}, %5;\n\t"
        "mul.wide.u32 t, x0, w0;\n\t"
        "add.cc.u64 %0, %0, t;\n\t"
        "mul.wide.u32 t, x1, w1;\n\t"
        "addc.u64 %1, %1, t;\n\t"
        "mul.wide.u32 t, x0, w1;\n\t"
        "add.cc.u64 %2, %2, t;\n\t"
        "addc.u32 %3, %3, 0;\n\t"
        "mul.wide.u32 t, x1, w0;\n\t"
        "add.cc.u64 %2, %2, t;\n\t"
        "addc.u32 %3, %3, 0;\n\t"
        "}"
        : "+l"(a.lo), "+l"(a.hi), "+l"(a.mid), "+r"(a.mc)
        : "l"(x), "l"(w));
}

// The same value as a Sum192 (for sum192_reduce and the epilogues): lo + mid 2^32 + hi 2^64 +
// mc 2^96, below 2^128.
__device__ __forceinline__ Sum192 sum192(const Sum128& a) {
    const u64 shifted = a.mid << 32;
    const u64 s0 = a.lo + shifted;
    const u64 carry = s0 < shifted ? 1 : 0;
    const u64 s1 = a.hi + (a.mid >> 32) + ((u64)a.mc << 32) + carry;
    return sum192(s0, s1);
}

// Exact sums of products of factors below 2^40 on the FP64 pipe (the caller's bound: every
// factor below 2^40 and at most 2^11 terms). With x = x1 2^20 + x0 and w = w1 2^20 + w0
// (20-bit parts, held as doubles {x1, x0}: `split_factor`), x w = x1 w1 2^40 + (x1 w0 + x0 w1)
// 2^20 + x0 w0: every part product is below 2^40 and each of the three sums below 2^52, so
// every double here is an exact integer and every fused multiply-add exact. Four FP64
// multiply-adds a product, where Sum128 takes four wide integer multiplies and four adds.
struct SumSplit {
    double high, middle, low;
};

// v < 2^52 as a double (the bits of 2^52 + v, minus 2^52: two instructions, no conversion unit).
__device__ __forceinline__ double exact_double(const u64 v) {
    return __longlong_as_double((long long)(0x4330000000000000ull | v)) - 4503599627370496.0;
}

// An integer-valued double in [0, 2^52) as a word (the inverse of exact_double).
__device__ __forceinline__ u64 exact_word(const double d) {
    return (u64)__double_as_longlong(d + 4503599627370496.0) & 0xFFFFFFFFFFFFFull;
}

// x < 2^40 as its 20-bit parts {x1, x0}.
__device__ __forceinline__ double2 split_factor(const u64 x) {
    return make_double2(exact_double(x >> 20), exact_double(x & 0xFFFFFull));
}

__device__ __forceinline__ SumSplit sum_split_zero() {
    SumSplit a;
    a.high = a.middle = a.low = 0.0;
    return a;
}

// a += x * w for split factors x, w.
__device__ __forceinline__ void sum_split_mad(SumSplit& a, const double2 x, const double2 w) {
    a.high = __fma_rn(x.x, w.x, a.high);
    a.middle = __fma_rn(x.x, w.y, a.middle);
    a.middle = __fma_rn(x.y, w.x, a.middle);
    a.low = __fma_rn(x.y, w.y, a.low);
}

// The value low + middle 2^20 + high 2^40 (below 2^93) as (hi, lo) words.
__device__ __forceinline__ void sum_split_words(const SumSplit& a, u64& lo, u64& hi) {
    const u64 low = exact_word(a.low), middle = exact_word(a.middle), high = exact_word(a.high);
    lo = low;
    hi = 0;
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, %3;\n\t"
        "add.cc.u64 %0, %0, %4;\n\t"
        "addc.u64 %1, %1, %5;"
        : "+l"(lo), "+l"(hi)
        : "l"(middle << 20), "l"(middle >> 44), "l"(high << 40), "l"(high >> 24));
}

}  // namespace wide_sum
