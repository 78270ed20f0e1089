// Discrete Galois transform (DGT) kernels, flat and hierarchical, bit-exact with
// crates/poly/src/dgt.rs (DgtPlan) and crates/poly/src/hdgt.rs (HdgtPlan).
//
// Conventions (those of the CPU plans; K = N/2):
//   forward  fold a_n + i a_{n+K}, twist by h^n (a Gaussian product), then the length-K DGT
//            with the real root g by Gentleman-Sande butterflies: stage of half-width m pairs
//            elements k and k + m (bit log2 m of k clear) with twiddle table[m + (k mod m)],
//            m = K/2 .. 1; output in bit-reversed order, interleaved (eval[2j] = re,
//            eval[2j+1] = im), canonical.
//   inverse  Cooley-Tukey with the inverse table, m = 1 .. K/2, then the inverse twist
//            h^-n K^-1 (all of K^-1 lives there) and the unfold: canonical coefficients.
//   The twiddle table of a length-L sub-transform (root g^(K/L)) is the first L entries of
//   the length-K table, so every pass below reads the same per-limb table.
//   Butterflies are lazy (Harvey): forward values stay in [0, 2p), inverse in [0, 4p);
//   p < 2^62 keeps 4p below 2^64. Outputs are canonical, hence equal to the CPU's.
//
// Hierarchical DGT (spog, Algorithms 4 and 5): the folded vector is a row-major R x C matrix
// (element n = r C + c). Forward: a COLUMN pass (fold + twist on load, length-R transforms
// down the columns, step twiddle step[n] = g^(bitrev_{log R}(r) c) on store), then a ROW pass
// (length-C transforms along the rows, canonical on store); the row-major result is the DGT
// vector itself. Inverse: a ROW pass (inverse row transforms, inverse step twiddle on store),
// then a COLUMN pass (inverse column transforms, inverse twist and unfold on store). The flat
// DGT of small N is a single ROW pass over the whole limb (one row of length K) that folds on
// load and writes canonical values (forward) or unfolds on store (inverse).
//
// Data: [poly][limb][N] u64. Grid: x = tiles of one limb, y = limb (selects the tables),
// z = polynomial. Tables, per limb (limb-major, one block of entries per limb):
//   twist, inverse twist   K entries of 4 words {re, shoup(re), im, shoup(im)}
//   twiddles (fwd or inv)  K pairs {w, shoup(w)}, the DgtPlan layout [m + t]
//   step twiddles          K pairs {w, shoup(w)}, row-major [r C + c] (HdgtPlan layout)
//   primes                 one word p per limb
//
// Inside a pass, a block holds S = 2^log_s sub-transforms of length L = 2^LOG_L (a tile of
// S * L Gaussian elements, at most 2048) in shared memory. Each thread keeps RAD = 2^LOG_RAD
// elements (LOG_RAD = min(LOG_L, 3)) of one sub-transform in registers and does up to
// LOG_RAD stages on them per round (the k-bit window [w, w + LOG_RAD)); rounds exchange
// data through shared memory. When LOG_RAD does not divide LOG_L, the round nearest the top
// bits (the first forward round, the last inverse round) does only the remaining stages.
// A thread owning window w holds points base + (u << w), u < RAD, where its index f within
// the sub-transform gives base = (f mod 2^w) | ((f >> w) << (w + LOG_RAD)).
//
// Shared memory: Gaussian elements are 16-byte slots (ulonglong2); a 128-bit access is
// served per quarter-warp, so 8 consecutive threads must hit 8 distinct slots modulo 8.
// Slot index i is padded to i + i/8. ROW tiles store (sub, k) at i = sub L + k, COLUMN tiles
// at i = k S + sub; in both cases, for any window, 8 consecutive threads (which differ only
// in the low bits of their flattened thread index) land on padded slots that are distinct
// modulo 8 (i + i/8 = thread index + a constant of u, modulo 8). Global memory: COLUMN tiles
// put the S adjacent columns of a row in consecutive threads (coalesced in every round);
// ROW passes load directly only in the round whose points are f + u L/RAD (consecutive
// threads, consecutive elements) and stage the other end of the pass through shared memory.
// No branch depends on data except the lazy reductions, which compile to selects.
#include <cstdint>

