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
// summed exactly (192-bit carry chains) and reduced modulo t once at the end (Barrett
// reduction; t < 2^60 need not be prime). Every step is integer arithmetic whose result does
// not depend on the order of the sums, so partial sums over any split of the limbs merge to
// the host's word (crates/bgv-encrypt, DecryptionTables::reduce_host).
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

// One limb's terms: y (already times (q/q_i)^{-1}) into the fraction and the sum, with
// c = (q/q_i) mod t (carry chains: a 64-bit compare per carry cost three times the
// instructions).
__device__ __forceinline__ void add_limb(Fraction& fraction, wide_sum::Sum192& sum, const u64 y,
                                         const modarith::Modulus& mi, const u64 c) {
    // floor(y floor(2^128 / q_i) / 2^64): below 2^64, as y < q_i.
    const u64 term = y * mi.barrett_hi + __umul64hi(y, mi.barrett_lo);
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, 0;"
        : "+l"(fraction.lo), "+l"(fraction.carries)
        : "l"(term));
    wide_sum::sum192_mad(sum, y, c);
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

// [x_c]_t * factor mod t from the sums over every limb; t_mod is t with its Barrett constant
// floor(2^128 / t), q_mod_t = q mod t.
__device__ __forceinline__ u64 finish(const Fraction& fraction, const wide_sum::Sum192& sum,
                                      const modarith::Modulus& t_mod, const u64 q_mod_t, const u64 factor) {
    const u64 v = fraction.carries + (fraction.lo >> 63);
    // sum mod t: (s2 2^64 + s1) mod t first, then that 2^64 + s0.
    const u64 acc = modarith::reduce_u128(sum.s0, modarith::reduce_u128(sum.s1, sum.s2, t_mod), t_mod);
    const u64 r = modarith::sub(acc, modarith::mul(modarith::reduce(v, t_mod), q_mod_t, t_mod), t_mod.p);
    return modarith::mul(r, factor, t_mod);
}

}  // namespace centered_lift
