// Negacyclic NTT kernels, bit-exact with crates/poly/src/ntt.rs (NttPlan).
//
// Conventions (the same as the CPU plan):
//   forward  Cooley-Tukey, natural-order coefficients in, evaluations out in bit-reversed
//            order: out[j] = a(psi^(2 bitrev(j) + 1)); canonical in and out.
//   inverse  Gentleman-Sande, that order back to coefficients, N^-1 folded into stage 0.
//   Stage s (s = 0 .. log N - 1) pairs elements j and j + t, t = N / 2^(s+1); the pair's
//   twiddle is table[2^s + (j >> (log N - s))], where table[k] = psi^bitrev(k) (forward) or
//   psi^-bitrev(k) (inverse). Tables are {w, floor(w 2^64 / p)} pairs, [limb][N].
//   Butterflies are lazy (Harvey): forward values live in [0, 4p), inverse in [0, 2p);
//   p < 2^62 keeps 4p below 2^64.
//
// Data: a batch of polynomials, limb-major, [poly][limb][N] u64; blockIdx.y is the global
// limb (poly * limbs_per_poly + limb) and limb = blockIdx.y % limbs_per_poly selects the
// tables (polynomials use the first limbs_per_poly primes of their context).
//
// Decomposition. One pass of a kernel performs LOG_M consecutive stages on independent
// sub-transforms of M = 2^LOG_M points:
//   STRIDED    (first stages 0 .. LOG_M-1): sub-transform c is {c + k N/M : k < M};
//   CONTIGUOUS (last LOG_M stages):         sub-transform c is {c M + k : k < M}.
// A transform runs as two passes (forward: STRIDED then CONTIGUOUS; inverse: CONTIGUOUS then
// STRIDED) with lazy values in global memory between them; N = 2^10 .. 2^12 may instead run as
// one CONTIGUOUS pass with M = N (the whole limb in one block, one launch instead of two), which
// uses one SM per limb: the host picks it for small launches with N <= 2^11 (ntt/schedule.rs).
//
// Fused entry points (BFV decryption's c_1 s without a device copy or an element-wise kernel):
// every forward kernel takes a `source` pointer, null for in place, from which the first pass
// of an out-of-place forward reads; the first inverse pass (contiguous or single-block) also
// exists as ntt_inv_product_*, which multiplies each loaded value by a factor first, and as
// ntt_inv_mul_add_*, which loads addend + source * factor into fresh memory (a decryption's
// phase c_0 + c_1 s: one pass instead of a copy, an element-wise kernel and the first pass).
//
// Inside a pass, each thread keeps R = 2^LOG_R points in registers and performs up to
// LOG_R stages on them (a "round"); rounds exchange data through shared memory. Each pass
// exists with several radices (kernel names end in _lr<LOG_R>); the host picks one per launch
// (radix 4 for small, latency-bound launches, radix 16 for the large strided passes). A round
// owns the k-bits window [w, w + LOG_R): the thread's points are base + u 2^w, u < R. When
// LOG_R does not divide LOG_M, the round nearest to the top bits (the first forward round,
// the last inverse round) does only LOG_M mod LOG_R stages.
//
// Bank conflicts (64-bit words, 16 per 128-byte wavefront; see Al Badawi et al.'s faster GPU
// NTT, docs/anchors.md): STRIDED blocks hold 16 columns and store element (column cc, k) at k*16 + cc, so
// the 16 threads of a half-warp, which differ in cc only, touch 16 consecutive words.
// CONTIGUOUS blocks keep word a (column * M + k) at the slot a XOR h(bits 4-6 of a), h linear
// over GF(2) (Pass::swizzle): the bank (the slot modulo 16) of the 16 threads of a half-warp is
// distinct in every round's window at radix 4 and 8 and in the coalesced row loops, for every
// shape built (ntt/tests.rs, contiguous_shared_layout_is_conflict_free; the padding a + a/16
// before left 2-way conflicts at radix 8, up to 4-way at radix 4). Being linear, slot(base + (u << w)) =
// slot(base) ^ slot(u << w) (disjoint bits): one XOR with a constant per access.
//
// Twiddles. Two-pass kernels first put every twiddle their block needs into shared memory, in
// the order the threads read them (Pass::tw_slot: conflict-free, constant offsets), so the
// stages read them at shared-memory latency. STRIDED blocks copy the table's first M entries
// (shared by all blocks, L2-resident); CONTIGUOUS blocks, whose twiddles are distinct per
// block and would double the pass's DRAM traffic, generate them (stage_twiddles). Single-block
// kernels (N <= 2^12, whose table would not fit) read the global table, which L1/L2 keep. No
// branch depends on thread data except the butterflies' conditional subtractions, which
// compile to selects. Passes stage their twiddles before dependent_launch::wait_for_inputs:
// launched programmatically (crates/poly-cuda/src/kernel.rs), they do it while the kernel
// before them finishes (contiguous passes, which generate them; strided ones copy theirs after
// issuing their loads).
//
// Instruction count (the passes are bound by integer issue, not DRAM): Shoup's product is one
// __umul64hi and a w + q (2^64 - p) modulo 2^64 from 32-bit halves (6 multiplies; Prime,
// shoup_lazy); conditional subtractions test the sign of x - bound (sub_if_ge); the twiddle
// generation of CONTIGUOUS passes has compile-time stage and sub-transform indices for all but
// one entry per thread. SASS per butterfly, N = 2^16 contiguous pass: about 29 instructions
// with shared-memory exchanges, against 35 before.
#include <cstdint>

#include "centered_lift.cuh"
#include "dependent_launch.cuh"
#include "modarith.cuh"
#include "wide_sum.cuh"

using modarith::u64;

