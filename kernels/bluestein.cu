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
//   reduction modulo Phi_m of g of degree < D <= M (the CPU's words), by the binomial steps where a
//     row fits a block's shared memory: cyc_reduce_binomial (a block per row; below); else by
//     products:
//     [cyc_fold_window (g mod x^m - 1, m words a row) where the input is longer]
//     -> cyc_reverse_window (rev(g) on D = m - n words, padded to N) -> NTT -> cyc_mul_broadcast
//        (NTT of Phi_m^-1 mod x^D) -> inverse NTT: rev(Q), Q = floor(g / Phi_m)
//     -> cyc_reverse_window (Q, padded) -> NTT -> cyc_mul_broadcast (NTT of Phi_m mod x^N + 1)
//        -> inverse NTT: Q Phi_m mod (x^N + 1)
//     -> cyc_remainder (R_j = g_j - (Q Phi_m)_j - g_(N + j), j < n, zeros to the row's end).
//     N: a power of two with N >= 2D - 1, N >= n, 2N >= m (GpuCyclotomic's ReductionProducts).
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

// out[row][j] = j < len ? in[row][start - j] : 0 for j < out_stride: a window read backwards
// (len <= start + 1 < in_stride).
extern "C" __global__ void cyc_reverse_window(u64* __restrict__ out, const u64* __restrict__ in, u64 in_stride,
                                              u64 start, u64 len, u64 out_stride, u64 rows) {
    GRID_STRIDE(idx, rows * out_stride) {
        const u64 j = idx % out_stride;
        const u64 row = idx / out_stride;
        out[idx] = j < len ? in[row * in_stride + start - j] : 0;
    }
}

