// Big-integer kernels of crates/bigint (`bigint::gpu`), bit-exact with its CPU reference.
//
// Data flow of one product a * b (each step one launch over a whole batch: blockIdx.y is the
// batch member, strides are per member):
//
//   limbs a ──bigint_split──> digits (n words, zero padded) ──bigint_ntt_fwd_group x G──┐
//   limbs b ──bigint_split──> digits ──bigint_ntt_fwd_group x G───────────────────────┤
//                                                                                      v
//   bigint_pointwise (a_hat * b_hat * n^-1 mod p) ──bigint_ntt_inv_group x G──> coefficients c_k < p
//   ──bigint_gather (limb sums S_j = lo + hi 2^64, optionally t_j - S_j) ──> (lo[], hi[])
//   ──bigint_carry_block ──> u_j in out[], state[j] (exclusive carry function, incoming carry d_j)
//                           agg[block] (the block's carry function)
//   ──bigint_carry_blocks (one block per member: scan of agg) ──> cin[block], top (what lies above)
//   ──bigint_carry_apply ──> out[j] = u_j + d_j + carry_j: canonical limbs.
//
// The fused path of one product (GpuBigInt::mul, square, mul_batch, mul_by, and the reusable
// GpuMulPlan, whose fixed launch sequence is captured once as a CUDA graph) has five launches
// for transforms of up to two groups of stages (n <= 2^22 at tiles of 2^11):
//
//   limbs a, b ──bigint_mul_tile (split + first forward group, both operands)──> digits_hat
//   ──[bigint_mul_tile: middle forward groups]──> bigint_mul_tile (last forward group of both,
//   pointwise a_hat * b_hat * n^-1 (or a_hat^2, or a_hat * fixed hat), first inverse group)
//   ──[bigint_mul_tile: middle inverse groups]──> bigint_mul_tile (last inverse group)
//   ──> coefficients c_k ──bigint_gather_carry (limb sums in shared memory, block carry maps)
//   ──> u_j, state, agg ──bigint_carry_finish (each block composes the maps of the blocks before
//   it, then applies) ──> canonical limbs (and top, what lies above).
// With one group (n <= 2^11 at tiles of 2^11) the first bigint_mul_tile does all of it.
//
// Barrett reduction chains these: q1 = t >> (k-1) is split straight from t's bits, q1 * mu,
// q3 = q2 >> (k+1) split from q2, r = t - q3 m (bigint_gather with a minuend), then at most two
// rounds of bigint_sum (r - m) + carries + bigint_select (keep r when the difference is negative).
//
// Field: p = 2^64 - 2^32 + 1 (reduction as crates/bigint/src/field.rs). NTT: cyclic, forward
// decimation in frequency (natural -> bit-reversed), inverse the stages undone in reverse,
// twiddles tw[h + j] = omega_{2h}^j (crates/bigint/src/ntt.rs). A group of g consecutive
// stages runs in shared memory: its butterflies join indices that differ only in g bits, so a
// block loads C = 2^log_c columns of 2^g such elements (C consecutive low indices, coalesced).
//
// Carries: a carry is -1, 0 or +1. Limb j maps an incoming carry c to
// floor((u_j + d_j + c) / 2^64); such maps on {-1, 0, 1} compose associatively (6-bit codes: two
// bits per input, value + 1), so the carries are a parallel scan of maps.
#include <cstdint>

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;