namespace {

constexpr int STRIDED_COLUMNS = 16;         // columns per STRIDED block
constexpr int CONTIGUOUS_BLOCK_WORDS = 1024;  // points per CONTIGUOUS block (several chunks)

// h(x) for x = 0 .. 7, a nibble each: h(1) = 5, h(2) = 10, h(4) = 12 and their XORs.
constexpr unsigned SWIZZLE_NIBBLES = 0x369CFA50u;

// The prime with the constants the butterflies use: 2p, and 2^64 - p so that Shoup's
// correction a w - q p is one multiply-add modulo 2^64 (a w + q (2^64 - p)), not a product
// and a subtraction.
struct Prime {
    u64 p;
    u64 two_p;
    u64 neg_p;
    __device__ explicit Prime(const u64 prime) : p(prime), two_p(2 * prime), neg_p(0ull - prime) {}
};

// a w mod p in [0, 2p) for any 64-bit a (Shoup; w.y = floor(w.x 2^64 / p)). The true value
// a w - q p lies in [0, 2p), so computing it modulo 2^64 is exact.
__device__ __forceinline__ u64 shoup_lazy(const u64 a, const ulonglong2 w, const Prime& m) {
    const u64 q = __umul64hi(a, w.y);
    // a w + q (2^64 - p) modulo 2^64 from 32-bit halves: the two low products as wide
    // multiply-adds, the four cross products summed into the high word (6 multiplies, where
    // two separate 64-bit products and an addition take 8).
#ifdef __CUDA_ARCH__
    u64 r;
    asm("{\n\t"
        ".reg .u32 a0, a1, w0, w1, q0, q1, n0, n1, lo, hi;\n\t"
        "mov.b64 {a0, a1}, %1;\n\t"
        "mov.b64 {w0, w1}, %2;\n\t"
        "mov.b64 {q0, q1}, %3;\n\t"
        "mov.b64 {n0, n1}, %4;\n\t"
        "mul.wide.u32 %0, a0, w0;\n\t"
        "mad.wide.u32 %0, q0, n0, %0;\n\t"
        "mov.b64 {lo, hi}, %0;\n\t"
        "mad.lo.u32 hi, a0, w1, hi;\n\t"
        "mad.lo.u32 hi, a1, w0, hi;\n\t"
        "mad.lo.u32 hi, q0, n1, hi;\n\t"
        "mad.lo.u32 hi, q1, n0, hi;\n\t"
        "mov.b64 %0, {lo, hi};\n\t"
        "}"
        : "=l"(r)
        : "l"(a), "l"(w.x), "l"(q), "l"(m.neg_p));
    return r;
#else
    return a * w.x + q * m.neg_p;  // the same value (host compilation of this file, emulation)
#endif
}

// x - bound when x >= bound, else x; for x < 2^63 + bound and bound < 2^63, where the sign of
// x - bound decides (one compare of the high word instead of a 64-bit compare).
__device__ __forceinline__ u64 sub_if_ge(const u64 x, const u64 bound) {
    const u64 d = x - bound;
    return static_cast<long long>(d) < 0 ? x : d;
}

// [0, 4p) to canonical.
__device__ __forceinline__ u64 canonical_from_4p(const u64 x, const Prime& m) {
    return sub_if_ge(sub_if_ge(x, m.two_p), m.p);
}

// Harvey's forward butterfly: x, y in [0, 4p) -> x + wy, x - wy in [0, 4p).
__device__ __forceinline__ void ct_butterfly(u64& x, u64& y, const ulonglong2 w, const Prime& m) {
    const u64 x2 = sub_if_ge(x, m.two_p);
    const u64 t = shoup_lazy(y, w, m);
    x = x2 + t;
    y = x2 + m.two_p - t;
}

// Harvey's inverse butterfly: x, y in [0, 2p) -> x + y, (x - y) w in [0, 2p). (`reduce_sum`
// is the FP64 butterflies'; the lazy range here reduces every sum.)
__device__ __forceinline__ void gs_butterfly(u64& x, u64& y, const ulonglong2 w, const Prime& m,
                                             const bool /*reduce_sum*/ = true) {
    const u64 d = x + m.two_p - y;
    x = sub_if_ge(x + y, m.two_p);
    y = shoup_lazy(d, w, m);
}

// The last inverse stage with N^-1 folded in, canonical outputs:
// x <- (x + y) N^-1, y <- (x - y) w_1 N^-1.
__device__ __forceinline__ void gs_butterfly_scaled(u64& x, u64& y, const ulonglong2 n_inv,
                                                    const ulonglong2 w1_n_inv, const Prime& m) {
    const u64 s = x + y;
    const u64 d = x + m.two_p - y;
    x = sub_if_ge(shoup_lazy(s, n_inv, m), m.p);
    y = sub_if_ge(shoup_lazy(d, w1_n_inv, m), m.p);
}

// Butterflies on the FP64 pipe (primes below 2^43: the host's FP64_NTT_MAX_PRIME_BITS;
// NttTuning::fp64_butterflies). Registers hold the bits of doubles whose values are signed integers; twiddle entries are
// {w, fl(w / p)} as doubles. a w mod p is a w - q p with q = rint(a fl(w / p)) (a fused
// multiply-add onto 1.5 2^52 rounds to an integer), formed exactly from h = fl(a w), its error
// l = a w - h (a fused multiply-add) and e = h - q p (one fused multiply-add, exact: h and q p are
// integers whose difference is below 2^53): six FP64 operations, in (-0.54 p, 0.54 p) for
// |a| < 2^47, where the integer Shoup product takes ten 32-bit multiplies and the selects of its
// lazy range. Forward values grow by less than 0.54 p a stage and are never reduced inside a pass
// (at most nine stages from [0, 4p): below 9p < 2^47 for p < 2^43); inverse sums are reduced
// every other stage (three operations; values below 4p). Passes load canonical or lazy integers
// and store canonical ones, so a pass on either pipe reads what the other wrote and the words
// equal the integer path's.
constexpr double F64_ROUNDER = 6755399441055744.0;  // 1.5 2^52
constexpr double F64_TWO_52 = 4503599627370496.0;   // 2^52

struct F64Prime {
    double p;
    double p_inv;  // fl(1 / p)
    __device__ explicit F64Prime(const u64 prime) : p((double)prime), p_inv(1.0 / (double)prime) {}
};

// An integer below 2^52 as the bits of the double of the same value (wide_sum::exact_double:
// no conversion unit).
__device__ __forceinline__ u64 f64_from_word(const u64 x) {
    return (u64)__double_as_longlong(wide_sum::exact_double(x));
}

// rint(v) for |v| < 2^51.
__device__ __forceinline__ double f64_rint_product(const double a, const double b) {
    return __fma_rn(a, b, F64_ROUNDER) - F64_ROUNDER;
}

// v - rint(v / p) p for an integer |v| < 2^52: in (-0.51 p, 0.51 p).
__device__ __forceinline__ double f64_reduce(const double v, const F64Prime& m) {
    return __fma_rn(-f64_rint_product(v, m.p_inv), m.p, v);
}

// a w mod p in (-0.54 p, 0.54 p) for an integer |a| < 2^47; w = {w, fl(w / p)}.
__device__ __forceinline__ double f64_mul(const double a, const ulonglong2 w, const F64Prime& m) {
    const double wd = __longlong_as_double((long long)w.x);
    const double q = f64_rint_product(a, __longlong_as_double((long long)w.y));
    const double h = a * wd;
    const double l = __fma_rn(a, wd, -h);
    return __fma_rn(-q, m.p, h) + l;
}

// The canonical word of an integer |v| < 2^52 held as a double.
__device__ __forceinline__ u64 f64_canonical_word(const u64 bits, const F64Prime& m) {
    const double r = f64_reduce(__longlong_as_double((long long)bits), m);
    const double shifted = r + (r < 0.0 ? m.p + F64_TWO_52 : F64_TWO_52);
    return (u64)__double_as_longlong(shifted) & 0x000FFFFFFFFFFFFFull;
}

// A twiddle entry {w, w_shoup} (integers) as the FP64 butterflies' {w, fl(w / p)}.
__device__ __forceinline__ ulonglong2 f64_twiddle(const u64 w, const F64Prime& m) {
    const u64 wd = f64_from_word(w);
    return make_ulonglong2(wd, (u64)__double_as_longlong(__longlong_as_double((long long)wd) * m.p_inv));
}

// The forward butterfly: x + w y, x - w y (bounds: see above).
__device__ __forceinline__ void ct_butterfly(u64& x, u64& y, const ulonglong2 w, const F64Prime& m) {
    const double xd = __longlong_as_double((long long)x);
    const double t = f64_mul(__longlong_as_double((long long)y), w, m);
    x = (u64)__double_as_longlong(xd + t);
    y = (u64)__double_as_longlong(xd - t);
}

// The inverse butterfly: x + y (reduced when `reduce_sum`), (x - y) w. Inverse passes reduce the
// sums of every other stage (odd stages of the pass): from loads below 2p, |values| stay below 4p
// (a stage without reduction doubles the sums' bound, the next brings every value below 0.54 p).
__device__ __forceinline__ void gs_butterfly(u64& x, u64& y, const ulonglong2 w, const F64Prime& m,
                                             const bool reduce_sum) {
    const double xd = __longlong_as_double((long long)x);
    const double yd = __longlong_as_double((long long)y);
    x = (u64)__double_as_longlong(reduce_sum ? f64_reduce(xd + yd, m) : xd + yd);
    y = (u64)__double_as_longlong(f64_mul(xd - yd, w, m));
}

// The last inverse stage with N^-1 folded in (n_inv, w1_n_inv as f64_twiddle entries).
__device__ __forceinline__ void gs_butterfly_scaled(u64& x, u64& y, const ulonglong2 n_inv,
                                                    const ulonglong2 w1_n_inv, const F64Prime& m) {
    const double xd = __longlong_as_double((long long)x);
    const double yd = __longlong_as_double((long long)y);
    x = (u64)__double_as_longlong(f64_mul(xd + yd, n_inv, m));
    y = (u64)__double_as_longlong(f64_mul(xd - yd, w1_n_inv, m));
}

// What a pass does at its edges, for either pipe: the butterflies' prime, a loaded word as a
// register value, a register value as the canonical word (last passes) or as the lazy word the
// next pass reads, and a twiddle entry as the butterflies take it.
__device__ __forceinline__ u64 loaded(const u64 x, const Prime&) { return x; }
__device__ __forceinline__ u64 loaded(const u64 x, const F64Prime&) { return f64_from_word(x); }
__device__ __forceinline__ u64 canonical_word(const u64 x, const Prime& m) { return canonical_from_4p(x, m); }
__device__ __forceinline__ u64 canonical_word(const u64 x, const F64Prime& m) { return f64_canonical_word(x, m); }
__device__ __forceinline__ u64 lazy_word(const u64 x, const Prime&) { return x; }
__device__ __forceinline__ u64 lazy_word(const u64 x, const F64Prime& m) { return f64_canonical_word(x, m); }
__device__ __forceinline__ ulonglong2 butterfly_twiddle(const ulonglong2 w, const Prime&) { return w; }
__device__ __forceinline__ ulonglong2 butterfly_twiddle(const ulonglong2 w, const F64Prime& m) {
    return f64_twiddle(w.x, m);
}

template <bool F64>
struct ButterflyPrimeOf {
    typedef Prime type;
};
template <>
struct ButterflyPrimeOf<true> {
    typedef F64Prime type;
};

// Twiddles read from the limb's global table (single-block passes, whose table is too large
// for shared memory; it stays in L1/L2).
struct GlobalTwiddles {
    const ulonglong2* __restrict__ table;
    int s0;       // global stage of local stage 0
    int colterm;  // sub-transform index c (CONTIGUOUS), 0 (STRIDED)
    // The twiddle of local stage r, group j of the sub-transform (v, k_hi: see SharedTwiddles).
    __device__ __forceinline__ ulonglong2 get(const int r, const int j, int /*v*/, int /*k_hi*/) const {
        return table[(1 << (s0 + r)) + (colterm << r) + j];
    }
};

// Forward stages of one round. The thread's points are k = base + (u << w), u < R; the
// round performs STAGES stages on the top STAGES bits of the window, highest first.
// The twiddle of local stage r at point k is table[2^(s0 + r) + (c << r) + (k >> (LOG_M - r))]
// (c = sub-transform index for CONTIGUOUS passes, 0 for STRIDED), read through `tw`.
template <int LOG_M, int LOG_R, int STAGES, class TW, class PR>
__device__ __forceinline__ void forward_round(u64 (&x)[1 << LOG_R], const int w, const int base, const TW& tw,
                                              const PR& p) {
#pragma unroll
    for (int st = 0; st < STAGES; ++st) {
        const int ub = LOG_R - 1 - st;  // partner bit in u
        const int b = w + ub;           // partner bit in k
        const int r = LOG_M - 1 - b;    // local stage
#pragma unroll
        for (int u = 0; u < (1 << LOG_R); ++u) {
            if (u & (1 << ub)) continue;
            const int k = base + (u << w);
            const ulonglong2 t = tw.get(r, k >> (b + 1), u >> (b + 1 - w), base >> (w + LOG_R));
            ct_butterfly(x[u], x[u | (1 << ub)], t, p);
        }
    }
}

// Inverse stages of one round: STAGES stages on the window's bits ub0 .. ub0 + STAGES - 1,
// lowest first. With scale_stage0, the round's last stage is global stage 0 and folds N^-1.
// S0: the stages of the pass before this round (the FP64 butterflies reduce at odd stages).
template <int LOG_M, int LOG_R, int STAGES, int UB0, int S0, class TW, class PR>
__device__ __forceinline__ void inverse_round(u64 (&x)[1 << LOG_R], const int w, const int base, const TW& tw,
                                              const PR& p, const bool scale_stage0,
                                              const ulonglong2 n_inv, const ulonglong2 w1_n_inv) {
#pragma unroll
    for (int st = 0; st < STAGES; ++st) {
        const int ub = UB0 + st;
        const int b = w + ub;
        const int r = LOG_M - 1 - b;
        const bool scaled = scale_stage0 && st == STAGES - 1;
#pragma unroll
        for (int u = 0; u < (1 << LOG_R); ++u) {
            if (u & (1 << ub)) continue;
            if (scaled) {
                gs_butterfly_scaled(x[u], x[u | (1 << ub)], n_inv, w1_n_inv, p);
            } else {
                const int k = base + (u << w);
                const ulonglong2 t = tw.get(r, k >> (b + 1), u >> (b + 1 - w), base >> (w + LOG_R));
                gs_butterfly(x[u], x[u | (1 << ub)], t, p, ((S0 + st) & 1) != 0);
            }
        }
    }
}

// Geometry of a pass (all compile-time).
template <int LOG_M_, int LOG_R_, bool STRIDED_, int COLUMNS_, bool SMEM_TWIDDLES_, bool F64_ = false>
struct Pass {
    static constexpr bool SMEM_TWIDDLES = SMEM_TWIDDLES_;  // stage the block's twiddles in shared memory
    // Butterflies on the FP64 pipe (F64Prime; shared twiddles only: the staging converts them).
    static constexpr bool F64 = F64_;
    static_assert(!F64 || SMEM_TWIDDLES, "FP64 passes take their twiddles from shared memory");
    typedef typename ButterflyPrimeOf<F64>::type ButterflyPrime;
    static constexpr int LOG_M = LOG_M_;
    static constexpr int LOG_R = LOG_R_;
    static constexpr bool STRIDED = STRIDED_;
    static constexpr int M = 1 << LOG_M;
    static constexpr int R = 1 << LOG_R;
    static constexpr int COLUMNS = COLUMNS_;  // sub-transforms per block
    static constexpr int THREADS = COLUMNS * M / R;
    static constexpr int WORDS = COLUMNS * M;
    static constexpr int SMEM_WORDS = WORDS;
    static constexpr int TW_ENTRIES = (STRIDED ? 1 : COLUMNS) * (M - 1);
    // Contiguous blocks park one spare entry per sub-transform after the table (stage_twiddles).
    static constexpr int TW_SMEM = SMEM_TWIDDLES ? TW_ENTRIES + (STRIDED ? 0 : COLUMNS) : 1;
    static constexpr int ROUNDS = (LOG_M + LOG_R - 1) / LOG_R;
    static constexpr int SHORT_STAGES = LOG_M - (ROUNDS - 1) * LOG_R;  // stages of the top round
    static_assert(LOG_M >= LOG_R, "a sub-transform must hold at least R points");