// out[row][j] = g[row][j] - w[row][j] - (j + wrap < m ? g[row][j + wrap] : 0) for j < n, zero up
// to out_stride: the remainder R = g - Q Phi_m from w = Q Phi_m mod (x^wrap + 1), whose words
// past x^wrap are g's.
extern "C" __global__ void cyc_remainder(u64* __restrict__ out, const u64* __restrict__ g, const u64* __restrict__ w,
                                         const Modulus* __restrict__ moduli, u64 n, u64 out_stride, u64 g_stride,
                                         u64 w_stride, u64 wrap, u64 m, u64 limbs, u64 rows) {
    GRID_STRIDE(idx, rows * out_stride) {
        const u64 j = idx % out_stride;
        const u64 row = idx / out_stride;
        u64 v = 0;
        if (j < n) {
            const u64 p = moduli[row % limbs].p;
            const u64* gr = g + row * g_stride;
            v = modarith::sub(gr[j], w[row * w_stride + j], p);
            if (j + wrap < m) v = modarith::sub(v, gr[j + wrap], p);
        }
        out[idx] = v;
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

// ---------------------------------------------------------------------------------------------
// Reduction modulo Phi_m by binomial steps (poly::phi_reduction::PhiReduction: the CPU's
// algorithm, so its words): one block of RB_THREADS threads per row, the work in shared memory.
//
//   g = in mod (x^m - 1) (folded while read, degree < m), D = m - n, n = phi(m):
//   work[0 .. D) = rev(g)               -> quotient steps (Phi_m^-1 mod x^D), sign
//   work[0 .. n) = rev(work), zeros     -> remainder steps (Phi_m mod x^n), sign
//   out[j] = j < n ? g_j - work[j] : 0 for j < out_stride.
//
// A step "times (x^d - 1)" is y_j = x_(j-d) - x_j, "divided by (x^d - 1)" y_j = y_(j-d) - x_j =
// -(x_j + x_(j-d) + ...): along each column c of the work seen as rows of d words (j = r d + c).
// Each column is cut into S segments of rs rows (S a power of two with d S <= RB_THREADS, rs
// odd so that the threads of a warp, rs d words apart with d odd, hit distinct banks): a thread
// per (column, segment), t = c S + s, so a column's segments are neighbouring lanes. A product
// reads the word below its segment before any thread writes; a division sums its segment, scans
// the sums across the column's lanes (shuffles, then the warps' totals for S > 32) and writes
// the negated running sums. Where d > RB_THREADS (S = 1) a thread walks whole columns.
//
// `steps`: quotient_steps then remainder_steps words, d | (divide << 31), as the CPU orders
// them. `flags`: bit 0 negates the quotient sequence, bit 1 the remainder's. Dynamic shared
// memory: (max(n, D) + 32) words. Grid: one block per row (count * L rows).
// ---------------------------------------------------------------------------------------------

constexpr unsigned RB_THREADS = 1024;

// sum_r in[j + r m] over j + r m < in_len: the word j of in mod (x^m - 1).
__device__ __forceinline__ u64 rb_fold(const u64* __restrict__ in, u64 j, u64 m, u64 in_len, u64 p) {
    u64 v = 0;
    for (u64 k = j; k < in_len; k += m) v = modarith::add(v, in[k], p);
    return v;
}

// Words a thread loads before it works on them: the loads of a chunk are independent (a
// chain of a shared-memory load per word, the stores aliasing the next loads, took 60-80 us a
// row at m = 21845).
constexpr unsigned RB_CHUNK = 8;

// The words j = first, first + d, ... below end in chunks of RB_CHUNK (registers), each chunk
// given to `body(v, valid)` and stored back where `store`.
template <bool store, typename Body>
__device__ __forceinline__ void rb_chunks(u64* work, u64 first, u64 end, u64 d, Body body) {
    for (u64 j = first; j < end; j += RB_CHUNK * d) {
        u64 v[RB_CHUNK];
#pragma unroll
        for (unsigned e = 0; e < RB_CHUNK; ++e) {
            const u64 at = j + e * d;
            v[e] = at < end ? work[at] : 0;
        }
        body(v);
        if (store) {
#pragma unroll
            for (unsigned e = 0; e < RB_CHUNK; ++e) {
                const u64 at = j + e * d;
                if (at < end) work[at] = v[e];
            }
        }
    }
}

// Prefix step of a chunk: v[e] = -(carry + v[0] + ... + v[e]) (a division), or
// v[e] = previous word - v[e] (a product); carry updated.
__device__ __forceinline__ void rb_chunk_step(u64* v, u64& carry, bool divide, u64 p) {
#pragma unroll
    for (unsigned e = 0; e < RB_CHUNK; ++e) {
        const u64 x = v[e];
        if (divide) {
            carry = modarith::add(carry, x, p);
            v[e] = modarith::neg(carry, p);
        } else {
            v[e] = modarith::sub(carry, x, p);
            carry = x;
        }
    }
}

// The sum of a chunk's words, as a tree (three adds deep, not eight).
__device__ __forceinline__ u64 rb_chunk_sum(const u64* v, u64 p) {
    u64 s[RB_CHUNK];
#pragma unroll
    for (unsigned e = 0; e < RB_CHUNK; ++e) s[e] = v[e];
#pragma unroll
    for (unsigned width = RB_CHUNK / 2; width > 0; width /= 2) {
#pragma unroll
        for (unsigned e = 0; e < width; ++e) s[e] = modarith::add(s[e], s[e + width], p);
    }
    return s[0];
}

// The block applies `count` steps to work[0 .. len) modulo p; every thread calls it.
__device__ void rb_apply_steps(u64* work, u64* warp_sums, u64 len, const unsigned* __restrict__ steps, u64 count,
                               u64 p) {
    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (u64 k = 0; k < count; ++k) {
        const unsigned code = steps[k];
        const unsigned d = code & 0x7fffffffu;
        const bool divide = (code >> 31) != 0;
        const unsigned rows = (unsigned)((len + d - 1) / d);
        unsigned segments = 1;
        while (2 * segments * d <= RB_THREADS && 2 * segments <= rows) segments *= 2;
        if (segments == 1) {
            // Whole columns, a thread each: no scan across threads. Column c ends at the last
            // word below len: end = len works as the bound (the chunk loop steps by d).
            for (unsigned c = tid; c < d; c += RB_THREADS) {
                u64 carry = 0;
                rb_chunks<true>(work, c, len, d, [&](u64* v) { rb_chunk_step(v, carry, divide, p); });
            }
            __syncthreads();
            continue;
        }
        const unsigned span = ((rows + segments - 1) / segments) | 1;  // rows per segment, odd
        const unsigned pairs = d * segments;
        const bool active = tid < pairs;
        const unsigned c = tid / segments, s = tid % segments;
        const u64 first = (u64)s * span * d + c;  // the segment's words: first, first + d, ...
        const u64 end = active ? min(len, (u64)(s + 1) * span * d) : 0;
        if (!divide) {
            const u64 below = (active && s > 0 && first < len + d) ? work[first - d] : 0;
            __syncthreads();
            u64 carry = below;
            rb_chunks<true>(work, first, end, d, [&](u64* v) { rb_chunk_step(v, carry, false, p); });
            __syncthreads();
            continue;
        }
        u64 total = 0;
        rb_chunks<false>(work, first, end, d, [&](u64* v) { total = modarith::add(total, rb_chunk_sum(v, p), p); });
        // Inclusive scan over the column's segments: within the warp (width min(S, 32)) ...
        const unsigned width = segments < 32 ? segments : 32;
        u64 inclusive = total;
        for (unsigned step = 1; step < width; step *= 2) {
            const u64 up = __shfl_up_sync(0xffffffffu, inclusive, step, width);
            if ((lane & (width - 1)) >= step) inclusive = modarith::add(inclusive, up, p);
        }
        // ... then across the column's warps (S > 32: S / 32 whole warps per column).
        if (segments > 32) {
            if (lane == 31) warp_sums[warp] = inclusive;
            __syncthreads();
            const unsigned first_warp = (c * segments) >> 5;
            for (unsigned w = first_warp; w < warp; ++w) inclusive = modarith::add(inclusive, warp_sums[w], p);
        }
        u64 carry = modarith::sub(inclusive, total, p);  // the sum of the segments below
        rb_chunks<true>(work, first, end, d, [&](u64* v) { rb_chunk_step(v, carry, true, p); });
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(RB_THREADS)
    cyc_reduce_binomial(u64* __restrict__ out, const u64* __restrict__ in, const Modulus* __restrict__ moduli,
                        const unsigned* __restrict__ steps, u64 quotient_steps, u64 remainder_steps, u64 flags, u64 m,
                        u64 n, u64 in_stride, u64 in_len, u64 out_stride, u64 limbs) {
    extern __shared__ u64 rb_shared[];
    const u64 row = blockIdx.x;
    const u64 p = moduli[row % limbs].p;
    const u64 quotient_len = m - n;
    u64* work = rb_shared;
    u64* warp_sums = rb_shared + (n > quotient_len ? n : quotient_len);
    const u64* x = in + row * in_stride;
    const unsigned tid = threadIdx.x;
    // 1. rev(Q) = rev(g) Phi_m^-1 mod x^D.
    for (u64 i = tid; i < quotient_len; i += RB_THREADS) work[i] = rb_fold(x, m - 1 - i, m, in_len, p);
    __syncthreads();
    rb_apply_steps(work, warp_sums, quotient_len, steps, quotient_steps, p);
    // 2. Q (signed, reversed back) on the low words, zeros up to n; then Q Phi_m mod x^n.
    const bool negate_q = (flags & 1) != 0, negate_r = (flags & 2) != 0;
    for (u64 i = tid; i < (quotient_len + 1) / 2; i += RB_THREADS) {
        u64 low = work[i], high = work[quotient_len - 1 - i];
        if (negate_q) {
            low = modarith::neg(low, p);
            high = modarith::neg(high, p);
        }
        work[i] = high;
        work[quotient_len - 1 - i] = low;
    }
    for (u64 i = quotient_len + tid; i < n; i += RB_THREADS) work[i] = 0;
    __syncthreads();
    rb_apply_steps(work, warp_sums, n, steps + quotient_steps, remainder_steps, p);
    // 3. g - Q Phi_m on the n low words.
    u64* y = out + row * out_stride;
    for (u64 j = tid; j < out_stride; j += RB_THREADS) {
        u64 v = 0;
        if (j < n) {
            const u64 qphi = negate_r ? modarith::neg(work[j], p) : work[j];
            v = modarith::sub(rb_fold(x, j, m, in_len, p), qphi, p);
        }
        y[j] = v;
    }
}