#include "modarith.cuh"

using modarith::mul_shoup_lazy;
using modarith::u64;

namespace {

// A Gaussian integer re + i im, as x = re, y = im.
typedef ulonglong2 gauss;

constexpr int MAX_LOG_RADIX = 3;
constexpr int MAX_LOG_THREADS = 8;  // 256 threads per block at most
constexpr int MAX_TILE = 1 << (MAX_LOG_THREADS + MAX_LOG_RADIX);  // 2048 elements
constexpr int SMEM_SLOTS = MAX_TILE + MAX_TILE / 8;

// What a pass reads.
enum Input {
    IN_FOLD_TWIST,  // coefficients a_n, a_{n+K}: element n = (a_n + i a_{n+K}) h^n
    IN_GAUSS,       // interleaved Gaussian elements (canonical or lazy)
};

// What a pass writes.
enum Output {
    OUT_CANONICAL,  // reduce [0, 2p) -> [0, p), interleaved
    OUT_STEP,       // multiply by the (real) step twiddle step[n], lazy [0, 2p), interleaved
    OUT_UNTWIST,    // multiply by h^-n K^-1, canonical, unfold to a_n, a_{n+K}
};

__device__ __forceinline__ int padded(const int i) { return i + (i >> 3); }

__device__ __forceinline__ u64 reduce_once(const u64 x, const u64 m) { return x >= m ? x - m : x; }

// Gentleman-Sande (forward) butterfly on Gaussian elements with a real twiddle:
// x, y in [0, 2p) -> x + y, (x - y) w in [0, 2p).
__device__ __forceinline__ void gs_butterfly(gauss& x, gauss& y, const ulonglong2 w, const u64 p) {
    const u64 two_p = 2 * p;
    const u64 sum_re = reduce_once(x.x + y.x, two_p);
    const u64 sum_im = reduce_once(x.y + y.y, two_p);
    const u64 diff_re = x.x + two_p - y.x;
    const u64 diff_im = x.y + two_p - y.y;
    x = make_ulonglong2(sum_re, sum_im);
    y = make_ulonglong2(mul_shoup_lazy(diff_re, w.x, w.y, p), mul_shoup_lazy(diff_im, w.x, w.y, p));
}

// Cooley-Tukey (inverse) butterfly: x, y in [0, 4p) -> x + y w, x - y w in [0, 4p).
__device__ __forceinline__ void ct_butterfly(gauss& x, gauss& y, const ulonglong2 w, const u64 p) {
    const u64 two_p = 2 * p;
    const u64 u_re = reduce_once(x.x, two_p);
    const u64 u_im = reduce_once(x.y, two_p);
    const u64 v_re = mul_shoup_lazy(y.x, w.x, w.y, p);
    const u64 v_im = mul_shoup_lazy(y.y, w.x, w.y, p);
    x = make_ulonglong2(u_re + v_re, u_im + v_im);
    y = make_ulonglong2(u_re + two_p - v_re, u_im + two_p - v_im);
}

// (x + i y)(hr + i hi) for any 64-bit x, y and a table entry {hr, shoup, hi, shoup}:
// parts in [0, 4p) before the caller's reductions.
__device__ __forceinline__ gauss twist_product(const u64 x, const u64 y, const ulonglong2 hr, const ulonglong2 hi,
                                               const u64 p) {
    const u64 re = mul_shoup_lazy(x, hr.x, hr.y, p) + 2 * p - mul_shoup_lazy(y, hi.x, hi.y, p);
    const u64 im = mul_shoup_lazy(x, hi.x, hi.y, p) + mul_shoup_lazy(y, hr.x, hr.y, p);
    return make_ulonglong2(re, im);
}

// Per-block view of one pass: pointers already offset to the block's limb.
struct Limb {
    const u64* in;
    u64* out;
    const ulonglong2* twist;     // 2 pairs per element
    const ulonglong2* twiddles;  // K pairs
    const ulonglong2* step;      // K pairs (OUT_STEP only)
    u64 p;
    int log_k;
};

template <int IN>
__device__ __forceinline__ gauss load_element(const Limb& limb, const int n) {
    if (IN == IN_FOLD_TWIST) {
        const int k = 1 << limb.log_k;
        const u64 two_p = 2 * limb.p;
        const gauss t =
            twist_product(limb.in[n], limb.in[n + k], __ldg(&limb.twist[2 * n]), __ldg(&limb.twist[2 * n + 1]), limb.p);
        return make_ulonglong2(reduce_once(t.x, two_p), reduce_once(t.y, two_p));
    } else {
        return reinterpret_cast<const gauss*>(limb.in)[n];
    }
}

template <int OUT>
__device__ __forceinline__ void store_element(const Limb& limb, const int n, const gauss v) {
    const u64 p = limb.p;
    if (OUT == OUT_CANONICAL) {
        reinterpret_cast<gauss*>(limb.out)[n] = make_ulonglong2(reduce_once(v.x, p), reduce_once(v.y, p));
    } else if (OUT == OUT_STEP) {
        const ulonglong2 w = __ldg(&limb.step[n]);
        reinterpret_cast<gauss*>(limb.out)[n] =
            make_ulonglong2(mul_shoup_lazy(v.x, w.x, w.y, p), mul_shoup_lazy(v.y, w.x, w.y, p));
    } else {
        const int k = 1 << limb.log_k;
        const u64 two_p = 2 * p;
        const gauss t = twist_product(v.x, v.y, __ldg(&limb.twist[2 * n]), __ldg(&limb.twist[2 * n + 1]), p);
        limb.out[n] = reduce_once(reduce_once(t.x, two_p), p);
        limb.out[n + k] = reduce_once(reduce_once(t.y, two_p), p);
    }
}

// Compile-time geometry of a pass over sub-transforms of length 2^LOG_L_.
template <int LOG_L_, bool STRIDED_>
struct Pass {
    static constexpr int LOG_L = LOG_L_;
    static constexpr bool STRIDED = STRIDED_;  // COLUMN pass (sub-transforms strided by C)
    static constexpr int L = 1 << LOG_L;
    static constexpr int LOG_RAD = LOG_L < MAX_LOG_RADIX ? LOG_L : MAX_LOG_RADIX;
    static constexpr int RAD = 1 << LOG_RAD;
    static constexpr int LOG_TPS = LOG_L - LOG_RAD;  // log2 threads per sub-transform
    static constexpr int ROUNDS = LOG_L == 0 ? 0 : (LOG_L + LOG_RAD - 1) / LOG_RAD;
    static constexpr int SHORT = LOG_L - (ROUNDS == 0 ? 0 : (ROUNDS - 1) * LOG_RAD);  // top round's stages