    // The thread's column and its points' base for the round owning window [w, w + LOG_R).
    __device__ static void locate(const int tid, const int w, int& column, int& base) {
        int f;
        if (STRIDED) {
            column = tid % COLUMNS;
            f = tid / COLUMNS;
        } else {
            f = tid % (M / R);
            column = tid / (M / R);
        }
        const int k_lo = f & ((1 << w) - 1);
        const int k_hi = f >> w;
        base = k_lo | (k_hi << (w + LOG_R));
    }

    // CONTIGUOUS blocks' slot of word a = column * M + k (see "Bank conflicts" above); XOR-linear:
    // swizzle(a ^ b) = swizzle(a) ^ swizzle(b).
    __host__ __device__ static constexpr int swizzle(const int a) {
        return a ^ (int)((SWIZZLE_NIBBLES >> ((a >> 2) & 28)) & 15u);
    }
    __device__ static int smem_index(const int column, const int k) {
        return STRIDED ? k * COLUMNS + column : swizzle(column * M + k);
    }
    // The slot of point base + (u << w) of `column`, from the thread's first slot (smem_index of
    // base; the window's bits of base are zero): a compile-time offset or XOR per u.
    __device__ static int point_slot(const int first_slot, const int u, const int w) {
        return STRIDED ? first_slot + (u << w) * COLUMNS : first_slot ^ swizzle(u << w);
    }

    // Window of round q (0-based in forward order): the top round owns [LOG_M - LOG_R, LOG_M).
    __host__ __device__ static constexpr int window(const int q) {
        return q == 0 ? LOG_M - LOG_R : LOG_M - SHORT_STAGES - q * LOG_R;
    }

