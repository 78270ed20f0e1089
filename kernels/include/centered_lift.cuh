// The centered CRT lift of a coefficient modulo a small t (BGV decryption's last step), shared
// by bgv.cu (bgv_reduce_phase, a kernel of its own) and ntt.cu (the inverse transform's last
// pass with the lift fused: ntt_inv_lift_strided_*).
//
// For a coefficient x over q = q_0 .. q_{L-1} given as y_i = x_i (q/q_i)^{-1} mod q_i:
//   x_c = sum_i y_i (q/q_i) - v q,  v = round(sum_i y_i / q_i),
// with sum_i y_i / q_i accumulated in 0.64 fixed point: term i is y_i floor(2^128 / q_i) / 2^64
// rounded down (two 64-bit products with the moduli table's Barrett constant), summed modulo
// 2^64 with the carries counted (v = carries + top bit). Each term is at most 2^-63 short, so
// v is exact unless x is within L 2^-63 q of +-q/2, where the noise budget is long spent.
// x_c mod t = sum_i y_i [(q/q_i)]_t - v [q]_t: the products y_i [(q/q_i)]_t (< 2^122) are
// summed exactly (192-bit carry chains) and reduced modulo t once at the end (Shoup products
// with host constants, `Finish`; t < 2^60 need not be prime). Every step is integer arithmetic
// whose result does not depend on the order of the sums, so partial sums over any split of the
// limbs merge to the host's word (crates/bgv-encrypt, DecryptionTables::reduce_host).
#pragma once

#include "modarith.cuh"
#include "wide_sum.cuh"

namespace centered_lift {

using modarith::u64;

// The fraction sum_i y_i / q_i in 0.64 fixed point: its 64 bits (modulo 2^64) and the carries
// out of them.
struct Fraction {
    u64 lo, carries;
};

// (hi, lo) += x with a carry chain (a 64-bit compare per carry cost three times the
// instructions).
__device__ __forceinline__ void add_carry(u64& lo, u64& hi, const u64 x) {
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, 0;"
        : "+l"(lo), "+l"(hi)
        : "l"(x));
}

// y / q_i into the fraction: floor(y floor(2^128 / q_i) / 2^64), below 2^64 as y < q_i.
__device__ __forceinline__ void add_fraction(Fraction& fraction, const u64 y, const modarith::Modulus& mi) {
    add_carry(fraction.lo, fraction.carries, y * mi.barrett_hi + __umul64hi(y, mi.barrett_lo));
}

// One limb's terms: y (already times (q/q_i)^{-1}) into the fraction and the sum, with
// c = (q/q_i) mod t.
__device__ __forceinline__ void add_limb(Fraction& fraction, wide_sum::Sum192& sum, const u64 y,
                                         const modarith::Modulus& mi, const u64 c) {
    add_fraction(fraction, y, mi);
    wide_sum::sum192_mad(sum, y, c);
}

// add_limb where y c < 2^64 (the caller's bound): the product is one low multiply, added with
// a carry into the second word (the sum of at most 2^32 such terms stays below 2^96).
__device__ __forceinline__ void add_limb_narrow(Fraction& fraction, wide_sum::Sum192& sum, const u64 y,
                                                const modarith::Modulus& mi, const u64 c) {
    add_fraction(fraction, y, mi);
    add_carry(sum.s0, sum.s1, y * c);
}

// Partial sums over two sets of limbs, merged.
__device__ __forceinline__ void merge(Fraction& fraction, wide_sum::Sum192& sum, const Fraction& other_fraction,
                                      const wide_sum::Sum192& other_sum) {
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, %3;"
        : "+l"(fraction.lo), "+l"(fraction.carries)
        : "l"(other_fraction.lo), "l"(other_fraction.carries));
    wide_sum::sum192_merge(sum, other_sum);
}

// The constants of the last step, modulo t (2 <= t < 2^60), each w with its Shoup companion
// floor(w 2^64 / t) (crates/poly-cuda, LiftFinish::new): w = 1, 2^64 mod t, 2^128 mod t,
// q mod t, and the factor the lifted value is multiplied by (f^{-1} for BGV).
struct Finish {
    u64 t;
    u64 one_shoup;
    u64 w64, w64_shoup;
    u64 w128, w128_shoup;
    u64 q_mod_t, q_mod_t_shoup;
    u64 factor, factor_shoup;
};

// x w mod t in [0, 2t) for any 64-bit x (Shoup; w < t < 2^63): x w - q t with
// q = floor(x w_shoup / 2^64) lies in [0, 2t), so it is exact modulo 2^64.
__device__ __forceinline__ u64 shoup_lazy(const u64 x, const u64 w, const u64 w_shoup, const u64 t) {
    return x * w - __umul64hi(x, w_shoup) * t;
}

// [x_c]_t * factor mod t from the sums over every limb: with S = s2 2^128 + s1 2^64 + s0 and
// v the rounded fraction, r = S - v q = s0 + s1 (2^64 mod t) + s2 (2^128 mod t) - v (q mod t)
// modulo t, each product a lazy Shoup product in [0, 2t): r is taken as the sum of the first
// three plus 2t minus the last, in [0, 8t) (below 2^63), then times the factor, and one
// conditional subtraction makes it canonical. Five Shoup products where two-word Barrett
// reductions took several times the instructions; the same word, as the result is the
// canonical residue of the same integer.
__device__ __forceinline__ u64 finish(const Fraction& fraction, const wide_sum::Sum192& sum, const Finish& c) {
    const u64 t = c.t;
    const u64 v = fraction.carries + (fraction.lo >> 63);
    const u64 s = shoup_lazy(sum.s0, 1, c.one_shoup, t) + shoup_lazy(sum.s1, c.w64, c.w64_shoup, t) +
                  shoup_lazy(sum.s2, c.w128, c.w128_shoup, t);
    const u64 r = s + 2 * t - shoup_lazy(v, c.q_mod_t, c.q_mod_t_shoup, t);
    const u64 out = shoup_lazy(r, c.factor, c.factor_shoup, t);
    return out >= t ? out - t : out;
}

}  // namespace centered_lift