namespace {

constexpr u64 P = 0xffffffff00000001ull;
constexpr u64 EPS = 0xffffffffull;
constexpr u32 IDENTITY = 0u | (1u << 2) | (2u << 4);

__device__ __forceinline__ u64 f_add(u64 a, u64 b) {
    u64 s = a + b;
    if (s < a) s += EPS;
    return s >= P ? s - P : s;
}

__device__ __forceinline__ u64 f_sub(u64 a, u64 b) {
    u64 d = a - b;
    return a < b ? d + P : d;
}

__device__ __forceinline__ u64 f_reduce(u64 lo, u64 hi) {
    const u64 hh = hi >> 32;
    const u64 hl = hi & EPS;
    u64 t0 = lo - hh;
    if (lo < hh) t0 -= EPS;
    const u64 t1 = hl * EPS;
    u64 t2 = t0 + t1;
    if (t2 < t0) t2 += EPS;
    return t2 >= P ? t2 - P : t2;
}

__device__ __forceinline__ u64 f_mul(u64 a, u64 b) { return f_reduce(a * b, __umul64hi(a, b)); }

// The map g after f.
__device__ __forceinline__ u32 compose(u32 g, u32 f) {
    u32 r = 0;
#pragma unroll
    for (u32 c = 0; c < 3; ++c) {
        const u32 fc = (f >> (2 * c)) & 3u;
        r |= ((g >> (2 * fc)) & 3u) << (2 * c);
    }
    return r;
}

__device__ __forceinline__ int apply_map(u32 f, int c) { return (int)((f >> (2 * (c + 1))) & 3u) - 1; }

// floor((u + s) / 2^64) for s in [-2, 2].
__device__ __forceinline__ int carry_of(u64 u, int s) {
    if (s < 0) return u < (u64)(-s) ? -1 : 0;
    if (s > 0) return u >= (u64)0 - (u64)s ? 1 : 0;
    return 0;
}

// t = lo + hi_prev (hi_prev small, signed): its low word and its carry in {-1, 0, 1}.
__device__ __forceinline__ void split_sum(u64 lo, i64 hi_prev, u64& u, int& e) {
    u = lo + (u64)hi_prev;
    if (hi_prev >= 0) {
        e = u < lo ? 1 : 0;
    } else {
        e = lo < (u64)(-hi_prev) ? -1 : 0;
    }
}

// Inclusive scan of maps over a block of blockDim.x (a multiple of 32, at most 1024) threads;
// `scratch` holds blockDim.x words. Returns this thread's inclusive map; `scratch[i]` holds
// thread i's afterwards.
__device__ u32 block_scan(u32 f, u32* scratch) {
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    u32 x = f;
#pragma unroll
    for (u32 off = 1; off < 32; off <<= 1) {
        const u32 y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x = compose(x, y);
    }
    __shared__ u32 warp_totals[32];
    if (lane == 31) warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
        const u32 nwarps = blockDim.x >> 5;
        u32 w = lane < nwarps ? warp_totals[lane] : IDENTITY;
#pragma unroll
        for (u32 off = 1; off < 32; off <<= 1) {
            const u32 y = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= off) w = compose(w, y);
        }
        if (lane < nwarps) warp_totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) x = compose(x, warp_totals[warp - 1]);
    scratch[threadIdx.x] = x;
    __syncthreads();
    return x;
}

struct SplitParams {
    u64 in;          // const u64*: limbs, member stride in_stride
    u64 out;         // u64*: n digits per member
    u64 bit_offset;  // digits of floor(in / 2^bit_offset)
    u32 in_limbs;
    u32 in_stride;
    u32 digit_bits;
    u32 count;       // digits taken; the rest of the n are zero
    u32 n;
    u32 pad;
};

struct GatherParams {
    u64 coeffs;      // const u64*: n coefficients per member
    u64 minuend;     // const u64* or 0: S_j = minuend_j - S_j
    u64 lo;          // u64*: out_limbs per member
    u64 hi;          // i64*
    u32 n;
    u32 digit_bits;
    u32 out_limbs;
    u32 minuend_limbs;
    u32 minuend_stride;
    u32 pad;
};

struct CarryParams {
    u64 lo;          // const u64*: limbs per member
    u64 hi;          // const i64*
    u64 out;         // u64*: limbs per member
    u64 state;       // unsigned char*: limbs per member
    u64 agg;         // u32*: blocks per member (block carry maps, then incoming block carries)
    u64 top;         // i64*: one per member: the value above the top limb
    u32 limbs;
    u32 blocks;
};

struct TileParams {
    u64 a_in;        // const u64*: limbs of a (split), member stride a_stride
    u64 b_in;        // const u64*: limbs of b (split, mode 1), or the fixed hat (mode 2, n words)
    u64 data_a;      // u64*: n words per member
    u64 data_b;      // u64*: n words per member (mode 1)
    u64 tw;          // const u64*: forward table
    u64 itw;         // const u64*: inverse table
    u64 n_inv;
    u64 bit_offset;  // a's digits are those of floor(a / 2^bit_offset)
    u32 a_limbs;
    u32 a_stride;
    u32 a_digits;
    u32 b_limbs;
    u32 b_stride;
    u32 b_digits;
    u32 digit_bits;
    u32 log_n;
    u32 s0;
    u32 g;
    u32 log_c;
    u32 flags;       // TILE_SPLIT | TILE_FORWARD | TILE_PRODUCT | TILE_INVERSE
    u32 mode;        // 0: a^2, 1: a b, 2: a times the fixed hat
    u32 pad;
};

constexpr u32 TILE_SPLIT = 1u;    // load digits straight from the limbs
constexpr u32 TILE_FORWARD = 2u;  // forward stages s0 .. s0+g-1
constexpr u32 TILE_PRODUCT = 4u;  // pointwise product times n^-1
constexpr u32 TILE_INVERSE = 8u;  // inverse stages s0+g-1 down to s0
constexpr u32 MAX_TILE_LOG = 11u; // at most 2^11 words per operand tile

