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

}  // namespace

// Digits: out[i] = bits [bit_offset + b i, bit_offset + b (i + 1)) of the member's limbs for
// i < count, 0 for count <= i < n. Grid: x over n (grid stride), y over members.
extern "C" __global__ void bigint_split(const SplitParams p) {
    const u64* in = (const u64*)p.in + (u64)blockIdx.y * p.in_stride;
    u64* out = (u64*)p.out + (u64)blockIdx.y * p.n;
    const u64 mask = p.digit_bits >= 64 ? ~0ull : ((1ull << p.digit_bits) - 1);
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (u64)gridDim.x * blockDim.x) {
        u64 v = 0;
        if (i < p.count) {
            const u64 pos = p.bit_offset + i * p.digit_bits;
            const u64 word = pos >> 6;
            const u32 shift = (u32)(pos & 63);
            const u64 lo = word < p.in_limbs ? in[word] >> shift : 0;
            const u64 hi = (shift != 0 && shift + p.digit_bits > 64 && word + 1 < p.in_limbs) ? in[word + 1] << (64 - shift) : 0;
            v = (lo | hi) & mask;
        }
        out[i] = v;
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
    const i64 b = p.digit_bits;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < p.out_limbs; j += (u64)gridDim.x * blockDim.x) {
        const i64 base = 64 * (i64)j;
        i64 k_lo = (base - 63 + b - 1) / b;
        if (base - 63 <= 0) k_lo = 0;
        i64 k_hi = (base + 63) / b;
        if (k_hi > (i64)p.n - 1) k_hi = (i64)p.n - 1;
        u64 lo = 0, hi = 0;
        for (i64 k = k_lo; k <= k_hi; ++k) {
            const i64 o = b * k - base;
            const u64 v = c[k];
            const u64 piece = o >= 0 ? v << o : v >> (-o);
            lo += piece;
            hi += lo < piece ? 1 : 0;
        }
        if (minuend) {
            const u64 t = j < p.minuend_limbs ? minuend[j] : 0;
            const u64 d = t - lo;
            const u64 borrow = t < lo ? 1 : 0;
            lo = d;
            hi = (u64)(-(i64)hi - (i64)borrow);
        }
        lo_out[j] = lo;
        hi_out[j] = (i64)hi;
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
