// Bluestein's transform of the rings Z_p[x]/Phi_m(x) for odd m on the GPU
// (crates/poly-cuda/src/bluestein.rs, GpuCyclotomic), bit-exact with the CPU reference
// (crates/poly/src/bluestein.rs: BluesteinPlan, CyclotomicPlan).
//
// Data flow. Buffers are limb-major per polynomial, `count` polynomials one after the other:
// [count][L][stride]. The Bluestein transform of length m runs on power-of-two negacyclic NTTs
// of length M >= 2m - 1 (poly-cuda's, over the ring (M, primes)):
//
//   forward (coefficients -> evaluations at the phi(m) primitive m-th roots):
//     cyc_pad_chirp (x_j c_j for j < n, optionally t e_j + lift(msg_j) first; 0 up to M)
//     -> NTT -> cyc_mul_broadcast (NTT of the chirp kernel b) -> inverse NTT
//     -> cyc_gather_chirp (X_k = c_k a_(k + m - 1) at the primitive k, compact [L][n])
//   inverse (evaluations -> coefficients modulo Phi_m):
//     cyc_scatter_chirp (E_s c^-1_(k_s) at k_s, zeros elsewhere) -> NTT -> cyc_mul_broadcast
//     -> inverse NTT -> cyc_gather_chirp (g_k = m^-1 c^-1_k a_(k + m - 1), k < m, padded to M)
//     -> reduction modulo Phi_m below.
//   reduction modulo Phi_m of g of degree < D <= M (the CPU's words, by products here):
//     cyc_fold_window (g mod x^m - 1: g_j + g_(j + m) + ..., degree < m, padded to M)
//     -> NTT -> cyc_mul_broadcast (NTT of Psi_m = (x^m - 1) / Phi_m) -> inverse NTT
//     -> cyc_fold_window (the quotient Q = coefficients m .. 2m - n - 1 of g Psi_m, padded)
//     -> NTT -> cyc_mul_broadcast (NTT of Phi_m) -> inverse NTT
//     -> cyc_sub_low (g - Phi_m Q on the n = phi(m) low coefficients).
//   automorphism x -> x^g on evaluations: cyc_permute (the value at w^k is the input's at
//     w^(k g mod m); RingContext::bluestein_automorphism_sources).
//
// `moduli`: L triples {p, floor(2^128 / p) hi, lo} (modarith::Modulus), limb i of every
// polynomial modulo moduli[i]. Every kernel is one thread per output word, grid stride.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

#define GRID_STRIDE(idx, total) \
    for (u64 idx = (u64)blockIdx.x * blockDim.x + threadIdx.x; idx < (total); idx += (u64)gridDim.x * blockDim.x)

// out[c][i][j] = j < n ? (scale * x[c][i][j] + lift(msg[j])) * chirp[i][j] : 0, for j < big_m.
// `x`: [count][L][in_stride] canonical; `msg` (may be null): n values in [0, t), lifted to the
// centered residue (v > t/2: v - t) modulo each prime; `scale` < every prime (1: just x).
// `chirp`: [L][m] (n <= m).
extern "C" __global__ void cyc_pad_chirp(u64* __restrict__ out, const u64* __restrict__ x, const u64* __restrict__ msg,
                                         const u64* __restrict__ chirp, const Modulus* __restrict__ moduli,
                                         u64 scale, u64 t, u64 n, u64 in_stride, u64 m, u64 big_m, u64 limbs,
                                         u64 count) {
    GRID_STRIDE(idx, count * limbs * big_m) {
        const u64 j = idx % big_m;
        const u64 row = idx / big_m;  // c * L + i
        const u64 i = row % limbs;
        u64 v = 0;
        if (j < n) {
            const Modulus mi = moduli[i];
            v = x[row * in_stride + j];
            if (scale != 1) v = modarith::mul(v, scale, mi);
            if (msg != nullptr) {
                const u64 w = msg[j];
                const u64 lifted = w > (t >> 1) ? modarith::sub(modarith::reduce(w, mi), modarith::reduce(t, mi), mi.p)
                                                : modarith::reduce(w, mi);
                v = modarith::add(v, lifted, mi.p);
            }
            v = modarith::mul(v, chirp[i * m + j], mi);
        }
        out[idx] = v;
    }
}