struct GatherCarryParams {
    u64 coeffs;      // const u64*: n coefficients per member
    u64 minuend;     // const u64* or 0: S_j = minuend_j - S_j
    u64 out;         // u64*: limbs per member
    u64 state;       // unsigned char*: limbs per member
    u64 agg;         // u32*: blocks per member (block carry maps)
    u64 top;         // i64* or 0: one per member, the value above the top limb
    u32 n;
    u32 digit_bits;
    u32 limbs;
    u32 blocks;
    u32 minuend_limbs;
    u32 minuend_stride;
};

// Bits [bit_offset + b i, bit_offset + b (i + 1)) of `in` (in_limbs words), 0 for i >= count.
__device__ __forceinline__ u64 digit_at(const u64* in, u32 in_limbs, u64 bit_offset, u32 digit_bits, u64 count,
                                        u64 i) {
    if (i >= count) return 0;
    const u64 mask = digit_bits >= 64 ? ~0ull : ((1ull << digit_bits) - 1);
    const u64 pos = bit_offset + i * digit_bits;
    const u64 word = pos >> 6;
    const u32 shift = (u32)(pos & 63);
    const u64 lo = word < in_limbs ? in[word] >> shift : 0;
    const u64 hi = (shift != 0 && shift + digit_bits > 64 && word + 1 < in_limbs) ? in[word + 1] << (64 - shift) : 0;
    return (lo | hi) & mask;
}

// S_j of bigint_gather: the parts of the coefficients in limb j, or minuend_j - S_j.
__device__ __forceinline__ void limb_sum(const u64* c, u32 n, i64 b, u64 j, const u64* minuend, u32 minuend_limbs,
                                         u64& lo_out, i64& hi_out) {
    const i64 base = 64 * (i64)j;
    i64 k_lo = (base - 63 + b - 1) / b;
    if (base - 63 <= 0) k_lo = 0;
    i64 k_hi = (base + 63) / b;
    if (k_hi > (i64)n - 1) k_hi = (i64)n - 1;
    u64 lo = 0, hi = 0;
    for (i64 k = k_lo; k <= k_hi; ++k) {
        const i64 o = b * k - base;
        const u64 v = c[k];
        const u64 piece = o >= 0 ? v << o : v >> (-o);
        lo += piece;
        hi += lo < piece ? 1 : 0;
    }
    if (minuend) {
        const u64 t = j < minuend_limbs ? minuend[j] : 0;
        const u64 d = t - lo;
        const u64 borrow = t < lo ? 1 : 0;
        lo = d;
        hi = (u64)(-(i64)hi - (i64)borrow);
    }
    lo_out = lo;
    hi_out = (i64)hi;
}

}  // namespace

// Digits: out[i] = bits [bit_offset + b i, bit_offset + b (i + 1)) of the member's limbs for
// i < count, 0 for count <= i < n. Grid: x over n (grid stride), y over members.
extern "C" __global__ void bigint_split(const SplitParams p) {
    const u64* in = (const u64*)p.in + (u64)blockIdx.y * p.in_stride;
    u64* out = (u64*)p.out + (u64)blockIdx.y * p.n;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (u64)gridDim.x * blockDim.x) {
        out[i] = digit_at(in, p.in_limbs, p.bit_offset, p.digit_bits, p.count, i);
    }
}