    // Shared twiddle layout. In the round that performs local stage r (window w), a thread
    // with high bits k_hi (k = k_lo + (u << w) + (k_hi << (w + LOG_R))) needs the groups
    // j = k_hi * nb + v, v < nb = 2^(w + LOG_R - r' ) (r' = LOG_M - 1 - r, the partner bit),
    // v = u >> (r' + 1 - w). Group j of stage r is stored at
    //   TW_COLUMNS (2^r - 1) + cs 2^r + (j mod nb) * H + j / nb,   H = 2^(LOG_M - LOG_R - w),
    // (cs: the sub-transform's slot in the block, 0 for STRIDED), so the loads of a thread are
    // one per-stage register plus compile-time offsets, and neighbouring threads (consecutive
    // k_hi) read consecutive 16-byte entries: no bank conflicts, no index arithmetic per load.
    static constexpr int TW_COLUMNS = STRIDED ? 1 : COLUMNS;
    __host__ __device__ static constexpr int stage_round(const int r) {
        return r < SHORT_STAGES ? 0 : 1 + (r - SHORT_STAGES) / LOG_R;
    }
    __host__ __device__ static constexpr int stage_log_h(const int r) {
        return LOG_M - LOG_R - window(stage_round(r));
    }
    // stage_log_h(r) for every r, 4 bits each: a shift and a mask at run time (stage_twiddles
    // computes slots for run-time r), not a division by LOG_R.
    __host__ __device__ static constexpr unsigned long long log_h_nibbles() {
        unsigned long long packed = 0;
        for (int r = 0; r < LOG_M; ++r) packed |= (unsigned long long)stage_log_h(r) << (4 * r);
        return packed;
    }
    static_assert(LOG_M <= 16, "4-bit fields for LOG_M stages");
    __device__ static int tw_slot(const int r, const int cs, const int j) {
        const int log_h = (int)((log_h_nibbles() >> (4 * r)) & 15);
        const int log_nb = r - log_h;
        return TW_COLUMNS * ((1 << r) - 1) + (cs << r) + ((j & ((1 << log_nb) - 1)) << log_h) + (j >> log_nb);
    }
};

// Twiddles in shared memory, in the layout of Pass::tw_slot (filled by stage_twiddles).
template <class P>
struct SharedTwiddles {
    const ulonglong2* smem;
    int slot;  // cs: the thread's sub-transform slot in the block (0 for STRIDED)
    __device__ __forceinline__ ulonglong2 get(const int r, int /*j*/, const int v, const int k_hi) const {
        return smem[P::TW_COLUMNS * ((1 << r) - 1) + (slot << r) + (v << P::stage_log_h(r)) + k_hi];
    }
};

template <class P>
__device__ __forceinline__ void to_smem(u64* smem, const u64 (&x)[P::R], const int column, const int base,
                                        const int w) {
    const int first = P::smem_index(column, base);
#pragma unroll
    for (int u = 0; u < P::R; ++u) smem[P::point_slot(first, u, w)] = x[u];
}

template <class P>
__device__ __forceinline__ void from_smem(u64 (&x)[P::R], const u64* smem, const int column, const int base,
                                          const int w) {
    const int first = P::smem_index(column, base);
#pragma unroll
    for (int u = 0; u < P::R; ++u) x[u] = smem[P::point_slot(first, u, w)];
}

// The slot of word threadIdx.x + t THREADS of a CONTIGUOUS block (the coalesced row loops;
// THREADS is a power of two, so the two terms have disjoint bits).
template <class P>
__device__ __forceinline__ int row_slot(const int t) {
    static_assert(!P::STRIDED, "rows of contiguous blocks");
    return P::swizzle((int)threadIdx.x) ^ P::swizzle(t * P::THREADS);
}

// Global index (within the limb) of point k of the block's column `column`.
template <class P>
__device__ __forceinline__ int global_index(const int column, const int k, const int log_n) {
    const int c = blockIdx.x * P::COLUMNS + column;
    return P::STRIDED ? (k << (log_n - P::LOG_M)) + c : (c << P::LOG_M) + k;
}

// Fills the block's shared twiddles (layout: Pass::tw_slot); the caller synchronises.
// STRIDED: entries 1 .. M-1 of the limb's table (the same for every block; L2 keeps them).
// CONTIGUOUS: the entries table[2^(s0+r) + c 2^r + j] of the block's sub-transforms c are
// generated, not read, which saves reading N twiddles per limb from memory. With N = 2^s0 M,
//   table[2^(s0+r) + c 2^r + j] = A(c, r) * table[j],   A(c, r) = table[N/2 + c M/2]^(2^(LOG_M-1-r)),
// (both sides are psi^((N/2^(s0+r+1)) (1 + 2 bitrev_s0(c) + 2^(s0+1) bitrev_r(j))); the same
// holds for the inverse table with psi^-1), where chunk_roots[c][r] = A(c, r) comes from the
// host and table[j], j < M/2, with its Shoup companion stays in L1. Each entry costs a Shoup
// product and a Shoup precomputation (modarith::shoup) instead of 16 bytes of DRAM traffic.
//
// FP64 passes store each entry as butterfly_twiddle makes it ({w, fl(w / p)} as doubles).
template <class P>
__device__ __forceinline__ void stage_twiddles(ulonglong2* stw, const ulonglong2* __restrict__ table,
                                               const u64* __restrict__ chunk_roots, const modarith::Modulus& m,
                                               const Prime& prime, const typename P::ButterflyPrime& bp) {
    if (P::STRIDED) {
        // Entries 1 .. M-1, at most a few per thread (a compile-time count: no loop).
        constexpr int PER_THREAD = (P::M - 1 + P::THREADS - 1) / P::THREADS;
#pragma unroll
        for (int t = 0; t < PER_THREAD; ++t) {
            const int k = threadIdx.x + t * P::THREADS + 1;
            if (k < P::M) {
                const int r = 31 - __clz(k);
                stw[P::tw_slot(r, 0, k - (1 << r))] = butterfly_twiddle(table[k], bp);
            }
        }
    } else {
        const u64* roots = chunk_roots + (size_t)blockIdx.x * P::COLUMNS * P::LOG_M;
        // Entry i = cs M + k (k = 2^r + j) of the block, i < COLUMNS M: exactly R per thread,
        // entry t of thread tid being i = tid + t THREADS. When THREADS <= M, k = tid + K_t with
        // K_t = (t THREADS) mod M a multiple of THREADS, so for K_t > 0 the stage r = log2(K_t)
        // rounded down and the sub-transform cs are compile-time constants; only K_t = 0 needs
        // r at run time. k = 0 names no twiddle: it is computed like k = 1 (r = j = 0) and parked
        // in a spare slot TW_ENTRIES + cs. Batches of BATCH entries: all their loads are issued
        // before the first product, so a block waits for a few memory latencies, not one per entry.
        constexpr int PER_THREAD = P::COLUMNS * P::M / P::THREADS;
        static_assert(PER_THREAD * P::THREADS == P::COLUMNS * P::M, "entries must split evenly over the threads");
        constexpr int BATCH = PER_THREAD < 4 ? PER_THREAD : 4;
        static_assert(PER_THREAD % BATCH == 0, "whole batches");
        const int tid = threadIdx.x;
#pragma unroll
        for (int t0 = 0; t0 < PER_THREAD; t0 += BATCH) {
            ulonglong2 g[BATCH];
            u64 a[BATCH];
            int slot[BATCH];
#pragma unroll
            for (int b = 0; b < BATCH; ++b) {
                const int offset = (t0 + b) * P::THREADS;  // compile-time
                int cs, k, r;
                if (P::THREADS <= P::M) {
                    cs = offset >> P::LOG_M;
                    const int k_base = offset & (P::M - 1);
                    k = tid + k_base;
                    r = k_base > 0 ? 31 - __clz(k_base) : 31 - __clz(k | 1);
                } else {
                    cs = (tid >> P::LOG_M) + (offset >> P::LOG_M);
                    k = tid & (P::M - 1);
                    r = 31 - __clz(k | 1);
                }
                const int j = k & ((1 << r) - 1);
                g[b] = table[j];
                a[b] = roots[cs * P::LOG_M + r];
                slot[b] = k == 0 ? P::TW_ENTRIES + cs : P::tw_slot(r, cs, j);
            }
#pragma unroll
            for (int b = 0; b < BATCH; ++b) {
                // w = A(c, r) table[j], canonical, and its Shoup companion floor(w 2^64 / p):
                // the estimate w floor(2^128/p) / 2^64 is exact or one short; the remainder
                // w 2^64 - q p (modulo 2^64, it is below 2p) says which.
                const u64 w = sub_if_ge(shoup_lazy(a[b], g[b], prime), prime.p);
                if constexpr (P::F64) {
                    stw[slot[b]] = f64_twiddle(w, bp);
                } else {
                    u64 q = w * m.barrett_hi + __umul64hi(w, m.barrett_lo);
                    q += (q * prime.neg_p >= prime.p) ? 1 : 0;
                    stw[slot[b]] = make_ulonglong2(w, q);
                }
            }
        }
    }
}

// Round q of the forward pass (compile-time recursion over rounds).
template <class P, int Q, class TW>
__device__ __forceinline__ void forward_rounds(u64 (&x)[P::R], u64* smem, const TW& tw,
                                               const typename P::ButterflyPrime& p, int column,
                                               int base) {
    constexpr int w = P::window(Q);
    constexpr int stages = Q == 0 ? P::SHORT_STAGES : P::LOG_R;
    forward_round<P::LOG_M, P::LOG_R, stages>(x, w, base, tw, p);
    if constexpr (Q + 1 < P::ROUNDS) {
        to_smem<P>(smem, x, column, base, w);
        __syncthreads();
        constexpr int next_w = P::window(Q + 1);
        P::locate(threadIdx.x, next_w, column, base);
        from_smem<P>(x, smem, column, base, next_w);
        forward_rounds<P, Q + 1>(x, smem, tw, p, column, base);
    }
}

// The epilogue of ModDown in the evaluation representation (hybrid key switching, BGV; see
// crates/rns/src/gpu/keyswitch/mod_down.rs, mod_down_eval), taken by the forward transform's last pass
// instead of storing its values r: for polynomial k (0 or 1) of the batch and limb i,
//   out_k = addend_k + s_k P^-1 - r (E P^-1) mod q_i   (addend_k skipped when null),
// s_k the key-switching sums' limbs of q (sums + k sums_poly_words, limb-major), E the error
// scale; P^-1 and E P^-1 mod q_i come with Shoup companions (two Shoup products). That is
// (s_k - E r) P^-1: the same canonical words as the plain pass followed by
// keyswitch_mod_down_eval.
struct ModDownEpilogue {
    const u64* sums;
    const u64* addend0;
    const u64* addend1;
    u64* out0;
    u64* out1;
    const u64* p_inv;
    const u64* p_inv_shoup;
    const u64* e_p_inv;
    const u64* e_p_inv_shoup;
    long long sums_poly_words;
};

// Forward pass. STRIDED passes are the first pass (s0 = 0); CONTIGUOUS passes end at the
// last stage (s0 = log N - LOG_M) and write canonical values. With a non-null `source` (same
// layout as `data`, canonical) the pass reads its input there instead of from `data`: the
// first pass of an out-of-place transform, which writes every value of `data` (a uniform
// branch on a kernel argument; null for ordinary transforms).
//
// EXTEND (first passes only: strided and single-block) loads a ModUp of one-prime digits
// instead (key switching with one special prime): polynomial t of the batch is the extension
// of limb s = first_source + t of `source` (a polynomial over the context's first limbs): limb
// s itself, and every other limb i the residue modulo p_i of its value x, or of x - p_s when
// `centered` and x > p_s / 2 (what keyswitch_mod_up_one_prime writes; the same words).
//
// MOD_DOWN (last passes only: CONTIGUOUS) stores through `epilogue` (ModDownEpilogue) instead
// of into `data`.
//
// SKIP_OWN (first passes only: STRIDED) leaves out the limbs that key switching's fused inner
// product reads in the evaluation representation (OwnLimbs): polynomial t of the batch (digit
// first_digit + t) skips its limbs i < limbs_q with i / digit_limbs == first_digit + t, whose
// blocks return at once (a uniform branch; those rows of `data` stay unwritten).
template <class P, bool EXTEND = false, bool MOD_DOWN = false, bool SKIP_OWN = false>
__device__ __forceinline__ void forward_pass(u64* __restrict__ data, const u64* __restrict__ source,
                                             const ulonglong2* __restrict__ table,
                                             const u64* __restrict__ chunk_roots,
                                             const modarith::Modulus* __restrict__ moduli, const int log_n,
                                             const int limbs_per_poly, const int first_source = 0,
                                             const int centered = 0,
                                             const ModDownEpilogue* __restrict__ epilogue = nullptr,
                                             const int digit_limbs = 0, const int limbs_q = 0) {
    __shared__ u64 smem[P::SMEM_WORDS];
    __shared__ ulonglong2 stw[P::TW_SMEM];
    const int limb = blockIdx.y % limbs_per_poly;
    if constexpr (SKIP_OWN) {
        static_assert(P::STRIDED, "own limbs are skipped by the first (strided) pass");
        const int digit = first_source + (int)blockIdx.y / limbs_per_poly;
        if (limb < limbs_q && limb / digit_limbs == digit) return;
    }
    const modarith::Modulus m = moduli[limb];
    const Prime p(m.p);
    const typename P::ButterflyPrime bp(m.p);
    const ulonglong2* tw = table + ((size_t)limb << log_n);
    const u64* roots = chunk_roots + ((size_t)limb << (log_n - P::LOG_M)) * P::LOG_M;
    u64* poly = data + ((size_t)blockIdx.y << log_n);
    const int s0 = P::STRIDED ? 0 : log_n - P::LOG_M;

    // A contiguous pass generates its twiddles first (constant tables only): with a programmatic
    // dependency (dependent_launch.cuh) that runs while the kernel before this one finishes. A
    // strided pass copies a few entries: it does so after issuing its loads, which then overlap.
    if constexpr (P::SMEM_TWIDDLES && !P::STRIDED) stage_twiddles<P>(stw, tw, roots, m, p, bp);
    dependent_launch::wait_for_inputs_and_allow_dependents();

    u64 x[P::R];
    int column, base;
    constexpr int w0 = P::window(0);
    P::locate(threadIdx.x, w0, column, base);
    if constexpr (EXTEND) {
        const int s = first_source + (int)blockIdx.y / limbs_per_poly;
        const u64 p_s = moduli[s].p;
        const u64* input = source + ((size_t)s << log_n);
        const bool own = s == limb;
#pragma unroll
        for (int u = 0; u < P::R; ++u) {
            const u64 v = input[global_index<P>(column, base + (u << w0), log_n)];
            const bool negative = centered != 0 && v > (p_s >> 1);
            const u64 r = modarith::reduce(negative ? p_s - v : v, m);
            x[u] = loaded(own ? v : (negative ? modarith::neg(r, m.p) : r), bp);
        }
    } else {
        const u64* input = source != nullptr ? source + ((size_t)blockIdx.y << log_n) : poly;
#pragma unroll
        for (int u = 0; u < P::R; ++u) x[u] = loaded(input[global_index<P>(column, base + (u << w0), log_n)], bp);
    }

    if constexpr (P::SMEM_TWIDDLES) {
        if constexpr (P::STRIDED) stage_twiddles<P>(stw, tw, roots, m, p, bp);
        __syncthreads();
        forward_rounds<P, 0>(x, smem, SharedTwiddles<P>{stw, P::STRIDED ? 0 : column}, bp, column, base);
    } else {
        const int colterm = P::STRIDED ? 0 : blockIdx.x * P::COLUMNS + column;
        forward_rounds<P, 0>(x, smem, GlobalTwiddles{tw, s0, colterm}, bp, column, base);
    }

    // Recompute the final round's placement (window 0 of the bits) for the store.
    constexpr int w_last = P::window(P::ROUNDS - 1);
    P::locate(threadIdx.x, w_last, column, base);
    if constexpr (P::STRIDED) {
        // Lazy [0, 4p) values for the CONTIGUOUS pass; half-warps store 16 consecutive words.
#pragma unroll
        for (int u = 0; u < P::R; ++u) poly[global_index<P>(column, base + (u << w_last), log_n)] = lazy_word(x[u], bp);
    } else {
        // Canonical values; each thread holds R consecutive points, so go through shared
        // memory to store whole contiguous rows. (The last round read exactly these slots.)
        // FP64 passes with ModDown's epilogue keep their doubles: the epilogue's products take them.
        if constexpr (!(P::F64 && MOD_DOWN)) {
#pragma unroll
            for (int u = 0; u < P::R; ++u) x[u] = canonical_word(x[u], bp);
        }
        to_smem<P>(smem, x, column, base, w_last);
        __syncthreads();
        if constexpr (MOD_DOWN) {
            static_assert(!P::STRIDED, "ModDown's epilogue follows the last (contiguous) pass");
            const ModDownEpilogue& e = *epilogue;
            const int k = (int)blockIdx.y / limbs_per_poly;
            const size_t at = ((size_t)limb << log_n) + (size_t)blockIdx.x * P::WORDS;
            const u64* sums = e.sums + k * e.sums_poly_words + at;
            const u64* addend = k == 0 ? e.addend0 : e.addend1;
            u64* out = (k == 0 ? e.out0 : e.out1) + at;
            const u64 p_inv = e.p_inv[limb];
            const u64 p_inv_shoup = e.p_inv_shoup[limb];
            const u64 e_p_inv = e.e_p_inv[limb];
            const u64 e_p_inv_shoup = e.e_p_inv_shoup[limb];
            if constexpr (P::F64) {
                // s P^-1 - r (E P^-1) (+ addend) on the FP64 pipe: products in (-0.54 p, 0.54 p)
                // of s < p and of r below 9p, so the sum stays below 3p for the one reduction.
                const ulonglong2 p_inv_f = f64_twiddle(p_inv, bp);
                const ulonglong2 e_p_inv_f = f64_twiddle(e_p_inv, bp);
#pragma unroll
                for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                    const int i = threadIdx.x + t * P::THREADS;
                    const double r = __longlong_as_double((long long)smem[row_slot<P>(t)]);
                    const double s = __longlong_as_double((long long)loaded(sums[i], bp));
                    double value = f64_mul(s, p_inv_f, bp) - f64_mul(r, e_p_inv_f, bp);
                    if (addend != nullptr) value += __longlong_as_double((long long)loaded(addend[at + i], bp));
                    out[i] = f64_canonical_word((u64)__double_as_longlong(value), bp);
                }
            } else {
#pragma unroll
                for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                    const int i = threadIdx.x + t * P::THREADS;
                    const u64 r = modarith::mul_shoup(smem[row_slot<P>(t)], e_p_inv, e_p_inv_shoup, m.p);
                    u64 value = modarith::sub(modarith::mul_shoup(sums[i], p_inv, p_inv_shoup, m.p), r, m.p);
                    if (addend != nullptr) value = modarith::add(addend[at + i], value, m.p);
                    out[i] = value;
                }
            }
        } else {
            u64* block_out = poly + (size_t)blockIdx.x * P::WORDS;
#pragma unroll
            for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                const int i = threadIdx.x + t * P::THREADS;
                block_out[i] = smem[row_slot<P>(t)];
            }
        }
    }
}

