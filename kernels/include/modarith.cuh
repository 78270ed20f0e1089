// Device modular arithmetic for primes p < 2^62: the mirror of crates/modarith's `Modulus`.
//
// Every function has the name of its Rust counterpart and returns the same value on the
// same input (kernels/modarith_test.cu checks each one against modarith on random inputs).
// Canonical values are in [0, p); `*_lazy` functions take or return the wider ranges
// stated on each. 64x64 -> 128-bit products use `a * b` (low word) and `__umul64hi`.
#pragma once

#include <cstdint>

namespace modarith {

typedef unsigned long long u64;

// A prime with its Barrett constant floor(2^128 / p) = barrett_hi * 2^64 + barrett_lo,
// as returned by `Modulus::barrett_constant()`.
struct Modulus {
    u64 p;
    u64 barrett_hi;
    u64 barrett_lo;
};

// a + b mod p for canonical a, b.
__device__ __forceinline__ u64 add(u64 a, u64 b, u64 p) {
    const u64 s = a + b;
    return s >= p ? s - p : s;
}

// a - b mod p for canonical a, b.
__device__ __forceinline__ u64 sub(u64 a, u64 b, u64 p) {
    return a >= b ? a - b : a + p - b;
}

// -a mod p for canonical a.
__device__ __forceinline__ u64 neg(u64 a, u64 p) {
    return a == 0 ? 0 : p - a;
}

// The Barrett quotient estimate of the 128-bit x = x1 * 2^64 + x0 by p, with floor(2^128 / p):
// at most 2 below floor(x / p), and exact modulo 2^64 (the high words of the quotient are not
// needed by callers, whose remainders are below 3p < 2^64).
__device__ __forceinline__ u64 barrett_quotient_u128(u64 x0, u64 x1, const Modulus& m) {
    const u64 m1 = m.barrett_hi;
    const u64 m0 = m.barrett_lo;
    const u64 a_hi = __umul64hi(x0, m0);
    const u64 b_lo = x1 * m0;
    const u64 b_hi = __umul64hi(x1, m0);
    const u64 c_lo = x0 * m1;
    const u64 c_hi = __umul64hi(x0, m1);
    // mid = a_hi + b_lo + c_lo as a 66-bit number: keep its carries.
    const u64 s1 = a_hi + b_lo;
    const u64 carry1 = s1 < b_lo ? 1 : 0;
    const u64 s2 = s1 + c_lo;
    const u64 carry2 = s2 < c_lo ? 1 : 0;
    return x1 * m1 + carry1 + carry2 + b_hi + c_hi;
}

// x mod p for the 128-bit x = x1 * 2^64 + x0, by Barrett reduction with floor(2^128 / p):
// the same steps as `Modulus::reduce_u128` (quotient estimate off by at most 2, so two
// conditional subtractions).
__device__ __forceinline__ u64 reduce_u128(u64 x0, u64 x1, const Modulus& m) {
    u64 r = x0 - barrett_quotient_u128(x0, x1, m) * m.p;
    if (r >= m.p) r -= m.p;
    if (r >= m.p) r -= m.p;
    return r;
}

// x mod p for any 64-bit x.
__device__ __forceinline__ u64 reduce(u64 x, const Modulus& m) {
    return reduce_u128(x, 0, m);
}

// a * b mod p by Barrett reduction; a and b may be any 64-bit words.
__device__ __forceinline__ u64 mul(u64 a, u64 b, const Modulus& m) {
    return reduce_u128(a * b, __umul64hi(a, b), m);
}

// x mod p for x = x1 2^64 + x0 below 2^(n+63), n the bit length of p (p < 2^62, not a power of
// two), by Barrett's reduction with one-word constants (Menezes et al., Handbook of Applied
// Cryptography, 14.42, base 2, the quotient shifted by 64): q1 = floor(x / 2^(n-1)) is below
// 2^64, mu = floor(2^(n+63) / p) (the moduli table's floor(2^128 / p) shifted right by 65 - n)
// is below 2^64 as p > 2^(n-1), and q = floor(q1 mu / 2^64) is never above floor(x / p) and at
// most 2 below it (x / p - q1 mu / 2^64 < x mod 2^(n-1) / p + q1 / 2^64 < 2), so x - q p lies
// in [0, 3p). One high product and one low one; `reduce_u128` (any x) takes five and five.
// reduce_short's constants of m: n, the bit length of p, and mu = floor(2^(n+63) / p). Kernels
// that reduce many sums modulo one prime form them once (ShortReducer).
struct ShortReducer {
    u64 p;
    u64 mu;
    int n;
};

__device__ __forceinline__ ShortReducer short_reducer(const Modulus& m) {
    ShortReducer r;
    r.p = m.p;
    r.n = 64 - __clzll(m.p);
    r.mu = (m.barrett_hi << (r.n - 1)) | (m.barrett_lo >> (65 - r.n));
    return r;
}

// reduce_short with the constants formed once.
__device__ __forceinline__ u64 reduce_short(u64 x0, u64 x1, const ShortReducer& m) {
    const u64 q1 = (x1 << (65 - m.n)) | (x0 >> (m.n - 1));
    u64 r = x0 - __umul64hi(q1, m.mu) * m.p;
    if (r >= m.p) r -= m.p;
    if (r >= m.p) r -= m.p;
    return r;
}

__device__ __forceinline__ u64 reduce_short(u64 x0, u64 x1, const Modulus& m) {
    return reduce_short(x0, x1, short_reducer(m));
}

// a * b mod p for a, b below 2^n, n the bit length of p (canonical operands; p an odd prime
// below 2^62): reduce_short of the product, which is below 2^(2n) <= 2^(n+63). Two high
// products and two low ones, where `mul` (any 64-bit operands) takes five and five.
__device__ __forceinline__ u64 mul_canonical(u64 a, u64 b, const Modulus& m) {
    return reduce_short(a * b, __umul64hi(a, b), m);
}

// Shoup's precomputation for w < p: floor(w * 2^64 / p).
// Estimate floor(w * floor(2^128/p) / 2^64), which is the exact quotient or one less
// (the constant is short of 2^128/p by less than 1 and w < 2^64), then correct once.
__device__ __forceinline__ u64 shoup(u64 w, const Modulus& m) {
    // (w * (m1 * 2^64 + m0)) >> 64 = w * m1 + hi(w * m0); fits 64 bits as the quotient does.
    u64 q = w * m.barrett_hi + __umul64hi(w, m.barrett_lo);
    // Remainder w * 2^64 - q * p, computed modulo 2^64: it is below 2p < 2^64.
    const u64 r = 0ull - q * m.p;
    if (r >= m.p) q += 1;
    return q;
}

// a * w mod p in [0, 2p), for any 64-bit a, with w_shoup = shoup(w).
__device__ __forceinline__ u64 mul_shoup_lazy(u64 a, u64 w, u64 w_shoup, u64 p) {
    const u64 q = __umul64hi(a, w_shoup);
    return a * w - q * p;
}

// a * w mod p, canonical, for any 64-bit a, with w_shoup = shoup(w).
__device__ __forceinline__ u64 mul_shoup(u64 a, u64 w, u64 w_shoup, u64 p) {
    const u64 r = mul_shoup_lazy(a, w, w_shoup, p);
    return r >= p ? r - p : r;
}

// a + b for a, b in [0, 2p); result in [0, 2p).
__device__ __forceinline__ u64 add_lazy(u64 a, u64 b, u64 p) {
    const u64 s = a + b;
    return s >= 2 * p ? s - 2 * p : s;
}

// a - b for a, b in [0, 2p); result in [0, 2p).
__device__ __forceinline__ u64 sub_lazy(u64 a, u64 b, u64 p) {
    return a >= b ? a - b : a + 2 * p - b;
}

// a in [0, 2p) to [0, p).
__device__ __forceinline__ u64 reduce_from_2p(u64 a, u64 p) {
    return a >= p ? a - p : a;
}

// a in [0, 4p) to [0, 2p).
__device__ __forceinline__ u64 reduce_from_4p_to_2p(u64 a, u64 p) {
    return a >= 2 * p ? a - 2 * p : a;
}

// a in [0, 4p) to [0, p).
__device__ __forceinline__ u64 reduce_from_4p(u64 a, u64 p) {
    return reduce_from_2p(reduce_from_4p_to_2p(a, p), p);
}

}  // namespace modarith