// Stages s0 .. s0+g-1 of the forward transform (length 2^log_n) in shared memory, 2^log_c
// columns per block (2^(g + log_c) words of dynamic shared memory). Grid: x = n / 2^(g+log_c)
// blocks, y over members. tw: the forward table of crates/bigint/src/ntt.rs.
extern "C" __global__ void bigint_ntt_fwd_group(u64* __restrict__ data, const u64* __restrict__ tw, u32 log_n, u32 s0,
                                                u32 g, u32 log_c) {
    extern __shared__ u64 tile[];
    const u32 lw = log_n - s0 - g;
    const u32 e_count = 1u << (g + log_c);
    const u32 c_mask = (1u << log_c) - 1;
    const u32 chunk_bits = lw - log_c;
    const u64 hi = (u64)blockIdx.x >> chunk_bits;
    const u64 lo_base = ((u64)blockIdx.x & ((1ull << chunk_bits) - 1)) << log_c;
    u64* d = data + ((u64)blockIdx.y << log_n);
    for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
        const u64 k = e >> log_c, c = e & c_mask;
        tile[e] = d[(hi << (lw + g)) | (k << lw) | lo_base | c];
    }
    __syncthreads();
    for (u32 t = 0; t < g; ++t) {
        const u32 log_hk = g - 1 - t;
        const u64 h = 1ull << (log_hk + lw);
        for (u32 q = threadIdx.x; q < e_count / 2; q += blockDim.x) {
            const u32 c = q & c_mask, r = q >> log_c;
            const u32 rk = r & ((1u << log_hk) - 1);
            const u32 k = ((r >> log_hk) << (log_hk + 1)) | rk;
            const u32 e1 = (k << log_c) | c, e2 = ((k + (1u << log_hk)) << log_c) | c;
            const u64 w = tw[h + (((u64)rk << lw) | lo_base | c)];
            const u64 x = tile[e1], y = tile[e2];
            tile[e1] = f_add(x, y);
            tile[e2] = f_mul(f_sub(x, y), w);
        }
        __syncthreads();
    }
    for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
        const u64 k = e >> log_c, c = e & c_mask;
        d[(hi << (lw + g)) | (k << lw) | lo_base | c] = tile[e];
    }
}

// The inverse of bigint_ntt_fwd_group (same geometry; itw the inverse table): stages
// s0+g-1 down to s0, (X, Y) -> (X + Y w^-1, X - Y w^-1); no factor 1/2 (n^-1 is folded into
// bigint_pointwise).
extern "C" __global__ void bigint_ntt_inv_group(u64* __restrict__ data, const u64* __restrict__ itw, u32 log_n, u32 s0,
                                                u32 g, u32 log_c) {
    extern __shared__ u64 tile[];
    const u32 lw = log_n - s0 - g;
    const u32 e_count = 1u << (g + log_c);
    const u32 c_mask = (1u << log_c) - 1;
    const u32 chunk_bits = lw - log_c;
    const u64 hi = (u64)blockIdx.x >> chunk_bits;
    const u64 lo_base = ((u64)blockIdx.x & ((1ull << chunk_bits) - 1)) << log_c;
    u64* d = data + ((u64)blockIdx.y << log_n);
    for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
        const u64 k = e >> log_c, c = e & c_mask;
        tile[e] = d[(hi << (lw + g)) | (k << lw) | lo_base | c];
    }
    __syncthreads();
    for (int t = (int)g - 1; t >= 0; --t) {
        const u32 log_hk = g - 1 - (u32)t;
        const u64 h = 1ull << (log_hk + lw);
        for (u32 q = threadIdx.x; q < e_count / 2; q += blockDim.x) {
            const u32 c = q & c_mask, r = q >> log_c;
            const u32 rk = r & ((1u << log_hk) - 1);
            const u32 k = ((r >> log_hk) << (log_hk + 1)) | rk;
            const u32 e1 = (k << log_c) | c, e2 = ((k + (1u << log_hk)) << log_c) | c;
            const u64 w = itw[h + (((u64)rk << lw) | lo_base | c)];
            const u64 x = tile[e1], y = f_mul(tile[e2], w);
            tile[e1] = f_add(x, y);
            tile[e2] = f_sub(x, y);
        }
        __syncthreads();
    }
    for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
        const u64 k = e >> log_c, c = e & c_mask;
        d[(hi << (lw + g)) | (k << lw) | lo_base | c] = tile[e];
    }
}

// out[i] = a[i] b[i] scale mod p; member strides a_stride, b_stride (0: one operand for all),
// n for out. Grid: x over n (grid stride), y over members. out may be a or b.
extern "C" __global__ void bigint_pointwise(u64* out, const u64* a, const u64* b, u64 scale, u32 n, u32 a_stride,
                                            u32 b_stride) {
    const u64 m = blockIdx.y;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        out[m * n + i] = f_mul(f_mul(a[m * a_stride + i], b[m * b_stride + i]), scale);
    }
}

// Limb sums of sum_k c_k 2^(b k): S_j = sum of the parts of the coefficients in bits
// [64 j, 64 j + 64) (crates/bigint/src/mul.rs `gather`), or minuend_j - S_j. One thread per
// limb j < out_limbs (grid stride), y over members.
extern "C" __global__ void bigint_gather(const GatherParams p) {
    const u64* c = (const u64*)p.coeffs + (u64)blockIdx.y * p.n;
    u64* lo_out = (u64*)p.lo + (u64)blockIdx.y * p.out_limbs;
    i64* hi_out = (i64*)p.hi + (u64)blockIdx.y * p.out_limbs;
    const u64* minuend = p.minuend ? (const u64*)p.minuend + (u64)blockIdx.y * p.minuend_stride : nullptr;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < p.out_limbs; j += (u64)gridDim.x * blockDim.x) {
        limb_sum(c, p.n, p.digit_bits, j, minuend, p.minuend_limbs, lo_out[j], hi_out[j]);
    }
}

