// The BGV scheme's kernels (crates/bgv-encrypt), bit-exact with its host code.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

// Decryption's last step (crates/bgv-encrypt/src/backend.rs, DecryptionTables::reduce_host):
// the phase x (coefficient representation over q = q_0 .. q_{L-1}, limb-major [L][N]) to
// out[j] = [x_c]_t * f^{-1} mod t, x_c the centered representative of coefficient j modulo q.
//
// Per coefficient (one thread, grid stride): y_i = x_i * (q/q_i)^{-1} mod q_i; then
//   x_c = sum_i y_i (q/q_i) - v q,  v = round(sum_i y_i / q_i),
// with sum_i y_i / q_i accumulated in 0.128 fixed point (y_i * floor(2^128 / q_i), which is
// the moduli table's Barrett constant, summed with the carries kept: v = carries + top bit),
// and x_c mod t = sum_i [y_i]_t [(q/q_i)]_t - [v]_t [q]_t, by Barrett reduction modulo t.
//
// `tables`: L triples {(q/q_i)^{-1} mod q_i, its shoup, (q/q_i) mod t}. `t`, `t_barrett_*`: t with
// its Barrett constant floor(2^128 / t) (t < 2^60 need not be prime: Barrett reduction does
// not ask it).
extern "C" __global__ void bgv_reduce_phase(u64* __restrict__ out, const u64* __restrict__ in,
                                            const Modulus* __restrict__ moduli, const u64* __restrict__ tables,
                                            u64 t, u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t,
                                            u64 correction_inv, int log_n, int limbs) {
    const u64 n = 1ull << log_n;
    const Modulus t_mod = {t, t_barrett_hi, t_barrett_lo};
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
        u64 frac_lo = 0, frac_hi = 0, carries = 0, acc = 0;
        for (int i = 0; i < limbs; ++i) {
            const Modulus mi = moduli[i];
            const u64 y = modarith::mul_shoup(in[((u64)i << log_n) + j], tables[3 * i], tables[3 * i + 1], mi.p);
            // y * floor(2^128 / q_i) < 2^128: y * barrett_hi < 2^64.
            const u64 lo_lo = y * mi.barrett_lo;
            const u64 lo_hi = __umul64hi(y, mi.barrett_lo);
            const u64 term_hi = y * mi.barrett_hi + lo_hi;
            const u64 new_lo = frac_lo + lo_lo;
            const u64 c0 = new_lo < lo_lo ? 1 : 0;
            const u64 partial_hi = frac_hi + term_hi;
            const u64 c1 = partial_hi < term_hi ? 1 : 0;
            const u64 new_hi = partial_hi + c0;
            const u64 c2 = new_hi < c0 ? 1 : 0;
            frac_lo = new_lo;
            frac_hi = new_hi;
            carries += c1 + c2;
            acc = modarith::add(acc, modarith::mul(modarith::reduce(y, t_mod), tables[3 * i + 2], t_mod), t);
        }
        const u64 v = carries + (frac_hi >> 63);
        const u64 r = modarith::sub(acc, modarith::mul(modarith::reduce(v, t_mod), q_mod_t, t_mod), t);
        out[j] = modarith::mul(r, correction_inv, t_mod);
    }
}