    // Window of forward round q (round 0 owns the top bits).
    __host__ __device__ static constexpr int window(const int q) { return q == 0 ? LOG_L - LOG_RAD : LOG_L - SHORT - q * LOG_RAD; }
    // Stages of forward round q.
    __host__ __device__ static constexpr int stages(const int q) { return q == 0 ? SHORT : LOG_RAD; }

    // The thread's sub-transform (within the tile) and its points' base for window w.
    __device__ static void locate(const int tid, const int log_s, const int w, int& sub, int& base) {
        int f;
        if (STRIDED) {
            sub = tid & ((1 << log_s) - 1);
            f = tid >> log_s;
        } else {
            f = tid & ((1 << LOG_TPS) - 1);
            sub = tid >> LOG_TPS;
        }
        base = (f & ((1 << w) - 1)) | ((f >> w) << (w + LOG_RAD));
    }

    __device__ static int smem_index(const int log_s, const int sub, const int k) {
        return padded(STRIDED ? (k << log_s) + sub : (sub << LOG_L) + k);
    }

    // Position (Gaussian index within the limb) of point k of the tile's sub-transform sub.
    __device__ static int position(const int log_k, const int log_s, const int sub, const int k) {
        const int first = (int)blockIdx.x << log_s;  // the tile's first sub-transform
        return STRIDED ? (k << (log_k - LOG_L)) + first + sub : ((first + sub) << LOG_L) + k;
    }
};

template <class P>
__device__ __forceinline__ void to_smem(gauss* smem, const gauss (&x)[P::RAD], const int log_s, const int sub,
                                        const int base, const int w) {
#pragma unroll
    for (int u = 0; u < P::RAD; ++u) smem[P::smem_index(log_s, sub, base + (u << w))] = x[u];
}

template <class P>
__device__ __forceinline__ void from_smem(gauss (&x)[P::RAD], const gauss* smem, const int log_s, const int sub,
                                          const int base, const int w) {
#pragma unroll
    for (int u = 0; u < P::RAD; ++u) x[u] = smem[P::smem_index(log_s, sub, base + (u << w))];
}

// The forward stages of round q on the thread's points base + (u << w): bits from the
// window's top down, STAGES of them.
template <class P, int Q>
__device__ __forceinline__ void forward_round(gauss (&x)[P::RAD], const int base, const ulonglong2* tw, const u64 p) {
    constexpr int w = P::window(Q);
    constexpr int stages = P::stages(Q);
#pragma unroll
    for (int st = 0; st < stages; ++st) {
        const int ub = P::LOG_RAD - 1 - st;  // partner bit within u
        const int m = 1 << (w + ub);         // butterfly half-width
#pragma unroll
        for (int u = 0; u < P::RAD; ++u) {
            if (u & (1 << ub)) continue;
            const int k = base + (u << w);
            gs_butterfly(x[u], x[u | (1 << ub)], __ldg(&tw[m + (k & (m - 1))]), p);
        }
    }
}

// The inverse stages of forward round q, in the opposite order (low bits first).
template <class P, int Q>
__device__ __forceinline__ void inverse_round(gauss (&x)[P::RAD], const int base, const ulonglong2* tw, const u64 p) {
    constexpr int w = P::window(Q);
    constexpr int stages = P::stages(Q);
#pragma unroll
    for (int st = 0; st < stages; ++st) {
        const int ub = P::LOG_RAD - stages + st;
        const int m = 1 << (w + ub);
#pragma unroll
        for (int u = 0; u < P::RAD; ++u) {
            if (u & (1 << ub)) continue;
            const int k = base + (u << w);
            ct_butterfly(x[u], x[u | (1 << ub)], __ldg(&tw[m + (k & (m - 1))]), p);
        }
    }
}

// Forward rounds Q .. ROUNDS-1; between rounds each thread writes back the slots it read,
// then reads the next window's slots after a barrier.
template <class P, int Q>
__device__ __forceinline__ void forward_rounds(gauss (&x)[P::RAD], gauss* smem, const int log_s, int sub, int base,
                                               const ulonglong2* tw, const u64 p) {
    if constexpr (Q < P::ROUNDS) {
        forward_round<P, Q>(x, base, tw, p);
        if constexpr (Q + 1 < P::ROUNDS) {
            to_smem<P>(smem, x, log_s, sub, base, P::window(Q));
            __syncthreads();
            P::locate(threadIdx.x, log_s, P::window(Q + 1), sub, base);
            from_smem<P>(x, smem, log_s, sub, base, P::window(Q + 1));
            forward_rounds<P, Q + 1>(x, smem, log_s, sub, base, tw, p);
        }
    }
}

// Inverse rounds in the order Q = ROUNDS-1 .. 0 (called with Q = ROUNDS - 1).
template <class P, int Q>
__device__ __forceinline__ void inverse_rounds(gauss (&x)[P::RAD], gauss* smem, const int log_s, int sub, int base,
                                               const ulonglong2* tw, const u64 p) {
    if constexpr (Q >= 0) {
        inverse_round<P, Q>(x, base, tw, p);
        if constexpr (Q > 0) {
            to_smem<P>(smem, x, log_s, sub, base, P::window(Q));
            __syncthreads();
            P::locate(threadIdx.x, log_s, P::window(Q - 1), sub, base);
            from_smem<P>(x, smem, log_s, sub, base, P::window(Q - 1));
            inverse_rounds<P, Q - 1>(x, smem, log_s, sub, base, tw, p);
        }
    }
}

__device__ __forceinline__ Limb limb_view(const u64* in, u64* out, const ulonglong2* twist, const ulonglong2* twiddles,
                                          const ulonglong2* step, const u64* primes, const int log_n,
                                          const int limbs_per_poly) {
    const int table_limb = blockIdx.y;
    const size_t data_limb = (size_t)blockIdx.z * limbs_per_poly + table_limb;
    const int log_k = log_n - 1;
    Limb limb;
    limb.in = in + (data_limb << log_n);
    limb.out = out + (data_limb << log_n);
    limb.twist = twist + ((size_t)table_limb << log_n);  // 2 pairs per element
    limb.twiddles = twiddles + ((size_t)table_limb << log_k);
    limb.step = step == nullptr ? nullptr : step + ((size_t)table_limb << log_k);
    limb.p = __ldg(&primes[table_limb]);
    limb.log_k = log_k;
    return limb;
}

// One forward pass (see the file comment). A ROW pass loads its first round directly (the
// points f + u L/RAD) and stores through shared memory; a COLUMN pass does both directly.
template <class P, int IN, int OUT>
__device__ __forceinline__ void forward_pass(const Limb& limb, const int log_s) {
    __shared__ gauss smem[SMEM_SLOTS];
    constexpr int w_first = P::window(0);
    constexpr int w_last = P::ROUNDS == 0 ? 0 : P::window(P::ROUNDS - 1);
    gauss x[P::RAD];
    int sub, base;
    P::locate(threadIdx.x, log_s, w_first, sub, base);
#pragma unroll
    for (int u = 0; u < P::RAD; ++u) x[u] = load_element<IN>(limb, P::position(limb.log_k, log_s, sub, base + (u << w_first)));

    forward_rounds<P, 0>(x, smem, log_s, sub, base, limb.twiddles, limb.p);

    P::locate(threadIdx.x, log_s, w_last, sub, base);
    if (P::STRIDED || P::ROUNDS == 0) {
#pragma unroll
        for (int u = 0; u < P::RAD; ++u)
            store_element<OUT>(limb, P::position(limb.log_k, log_s, sub, base + (u << w_last)), x[u]);
    } else {
        // The last round's points are RAD consecutive elements per thread: go through
        // shared memory so that consecutive threads store consecutive elements.
        to_smem<P>(smem, x, log_s, sub, base, w_last);
        __syncthreads();
        const int tile = 1 << (log_s + P::LOG_L);
        const int first = (int)blockIdx.x << (log_s + P::LOG_L);
        for (int i = threadIdx.x; i < tile; i += blockDim.x) store_element<OUT>(limb, first + i, smem[padded(i)]);
    }
}

// One inverse pass: a ROW pass loads through shared memory (its first round needs RAD
// consecutive elements per thread) and stores its last round directly; a COLUMN pass does
// both directly.
template <class P, int IN, int OUT>
__device__ __forceinline__ void inverse_pass(const Limb& limb, const int log_s) {
    __shared__ gauss smem[SMEM_SLOTS];
    constexpr int w_first = P::ROUNDS == 0 ? 0 : P::window(P::ROUNDS - 1);
    constexpr int w_last = P::window(0);
    gauss x[P::RAD];
    int sub, base;
    P::locate(threadIdx.x, log_s, w_first, sub, base);
    if (P::STRIDED || P::ROUNDS == 0) {
#pragma unroll
        for (int u = 0; u < P::RAD; ++u)
            x[u] = load_element<IN>(limb, P::position(limb.log_k, log_s, sub, base + (u << w_first)));
    } else {
        const int tile = 1 << (log_s + P::LOG_L);
        const int first = (int)blockIdx.x << (log_s + P::LOG_L);
        for (int i = threadIdx.x; i < tile; i += blockDim.x) smem[padded(i)] = load_element<IN>(limb, first + i);
        __syncthreads();
        from_smem<P>(x, smem, log_s, sub, base, w_first);
    }

    inverse_rounds<P, P::ROUNDS - 1>(x, smem, log_s, sub, base, limb.twiddles, limb.p);

    P::locate(threadIdx.x, log_s, w_last, sub, base);
#pragma unroll
    for (int u = 0; u < P::RAD; ++u)
        store_element<OUT>(limb, P::position(limb.log_k, log_s, sub, base + (u << w_last)), x[u]);
}

// Gaussian product of canonical pairs with one Barrett reduction per part, as the CPU's
// gaussian_product: re = ar br + (p - ai) bi, im = ar bi + ai br, both below 2p^2 < 2^125.
__device__ __forceinline__ gauss gaussian_product(const gauss a, const gauss b, const modarith::Modulus& m) {
    const u64 minus_ai = m.p - a.y;
    const u64 re0 = a.x * b.x, re1 = __umul64hi(a.x, b.x);
    const u64 re2 = minus_ai * b.y, re3 = __umul64hi(minus_ai, b.y);
    const u64 im0 = a.x * b.y, im1 = __umul64hi(a.x, b.y);
    const u64 im2 = a.y * b.x, im3 = __umul64hi(a.y, b.x);
    const u64 re_lo = re0 + re2;
    const u64 re_hi = re1 + re3 + (re_lo < re0 ? 1 : 0);
    const u64 im_lo = im0 + im2;
    const u64 im_hi = im1 + im3 + (im_lo < im0 ? 1 : 0);
    return make_ulonglong2(modarith::reduce_u128(re_lo, re_hi, m), modarith::reduce_u128(im_lo, im_hi, m));
}

}  // namespace

