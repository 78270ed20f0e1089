// The plaintext embedding kernels (BFV's scaling round(q m / t) and the centered lift), bit-exact with
// crates/rlwe's host code (plaintext_lift.rs).
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

namespace {

// floor(x / t) for the 128-bit x = x1 * 2^64 + x0 whose quotient is below 2^64, with `t` (< 2^62,
// any value, prime or not) given as a Modulus {t, floor(2^128 / t)}: modarith's Barrett quotient
// estimate (short of the quotient by at most 2), corrected twice.
__device__ __forceinline__ u64 div_u128_small_quotient(u64 x0, u64 x1, const Modulus& t) {
    u64 q = modarith::barrett_quotient_u128(x0, x1, t);
    // The remainder x - q t is below 3t < 2^64: its low word is exact.
    u64 r = x0 - q * t.p;
    if (r >= t.p) { r -= t.p; q += 1; }
    if (r >= t.p) { r -= t.p; q += 1; }
    return q;
}

}  // namespace

// round(q m / t) over q, limb-major [limb][N] in `out`, as PlaintextScaling::scale_host
// (SEAL's precise scaling): out[i N + j] = [floor(q/t)]_{q_i} * m_j + floor((q mod t) m_j / t + 1/2)
// mod q_i, i.e. add(mul_shoup(reduce(m_j), delta_i, delta_shoup_i), reduce(fix_j)).
//
// `coefficients` holds the N plaintext coefficients m_j (any u64; BFV passes m_j < t), `delta`
// `limbs` pairs {delta_i, shoup(delta_i)} (the host path uploads both in one buffer). `t` = {t, floor(2^128 / t)} with
// 2 <= t < 2^60, `q_mod_t` < t, `half_t` = ceil(t / 2). One thread per coefficient (grid
// stride): it computes the rounding term once and writes it into every limb (coalesced per limb).
extern "C" __global__ void plaintext_scale(u64* __restrict__ out, const u64* __restrict__ coefficients,
                                               const u64* __restrict__ delta,
                                               const Modulus* __restrict__ moduli, int log_n, int limbs,
                                               u64 t, u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t,
                                               u64 half_t) {
    const u64 n = 1ull << log_n;
    const Modulus t_mod = {t, t_barrett_hi, t_barrett_lo};
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
        const u64 m = coefficients[j];
        // (q mod t) m + ceil(t/2) < 2^121: no overflow of the 128-bit sum.
        const u64 lo = q_mod_t * m;
        const u64 hi = __umul64hi(q_mod_t, m);
        const u64 x0 = lo + half_t;
        const u64 x1 = hi + (x0 < lo ? 1 : 0);
        const u64 fix = div_u128_small_quotient(x0, x1, t_mod);
        for (int i = 0; i < limbs; ++i) {
            const Modulus mi = moduli[i];
            const u64 d = delta[2 * i];
            const u64 d_shoup = delta[2 * i + 1];
            const u64 scaled = modarith::mul_shoup(modarith::reduce(m, mi), d, d_shoup, mi.p);
            out[((u64)i << log_n) + j] = modarith::add(scaled, modarith::reduce(fix, mi), mi.p);
        }
    }
}

// The plaintext m (N coefficients in [0, t)) lifted to (-t/2, t/2] and written into every
// prime of q, limb-major [limb][N], as bfv's host lift (Poly::from_signed_coeffs of the
// centered coefficients): out[i N + j] = m_j mod q_i for m_j <= floor(t/2), else
// -(t - m_j) mod q_i (canonical: 0 when q_i divides t - m_j). The operand of a plaintext
// multiplication. Same parameter list as plaintext_scale, so that one launcher serves
// both; `delta`, the Barrett constants of t, `q_mod_t` and `half_t` are not read.
extern "C" __global__ void plaintext_lift(u64* __restrict__ out, const u64* __restrict__ coefficients,
                                              const u64* __restrict__ delta,
                                              const Modulus* __restrict__ moduli, int log_n, int limbs,
                                              u64 t, u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t,
                                              u64 half_t) {
    (void)delta;
    (void)t_barrett_hi;
    (void)t_barrett_lo;
    (void)q_mod_t;
    (void)half_t;
    const u64 n = 1ull << log_n;
    const u64 half_floor = t >> 1;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
        const u64 m = coefficients[j];
        const bool negative = m > half_floor;
        const u64 magnitude = negative ? t - m : m;
        for (int i = 0; i < limbs; ++i) {
            const Modulus mi = moduli[i];
            const u64 r = modarith::reduce(magnitude, mi);
            out[((u64)i << log_n) + j] = (negative && r != 0) ? mi.p - r : r;
        }
    }
}