// Round q of the inverse pass, in inverse order: inverse round i runs forward round
// ROUNDS - 1 - i's window; the last one is the short top round.
template <class P, int I, class TW>
__device__ __forceinline__ void inverse_rounds(u64 (&x)[P::R], u64* smem, const TW& tw,
                                               const typename P::ButterflyPrime& p, int column,
                                               int base, const bool scale_stage0,
                                               const ulonglong2 n_inv, const ulonglong2 w1_n_inv) {
    constexpr int q = P::ROUNDS - 1 - I;
    constexpr int w = P::window(q);
    constexpr int stages = q == 0 ? P::SHORT_STAGES : P::LOG_R;
    constexpr int ub0 = P::LOG_R - stages;
    const bool last_round = I + 1 == P::ROUNDS;
    inverse_round<P::LOG_M, P::LOG_R, stages, ub0, I * P::LOG_R>(x, w, base, tw, p, scale_stage0 && last_round, n_inv,
                                                                 w1_n_inv);
    if constexpr (I + 1 < P::ROUNDS) {
        to_smem<P>(smem, x, column, base, w);
        __syncthreads();
        constexpr int next_w = P::window(q - 1);
        P::locate(threadIdx.x, next_w, column, base);
        from_smem<P>(x, smem, column, base, next_w);
        inverse_rounds<P, I + 1>(x, smem, tw, p, column, base, scale_stage0, n_inv, w1_n_inv);
    }
}

// Inverse pass. CONTIGUOUS passes do the last stages (first in inverse order) and read
// canonical input; STRIDED passes end at stage 0 and fold N^-1. A CONTIGUOUS pass with
// M = N (single pass) does both. With LOAD != Plain (CONTIGUOUS passes only: the first pass of
// the inverse), each loaded value is first replaced by its Barrett product with `factor`'s
// value at the same index (Product; same layout as `data`, canonical; modarith::mul_canonical:
// the value ew_mul would have written), or (MulAdd) the values are `addend + source * factor`
// (modarith::mul_canonical then add, the value of a copy of `addend` after ew_mul_add), or (Source) the
// values of `source` (an out-of-place inverse), read from `source` instead of `data`, which
// this pass then writes whole. So neither needs an
// element-wise kernel. A compile-time mode, not a run-time null test: the passes sit at the
// 64-register bound of their launch bounds, and a run-time branch there moved spills into
// the ordinary kernels.
enum class Load { Plain, Product, MulAdd, Source };

template <class P, Load LOAD>
__device__ __forceinline__ void inverse_pass(u64* __restrict__ data, const u64* __restrict__ source,
                                             const u64* __restrict__ factor, const u64* __restrict__ addend,
                                             const ulonglong2* __restrict__ table,
                                             const u64* __restrict__ chunk_roots, const ulonglong2* __restrict__ scale,
                                             const modarith::Modulus* __restrict__ moduli, const int log_n,
                                             const int limbs_per_poly) {
    __shared__ u64 smem[P::SMEM_WORDS];
    __shared__ ulonglong2 stw[P::TW_SMEM];
    const int limb = blockIdx.y % limbs_per_poly;
    const modarith::Modulus m = moduli[limb];
    const Prime p(m.p);
    const typename P::ButterflyPrime bp(m.p);
    const ulonglong2* tw = table + ((size_t)limb << log_n);
    const u64* roots = chunk_roots + ((size_t)limb << (log_n - P::LOG_M)) * P::LOG_M;
    u64* poly = data + ((size_t)blockIdx.y << log_n);
    const int s0 = P::STRIDED ? 0 : log_n - P::LOG_M;
    // Only strided and single-block passes reach stage 0 and fold N^-1 in: a two-pass transform's
    // contiguous pass (shared twiddles) starts at stage log N - LOG_M > 0, and leaving the scale
    // out at compile time frees its registers and the scaled butterflies' code there.
    constexpr bool CAN_SCALE = P::STRIDED || !P::SMEM_TWIDDLES;
    const bool scale_stage0 = CAN_SCALE && s0 == 0;
    const ulonglong2 n_inv = CAN_SCALE ? butterfly_twiddle(scale[2 * limb], bp) : make_ulonglong2(0, 0);
    const ulonglong2 w1_n_inv = CAN_SCALE ? butterfly_twiddle(scale[2 * limb + 1], bp) : make_ulonglong2(0, 0);
    // A contiguous pass generates its twiddles first (constant tables only): with a programmatic
    // dependency (dependent_launch.cuh) that runs while the kernel before this one finishes. A
    // strided pass copies a few entries after issuing its loads, which then overlap.
    if constexpr (P::SMEM_TWIDDLES && !P::STRIDED) stage_twiddles<P>(stw, tw, roots, m, p, bp);
    dependent_launch::wait_for_inputs_and_allow_dependents();

    u64 x[P::R];
    int column, base;
    constexpr int w0 = P::window(P::ROUNDS - 1);  // the bottom window [0, LOG_R)
    P::locate(threadIdx.x, w0, column, base);
    if constexpr (P::STRIDED) {
#pragma unroll
        for (int u = 0; u < P::R; ++u) x[u] = loaded(poly[global_index<P>(column, base + (u << w0), log_n)], bp);
        if constexpr (P::SMEM_TWIDDLES) stage_twiddles<P>(stw, tw, roots, m, p, bp);
        __syncthreads();
    } else {
        // Each thread needs R consecutive points: load whole rows through shared memory.
        const u64* block_in = poly + (size_t)blockIdx.x * P::WORDS;
        const size_t block_offset = ((size_t)blockIdx.y << log_n) + (size_t)blockIdx.x * P::WORDS;
        if constexpr (LOAD == Load::Product) {
            static_assert(!P::STRIDED, "the product is taken by the first inverse pass, a CONTIGUOUS one");
            const u64* block_factor = factor + block_offset;
#pragma unroll
            for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                const int i = threadIdx.x + t * P::THREADS;
                smem[row_slot<P>(t)] = modarith::mul_canonical(block_in[i], block_factor[i], m);
            }
        } else if constexpr (LOAD == Load::Source) {
            static_assert(!P::STRIDED, "the out-of-place load is the first inverse pass, a CONTIGUOUS one");
            const u64* block_source = source + block_offset;
#pragma unroll
            for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                const int i = threadIdx.x + t * P::THREADS;
                smem[row_slot<P>(t)] = block_source[i];
            }
        } else if constexpr (LOAD == Load::MulAdd) {
            static_assert(!P::STRIDED, "the product is taken by the first inverse pass, a CONTIGUOUS one");
            const u64* block_source = source + block_offset;
            const u64* block_factor = factor + block_offset;
            const u64* block_addend = addend + block_offset;
#pragma unroll
            for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                const int i = threadIdx.x + t * P::THREADS;
                // Streaming loads (ld.global.cs, evict-first): read once, they should not push
                // this pass's output, which the next pass reads, out of L2. DecryptResident at
                // 2^16: 65.6-66.3 -> 62.4-64.1 us (docs/performance.md).
                smem[row_slot<P>(t)] = modarith::add(
                    __ldcs(block_addend + i), modarith::mul_canonical(__ldcs(block_source + i), __ldcs(block_factor + i), m),
                    m.p);
            }
        } else {
#pragma unroll
            for (int t = 0; t < P::WORDS / P::THREADS; ++t) {
                const int i = threadIdx.x + t * P::THREADS;
                smem[row_slot<P>(t)] = block_in[i];
            }
        }
        __syncthreads();
        from_smem<P>(x, smem, column, base, w0);
#pragma unroll
        for (int u = 0; u < P::R; ++u) x[u] = loaded(x[u], bp);
    }

    if constexpr (P::SMEM_TWIDDLES) {
        inverse_rounds<P, 0>(x, smem, SharedTwiddles<P>{stw, P::STRIDED ? 0 : column}, bp, column, base,
                             scale_stage0, n_inv, w1_n_inv);
    } else {
        const int colterm = P::STRIDED ? 0 : blockIdx.x * P::COLUMNS + column;
        inverse_rounds<P, 0>(x, smem, GlobalTwiddles{tw, s0, colterm}, bp, column, base, scale_stage0, n_inv,
                             w1_n_inv);
    }

    constexpr int w_top = P::window(0);
    P::locate(threadIdx.x, w_top, column, base);
    // Canonical after stage 0 (scaled); otherwise lazy [0, 2p) for the STRIDED pass (canonical
    // from FP64 passes).
#pragma unroll
    for (int u = 0; u < P::R; ++u) poly[global_index<P>(column, base + (u << w_top), log_n)] = lazy_word(x[u], bp);
}

// The inverse transform's last (STRIDED) pass fused with the centered lift modulo t
// (include/centered_lift.cuh; BGV decryption after inverse(c_0 + c_1 s) times (q/q_i)^{-1},
// which the first pass and `scale` applied): out[j] = [x_c]_t * factor mod t for every
// coefficient j, the phase itself never written (two kernels instead of three). A thread
// block cluster of C = gridDim.y blocks (launched with cuLaunchKernelEx; C <= 16) shares one
// column group (blockIdx.x): block rank r transforms limbs r, r + C, r + 2C, ... (none when
// r >= L: the host takes C >= 8 so that the lift has threads enough when L is small) and keeps
// each one's WORDS canonical values in its dynamic shared memory (one slot per limb, `kept`);
// after the cluster's barrier, block r lifts its share of the group's coefficients, reading
// every limb's value from the shared memory of the block that holds it (distributed shared
// memory), and a second barrier keeps every block's memory alive until all have read it. Needs
// sm_90 (clusters); the host launches it only there, for N <= 2^12: at 2^14 it was as fast as
// the strided pass and bgv_reduce_phase apart, above slower (its clusters hold too few blocks
// for the lift; docs/performance.md). Dynamic shared memory: ceil(L / C)
// WORDS words.
struct LiftParams {
    const u64* data;                  // [L][N] after the inverse's first pass (lazy, [0, 2p))
    u64* out;                         // N words: device memory or mapped host memory
    const ulonglong2* table;          // inverse twiddles [limb][N]
    const ulonglong2* scale;          // [limb] {N^-1 f_i, shoup}, {w_1 N^-1 f_i, shoup}
    const modarith::Modulus* moduli;  // [limb]
    const u64* lift_terms;            // [limb] (q/q_i) mod t
    centered_lift::Finish finish;     // t and the last step's constants (the factor among them)
    int log_n;
    int limbs;
};

