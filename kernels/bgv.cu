// The BGV scheme's kernels (crates/bgv-encrypt), bit-exact with its host code.
#include <cstdint>

#include "modarith.cuh"
#include "wide_sum.cuh"

using modarith::Modulus;
using modarith::u64;
using wide_sum::Sum192;

// Decryption's last step (crates/bgv-encrypt/src/backend.rs, DecryptionTables::reduce_host):
// the phase x (coefficient representation over q = q_0 .. q_{L-1}, limb-major [L][N]) to
// out[j] = [x_c]_t * f^{-1} mod t, x_c the centered representative of coefficient j modulo q.
//
// Per coefficient: y_i = x_i * (q/q_i)^{-1} mod q_i; then
//   x_c = sum_i y_i (q/q_i) - v q,  v = round(sum_i y_i / q_i),
// with sum_i y_i / q_i accumulated in 0.64 fixed point: term i is y_i floor(2^128 / q_i) / 2^64
// rounded down (two 64-bit products with the moduli table's Barrett constant), summed modulo
// 2^64 with the carries counted (v = carries + top bit). Each term is at most 2^-63 short, so
// v is exact unless x is within L 2^-63 q of +-q/2, where the noise budget is long spent.
// x_c mod t = sum_i y_i [(q/q_i)]_t - v [q]_t: the products y_i [(q/q_i)]_t (< 2^122) are
// summed exactly (192-bit carry chains) and reduced modulo t once at the end (Barrett
// reduction; t < 2^60 need not be prime). Every step is integer arithmetic whose result does
// not depend on the order of the sums, so the output equals the host's word for word.
//
// Threads: blockDim = (256 / G, G). Thread (x, y) of block b takes coefficient
// j = b * blockDim.x + x and the limbs y, y + G, y + 2G, ...: G threads share a coefficient's
// L limbs (more threads in flight when N is small against L), each warp reading 32
// consecutive words of one limb; the G partial sums meet in shared memory and row y = 0
// finishes. G is 1, 2, 4 or 8 (the host picks it).
//
// With `scaled`, the input is y itself (the inverse transform folded (q/q_i)^{-1} into its last
// stage), and the first step is skipped. Each thread issues the loads of up to REDUCE_AHEAD of
// its limbs before their arithmetic, so they are in flight together.
//
// `tables`: L triples {(q/q_i)^{-1} mod q_i, its shoup, (q/q_i) mod t}. `t`, `t_barrett_*`: t with
// its Barrett constant floor(2^128 / t).
namespace {

constexpr int REDUCE_THREADS = 256;

// The fraction sum_i y_i / q_i in 0.64 fixed point: its 64 bits (modulo 2^64) and the carries
// out of them.
struct Fraction {
    u64 lo, carries;
};

// One limb's terms: y (already times (q/q_i)^{-1}) into the fraction and the sum (carry chains:
// a 64-bit compare per carry cost three times the instructions).
__device__ __forceinline__ void add_limb(Fraction& fraction, Sum192& sum, const u64 y, const Modulus& mi,
                                         const u64 c) {
    // floor(y floor(2^128 / q_i) / 2^64): below 2^64, as y < q_i.
    const u64 term = y * mi.barrett_hi + __umul64hi(y, mi.barrett_lo);
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, 0;"
        : "+l"(fraction.lo), "+l"(fraction.carries)
        : "l"(term));
    wide_sum::sum192_mad(sum, y, c);
}

// Limbs a thread loads before it computes: their loads are all in flight at once.
constexpr int REDUCE_AHEAD = 4;

}  // namespace

// `scaled` (uniform): 1 when `in` holds y_i already (the inverse transform's last stage
// multiplied by (q/q_i)^{-1}: DevicePoly::inverse_of_mul_add_scaled), 0 for the phase itself.
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
    bgv_reduce_phase(u64* __restrict__ out, const u64* __restrict__ in, const Modulus* __restrict__ moduli,
                     const u64* __restrict__ tables, u64 t, u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t,
                     u64 correction_inv, int log_n, int limbs, int scaled) {
    __shared__ Fraction partial_fraction[REDUCE_THREADS];
    __shared__ Sum192 partial_sum[REDUCE_THREADS];
    const u64 n = 1ull << log_n;
    const int groups = blockDim.y;
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    Fraction fraction = {0, 0};
    Sum192 sum = {0, 0, 0};
    if (j < n) {
        // Limb i of coefficient j at in + (i << log_n) + j; this thread's limbs step by `groups`.
        const u64* limb = in + ((u64)threadIdx.y << log_n) + j;
        const u64 step = (u64)groups << log_n;
        for (int first = threadIdx.y; first < limbs; first += REDUCE_AHEAD * groups) {
            u64 x[REDUCE_AHEAD];
#pragma unroll
            for (int u = 0; u < REDUCE_AHEAD; ++u) {
                x[u] = first + u * groups < limbs ? limb[u * step] : 0;
            }
            limb += REDUCE_AHEAD * step;
#pragma unroll
            for (int u = 0; u < REDUCE_AHEAD; ++u) {
                const int i = first + u * groups;
                if (i >= limbs) break;
                const Modulus mi = moduli[i];
                const u64 y = scaled ? x[u] : modarith::mul_shoup(x[u], tables[3 * i], tables[3 * i + 1], mi.p);
                add_limb(fraction, sum, y, mi, tables[3 * i + 2]);
            }
        }
    }
    if (groups > 1) {
        const int slot = threadIdx.y * blockDim.x + threadIdx.x;
        partial_fraction[slot] = fraction;
        partial_sum[slot] = sum;
        __syncthreads();
        if (threadIdx.y != 0) return;
        for (int g = 1; g < groups; ++g) {
            const Fraction f = partial_fraction[g * blockDim.x + threadIdx.x];
            asm("add.cc.u64 %0, %0, %2;\n\t"
                "addc.u64 %1, %1, %3;"
                : "+l"(fraction.lo), "+l"(fraction.carries)
                : "l"(f.lo), "l"(f.carries));
            wide_sum::sum192_merge(sum, partial_sum[g * blockDim.x + threadIdx.x]);
        }
    }
    if (j >= n) return;
    const Modulus t_mod = {t, t_barrett_hi, t_barrett_lo};
    const u64 v = fraction.carries + (fraction.lo >> 63);
    // sum mod t: (s2 2^64 + s1) mod t first, then that 2^64 + s0.
    const u64 acc = modarith::reduce_u128(sum.s0, modarith::reduce_u128(sum.s1, sum.s2, t_mod), t_mod);
    const u64 r = modarith::sub(acc, modarith::mul(modarith::reduce(v, t_mod), q_mod_t, t_mod), t);
    out[j] = modarith::mul(r, correction_inv, t_mod);
}
