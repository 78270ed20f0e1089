// The BGV scheme's kernels (crates/bgv-encrypt), bit-exact with its host code.
#include <cstdint>

#include "centered_lift.cuh"
#include "dependent_launch.cuh"
#include "modarith.cuh"
#include "wide_sum.cuh"

using modarith::Modulus;
using modarith::u64;
using wide_sum::Sum192;

// Decryption's last step (crates/bgv-encrypt/src/backend.rs, DecryptionTables::reduce_host):
// the phase x (coefficient representation over q = q_0 .. q_{L-1}, limb-major [L][N]) to
// out[j] = [x_c]_t * f^{-1} mod t, x_c the centered representative of coefficient j modulo q
// (the arithmetic: include/centered_lift.cuh, which the inverse transform's fused last pass in
// ntt.cu shares). First y_i = x_i * (q/q_i)^{-1} mod q_i, unless `scaled`.
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
// `tables`: L triples {(q/q_i)^{-1} mod q_i, its shoup, (q/q_i) mod t}. `finish`: t and the last
// step's constants, the factor f^{-1} among them (centered_lift::Finish). `narrow`: every
// y_i (q/q_i mod t) fits a word (reduce_phase<true>).
namespace {

constexpr int REDUCE_THREADS = 256;

using centered_lift::Fraction;

// Limbs a thread loads before it computes: their loads are all in flight at once (the host
// gives a thread 4 to 16 limbs). 8: at 2^16 x 32 limbs, 16 limbs a thread, two rounds of
// loads where 4 took four.
constexpr int REDUCE_AHEAD = 8;
// Blocks per SM the registers must allow (64 a thread: 8 loads in flight without a spill; at
// 48 they spilled). The launch into device memory is one wave of resident threads (at 2^15 x
// 16 and 2^16 x 32 limbs, 131072 threads against 132 x 4 x 256 on an H100): the kernel reads
// its input from L2 and is bound by latency, so loads in flight count more than occupancy.
// crates/bgv-encrypt (reduce_wave_threads) counts on it for that launch shape.
constexpr int REDUCE_MIN_BLOCKS = 4;

}  // namespace

// The body of bgv_reduce_phase; NARROW: every product y_i [(q/q_i)]_t fits a word (the host
// checked (q_i - 1) [(q/q_i)]_t < 2^64), so the sum takes one low product and a 128-bit add
// per limb where the 192-bit multiply-add takes a full product and a three-word carry chain.
// The same integer sums, so the same words.
template <bool NARROW>
__device__ __forceinline__ void reduce_phase(u64* __restrict__ out, const u64* __restrict__ in,
                                             const Modulus* __restrict__ moduli, const u64* __restrict__ tables,
                                             const centered_lift::Finish& finish, const int log_n, const int limbs,
                                             const int scaled, Fraction* partial_fraction, Sum192* partial_sum) {
    // The phase is the inverse transform's output (programmatic dependencies: dependent_launch.cuh).
    dependent_launch::wait_for_inputs_and_allow_dependents();
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
                if constexpr (NARROW) {
                    centered_lift::add_limb_narrow(fraction, sum, y, mi, tables[3 * i + 2]);
                } else {
                    centered_lift::add_limb(fraction, sum, y, mi, tables[3 * i + 2]);
                }
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
            const int other = g * blockDim.x + threadIdx.x;
            centered_lift::merge(fraction, sum, partial_fraction[other], partial_sum[other]);
        }
    }
    if (j >= n) return;
    out[j] = centered_lift::finish(fraction, sum, finish);
}

extern "C" __global__ void __launch_bounds__(REDUCE_THREADS, REDUCE_MIN_BLOCKS)
    bgv_reduce_phase(u64* __restrict__ out, const u64* __restrict__ in, const Modulus* __restrict__ moduli,
                     const u64* __restrict__ tables, const centered_lift::Finish finish, int log_n, int limbs,
                     int scaled, int narrow) {
    // The groups' partial sums (one set for both bodies).
    __shared__ Fraction partial_fraction[REDUCE_THREADS];
    __shared__ Sum192 partial_sum[REDUCE_THREADS];
    if (narrow) {
        reduce_phase<true>(out, in, moduli, tables, finish, log_n, limbs, scaled, partial_fraction, partial_sum);
    } else {
        reduce_phase<false>(out, in, moduli, tables, finish, log_n, limbs, scaled, partial_fraction, partial_sum);
    }
}