// S_j = a_j + sign b_j (sign = +1 or -1), limbs < a_limbs / b_limbs taken, zeros above;
// member strides a_stride, b_stride (0: one operand for all), out_limbs for lo/hi. Grid: x over
// limbs (grid stride), y over members.
extern "C" __global__ void bigint_sum(u64* lo_out, i64* hi_out, const u64* a, const u64* b, u32 out_limbs,
                                      u32 a_limbs, u32 a_stride, u32 b_limbs, u32 b_stride, int sign) {
    const u64 m = blockIdx.y;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < out_limbs; j += (u64)gridDim.x * blockDim.x) {
        const u64 x = j < a_limbs ? a[m * a_stride + j] : 0;
        const u64 y = j < b_limbs ? b[m * b_stride + j] : 0;
        u64 lo;
        i64 hi;
        if (sign >= 0) {
            lo = x + y;
            hi = lo < x ? 1 : 0;
        } else {
            lo = x - y;
            hi = x < y ? -1 : 0;
        }
        lo_out[m * out_limbs + j] = lo;
        hi_out[m * out_limbs + j] = hi;
    }
}

// Carries, step 1: one thread per limb, blockDim.x = 256 limbs per block. Writes u_j to out,
// state[j] = exclusive map within the block | (d_j + 1) << 6, agg[block] = the block's map.
extern "C" __global__ void bigint_carry_block(const CarryParams p) {
    __shared__ u32 scratch[1024];
    const u64 m = blockIdx.y;
    const u64* lo = (const u64*)p.lo + m * p.limbs;
    const i64* hi = (const i64*)p.hi + m * p.limbs;
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u32 f = IDENTITY;
    u64 u = 0;
    int d = 0;
    if (j < p.limbs) {
        int e;
        split_sum(lo[j], j >= 1 ? hi[j - 1] : 0, u, e);
        if (j >= 1) {
            u64 u_prev;
            split_sum(lo[j - 1], j >= 2 ? hi[j - 2] : 0, u_prev, d);
        }
        f = 0;
        for (int c = -1; c <= 1; ++c) f |= (u32)(carry_of(u, d + c) + 1) << (2 * (c + 1));
    }
    const u32 incl = block_scan(f, scratch);
    const u32 excl = threadIdx.x == 0 ? IDENTITY : scratch[threadIdx.x - 1];
    if (j < p.limbs) {
        ((u64*)p.out)[m * p.limbs + j] = u;
        ((unsigned char*)p.state)[m * p.limbs + j] = (unsigned char)(excl | ((u32)(d + 1) << 6));
    }
    if (threadIdx.x == blockDim.x - 1) ((u32*)p.agg)[m * p.blocks + blockIdx.x] = incl;
}

// Carries, step 2: one block per member scans the block maps in chunks of blockDim.x;
// agg[block] becomes the carry into that block (+ 1); top[member] = the value above the top limb.
extern "C" __global__ void bigint_carry_blocks(const CarryParams p) {
    __shared__ u32 scratch[1024];
    const u64 m = blockIdx.y;
    u32* agg = (u32*)p.agg + m * p.blocks;
    int carry = 0;
    for (u32 base = 0; base < p.blocks; base += blockDim.x) {
        const u32 b = base + threadIdx.x;
        const u32 f = b < p.blocks ? agg[b] : IDENTITY;
        block_scan(f, scratch);
        const u32 excl = threadIdx.x == 0 ? IDENTITY : scratch[threadIdx.x - 1];
        const u32 total = scratch[blockDim.x - 1];
        if (b < p.blocks) agg[b] = (u32)(apply_map(excl, carry) + 1);
        carry = apply_map(total, carry);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const u64* lo = (const u64*)p.lo + m * p.limbs;
        const i64* hi = (const i64*)p.hi + m * p.limbs;
        const u64 l = p.limbs;
        u64 u;
        int e;
        split_sum(lo[l - 1], l >= 2 ? hi[l - 2] : 0, u, e);
        ((i64*)p.top)[m] = (i64)carry + e + hi[l - 1];
    }
}

