// The RLWE core's kernels (crates/rlwe), bit-exact with its host code.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

// Rescaling by the last prime (crates/rlwe/src/chain.rs, rescale_by_last_prime_host) with an
// error scale E (1 for BFV, t for BGV): for `in` over q_0 .. q_l (limb-major [limbs_out + 1][N])
// and `out` over q_0 .. q_{l-1} ([limbs_out][N]): out[i N + j] = (x_i - E r) * q_l^{-1} mod q_i,
// r the centered residue of x_l E^{-1} modulo q_l (x_l = in[l N + j]; the residue minus q_l when
// above floor(q_l / 2)). For E = 1 (`scaled` = 0) that is round(x / q_l), and the two
// multiplications by E and E^{-1} are skipped.
//
// `moduli`: the input ring's table (limbs_out + 1 entries, the last q_l); `constants`:
// limbs_out pairs {q_l^{-1} mod q_i, shoup}, one pair {E^{-1} mod q_l, shoup}, limbs_out pairs
// {E mod q_i, shoup}. One thread per coefficient (grid stride): it reads x_l once and writes
// every limb (coalesced per limb).
namespace {

// One coefficient j of the rescaling, for every output limb i: with x_last = x_l (the last
// limb's word), r the centered residue of x_l E^{-1} modulo q_l (times E),
//   out[i N + j] = (x_i - E r) q_l^{-1} mod q_i, x_i = lower[i N + j];
// with CORRECTION_ONLY, x_i = 0 (lower unused): out[i N + j] = -E r q_l^{-1} mod q_i.
template <bool CORRECTION_ONLY>
__device__ __forceinline__ void rescale_coefficient(u64* __restrict__ out, const u64* __restrict__ lower,
                                                    u64 x_last, const u64 j, const Modulus* __restrict__ moduli,
                                                    const u64* __restrict__ constants, const int log_n,
                                                    const int limbs_out, const int scaled) {
    const Modulus last = moduli[limbs_out];
    const u64* scale_inv = constants + 2 * limbs_out;
    const u64* scale = scale_inv + 2;
    if (scaled) x_last = modarith::mul_shoup(x_last, scale_inv[0], scale_inv[1], last.p);
    const bool negative = x_last > (last.p >> 1);
    for (int i = 0; i < limbs_out; ++i) {
        const Modulus mi = moduli[i];
        u64 r = modarith::reduce(x_last, mi);
        if (negative) r = modarith::sub(r, modarith::reduce(last.p, mi), mi.p);
        if (scaled) r = modarith::mul_shoup(r, scale[2 * i], scale[2 * i + 1], mi.p);
        const u64 index = ((u64)i << log_n) + j;
        const u64 difference = CORRECTION_ONLY ? modarith::neg(r, mi.p) : modarith::sub(lower[index], r, mi.p);
        out[index] = modarith::mul_shoup(difference, constants[2 * i], constants[2 * i + 1], mi.p);
    }
}

}  // namespace

extern "C" __global__ void rlwe_rescale_by_last(u64* __restrict__ out, const u64* __restrict__ in,
                                                const Modulus* __restrict__ moduli,
                                                const u64* __restrict__ constants, int log_n, int limbs_out,
                                                int scaled) {
    const u64 n = 1ull << log_n;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
        rescale_coefficient<false>(out, in, in[((u64)limbs_out << log_n) + j], j, moduli, constants, log_n,
                                   limbs_out, scaled);
    }
}

// Rescaling in the evaluation representation (BGV keeps ciphertexts there), in two kernels
// around a forward transform: for x over q_0 .. q_l in NTT form, with x_l's coefficients
// `last` (one inverse transform of one limb),
//   rlwe_rescale_correction: c_i = (0 - r) * q_l^{-1} mod q_i in coefficient form, r as in
//     rlwe_rescale_by_last (the centered x_l E^{-1} mod q_l, times E), for every coefficient;
//   (the host transforms c forward over q_0 .. q_{l-1})
//   rlwe_rescale_combine: out_i = x_i * q_l^{-1} + F(c)_i mod q_i on the evaluations.
// The forward transform is linear per prime, so out = F((x - E r) q_l^{-1}): the words of
// rlwe_rescale_by_last followed by a forward transform. `constants` as there.
//
// Correction: `last` holds `polys` polynomials of one limb ([polys][N]); `out` [polys][limbs_out][N].
// One thread per (coefficient, polynomial) (grid stride over coefficients, grid y = polynomial).
extern "C" __global__ void rlwe_rescale_correction(u64* __restrict__ out, const u64* __restrict__ last_limb,
                                                   const Modulus* __restrict__ moduli,
                                                   const u64* __restrict__ constants, int log_n, int limbs_out,
                                                   int scaled) {
    const u64 n = 1ull << log_n;
    const u64 poly = blockIdx.y;
    u64* out_poly = out + poly * ((u64)limbs_out << log_n);
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
        rescale_coefficient<true>(out_poly, nullptr, last_limb[(poly << log_n) + j], j, moduli, constants, log_n,
                                  limbs_out, scaled);
    }
}

// Combine: for polynomial k = blockIdx.y (0 or 1), out_k[w] = in_k[w] * q_l^{-1} + corr[k][w] mod
// q_i over the limbs_out N words w of q_0 .. q_{l-1} (in_k has one limb more, which is not read).
extern "C" __global__ void rlwe_rescale_combine(u64* __restrict__ out0, u64* __restrict__ out1,
                                                const u64* __restrict__ in0, const u64* __restrict__ in1,
                                                const u64* __restrict__ corr, const Modulus* __restrict__ moduli,
                                                const u64* __restrict__ constants, int log_n, int limbs_out) {
    const u64 words = (u64)limbs_out << log_n;
    const unsigned k = blockIdx.y;
    const u64* in = k == 0 ? in0 : in1;
    u64* out = k == 0 ? out0 : out1;
    const u64* corr_k = corr + k * words;
    for (u64 w = (u64)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (u64)gridDim.x * blockDim.x) {
        const int i = (int)(w >> log_n);
        const u64 p = moduli[i].p;
        const u64 scaled = modarith::mul_shoup(in[w], constants[2 * i], constants[2 * i + 1], p);
        out[w] = modarith::add(scaled, corr_k[w], p);
    }
}