// Limbs whose values a lifting thread loads before it adds them (in flight together).
constexpr int LIFT_AHEAD = 4;

// Thread block clusters in PTX (sm_90; the pinned compiler ships no cooperative_groups
// headers): the block's rank in its cluster, the cluster's size, a barrier of all its threads
// (release then acquire: shared-memory writes before it are seen by every block after it), and
// a load from another block's shared memory at the address `local` has in this block's.
__device__ __forceinline__ int cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return (int)r;
}
__device__ __forceinline__ int cluster_blocks() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return (int)r;
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ u64 load_from_block(const u64* local, const int rank) {
    const unsigned address = (unsigned)__cvta_generic_to_shared(local);
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    u64 v;
    // Volatile: kept in order after the barrier (also volatile); no memory clobber, so other
    // loads may move around it.
    asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(v) : "r"(remote));
    return v;
}

template <class P>
__device__ __forceinline__ void inverse_lift_pass(const LiftParams& F) {
    static_assert(P::STRIDED && P::COLUMNS == 16, "the lift follows the last (strided) inverse pass");
    static_assert(5 * P::THREADS <= P::SMEM_WORDS, "the groups' partial sums fit in the exchange memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ u64 kept[];
    __shared__ u64 smem[P::SMEM_WORDS];
    __shared__ ulonglong2 stw[P::TW_SMEM];
    // The first pass's output is read below (programmatic dependencies: dependent_launch.cuh).
    dependent_launch::wait_for_inputs();
    const int rank = cluster_rank();
    const int blocks = cluster_blocks();
    const int log_n = F.log_n;
    for (int limb = rank, slot = 0; limb < F.limbs; limb += blocks, ++slot) {
        // The previous limb's last reads of smem and stw are done.
        __syncthreads();
        const modarith::Modulus m = F.moduli[limb];
        const Prime p(m.p);
        const ulonglong2* tw = F.table + ((size_t)limb << log_n);
        const u64* poly = F.data + ((size_t)limb << log_n);
        u64 x[P::R];
        int column, base;
        constexpr int w0 = P::window(P::ROUNDS - 1);
        P::locate(threadIdx.x, w0, column, base);
#pragma unroll
        for (int u = 0; u < P::R; ++u) x[u] = poly[global_index<P>(column, base + (u << w0), log_n)];
        stage_twiddles<P>(stw, tw, nullptr, m, p, p);
        __syncthreads();
        inverse_rounds<P, 0>(x, smem, SharedTwiddles<P>{stw, 0}, p, column, base, true, F.scale[2 * limb],
                             F.scale[2 * limb + 1]);
        constexpr int w_top = P::window(0);
        P::locate(threadIdx.x, w_top, column, base);
        to_smem<P>(kept + (size_t)slot * P::WORDS, x, column, base, w_top);
    }
    cluster_sync();
    // Block r lifts `count` consecutive slot indices from lo (slot index i = k * 16 + column).
    // G thread groups split each coefficient's limbs (G = 1, 2, 4 or 8: as many as the block's
    // threads allow), meet in shared memory (free now: every transform of this block is done)
    // and group 0 finishes.
    const int share = (P::WORDS + blocks - 1) / blocks;
    const int lo = rank * share;
    const int count = min(P::WORDS - lo, share);
    int groups = 1;
    while (groups < 8 && 2 * groups * share <= P::THREADS) groups *= 2;
    const int span = P::THREADS / groups;
    const int c = (int)threadIdx.x % span;
    const int g = (int)threadIdx.x / span;
    for (int first_i = 0; first_i < count; first_i += span) {
        const int i = lo + first_i + c;
        const bool active = first_i + c < count;
        centered_lift::Fraction fraction = {0, 0};
        wide_sum::Sum192 sum = {0, 0, 0};
        if (active) {
            for (int first = g; first < F.limbs; first += LIFT_AHEAD * groups) {
                u64 y[LIFT_AHEAD];
#pragma unroll
                for (int u = 0; u < LIFT_AHEAD; ++u) {
                    const int limb = first + u * groups;
                    y[u] = limb < F.limbs ? load_from_block(kept + (limb / blocks) * P::WORDS + i, limb % blocks) : 0;
                }
#pragma unroll
                for (int u = 0; u < LIFT_AHEAD; ++u) {
                    const int limb = first + u * groups;
                    if (limb >= F.limbs) break;
                    centered_lift::add_limb(fraction, sum, y[u], F.moduli[limb], F.lift_terms[limb]);
                }
            }
        }
        if (groups > 1) {
            // Five words per thread: the fraction, then the sum.
            __syncthreads();
            const int at = threadIdx.x;
            smem[at] = fraction.lo;
            smem[at + P::THREADS] = fraction.carries;
            smem[at + 2 * P::THREADS] = sum.s0;
            smem[at + 3 * P::THREADS] = sum.s1;
            smem[at + 4 * P::THREADS] = sum.s2;
            __syncthreads();
            if (g == 0) {
                for (int h = 1; h < groups; ++h) {
                    const int other = h * span + c;
                    const centered_lift::Fraction f = {smem[other], smem[other + P::THREADS]};
                    const wide_sum::Sum192 o = {smem[other + 2 * P::THREADS], smem[other + 3 * P::THREADS],
                                                smem[other + 4 * P::THREADS]};
                    centered_lift::merge(fraction, sum, f, o);
                }
            }
        }
        if (g == 0 && active) {
            const int j = ((i >> 4) << (log_n - P::LOG_M)) + (int)blockIdx.x * P::COLUMNS + (i & 15);
            F.out[j] = centered_lift::finish(fraction, sum, F.finish);
        }
    }
    // No block leaves while another may still read its kept values.
    cluster_sync();
#else
    __trap();
#endif
}

// The forward transform's last (CONTIGUOUS) pass fused with key switching's inner product: for
// limb `limb = blockIdx.y` of q u P and this block's WORDS coefficients, digit t's polynomial
// (after the transform's first pass, lazy) is finished in registers and shared memory and
// multiplied by both key digits, and the sums over the digits
//   out_b = sum_t ext_t key_b[t],  out_a = sum_t ext_t key_a[t]  (mod p_limb)
// are written once (plus the current output values with `accumulate`): the transformed digits
// never go to memory. The same canonical words as the separate pass and inner-product kernel.
// Sums: products of canonical values are below p^2 < 2^124, so 128-bit sums take 15 of them
// with a canonical carry-in; they are reduced every IP_REDUCE_EVERY digits.
#define IP_MAX_DIGITS 64
// Resident threads per SM the fused inner product's registers must allow: 384 (168 registers,
// no spill) where 512 (128) spilled.
#ifndef IP_MIN_THREADS
#define IP_MIN_THREADS 384
#endif
// The FP64 kernels keep two double sums a word where the integer ones keep four words: 512.
#ifndef IP_F64_MIN_THREADS
#define IP_F64_MIN_THREADS 512
#endif
#define IP_REDUCE_EVERY 15
struct FwdIpParams {
    const u64* data;                   // [digits][limbs][N] after the first pass (lazy)
    u64* output;                       // [2][limbs][N]: the b sum, then the a sum
    const ulonglong2* table;           // forward twiddles [limb][N]
    const u64* chunk_roots;            // [limb][N/M][LOG_M]
    const modarith::Modulus* moduli;   // [limb]
    const u64* key_b[IP_MAX_DIGITS];   // digit t of the key: one polynomial over q u P each
    const u64* key_a[IP_MAX_DIGITS];
    int log_n;
    int limbs;                         // limbs of q u P
    int digits;                        // 1..=IP_MAX_DIGITS
    int accumulate;                    // 1: add the current output values
    // Own limbs (null own_source: none): digit first_digit + t's limbs i < limbs_q with
    // i / digit_limbs == first_digit + t are read from own_source ([limbs_q][N], already in the
    // evaluation representation: the ModUp of a digit keeps its own limbs, so their transform is
    // the input's) instead of being finished from `data` (whose rows there the skipping first
    // pass left unwritten).
    const u64* own_source;
    int first_digit;
    int digit_limbs;
    int limbs_q;
    // Special limbs' sums (null: in `output`): limbs i >= special_from write (and, with
    // accumulate, read) their b sum at special + (i - special_from) N and their a sum
    // (limbs - special_from) N further, [2][limbs - special_from][N].
    int special_from;
    u64* special;
};

// (hi, lo) += a * b.
__device__ __forceinline__ void mad128(u64& lo, u64& hi, const u64 a, const u64 b) {
    const u64 plo = a * b;
    const u64 phi = __umul64hi(a, b);
    lo += plo;
    hi += phi + (lo < plo ? 1 : 0);
}

// The base of limb `limb`'s b (or a) sum such that its word `at` (limb-major over q u P) is at
// base + at: in `output`, or for a special limb in `special`.
template <bool SPLIT>
__device__ __forceinline__ u64* sum_base(const FwdIpParams& F, const int limb, const bool a_sum) {
    if (SPLIT && F.special != nullptr && limb >= F.special_from) {
        const size_t q_words = (size_t)F.special_from << F.log_n;
        return F.special - q_words + (a_sum ? ((size_t)(F.limbs - F.special_from)) << F.log_n : 0);
    }
    return F.output + (a_sum ? (size_t)F.limbs << F.log_n : 0);
}

// SPLIT: the own limbs and the special output of FwdIpParams are honoured (the _split kernels);
// otherwise ignored, and the kernels are those from before them (register budget: the plain
// kernels serve BFV's many one-prime digits).
template <class P, bool SPLIT>
__device__ __forceinline__ void forward_inner_product_pass(const FwdIpParams& F) {
    static_assert(!P::STRIDED, "the inner product follows the last (contiguous) pass");
    constexpr int PER = P::WORDS / P::THREADS;
    __shared__ u64 smem[P::SMEM_WORDS];
    __shared__ ulonglong2 stw[P::TW_SMEM];
    const int limb = blockIdx.y;
    const int log_n = F.log_n;
    const modarith::Modulus m = F.moduli[limb];
    const Prime p(m.p);
    const typename P::ButterflyPrime bp(m.p);
    const ulonglong2* tw = F.table + ((size_t)limb << log_n);
    const u64* roots = F.chunk_roots + ((size_t)limb << (log_n - P::LOG_M)) * P::LOG_M;
    const size_t limb_offset = (size_t)limb << log_n;
    const size_t block_offset = limb_offset + (size_t)blockIdx.x * P::WORDS;
    u64* sums_b = sum_base<SPLIT>(F, limb, false);
    u64* sums_a = sum_base<SPLIT>(F, limb, true);
    // Twiddles first (constant tables), while a kernel this one depends on programmatically
    // finishes (dependent_launch.cuh); then the wait for its output.
    stage_twiddles<P>(stw, tw, roots, m, p, bp);
    dependent_launch::wait_for_inputs_and_allow_dependents();
    // Integer passes: 128-bit sums of canonical products. FP64 passes: sums of the products
    // a w mod p in (-0.54 p, 0.54 p) (f64_mul, the key word as its twiddle), below 36 p < 2^49
    // after IP_MAX_DIGITS digits; the transformed values stay doubles (below 9p) in between.
    u64 b_lo[PER], b_hi[PER], a_lo[PER], a_hi[PER];
    double b_sum[PER], a_sum[PER];
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const size_t at = block_offset + threadIdx.x + k * P::THREADS;
        b_lo[k] = F.accumulate != 0 ? sums_b[at] : 0;
        a_lo[k] = F.accumulate != 0 ? sums_a[at] : 0;
        b_hi[k] = 0;
        a_hi[k] = 0;
        if constexpr (P::F64) {
            b_sum[k] = __longlong_as_double((long long)loaded(b_lo[k], bp));
            a_sum[k] = __longlong_as_double((long long)loaded(a_lo[k], bp));
        }
    }
    // One product of the inner product, on the pass's pipe: v (a word, or with FP64 the bits of
    // a double) times a canonical key word.
    const auto accumulate = [&](const int k, const u64 v, const u64 key_b, const u64 key_a) {
        if constexpr (P::F64) {
            const double vd = __longlong_as_double((long long)v);
            b_sum[k] += f64_mul(vd, f64_twiddle(key_b, bp), bp);
            a_sum[k] += f64_mul(vd, f64_twiddle(key_a, bp), bp);
        } else {
            mad128(b_lo[k], b_hi[k], v, key_b);
            mad128(a_lo[k], a_hi[k], v, key_a);
        }
    };
    __syncthreads();
    for (int t = 0; t < F.digits; ++t) {
        // A uniform branch: the block's limb is one of this digit's own limbs.
        if (SPLIT && F.own_source != nullptr && limb < F.limbs_q && limb / F.digit_limbs == F.first_digit + t) {
            const u64* key_b = F.key_b[t] + block_offset;
            const u64* key_a = F.key_a[t] + block_offset;
            const u64* own = F.own_source + block_offset;
#pragma unroll
            for (int k = 0; k < PER; ++k) {
                const int i = threadIdx.x + k * P::THREADS;
                accumulate(k, loaded(own[i], bp), key_b[i], key_a[i]);
            }
        } else {
            const u64* poly = F.data + (((size_t)t * F.limbs + limb) << log_n);
            u64 x[P::R];
            int column, base;
            constexpr int w0 = P::window(0);
            P::locate(threadIdx.x, w0, column, base);
#pragma unroll
            for (int u = 0; u < P::R; ++u) x[u] = loaded(poly[global_index<P>(column, base + (u << w0), log_n)], bp);
            forward_rounds<P, 0>(x, smem, SharedTwiddles<P>{stw, column}, bp, column, base);
            constexpr int w_last = P::window(P::ROUNDS - 1);
            P::locate(threadIdx.x, w_last, column, base);
            if constexpr (!P::F64) {
#pragma unroll
                for (int u = 0; u < P::R; ++u) x[u] = canonical_word(x[u], bp);
            }
            to_smem<P>(smem, x, column, base, w_last);
            __syncthreads();
            const u64* key_b = F.key_b[t] + block_offset;
            const u64* key_a = F.key_a[t] + block_offset;
#pragma unroll
            for (int k = 0; k < PER; ++k) {
                const int i = threadIdx.x + k * P::THREADS;
                accumulate(k, smem[row_slot<P>(k)], key_b[i], key_a[i]);
            }
        }
        if (!P::F64 && (t + 1) % IP_REDUCE_EVERY == 0) {
#pragma unroll
            for (int k = 0; k < PER; ++k) {
                b_lo[k] = modarith::reduce_u128(b_lo[k], b_hi[k], m);
                a_lo[k] = modarith::reduce_u128(a_lo[k], a_hi[k], m);
                b_hi[k] = 0;
                a_hi[k] = 0;
            }
        }
        // The next digit's first round writes shared memory: every thread has read its words.
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const size_t at = block_offset + threadIdx.x + k * P::THREADS;
        if constexpr (P::F64) {
            sum_base<SPLIT>(F, limb, false)[at] = f64_canonical_word((u64)__double_as_longlong(b_sum[k]), bp);
            sum_base<SPLIT>(F, limb, true)[at] = f64_canonical_word((u64)__double_as_longlong(a_sum[k]), bp);
        } else {
            sum_base<SPLIT>(F, limb, false)[at] = modarith::reduce_u128(b_lo[k], b_hi[k], m);
            sum_base<SPLIT>(F, limb, true)[at] = modarith::reduce_u128(a_lo[k], a_hi[k], m);
        }
    }
}

}  // namespace