// Carries, step 3: out[j] = u_j + d_j + (carry into j), the carry into j being the block's
// exclusive map applied to the carry into the block.
extern "C" __global__ void bigint_carry_apply(const CarryParams p) {
    const u64 m = blockIdx.y;
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p.limbs) return;
    const u32 s = ((const unsigned char*)p.state)[m * p.limbs + j];
    const int cin = (int)((const u32*)p.agg)[m * p.blocks + blockIdx.x] - 1;
    const int c = apply_map(s & 63u, cin);
    const int d = (int)(s >> 6) - 1;
    u64* out = (u64*)p.out + m * p.limbs;
    out[j] = out[j] + (u64)(i64)(d + c);
}

// out[j] = top[member] < 0 ? keep[j] : take[j], for j < out_limbs; member strides in_stride
// (keep, take) and out_limbs (out). Grid: x over limbs (grid stride), y over members.
extern "C" __global__ void bigint_select(u64* out, const u64* keep, const u64* take, const i64* top, u32 out_limbs,
                                         u32 in_stride) {
    const u64 m = blockIdx.y;
    const bool negative = top[m] < 0;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < out_limbs; j += (u64)gridDim.x * blockDim.x) {
        out[m * out_limbs + j] = negative ? keep[m * in_stride + j] : take[m * in_stride + j];
    }
}

// Linear combinations of a table of residues (Gentry-Halevi Encrypt's windows): member y gets
// the limb sums of offset + sum_{i < width} coeffs[y width + i] table[i], coefficients in
// [-127, 127], table rows of `limbs` words, offset (a multiple of the modulus that keeps the
// sum non-negative) of offset_limbs words; out_limbs per member. Grid: x over limbs (grid
// stride), y over members.
extern "C" __global__ void bigint_lincomb(u64* lo_out, i64* hi_out, const u64* __restrict__ table,
                                          const signed char* __restrict__ coeffs, const u64* __restrict__ offset,
                                          u32 width, u32 limbs, u32 offset_limbs, u32 out_limbs) {
    const u64 m = blockIdx.y;
    const signed char* c = coeffs + m * width;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < out_limbs; j += (u64)gridDim.x * blockDim.x) {
        u64 p_lo = j < offset_limbs ? offset[j] : 0, p_hi = 0, n_lo = 0, n_hi = 0;
        if (j < limbs) {
            for (u32 i = 0; i < width; ++i) {
                const int k = c[i];
                if (k == 0) continue;
                const u64 v = table[(u64)i * limbs + j];
                const u64 mag = (u64)(k < 0 ? -k : k);
                const u64 plo = v * mag, phi = __umul64hi(v, mag);
                if (k > 0) {
                    p_lo += plo;
                    p_hi += phi + (p_lo < plo ? 1 : 0);
                } else {
                    n_lo += plo;
                    n_hi += phi + (n_lo < plo ? 1 : 0);
                }
            }
        }
        const u64 lo = p_lo - n_lo;
        const u64 borrow = p_lo < n_lo ? 1 : 0;
        lo_out[m * out_limbs + j] = lo;
        hi_out[m * out_limbs + j] = (i64)(p_hi - n_hi - borrow);
    }
}