// Exported transform kernels, LOG_L = log2 of the sub-transform length:
//   dgt_fwd_single_<LOG_L>  flat forward DGT, L = K (one block per limb): fold in, canonical out
//   dgt_inv_single_<LOG_L>  flat inverse DGT: Gaussian in, unfold out
//   dgt_fwd_col_<LOG_L>     HDGT step 1+2: fold in, length-R column transforms, step twiddles out
//   dgt_fwd_row_<LOG_L>     HDGT step 3: length-C row transforms, canonical out
//   dgt_inv_row_<LOG_L>     inverse row transforms, inverse step twiddles out
//   dgt_inv_col_<LOG_L>     inverse column transforms, inverse twist and unfold out
// Arguments: in, out (equal only for the single kernels), twist ([limb][K] 4 words: the
// forward twist for fwd, the inverse twist for inv), twiddles ([limb][K] pairs: forward or
// inverse), step ([limb][K] pairs, or null where unused), primes ([limb] p), log_n,
// limbs_per_poly, log_s (log2 sub-transforms per block). Grid (K / (L 2^log_s), limbs_per_poly,
// polys), block 2^(log_s + LOG_L - min(LOG_L, 3)) threads.
#define DGT_KERNEL(NAME, DIRECTION, LOG_L, STRIDED, IN, OUT)                                                        \
    extern "C" __global__ void __launch_bounds__(1 << MAX_LOG_THREADS)                                             \
        NAME(const u64* in, u64* out, const ulonglong2* __restrict__ twist, const ulonglong2* __restrict__ twiddles, \
             const ulonglong2* __restrict__ step, const u64* __restrict__ primes, int log_n, int limbs_per_poly,    \
             int log_s) {                                                                                           \
        const Limb limb = limb_view(in, out, twist, twiddles, step, primes, log_n, limbs_per_poly);                \
        DIRECTION##_pass<Pass<LOG_L, STRIDED>, IN, OUT>(limb, log_s);                                               \
    }

