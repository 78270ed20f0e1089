// The BGV scheme's kernels (crates/bgv-encrypt), bit-exact with its host code.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

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
// summed exactly in 128 bits with their carries and reduced modulo t once at the end (Barrett
// reduction; t < 2^60 need not be prime). Every step is integer arithmetic whose result does
// not depend on the order of the sums, so the output equals the host's word for word.
//
// Threads: blockDim = (256 / G, G). Thread (x, y) of block b takes coefficient
// j = b * blockDim.x + x and the limbs y, y + G, y + 2G, ...: G threads share a coefficient's
// L limbs (more threads in flight when N is small against L), each warp reading 32
// consecutive words of one limb; the G partial sums meet in shared memory and row y = 0
// finishes. G is 1, 2, 4 or 8 (the host picks it).
//
// `tables`: L triples {(q/q_i)^{-1} mod q_i, its shoup, (q/q_i) mod t}. `t`, `t_barrett_*`: t with
// its Barrett constant floor(2^128 / t).
namespace {

// A 128-bit sum with the carries out of it: value = carries * 2^128 + hi * 2^64 + lo.
struct Wide {
    u64 lo, hi, carries;
};

__device__ __forceinline__ void add_wide(Wide& a, u64 lo, u64 hi, u64 carries) {
    const u64 new_lo = a.lo + lo;
    const u64 c0 = new_lo < lo ? 1 : 0;
    const u64 partial_hi = a.hi + hi;
    const u64 c1 = partial_hi < hi ? 1 : 0;
    const u64 new_hi = partial_hi + c0;
    const u64 c2 = new_hi < c0 ? 1 : 0;
    a.lo = new_lo;
    a.hi = new_hi;
    a.carries += carries + c1 + c2;
}

constexpr int REDUCE_THREADS = 256;

}  // namespace

extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
    bgv_reduce_phase(u64* __restrict__ out, const u64* __restrict__ in, const Modulus* __restrict__ moduli,
                     const u64* __restrict__ tables, u64 t, u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t,
                     u64 correction_inv, int log_n, int limbs) {
    __shared__ Wide partial[2][REDUCE_THREADS];
    const u64 n = 1ull << log_n;
    const int groups = blockDim.y;
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    // The fraction: 64-bit sum (modulo 2^64) and its carries; Wide's hi word is unused there.
    Wide fraction = {0, 0, 0};
    Wide sum = {0, 0, 0};
    if (j < n) {
#pragma unroll 4
        for (int i = threadIdx.y; i < limbs; i += groups) {
            const Modulus mi = moduli[i];
            const u64 y = modarith::mul_shoup(in[((u64)i << log_n) + j], tables[3 * i], tables[3 * i + 1], mi.p);
            // floor(y floor(2^128 / q_i) / 2^64): below 2^64, as y < q_i.
            const u64 term = y * mi.barrett_hi + __umul64hi(y, mi.barrett_lo);
            fraction.lo += term;
            fraction.carries += fraction.lo < term ? 1 : 0;
            const u64 c = tables[3 * i + 2];
            add_wide(sum, y * c, __umul64hi(y, c), 0);
        }
    }
    if (groups > 1) {
        const int slot = threadIdx.y * blockDim.x + threadIdx.x;
        partial[0][slot] = fraction;
        partial[1][slot] = sum;
        __syncthreads();
        if (threadIdx.y != 0) return;
        for (int g = 1; g < groups; ++g) {
            const Wide f = partial[0][g * blockDim.x + threadIdx.x];
            const Wide s = partial[1][g * blockDim.x + threadIdx.x];
            fraction.lo += f.lo;
            fraction.carries += f.carries + (fraction.lo < f.lo ? 1 : 0);
            add_wide(sum, s.lo, s.hi, s.carries);
        }
    }
    if (j >= n) return;
    const Modulus t_mod = {t, t_barrett_hi, t_barrett_lo};
    const u64 v = fraction.carries + (fraction.lo >> 63);
    // sum mod t: (carries * 2^64 + hi) mod t first, then that * 2^64 + lo.
    const u64 acc = modarith::reduce_u128(sum.lo, modarith::reduce_u128(sum.hi, sum.carries, t_mod), t_mod);
    const u64 r = modarith::sub(acc, modarith::mul(modarith::reduce(v, t_mod), q_mod_t, t_mod), t);
    out[j] = modarith::mul(r, correction_inv, t_mod);
}