// One group of transform stages of a product, fused with what comes before and after it
// (the header's fused path). Geometry of bigint_ntt_fwd_group: stages s0 .. s0+g-1, 2^log_c
// columns per block, 2^(g+log_c) words per operand tile in dynamic shared memory (two tiles in
// mode 1), grid x = n / 2^(g+log_c), y over members, blockDim.x >= 2^(g+log_c-1) (one
// butterfly per thread and stage).
//   load:    TILE_SPLIT: the digits of a (and of b in mode 1) from their limbs; else the
//            words of data_a (and data_b in mode 1).
//   forward: TILE_FORWARD: stages s0 .. s0+g-1 of the forward transform on each tile.
//   product: TILE_PRODUCT (the last forward group: lw = 0): a_hat * x * n^-1 per point, x
//            being b_hat (mode 1), a_hat (mode 0) or the fixed hat b_in[i] (mode 2).
//   inverse: TILE_INVERSE: stages s0+g-1 down to s0 of the inverse (bigint_ntt_inv_group's)
//            on tile a.
//   store:   tile a to data_a; without TILE_PRODUCT, tile b to data_b too (mode 1).
extern "C" __global__ void bigint_mul_tile(const TileParams p) {
    extern __shared__ u64 tile[];
    const u32 lw = p.log_n - p.s0 - p.g;
    const u32 g = p.g, log_c = p.log_c;
    const u32 e_count = 1u << (g + log_c);
    const u32 c_mask = (1u << log_c) - 1;
    const u32 chunk_bits = lw - log_c;
    const u64 hi = (u64)blockIdx.x >> chunk_bits;
    const u64 lo_base = ((u64)blockIdx.x & ((1ull << chunk_bits) - 1)) << log_c;
    const u64 member = blockIdx.y;
    const bool two = p.mode == 1;
    u64* ta = tile;
    u64* tb = tile + e_count;
    u64* da = (u64*)p.data_a + (member << p.log_n);
    u64* db = two ? (u64*)p.data_b + (member << p.log_n) : nullptr;
    const u64* tw = (const u64*)p.tw;
    const u64* itw = (const u64*)p.itw;
    if (p.flags & TILE_SPLIT) {
        const u64* ain = (const u64*)p.a_in + member * p.a_stride;
        const u64* bin = two ? (const u64*)p.b_in + member * p.b_stride : nullptr;
        for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
            const u64 k = e >> log_c, c = e & c_mask;
            const u64 i = (hi << (lw + g)) | (k << lw) | lo_base | c;
            ta[e] = digit_at(ain, p.a_limbs, p.bit_offset, p.digit_bits, p.a_digits, i);
            if (two) tb[e] = digit_at(bin, p.b_limbs, 0, p.digit_bits, p.b_digits, i);
        }
    } else {
        for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
            const u64 k = e >> log_c, c = e & c_mask;
            const u64 i = (hi << (lw + g)) | (k << lw) | lo_base | c;
            ta[e] = da[i];
            if (two) tb[e] = db[i];
        }
    }
    __syncthreads();
    // One butterfly per thread and stage (blockDim.x >= e_count / 2): this thread's twiddles
    // of every stage are loaded up front, off the stages' critical path.
    const u32 q = threadIdx.x;
    const bool active = q < e_count / 2;
    const u32 qc = q & c_mask, qr = q >> log_c;
    u64 wf[MAX_TILE_LOG], wi[MAX_TILE_LOG];
#pragma unroll
    for (u32 t = 0; t < MAX_TILE_LOG; ++t) {
        wf[t] = 0;
        wi[t] = 0;
        if (t < g && active) {
            const u32 log_hk = g - 1 - t;
            const u32 rk = qr & ((1u << log_hk) - 1);
            const u64 w = (1ull << (log_hk + lw)) + (((u64)rk << lw) | lo_base | qc);
            if (p.flags & TILE_FORWARD) wf[t] = tw[w];
            if (p.flags & TILE_INVERSE) wi[t] = itw[w];
        }
    }
    if (p.flags & TILE_FORWARD) {
#pragma unroll
        for (u32 t = 0; t < MAX_TILE_LOG; ++t) {
            if (t < g) {
                if (active) {
                    const u32 log_hk = g - 1 - t;
                    const u32 rk = qr & ((1u << log_hk) - 1);
                    const u32 k = ((qr >> log_hk) << (log_hk + 1)) | rk;
                    const u32 e1 = (k << log_c) | qc, e2 = ((k + (1u << log_hk)) << log_c) | qc;
                    const u64 x = ta[e1], y = ta[e2];
                    ta[e1] = f_add(x, y);
                    ta[e2] = f_mul(f_sub(x, y), wf[t]);
                    if (two) {
                        const u64 xb = tb[e1], yb = tb[e2];
                        tb[e1] = f_add(xb, yb);
                        tb[e2] = f_mul(f_sub(xb, yb), wf[t]);
                    }
                }
                __syncthreads();
            }
        }
    }
    if (p.flags & TILE_PRODUCT) {
        const u64* fixed = (const u64*)p.b_in;
        for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
            const u64 k = e >> log_c, c = e & c_mask;
            const u64 i = (hi << (lw + g)) | (k << lw) | lo_base | c;
            const u64 x = p.mode == 1 ? tb[e] : (p.mode == 0 ? ta[e] : fixed[i]);
            ta[e] = f_mul(f_mul(ta[e], x), p.n_inv);
        }
        __syncthreads();
    }
    if (p.flags & TILE_INVERSE) {
#pragma unroll
        for (int t = (int)MAX_TILE_LOG - 1; t >= 0; --t) {
            if (t < (int)g) {
                if (active) {
                    const u32 log_hk = g - 1 - (u32)t;
                    const u32 rk = qr & ((1u << log_hk) - 1);
                    const u32 k = ((qr >> log_hk) << (log_hk + 1)) | rk;
                    const u32 e1 = (k << log_c) | qc, e2 = ((k + (1u << log_hk)) << log_c) | qc;
                    const u64 x = ta[e1], y = f_mul(ta[e2], wi[t]);
                    ta[e1] = f_add(x, y);
                    ta[e2] = f_sub(x, y);
                }
                __syncthreads();
            }
        }
    }
    for (u32 e = threadIdx.x; e < e_count; e += blockDim.x) {
        const u64 k = e >> log_c, c = e & c_mask;
        const u64 i = (hi << (lw + g)) | (k << lw) | lo_base | c;
        da[i] = ta[e];
        if (two && !(p.flags & TILE_PRODUCT)) db[i] = tb[e];
    }
}

