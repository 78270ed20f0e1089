// BGV over the rings Z_p[x]/Phi_m(x) for odd m on the GPU (crates/cyclotomic/src/gpu/bgv.rs,
// GpuBgv), bit-exact with the crate's CPU reference (crates/cyclotomic/src/bgv.rs). The
// transforms ("forward", "inverse") and the reduction modulo Phi_m are the ring layer's
// (kernels/bluestein.cu, crates/poly-cuda/src/bluestein.rs).
//
// Data flow. Buffers are limb-major per polynomial: [count][L][n].
//   cyc_encrypt_combine, cyc_tensor, cyc_add,
//   cyc_phase on compact [L][n] evaluation vectors, and key switching / modulus switching
//   (crates/cyclotomic/src/bgv.rs, Bgv::relinearize and Bgv::divide_by_last, word for word):
//   relinearization at level l (k = l + 1 primes, target ring q_0 .. q_l, P):
//     inverse of c_2 over q_0 .. q_l -> digit i = coefficients modulo q_i
//     -> cyc_digit_spread (digit i reduced into every target prime: [k][k + 1][n])
//     -> forward over q_0 .. q_l, P (a batch of k) -> cyc_keyswitch_inner (sum_i d_i k_i, [2][k + 1][n])
//     -> ModDown below (last prime P, addend c_0, c_1).
//   ModDown / modulus switching (drop the last prime p of x, [count][keep + 1][n]):
//     inverse over p alone of the last limbs ([count][n])
//     -> cyc_moddown_lift (r = [x_p t^-1]_p centered, lifted into q_0 .. q_keep-1)
//     -> forward over q_0 .. q_keep-1 (a batch of count)
//     -> cyc_moddown_combine ((x_j - t r_j) p^-1 mod q_j, plus the addend when given).
//   Decryption: cyc_phase -> inverse -> (cyc_fold_window padding the rows to a power of two
//   when phi(m) is not one) -> kernels/bgv.cu's bgv_reduce_phase (the exact CRT of the centered
//   phase modulo t, times the correction factor's inverse) -> phi(m) words to the host.
//
// `moduli`: L triples {p, floor(2^128 / p) hi, lo} (modarith::Modulus), limb i of every
// polynomial modulo moduli[i]. Every kernel is one thread per output word, grid stride.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

#define GRID_STRIDE(idx, total) \
    for (u64 idx = (u64)blockIdx.x * blockDim.x + threadIdx.x; idx < (total); idx += (u64)gridDim.x * blockDim.x)

// Public-key encryption's last step on compact [L][n] evaluation vectors:
// c0 = b u + e0', c1 = a u + e1' with `pk` = [b][a], `v` = [u][e0'][e1'] (e0' = t e0 + m), `c` = [c0][c1].
extern "C" __global__ void cyc_encrypt_combine(u64* __restrict__ c, const u64* __restrict__ pk,
                                               const u64* __restrict__ v, const Modulus* __restrict__ moduli, u64 n,
                                               u64 limbs) {
    const u64 len = limbs * n;
    GRID_STRIDE(idx, len) {
        const Modulus mi = moduli[idx / n];
        const u64 u = v[idx];
        c[idx] = modarith::add(modarith::mul(pk[idx], u, mi), v[len + idx], mi.p);
        c[len + idx] = modarith::add(modarith::mul(pk[len + idx], u, mi), v[2 * len + idx], mi.p);
    }
}

// out = a + scale * b on `count` compact polynomials [count][L][n] (`scale` any u64, reduced
// modulo each prime; 1: the plain sum).
extern "C" __global__ void cyc_add(u64* __restrict__ out, const u64* __restrict__ a, const u64* __restrict__ b,
                                   const Modulus* __restrict__ moduli, u64 n, u64 limbs, u64 count, u64 scale) {
    GRID_STRIDE(idx, count * limbs * n) {
        const Modulus mi = moduli[(idx / n) % limbs];
        const u64 y = scale == 1 ? b[idx] : modarith::mul(b[idx], modarith::reduce(scale, mi), mi);
        out[idx] = modarith::add(a[idx], y, mi.p);
    }
}

// The tensor product of two ciphertexts (compact evaluation vectors, [2][L][n] each):
// out = [c0 d0][c0 d1 + c1 d0][c1 d1].
extern "C" __global__ void cyc_tensor(u64* __restrict__ out, const u64* __restrict__ c, const u64* __restrict__ d,
                                      const Modulus* __restrict__ moduli, u64 n, u64 limbs) {
    const u64 len = limbs * n;
    GRID_STRIDE(idx, len) {
        const Modulus mi = moduli[idx / n];
        const u64 c0 = c[idx], c1 = c[len + idx], d0 = d[idx], d1 = d[len + idx];
        out[idx] = modarith::mul(c0, d0, mi);
        out[len + idx] = modarith::add(modarith::mul(c0, d1, mi), modarith::mul(c1, d0, mi), mi.p);
        out[2 * len + idx] = modarith::mul(c1, d1, mi);
    }
}

// The phase c0 + c1 s (+ c2 s^2 when `parts` is 3) of a ciphertext [parts][L][n] with `s`
// [L][n] (compact evaluation vectors).
extern "C" __global__ void cyc_phase(u64* __restrict__ out, const u64* __restrict__ c, const u64* __restrict__ s,
                                     const Modulus* __restrict__ moduli, u64 n, u64 limbs, u64 parts) {
    const u64 len = limbs * n;
    GRID_STRIDE(idx, len) {
        const Modulus mi = moduli[idx / n];
        const u64 si = s[idx];
        u64 acc = c[idx];
        u64 power = si;
        for (u64 k = 1; k < parts; ++k) {
            acc = modarith::add(acc, modarith::mul(c[k * len + idx], power, mi), mi.p);
            power = modarith::mul(power, si, mi);
        }
        out[idx] = acc;
    }
}