// Exported kernels. Names: ntt_{fwd,inv}_single_<n> and ntt_{fwd,inv}_{strided,contiguous}_<m>_lr<r>:
//   single_<n>:          the whole transform of N = 2^n (10 <= n <= 12) in one pass; grid (1, limbs),
//                        2^(n-3) threads.
//   strided_<m>_lr<r>:   the first m stages (forward) or last-in-inverse-order, 2^r points per
//                        thread; grid (N / 2^m / 16, limbs), 16 2^m / 2^r threads.
//   strided_<m>_lr<r>_c<c>: the same with c < 16 columns per block (c blocks' worth more
//                        blocks, for launches that would fill few SMs).
//   contiguous_<m>_lr<r>: the last m stages, 2^r points per thread; grid (N / 1024, limbs),
//                        1024 / 2^r threads.
//   contiguous_<m>_lr<r>_w<w>: the same with w < 1024 points per block.
// ntt_fwd_extend_{single_<n>, strided_<m>_lr<r>}: the first forward pass loading the ModUp of
// one-prime digits (forward_pass with EXTEND; extra arguments first_source, centered);
// and ntt_inv_product_{single_<n>, contiguous_<m>_lr<r>}: the same first inverse pass taking
// the product with `factor` first (inverse_pass with Load::Product), and
// ntt_inv_mul_add_{single_<n>, contiguous_<m>_lr<r>}: addend + source * factor
// (Load::MulAdd); ntt_fwd_mod_down_contiguous_<m>_lr<r>: the last forward pass storing through
// ModDown's epilogue (forward_pass with MOD_DOWN; extra argument epilogue).
// Arguments: data, [forward: source (null: in place; else the input, read by this pass, see
// forward_pass)], [inverse product: factor], [inverse mul-add: source, factor, addend], table ([limb][N] {w, w_shoup}), chunk_roots
// ([limb][N/M][M] A(c, r) of stage_twiddles, for contiguous passes; ignored otherwise),
// [inverse: scale ([limb][2] {N^-1, shoup}, {w_1 N^-1, shoup})], moduli ([limb]
// modarith::Modulus), log_n, limbs_per_poly.
// MIN_THREADS: resident threads per SM the register allocation must allow (occupancy).
#define NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS)                             \
    __launch_bounds__(Pass<LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW>::THREADS,                                  \
                      MIN_THREADS / Pass<LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW>::THREADS)
// F64 (the kernels' names end in _f64): butterflies on the FP64 pipe (F64Prime).
#define NTT_PASS_KERNELS(SUFFIX, LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS, F64)                     \
    NTT_PASS_KERNELS_BOUNDS(SUFFIX, LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS, MIN_THREADS, F64)
// The same with the inverse kernel's resident threads apart (INV_MIN_THREADS).
#define NTT_PASS_KERNELS_BOUNDS(SUFFIX, LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS, INV_MIN_THREADS, F64) \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS)        \
        ntt_fwd_##SUFFIX(u64* data, const u64* source, const ulonglong2* table, const u64* chunk_roots,       \
                         const modarith::Modulus* moduli, int log_n, int limbs_per_poly) {                     \
        forward_pass<Pass<LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, F64>>(data, source, table, chunk_roots,    \
                                                                         moduli, log_n, limbs_per_poly);       \
    }                                                                                                           \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, INV_MIN_THREADS)    \
        ntt_inv_##SUFFIX(u64* data, const ulonglong2* table, const u64* chunk_roots, const ulonglong2* scale,   \
                         const modarith::Modulus* moduli, int log_n, int limbs_per_poly) {                     \
        inverse_pass<Pass<LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, F64>, Load::Plain>(                        \
            data, nullptr, nullptr, nullptr, table, chunk_roots, scale, moduli, log_n, limbs_per_poly);         \
    }
#define NTT_INV_PRODUCT_KERNEL(SUFFIX, LOG_M, LOG_R, COLUMNS, SMEM_TW, MIN_THREADS, F64)                         \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, false, COLUMNS, SMEM_TW, MIN_THREADS)          \
        ntt_inv_product_##SUFFIX(u64* data, const u64* factor, const ulonglong2* table,                       \
                                 const u64* chunk_roots, const ulonglong2* scale,                              \
                                 const modarith::Modulus* moduli, int log_n, int limbs_per_poly) {             \
        inverse_pass<Pass<LOG_M, LOG_R, false, COLUMNS, SMEM_TW, F64>, Load::Product>(                        \
            data, nullptr, factor, nullptr, table, chunk_roots, scale, moduli, log_n, limbs_per_poly);          \
    }                                                                                                           \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, false, COLUMNS, SMEM_TW, MIN_THREADS)          \
        ntt_inv_mul_add_##SUFFIX(u64* data, const u64* source, const u64* factor, const u64* addend,          \
                                 const ulonglong2* table, const u64* chunk_roots, const ulonglong2* scale,     \
                                 const modarith::Modulus* moduli, int log_n, int limbs_per_poly) {             \
        inverse_pass<Pass<LOG_M, LOG_R, false, COLUMNS, SMEM_TW, F64>, Load::MulAdd>(                         \
            data, source, factor, addend, table, chunk_roots, scale, moduli, log_n, limbs_per_poly);            \
    }                                                                                                           \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, false, COLUMNS, SMEM_TW, MIN_THREADS)          \
        ntt_inv_from_##SUFFIX(u64* data, const u64* source, const ulonglong2* table, const u64* chunk_roots,   \
                              const ulonglong2* scale, const modarith::Modulus* moduli, int log_n,             \
                              int limbs_per_poly) {                                                             \
        inverse_pass<Pass<LOG_M, LOG_R, false, COLUMNS, SMEM_TW, F64>, Load::Source>(                         \
            data, source, nullptr, nullptr, table, chunk_roots, scale, moduli, log_n, limbs_per_poly);          \
    }