// Carries of the fused path, step 1: bigint_gather and bigint_carry_block in one launch.
// Block x (blockDim.x = 256 limbs) sums limbs x 256 - 2 .. x 256 + 255 into shared memory (the
// two below are the incoming halo), then as bigint_carry_block: u_j to out, state[j],
// agg[x] = the block's map; the thread of the top limb writes top[member] = e + hi (the value
// above the top limb before the carry into it; bigint_carry_finish adds that). Grid: x over
// blocks, y over members.
extern "C" __global__ void bigint_gather_carry(const GatherCarryParams p) {
    __shared__ u32 scratch[1024];
    __shared__ u64 s_lo[1024 + 2];
    __shared__ i64 s_hi[1024 + 2];
    const u64 m = blockIdx.y;
    const u64* c = (const u64*)p.coeffs + m * p.n;
    const u64* minuend = p.minuend ? (const u64*)p.minuend + m * p.minuend_stride : nullptr;
    const i64 base = (i64)blockIdx.x * blockDim.x;
    for (u32 t = threadIdx.x; t < blockDim.x + 2; t += blockDim.x) {
        const i64 j = base - 2 + (i64)t;
        u64 lo = 0;
        i64 hi = 0;
        if (j >= 0 && j < (i64)p.limbs) limb_sum(c, p.n, p.digit_bits, (u64)j, minuend, p.minuend_limbs, lo, hi);
        s_lo[t] = lo;
        s_hi[t] = hi;
    }
    __syncthreads();
    const u32 t = threadIdx.x;
    const u64 j = (u64)base + t;
    u32 f = IDENTITY;
    u64 u = 0;
    int d = 0;
    if (j < p.limbs) {
        int e;
        split_sum(s_lo[t + 2], s_hi[t + 1], u, e);
        u64 u_prev;
        split_sum(s_lo[t + 1], s_hi[t], u_prev, d);
        f = 0;
        for (int cc = -1; cc <= 1; ++cc) f |= (u32)(carry_of(u, d + cc) + 1) << (2 * (cc + 1));
        if (p.top && j == p.limbs - 1) ((i64*)p.top)[m] = (i64)e + s_hi[t + 2];
    }
    const u32 incl = block_scan(f, scratch);
    const u32 excl = t == 0 ? IDENTITY : scratch[t - 1];
    if (j < p.limbs) {
        ((u64*)p.out)[m * p.limbs + j] = u;
        ((unsigned char*)p.state)[m * p.limbs + j] = (unsigned char)(excl | ((u32)(d + 1) << 6));
    }
    if (t == blockDim.x - 1) ((u32*)p.agg)[m * p.blocks + blockIdx.x] = incl;
}

// Carries of the fused path, step 2 (bigint_carry_blocks and bigint_carry_apply in one
// launch): block x composes the maps of blocks 0 .. x-1 (each thread a run of them in order,
// then a block scan), applies the result to carry 0 (the carry into block x), then
// out[j] = u_j + d_j + carry_j for its limbs; the last block adds the carry out of the top limb
// to top[member]. Geometry of bigint_gather_carry.
extern "C" __global__ void bigint_carry_finish(const GatherCarryParams p) {
    __shared__ u32 scratch[1024];
    const u64 m = blockIdx.y;
    const u32* agg = (const u32*)p.agg + m * p.blocks;
    const u32 x = blockIdx.x;
    const u32 run = (x + blockDim.x - 1) / blockDim.x;
    const u32 first = threadIdx.x * run;
    const u32 last = min(first + run, x);
    u32 f = IDENTITY;
    for (u32 i = first; i < last; ++i) f = compose(agg[i], f);
    block_scan(f, scratch);
    const int cin = apply_map(scratch[blockDim.x - 1], 0);
    const u64 j = (u64)x * blockDim.x + threadIdx.x;
    if (j < p.limbs) {
        const u32 s = ((const unsigned char*)p.state)[m * p.limbs + j];
        const int c = apply_map(s & 63u, cin);
        const int d = (int)(s >> 6) - 1;
        u64* out = (u64*)p.out + m * p.limbs;
        out[j] = out[j] + (u64)(i64)(d + c);
    }
    if (p.top && x == p.blocks - 1 && threadIdx.x == 0) ((i64*)p.top)[m] += apply_map(agg[x], cin);
}