#define DGT_PASS_KERNELS(LOG_L)                                                                    \
    DGT_KERNEL(dgt_fwd_col_##LOG_L, forward, LOG_L, true, IN_FOLD_TWIST, OUT_STEP)                 \
    DGT_KERNEL(dgt_fwd_row_##LOG_L, forward, LOG_L, false, IN_GAUSS, OUT_CANONICAL)                \
    DGT_KERNEL(dgt_inv_row_##LOG_L, inverse, LOG_L, false, IN_GAUSS, OUT_STEP)                     \
    DGT_KERNEL(dgt_inv_col_##LOG_L, inverse, LOG_L, true, IN_GAUSS, OUT_UNTWIST)

#define DGT_SINGLE_KERNELS(LOG_L)                                                                  \
    DGT_KERNEL(dgt_fwd_single_##LOG_L, forward, LOG_L, false, IN_FOLD_TWIST, OUT_CANONICAL)        \
    DGT_KERNEL(dgt_inv_single_##LOG_L, inverse, LOG_L, false, IN_GAUSS, OUT_UNTWIST)

DGT_PASS_KERNELS(0)
DGT_PASS_KERNELS(1)
DGT_PASS_KERNELS(2)
DGT_PASS_KERNELS(3)
DGT_PASS_KERNELS(4)
DGT_PASS_KERNELS(5)
DGT_PASS_KERNELS(6)
DGT_PASS_KERNELS(7)
DGT_PASS_KERNELS(8)
DGT_PASS_KERNELS(9)
DGT_PASS_KERNELS(10)
DGT_PASS_KERNELS(11)
DGT_SINGLE_KERNELS(1)
DGT_SINGLE_KERNELS(2)
DGT_SINGLE_KERNELS(3)
DGT_SINGLE_KERNELS(4)
DGT_SINGLE_KERNELS(5)
DGT_SINGLE_KERNELS(6)
DGT_SINGLE_KERNELS(7)
DGT_SINGLE_KERNELS(8)
DGT_SINGLE_KERNELS(9)
DGT_SINGLE_KERNELS(10)
DGT_SINGLE_KERNELS(11)

// out = a * b as Gaussian integers, pair by pair (the evaluation-domain product of a DGT
// context), canonical in and out; out may alias a or b. Grid (x: pairs of a limb, y: limb,
// z: polynomial); moduli [limb] modarith::Modulus; log_n = log2 N.
extern "C" __global__ void dgt_gauss_mul(u64* out, const u64* a, const u64* b,
                                         const modarith::Modulus* __restrict__ moduli, int log_n, int limbs_per_poly) {
    const int pairs_per_limb = 1 << (log_n - 1);
    const modarith::Modulus m = moduli[blockIdx.y];
    const size_t limb_pair = ((size_t)blockIdx.z * limbs_per_poly + blockIdx.y) << (log_n - 1);
    const gauss* a2 = reinterpret_cast<const gauss*>(a) + limb_pair;
    const gauss* b2 = reinterpret_cast<const gauss*>(b) + limb_pair;
    gauss* out2 = reinterpret_cast<gauss*>(out) + limb_pair;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < pairs_per_limb; j += gridDim.x * blockDim.x)
        out2[j] = gaussian_product(a2[j], b2[j], m);
}