#define NTT_FWD_EXTEND_KERNEL(SUFFIX, LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS, F64)                \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, MIN_THREADS)        \
        ntt_fwd_extend_##SUFFIX(u64* data, const u64* source, const ulonglong2* table, const u64* chunk_roots, \
                                const modarith::Modulus* moduli, int log_n, int limbs_per_poly,               \
                                int first_source, int centered) {                                               \
        forward_pass<Pass<LOG_M, LOG_R, STRIDED, COLUMNS, SMEM_TW, F64>, true>(                                \
            data, source, table, chunk_roots, moduli, log_n, limbs_per_poly, first_source, centered);           \
    }
#define NTT_FWD_SKIP_KERNEL(SUFFIX, LOG_M, LOG_R, COLUMNS, MIN_THREADS, F64)                                   \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, true, COLUMNS, true, MIN_THREADS)              \
        ntt_fwd_skip_##SUFFIX(u64* data, const u64* source, const ulonglong2* table, const u64* chunk_roots,   \
                              const modarith::Modulus* moduli, int log_n, int limbs_per_poly, int first_digit, \
                              int digit_limbs, int limbs_q) {                                                   \
        forward_pass<Pass<LOG_M, LOG_R, true, COLUMNS, true, F64>, false, false, true>(                         \
            data, source, table, chunk_roots, moduli, log_n, limbs_per_poly, first_digit, 0, nullptr,           \
            digit_limbs, limbs_q);                                                                              \
    }
#define NTT_FWD_MOD_DOWN_KERNEL(SUFFIX, LOG_M, LOG_R, COLUMNS, MIN_THREADS, F64)                               \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(LOG_M, LOG_R, false, COLUMNS, true, MIN_THREADS)             \
        ntt_fwd_mod_down_##SUFFIX(u64* data, const u64* source, const ulonglong2* table, const u64* chunk_roots, \
                                  const modarith::Modulus* moduli, int log_n, int limbs_per_poly,               \
                                  const __grid_constant__ ModDownEpilogue epilogue) {                          \
        forward_pass<Pass<LOG_M, LOG_R, false, COLUMNS, true, F64>, false, true>(                               \
            data, source, table, chunk_roots, moduli, log_n, limbs_per_poly, 0, 0, &epilogue);                  \
    }
#define NTT_FWD_IP_KERNELS(M, LR, SUFFIX, F64, MIN_THREADS)                                                      \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(M, LR, false, (CONTIGUOUS_BLOCK_WORDS >> M), true, MIN_THREADS)       \
        ntt_fwd_ip_contiguous_##M##_lr##LR##SUFFIX(const __grid_constant__ FwdIpParams params) {                 \
        forward_inner_product_pass<Pass<M, LR, false, (CONTIGUOUS_BLOCK_WORDS >> M), true, F64>, false>(params); \
    }                                                                                                      \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(M, LR, false, (CONTIGUOUS_BLOCK_WORDS >> M), true, MIN_THREADS)       \
        ntt_fwd_ip_split_contiguous_##M##_lr##LR##SUFFIX(const __grid_constant__ FwdIpParams params) {           \
        forward_inner_product_pass<Pass<M, LR, false, (CONTIGUOUS_BLOCK_WORDS >> M), true, F64>, true>(params);  \
    }
#define NTT_FWD_IP_KERNEL(M, LR)                         \
    NTT_FWD_IP_KERNELS(M, LR, , false, IP_MIN_THREADS)   \
    NTT_FWD_IP_KERNELS(M, LR, _f64, true, IP_F64_MIN_THREADS)
#define NTT_INV_LIFT_KERNEL(M)                                                                                   \
    extern "C" __global__ void NTT_LAUNCH_BOUNDS(M, 3, true, STRIDED_COLUMNS, true, 1024)                      \
        ntt_inv_lift_strided_##M##_lr3(const __grid_constant__ LiftParams params) {                              \
        inverse_lift_pass<Pass<M, 3, true, STRIDED_COLUMNS, true>>(params);                                      \
    }
#define SINGLE(N, LR)                                                    \
    NTT_PASS_KERNELS(single_##N, N, LR, false, 1, false, 1024, false)   \
    NTT_INV_PRODUCT_KERNEL(single_##N, N, LR, 1, false, 1024, false)    \
    NTT_FWD_EXTEND_KERNEL(single_##N, N, LR, false, 1, false, 1024, false)
// Every two-pass kernel exists on both pipes: SUFFIX (integer) and SUFFIX_f64.
#define STRIDED(M, LR, MIN_THREADS) STRIDED_BOUNDS(M, LR, MIN_THREADS, MIN_THREADS)
#define STRIDED_BOUNDS(M, LR, MIN_THREADS, INV_MIN_THREADS)                  \
    STRIDED_KERNELS(strided_##M##_lr##LR, M, LR, MIN_THREADS, INV_MIN_THREADS, false) \
    STRIDED_KERNELS(strided_##M##_lr##LR##_f64, M, LR, MIN_THREADS, INV_MIN_THREADS, true)
#define STRIDED_KERNELS(SUFFIX, M, LR, MIN_THREADS, INV_MIN_THREADS, F64)                                         \
    NTT_PASS_KERNELS_BOUNDS(SUFFIX, M, LR, true, STRIDED_COLUMNS, true, MIN_THREADS, INV_MIN_THREADS, F64)       \
    NTT_FWD_EXTEND_KERNEL(SUFFIX, M, LR, true, STRIDED_COLUMNS, true, MIN_THREADS, F64)                          \
    NTT_FWD_SKIP_KERNEL(SUFFIX, M, LR, STRIDED_COLUMNS, MIN_THREADS, F64)
// Fewer columns per block: a half-warp still covers 16 consecutive words in every round but
// the bottom one (its threads differ in column and in the window's lowest bit), where 8
// columns cost a 2-way conflict.
#define STRIDED_NARROW(M, LR, C, MIN_THREADS)                                   \
    STRIDED_NARROW_KERNELS(strided_##M##_lr##LR##_c##C, M, LR, C, MIN_THREADS, false) \
    STRIDED_NARROW_KERNELS(strided_##M##_lr##LR##_c##C##_f64, M, LR, C, MIN_THREADS, true)
#define STRIDED_NARROW_KERNELS(SUFFIX, M, LR, C, MIN_THREADS, F64)                \
    NTT_PASS_KERNELS(SUFFIX, M, LR, true, C, true, MIN_THREADS, F64)             \
    NTT_FWD_EXTEND_KERNEL(SUFFIX, M, LR, true, C, true, MIN_THREADS, F64)        \
    NTT_FWD_SKIP_KERNEL(SUFFIX, M, LR, C, MIN_THREADS, F64)
#define CONTIGUOUS(M, LR, MIN_THREADS)                                                          \
    CONTIGUOUS_KERNELS(contiguous_##M##_lr##LR, M, LR, CONTIGUOUS_BLOCK_WORDS, MIN_THREADS, false) \
    CONTIGUOUS_KERNELS(contiguous_##M##_lr##LR##_f64, M, LR, CONTIGUOUS_BLOCK_WORDS, MIN_THREADS, true)
// Fewer points per block (W < CONTIGUOUS_BLOCK_WORDS): more blocks for launches that fill few SMs.
#define CONTIGUOUS_NARROW(M, LR, W, MIN_THREADS)                                              \
    CONTIGUOUS_KERNELS(contiguous_##M##_lr##LR##_w##W, M, LR, W, MIN_THREADS, false)          \
    CONTIGUOUS_KERNELS(contiguous_##M##_lr##LR##_w##W##_f64, M, LR, W, MIN_THREADS, true)
#define CONTIGUOUS_KERNELS(SUFFIX, M, LR, W, MIN_THREADS, F64)                   \
    NTT_PASS_KERNELS(SUFFIX, M, LR, false, (W >> M), true, MIN_THREADS, F64)     \
    NTT_INV_PRODUCT_KERNEL(SUFFIX, M, LR, (W >> M), true, MIN_THREADS, F64)      \
    NTT_FWD_MOD_DOWN_KERNEL(SUFFIX, M, LR, (W >> M), MIN_THREADS, F64)

SINGLE(10, 3)
SINGLE(11, 3)
SINGLE(12, 3)
// Radix 4 (more threads, shorter per-thread chains) for small transforms that fill few SMs.
STRIDED(5, 2, 1024)
STRIDED(6, 2, 1024)
CONTIGUOUS(5, 2, 1024)
CONTIGUOUS(6, 2, 1024)
// Radix 8.
STRIDED(5, 3, 1024)
STRIDED(6, 3, 1024)
STRIDED(7, 3, 1024)
STRIDED(8, 3, 1024)
CONTIGUOUS(5, 3, 1024)
CONTIGUOUS(6, 3, 1024)
CONTIGUOUS(7, 3, 1024)
CONTIGUOUS(8, 3, 1024)
CONTIGUOUS(9, 3, 1024)
// Radix 16: fewer shared-memory round trips, more registers per thread (up to 128). Contiguous
// radix-16 passes were slower on an H100 (N = 2^17 x 64: 158 us forward against 148 with radix 8).
// At 768 resident threads (80 registers) the passes at 2^16 took 0.2-1.8 us less, but ModUp's
// skipping forward pass at 2^15 went 10.9 -> 13.8 us (docs/performance.md).
// So the inverse passes of 2^7 points alone take more: 640 (94 registers; at 768 they spill).
// With the phase reduction's eight loads in flight, BGV decryption's kernels at 2^16 went
// 57.0 -> 56.1 us (docs/performance.md). (The 2^8-point blocks have
// 256 threads: 640 would still allow only 2 blocks an SM, the same 128 registers.)
STRIDED_BOUNDS(7, 4, 512, 640)
STRIDED(8, 4, 512)
// Launches that fill few SMs (ntt/schedule.rs, medium launches): radix 4, and blocks of 8 columns
// (strided) or 512 points (contiguous), so more blocks and more threads per point.
STRIDED_NARROW(7, 2, 8, 1024)
STRIDED_NARROW(8, 2, 8, 1024)
CONTIGUOUS_NARROW(7, 2, 512, 1024)
CONTIGUOUS_NARROW(8, 2, 512, 1024)
CONTIGUOUS_NARROW(9, 2, 512, 1024)
// The last inverse pass of N <= 2^12 fused with the centered lift modulo t (clusters, sm_90).
NTT_INV_LIFT_KERNEL(5)
NTT_INV_LIFT_KERNEL(6)
// The last forward pass fused with key switching's inner product (radix 8, up to 128 registers).
NTT_FWD_IP_KERNEL(5, 3)
NTT_FWD_IP_KERNEL(6, 3)
NTT_FWD_IP_KERNEL(7, 3)
NTT_FWD_IP_KERNEL(8, 3)
NTT_FWD_IP_KERNEL(9, 3)