// out[c][i][positions[s]] = x[c][i][s] * chirp[i][positions[s]], s < n; `out` ([count][L][big_m])
// is zeroed before. Positions are distinct and below m.
extern "C" __global__ void cyc_scatter_chirp(u64* __restrict__ out, const u64* __restrict__ x,
                                             const unsigned* __restrict__ positions, const u64* __restrict__ chirp,
                                             const Modulus* __restrict__ moduli, u64 n, u64 m, u64 big_m, u64 limbs,
                                             u64 count) {
    GRID_STRIDE(idx, count * limbs * n) {
        const u64 s = idx % n;
        const u64 row = idx / n;
        const u64 i = row % limbs;
        const u64 k = positions[s];
        out[row * big_m + k] = modarith::mul(x[idx], chirp[i * m + k], moduli[i]);
    }
}

// data[c][i][j] *= factor[i][j] (j < big_m): the product with a table shared by the batch.
extern "C" __global__ void cyc_mul_broadcast(u64* __restrict__ data, const u64* __restrict__ factor,
                                             const Modulus* __restrict__ moduli, u64 big_m, u64 limbs, u64 count) {
    GRID_STRIDE(idx, count * limbs * big_m) {
        const u64 per_poly = limbs * big_m;
        const u64 within = idx % per_poly;
        const u64 i = within / big_m;
        data[idx] = modarith::mul(data[idx], factor[within], moduli[i]);
    }
}

// out[c][i][s] = s < n ? a[c][i][positions[s] + m - 1] * chirp[i][positions[s]] : 0, s < out_stride.
// `a`: [count][L][big_m]; `chirp`: [L][m] (for the inverse, c^-1 times m^-1).
extern "C" __global__ void cyc_gather_chirp(u64* __restrict__ out, const u64* __restrict__ a,
                                            const unsigned* __restrict__ positions, const u64* __restrict__ chirp,
                                            const Modulus* __restrict__ moduli, u64 n, u64 out_stride, u64 m,
                                            u64 big_m, u64 limbs, u64 count) {
    GRID_STRIDE(idx, count * limbs * out_stride) {
        const u64 s = idx % out_stride;
        const u64 row = idx / out_stride;
        const u64 i = row % limbs;
        u64 v = 0;
        if (s < n) {
            const u64 k = positions[s];
            v = modarith::mul(a[row * big_m + k + m - 1], chirp[i * m + k], moduli[i]);
        }
        out[idx] = v;
    }
}

// out[c][i][j] = j < width ? sum_{r >= 0, offset + j + r width < in_len} in[c][i][offset + j + r width]
// : 0, for j < out_stride. Offset 0, width m: g mod (x^m - 1); offset m, width m - n, in_len
// 2m - n: the window of the quotient.
extern "C" __global__ void cyc_fold_window(u64* __restrict__ out, const u64* __restrict__ in,
                                           const Modulus* __restrict__ moduli, u64 in_stride, u64 offset, u64 in_len,
                                           u64 width, u64 out_stride, u64 limbs, u64 count) {
    GRID_STRIDE(idx, count * limbs * out_stride) {
        const u64 j = idx % out_stride;
        const u64 row = idx / out_stride;
        const u64 i = row % limbs;
        u64 v = 0;
        if (j < width) {
            const u64 p = moduli[i].p;
            for (u64 k = offset + j; k < in_len; k += width) v = modarith::add(v, in[row * in_stride + k], p);
        }
        out[idx] = v;
    }
}

// out[c][i][j] = a[c][i][j] - b[c][i][j], j < n (a and b with their own strides).
extern "C" __global__ void cyc_sub_low(u64* __restrict__ out, const u64* __restrict__ a, const u64* __restrict__ b,
                                       const Modulus* __restrict__ moduli, u64 n, u64 a_stride, u64 b_stride,
                                       u64 limbs, u64 count) {
    GRID_STRIDE(idx, count * limbs * n) {
        const u64 j = idx % n;
        const u64 row = idx / n;
        const u64 i = row % limbs;
        out[idx] = modarith::sub(a[row * a_stride + j], b[row * b_stride + j], moduli[i].p);
    }
}

// out[row][s] = s < n ? x[row][sources[s]] : 0 for s < stride: a permutation of the first n words
// of each row of `stride` words (the automorphism of the evaluations), the rest zero.
// `sources`: n indices below n.
extern "C" __global__ void cyc_permute(u64* __restrict__ out, const u64* __restrict__ x,
                                       const unsigned* __restrict__ sources, u64 n, u64 stride, u64 rows) {
    GRID_STRIDE(idx, rows * stride) {
        const u64 s = idx % stride;
        const u64 row = idx / stride;
        out[idx] = s < n ? x[row * stride + sources[s]] : 0;
    }
}