// Key switching's ModUp: out[i][r][j] = digits[i][j] mod moduli[r] for i < digits, r < targets,
// j < n. `digits`: [digits][n], row i canonical modulo q_i (the inverse transform of c_2's limb
// i); `moduli`: the target ring's `targets` triples (q_0 .. q_l, P).
extern "C" __global__ void cyc_digit_spread(u64* __restrict__ out, const u64* __restrict__ digits,
                                            const Modulus* __restrict__ moduli, u64 n, u64 digit_count,
                                            u64 targets) {
    GRID_STRIDE(idx, digit_count * targets * n) {
        const u64 j = idx % n;
        const u64 row = idx / n;  // i * targets + r
        const u64 r = row % targets;
        const u64 i = row / targets;
        out[idx] = modarith::reduce(digits[i * n + j], moduli[r]);
    }
}

// Key switching's inner product: acc[b][r][j] = sum_{i < digit_count} d[i][r][j] key[i][b][kr][j],
// b in {0, 1}, r < targets, with kr = r for r < targets - 1 and kr = key_limbs - 1 (the special
// prime's row of the key) for r = targets - 1. `d`: [digit_count][targets][n] evaluations;
// `key`: [L][2][key_limbs][n] (digit i's (k_0, k_1) over q_0 .. q_{L-1}, P); `moduli`: the
// targets' triples (q_0 .. q_l, P).
extern "C" __global__ void cyc_keyswitch_inner(u64* __restrict__ acc, const u64* __restrict__ d,
                                               const u64* __restrict__ key, const Modulus* __restrict__ moduli,
                                               u64 n, u64 digit_count, u64 targets, u64 key_limbs) {
    GRID_STRIDE(idx, targets * n) {
        const u64 j = idx % n;
        const u64 r = idx / n;
        const u64 kr = r + 1 == targets ? key_limbs - 1 : r;
        const Modulus mr = moduli[r];
        u64 a0 = 0, a1 = 0;
        for (u64 i = 0; i < digit_count; ++i) {
            const u64 x = d[(i * targets + r) * n + j];
            a0 = modarith::add(a0, modarith::mul(x, key[((2 * i) * key_limbs + kr) * n + j], mr), mr.p);
            a1 = modarith::add(a1, modarith::mul(x, key[((2 * i + 1) * key_limbs + kr) * n + j], mr), mr.p);
        }
        acc[idx] = a0;
        acc[targets * n + idx] = a1;
    }
}

// ModDown's correction term: out[c][j][k] = lift_j(r), r = [x[c][k] t_inv]_p centered (in
// (-p/2, p/2]), lifted to q_j (< keep). `x`: [count][n] coefficients modulo p (the last limbs'
// inverse transform); p given as its Barrett triple; `moduli`: q_0 .. q_keep-1.
extern "C" __global__ void cyc_moddown_lift(u64* __restrict__ out, const u64* __restrict__ x,
                                            const Modulus* __restrict__ moduli, u64 p, u64 p_barrett_hi,
                                            u64 p_barrett_lo, u64 t_inv, u64 n, u64 keep, u64 count) {
    const Modulus pm = {p, p_barrett_hi, p_barrett_lo};
    GRID_STRIDE(idx, count * keep * n) {
        const u64 k = idx % n;
        const u64 row = idx / n;  // c * keep + j
        const u64 j = row % keep;
        const u64 c = row / keep;
        const Modulus mj = moduli[j];
        const u64 v = modarith::mul(x[c * n + k], t_inv, pm);
        out[idx] = v > (p >> 1) ? modarith::sub(modarith::reduce(v, mj), modarith::reduce(p, mj), mj.p)
                                : modarith::reduce(v, mj);
    }
}

// ModDown's last step: out[c][j][k] = (x[c][j][k] - t_j r[c][j][k]) pinv_j (+ addend[c][j][k])
// modulo q_j, for c < count, j < keep, k < n. `x`: [count][keep + 1][n] (its last limb, the
// dropped prime's, is not read); `r`: [count][keep][n] (the lifted correction's evaluations);
// `tables`: [keep][2] = {t mod q_j, p^-1 mod q_j}; `addend`: null or [count][keep][n].
extern "C" __global__ void cyc_moddown_combine(u64* __restrict__ out, const u64* __restrict__ x,
                                               const u64* __restrict__ r, const u64* __restrict__ tables,
                                               const u64* __restrict__ addend, const Modulus* __restrict__ moduli,
                                               u64 n, u64 keep, u64 count) {
    GRID_STRIDE(idx, count * keep * n) {
        const u64 k = idx % n;
        const u64 row = idx / n;  // c * keep + j
        const u64 j = row % keep;
        const u64 c = row / keep;
        const Modulus mj = moduli[j];
        const u64 diff = modarith::sub(x[(c * (keep + 1) + j) * n + k], modarith::mul(tables[2 * j], r[idx], mj), mj.p);
        u64 v = modarith::mul(diff, tables[2 * j + 1], mj);
        if (addend != nullptr) v = modarith::add(v, addend[idx], mj.p);
        out[idx] = v;
    }
}
