// RNS base conversions and scalings, bit-exact with crates/rns (the CPU reference):
// fast and exact base conversion, Shenoy-Kumaresan, BEHZ (S0 + S1 extension with the small
// Montgomery reduction by m~, fast floor, decryption with gamma), HPS (exact extensions,
// scale-and-round into P and into Z_t with 128-bit fixed-point fractions), ModUp, ModDown.
// Host side: crates/rns/src/gpu/ (the parameter structs below are mirrored there, field by
// field, as #[repr(C)] structs).
//
// Data: limb-major polynomials, limb i of a polynomial at data + i * n, canonical residues.
// Every output word is a canonical residue determined by exact integer arithmetic, so it
// equals the CPU's word for word; sums are formed exactly as the CPU forms them (lazy Shoup
// products in a 128-bit accumulator, the FixedPointSum of crates/rns/src/word.rs).
//
// Conversion kernels (one template, a MODE per operation): a block takes a TILE of
// consecutive coefficients and a GROUP of output limbs (grid x = tiles, grid y = groups, grid z
// = the polynomials of a batch, each with its own input and output).
//   phase 1   every source residue of the tile is loaded once (coalesced), scaled
//             (y_i = |x_i * scale_i|_{a_i}, or y_i = x_i) and kept in shared memory
//             y[i * TILE + c]; the raw residues may also be copied out (extend = copy q limbs
//             and write the others in one pass);
//   phase 1b  per coefficient: the value every output limb of that coefficient needs (the
//             overflow count v of the exact conversion, Shenoy-Kumaresan's alpha, the
//             Montgomery correction r of BEHZ S1, the rounded fraction of HPS scaling), its
//             terms split over neighbouring threads and merged exactly by warp shuffles (v
//             over moduli below 2^40: an FP64 estimate, exact sums only in a warp where one
//             estimate lies within 2^-30 of a rounding boundary);
//   phase 2   each thread forms the inner products sum_i y_i * w_{j,i} of two output limbs
//             for two coefficients (register blocking: 2 shared and 2 table loads per 4
//             products) as exact sums of full 128-bit products (128-bit sums when the host's
//             bound k (max a_i - 1)(max c_j - 1) + HPS start < 2^128 holds: `narrow`, else
//             192-bit; with every factor below 2^40, `split`, as exact FP64 sums of 20-bit
//             part products, wide_sum::SumSplit, from y split in phase 1 and a split table;
//             the exact conversion's correction -v (A mod c_j) then joins the split sum as one
//             more term), reduces once, and applies the mode's epilogue; consecutive threads
//             write consecutive coefficients. `split` = 2 forms the same three FP64 sums on
//             the tensor cores (inner_products_mma: each warp a 16 x 8 block of coefficients
//             and output limbs, m8n8k4 FP64 MMAs over 4 source limbs at a time, from y split
//             and transposed, ysT[c * KP + i]); every sum is an exact integer below 2^53
//             whatever the order of its additions, so the words are those of `split` = 1.
//   The inner products differ in form from the CPU's (lazy Shoup products summed in 128
//   bits) but not in value modulo the prime, so the canonical outputs are the same words.
#include <cstdint>
#include <type_traits>

#include "dependent_launch.cuh"
#include "modarith.cuh"
#include "wide_sum.cuh"

using modarith::Modulus;
using wide_sum::Sum128;
using wide_sum::sum128;
using wide_sum::sum128_mad;
using wide_sum::Sum192;
using wide_sum::sum192;
using wide_sum::sum192_mad;
using wide_sum::sum192_merge;
using wide_sum::sum192_reduce;
using wide_sum::SumSplit;
using modarith::u64;
typedef uint32_t u32;

// Threads per block of every kernel here (the host launches with this many).
#define RNS_THREADS 256
// Blocks per SM the conversion kernels are compiled for (registers per thread: 65536 /
// (RNS_THREADS * RNS_MIN_BLOCKS)).
#ifndef RNS_MIN_BLOCKS
#define RNS_MIN_BLOCKS 4
#endif

namespace {

// (hi, lo) += x.
__device__ __forceinline__ void acc_add(u64& lo, u64& hi, const u64 x) {
    lo += x;
    hi += lo < x ? 1 : 0;
}

// The 128-bit fixed-point sum of crates/rns/src/word.rs (FixedPointSum): integer part in
// (int_hi, int_lo), fractional part scaled by 2^128 in (frac_hi, frac_lo).
struct FixedPointSum {
    u64 int_lo, int_hi, frac_lo, frac_hi;
};

__device__ __forceinline__ FixedPointSum fixed_point_zero() {
    FixedPointSum s;
    s.int_lo = s.int_hi = s.frac_lo = s.frac_hi = 0;
    return s;
}

// s += x * (hi 2^64 + lo) / 2^128, exactly: the 192-bit product's top word is its integer
// part, its low two words its fraction; fraction carries go to the integer part.
__device__ __forceinline__ void fixed_point_add(FixedPointSum& s, const u64 x, const u64 hi, const u64 lo) {
    const u64 word0 = x * lo;
    const u64 low_hi = __umul64hi(x, lo);
    const u64 high_lo = x * hi;
    const u64 high_hi = __umul64hi(x, hi);
    const u64 word1 = low_hi + high_lo;
    const u64 word2 = high_hi + (word1 < high_lo ? 1 : 0);
    const u64 f0 = s.frac_lo + word0;
    const u64 carry0 = f0 < word0 ? 1 : 0;
    const u64 t1 = s.frac_hi + word1;
    const u64 carry_a = t1 < word1 ? 1 : 0;
    const u64 f1 = t1 + carry0;
    const u64 carry_b = f1 < carry0 ? 1 : 0;  // at most one of carry_a, carry_b is set
    s.frac_lo = f0;
    s.frac_hi = f1;
    acc_add(s.int_lo, s.int_hi, word2 + carry_a + carry_b);
}

// floor(sum + 1/2) as (hi, lo): FixedPointSum::rounded.
__device__ __forceinline__ void fixed_point_rounded(const FixedPointSum& s, u64& lo, u64& hi) {
    lo = s.int_lo;
    hi = s.int_hi;
    acc_add(lo, hi, s.frac_hi >> 63);
}

}  // namespace

// Operations of the conversion template.
enum ConvertMode {
    // out_j = sum_i y_i w_{j,i} mod c_j (BaseConverter::fast_convert, BEHZ S0).
    MODE_FAST = 0,
    // out_j = fast_j - v (A mod c_j), v = round(sum_i y_i / a_i) (BaseConverter::exact_convert,
    // HPS extensions, ModUp exact).
    MODE_EXACT = 1,
    // Shenoy-Kumaresan: alpha = [(fast_sk - x_sk) M^-1]_{m_sk} (centered) from the redundant row
    // `l` and the redundant input limb; out_j = fast_j - alpha (M mod c_j).
    MODE_SHENOY_KUMARESAN = 2,
    // BEHZ S0 + S1: r = [fast_{m~} (-q^-1)]_{m~} (centered) from the redundant row `l`;
    // out_j = (fast_j + q r) m~^-1 mod m_j (epi_a = q mod m_j, epi_b = m~^-1 mod m_j).
    MODE_BEHZ_EXTEND = 3,
    // BEHZ S3: out_j = x_j (t q^-1) - fast_j q^-1 mod m_j (x_j = extra limb j,
    // epi_a = t q^-1 mod m_j, epi_b = q^-1 mod m_j).
    MODE_FLOOR = 4,
    // ModDown: r_j = exact conversion of the P limbs; out_j = (x_j - r_j) P^-1 mod q_j
    // (x_j = extra limb j, epi_a = P^-1 mod q_j).
    MODE_MOD_DOWN = 5,
    // HPS scale-and-round into P: y_i = x_i (no scale), R = round(sum_i x_i theta'_i);
    // out_j = R + sum_i x_i omega'_i + x_j lambda_j mod p_j (x_j = extra limb j,
    // epi_a = lambda_j).
    MODE_HPS_SCALE = 6,
};

// Polynomials one conversion launch may take (grid z).
#define CONVERT_BATCH 4

// Arguments of every conversion kernel (mirrored by `ConvertParams` in crates/rns/src/gpu/).
// Unused pointers are null.
struct ConvertParams {
    const u64* input;            // k source limbs, limb i at input + i * n
    const u64* redundant_input;  // Shenoy-Kumaresan: the m_sk limb (n values)
    const u64* extra;            // per output limb j, a second input limb at extra + j * n
    u64* output;                 // output limb j at output + o(j) * n, o(j) = j or j + skip_len
    u64* copy;                   // if set, source limb i is also copied to copy + i * n
    const Modulus* from;         // k source moduli
    const u64* scale;            // k per-limb scales (y_i = x_i scale_i mod a_i), or null: y_i = x_i
    const u64* scale_shoup;
    const Modulus* to;           // target moduli: l output rows (+ the redundant row l)
    const u64* table;            // row j at table + j * k: w_{j,i}
    const double2* table_split;  // `split` only: w_{j,i} as wide_sum::split_factor, same layout
    const u64* product;          // l words: the source product mod c_j
    const u64* product_shoup;
    const u64* fraction_hi;      // k fixed-point fractions (1 / a_i, or theta'_i)
    const u64* fraction_lo;
    const u64* epi_a;            // l per-output-limb constants of the epilogue
    const u64* epi_a_shoup;
    const u64* epi_b;
    const u64* epi_b_shoup;
    u64 redundant_w;             // Shenoy-Kumaresan: M^-1 mod m_sk; BEHZ S1: -q^-1 mod m~
    u64 redundant_w_shoup;
    u64 n;                       // coefficients per limb
    u32 k;                       // source limbs
    u32 l;                       // output limbs
    u32 skip_start;              // output limbs j >= skip_start go to j + skip_len (ModUp)
    u32 skip_len;
    u32 log_tile;                // TILE = 2^log_tile coefficients per block
    u32 group;                   // output limbs per block (blockIdx.y = group index)
    u32 narrow;                  // 1: every inner product (with its HPS start) is below 2^128
    u32 split;                   // 1: phase 2 on the FP64 pipe (inner_products with SumSplit);
                                 // 2: on the FP64 tensor cores (inner_products_mma)
    // Batches (gridDim.z = count > 1, at most CONVERT_BATCH): member z reads batch_input[z] and
    // writes batch_output[z]; redundant_input, extra and copy keep their offsets from input and
    // output (member 0's input and output are `input` and `output`).
    u64 batch_input[CONVERT_BATCH];
    u64 batch_output[CONVERT_BATCH];
};
static_assert(sizeof(ConvertParams) == 22 * 8 + 8 * 4 + 2 * CONVERT_BATCH * 8, "mirrored in crates/rns/src/gpu/launch.rs");

// The buffers of this block's batch member.
struct ConvertBuffers {
    const u64* input;
    const u64* redundant_input;
    const u64* extra;
    u64* output;
    u64* copy;
};

namespace {

__device__ __forceinline__ ConvertBuffers buffers_of(const ConvertParams& P) {
    ConvertBuffers b = {P.input, P.redundant_input, P.extra, P.output, P.copy};
    if (gridDim.z > 1) {
        // Offsets by wrapping 64-bit arithmetic on the addresses (unsigned: no overflow UB).
        const u64 in_shift = P.batch_input[blockIdx.z] - (u64)P.input;
        const u64 out_shift = P.batch_output[blockIdx.z] - (u64)P.output;
        b.input = reinterpret_cast<const u64*>(P.batch_input[blockIdx.z]);
        b.output = reinterpret_cast<u64*>(P.batch_output[blockIdx.z]);
        if (P.redundant_input) b.redundant_input = reinterpret_cast<const u64*>((u64)P.redundant_input + in_shift);
        if (P.extra) b.extra = reinterpret_cast<const u64*>((u64)P.extra + in_shift);
        if (P.copy) b.copy = reinterpret_cast<u64*>((u64)P.copy + out_shift);
    }
    return b;
}

// a += b for fixed-point sums: exact, so partial sums over any split of the terms merge into
// the sum FixedPointSum::add_product forms term by term.
__device__ __forceinline__ void fixed_point_merge(FixedPointSum& a, const FixedPointSum& b) {
    u64 carry;
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u64 %2, 0, 0;"
        : "+l"(a.frac_lo), "+l"(a.frac_hi), "=l"(carry)
        : "l"(b.frac_lo), "l"(b.frac_hi));
    asm("add.cc.u64 %0, %0, %2;\n\t"
        "addc.u64 %1, %1, %3;\n\t"
        "add.cc.u64 %0, %0, %4;\n\t"
        "addc.u64 %1, %1, 0;"
        : "+l"(a.int_lo), "+l"(a.int_hi)
        : "l"(b.int_lo), "l"(b.int_hi), "l"(carry));
}

__device__ __forceinline__ u64 shuffle_down(const u64 value, const u32 offset) {
    return __shfl_down_sync(0xffffffffu, value, offset);
}

// A lazy sum of the thread `offset` lanes down the warp (all lanes take part).
__device__ __forceinline__ FixedPointSum shuffle_down(const FixedPointSum& value, const u32 offset) {
    FixedPointSum other;
    other.int_lo = shuffle_down(value.int_lo, offset);
    other.int_hi = shuffle_down(value.int_hi, offset);
    other.frac_lo = shuffle_down(value.frac_lo, offset);
    other.frac_hi = shuffle_down(value.frac_hi, offset);
    return other;
}

__device__ __forceinline__ Sum192 shuffle_down(const Sum192& value, const u32 offset) {
    Sum192 other;
    other.s0 = shuffle_down(value.s0, offset);
    other.s1 = shuffle_down(value.s1, offset);
    other.s2 = shuffle_down(value.s2, offset);
    return other;
}

// The constants of output limb j that its epilogues read, loaded once per limb: a thread
// finishes several coefficients of one limb, and between them stores to the output, which the
// compiler cannot tell apart from the tables (it would load them again for every output).
struct OutputRow {
    Modulus m;
    modarith::ShortReducer short_m;  // SHORT epilogues only
    u64 product, product_shoup;      // A mod c_j (exact conversion, Shenoy-Kumaresan)
    u64 epi_a, epi_a_shoup, epi_b, epi_b_shoup;
    u64 minus_a;                     // c_j - (A mod c_j), FOLDED sums only (as a word)
    u64* out;                        // the output limb
    const u64* extra;                // extra limb j (ModDown, BEHZ floor, HPS scaling)
};

template <int MODE, bool SHORT = false, bool FOLDED = false>
__device__ __forceinline__ OutputRow output_row(const ConvertParams& P, const ConvertBuffers& B, const u32 j) {
    OutputRow r;
    r.m = P.to[j];
    if (SHORT) r.short_m = modarith::short_reducer(r.m);
    if ((MODE == MODE_EXACT || MODE == MODE_MOD_DOWN) && !FOLDED || MODE == MODE_SHENOY_KUMARESAN) {
        r.product = P.product[j];
        r.product_shoup = P.product_shoup[j];
    }
    if (FOLDED) r.minus_a = r.m.p - P.product[j];
    if (MODE == MODE_MOD_DOWN || MODE == MODE_BEHZ_EXTEND || MODE == MODE_FLOOR || MODE == MODE_HPS_SCALE) {
        r.epi_a = P.epi_a[j];
        r.epi_a_shoup = P.epi_a_shoup[j];
    }
    if (MODE == MODE_BEHZ_EXTEND || MODE == MODE_FLOOR) {
        r.epi_b = P.epi_b[j];
        r.epi_b_shoup = P.epi_b_shoup[j];
    }
    const u32 out_limb = j < P.skip_start ? j : j + P.skip_len;
    r.out = B.output + (u64)out_limb * P.n;
    r.extra = nullptr;
    if (MODE == MODE_MOD_DOWN || MODE == MODE_FLOOR || MODE == MODE_HPS_SCALE) r.extra = B.extra + (u64)j * P.n;
    return r;
}

// The mode's epilogue for coefficient c of the tile in output limb R, from its inner product.
// SHORT: the sum is below 2^(n+63), n the bit length of c_j (modarith::reduce_short).
// FOLDED (split sums of the exact conversion and ModDown): the sum already holds
// v (c_j - A mod c_j), so no correction is left to subtract.
template <int MODE, bool SHORT = false, bool FOLDED = false>
__device__ __forceinline__ void finish_output(const ConvertParams& P, const OutputRow& R, const u32 c,
                                              const u64 first, const u32 count, const Sum192& acc,
                                              const u64* aux_lo, const u64* aux_hi) {
    if (c >= count) return;
    const Modulus& m = R.m;
    const u64 index = first + c;
    Sum192 sum = acc;
    const auto reduce_sum = [&R](const Sum192& a) {
        return SHORT ? modarith::reduce_short(a.s0, a.s1, R.short_m) : wide_sum::sum192_reduce(a, R.m);
    };
    u64 result;
    if (MODE == MODE_FAST) {
        result = reduce_sum(sum);
    } else if (MODE == MODE_EXACT || MODE == MODE_MOD_DOWN) {
        if (FOLDED) {
            result = reduce_sum(sum);
        } else {
            const u64 correction = modarith::mul_shoup(aux_lo[c], R.product, R.product_shoup, m.p);
            result = modarith::sub(reduce_sum(sum), correction, m.p);
        }
        if (MODE == MODE_MOD_DOWN) {
            const u64 x = R.extra[index];
            result = modarith::mul_shoup(modarith::sub(x, result, m.p), R.epi_a, R.epi_a_shoup, m.p);
        }
    } else if (MODE == MODE_SHENOY_KUMARESAN) {
        const u64 reduced = reduce_sum(sum);
        const u64 correction = modarith::mul_shoup(aux_lo[c], R.product, R.product_shoup, m.p);
        result = aux_hi[c] ? modarith::add(reduced, correction, m.p) : modarith::sub(reduced, correction, m.p);
    } else if (MODE == MODE_BEHZ_EXTEND) {
        const u64 reduced = reduce_sum(sum);
        const u64 q_r = modarith::mul_shoup(aux_lo[c], R.epi_a, R.epi_a_shoup, m.p);
        const u64 shifted = aux_hi[c] ? modarith::sub(reduced, q_r, m.p) : modarith::add(reduced, q_r, m.p);
        result = modarith::mul_shoup(shifted, R.epi_b, R.epi_b_shoup, m.p);
    } else if (MODE == MODE_FLOOR) {
        const u64 fast = reduce_sum(sum);
        const u64 x = R.extra[index];
        const u64 scaled_x = modarith::mul_shoup(x, R.epi_a, R.epi_a_shoup, m.p);
        const u64 scaled_fast = modarith::mul_shoup(fast, R.epi_b, R.epi_b_shoup, m.p);
        result = modarith::sub(scaled_x, scaled_fast, m.p);
    } else {  // MODE_HPS_SCALE: the rounded fraction is already in the sum
        const u64 own = R.extra[index];
        sum192_merge(sum, sum192(modarith::mul_shoup_lazy(own, R.epi_a, R.epi_a_shoup, m.p), 0));
        result = reduce_sum(sum);
    }
    R.out[index] = result;
}

// The same for output limb j, its constants loaded for this one output (inner_products, four
// sums a thread over two limbs: loading each limb's constants once there raised its spills).
template <int MODE, bool SHORT = false, bool FOLDED = false>
__device__ __forceinline__ void finish_output(const ConvertParams& P, const ConvertBuffers& B, const u32 j,
                                              const u32 c, const u64 first, const u32 count, const Sum192& acc,
                                              const u64* aux_lo, const u64* aux_hi) {
    if (c >= count) return;
    finish_output<MODE, SHORT, FOLDED>(P, output_row<MODE, SHORT, FOLDED>(P, B, j), c, first, count, acc, aux_lo,
                                       aux_hi);
}

__device__ __forceinline__ void sum_mad(Sum192& a, const u64 x, const u64 w) { sum192_mad(a, x, w); }
__device__ __forceinline__ void sum_mad(Sum128& a, const u64 x, const u64 w) { sum128_mad(a, x, w); }
__device__ __forceinline__ void sum_mad(SumSplit& a, const double2 x, const double2 w) {
    wide_sum::sum_split_mad(a, x, w);
}
__device__ __forceinline__ Sum192 to_sum192(const Sum192& a) { return a; }
__device__ __forceinline__ Sum192 to_sum192(const Sum128& a) { return sum192(a); }
__device__ __forceinline__ Sum192 to_sum192(const SumSplit& a) {
    u64 lo, hi;
    wide_sum::sum_split_words(a, lo, hi);
    return sum192(lo, hi);
}
template <class Sum>
__device__ __forceinline__ Sum sum_from(const u64 lo, const u64 hi);
template <>
__device__ __forceinline__ Sum192 sum_from<Sum192>(const u64 lo, const u64 hi) { return sum192(lo, hi); }
template <>
__device__ __forceinline__ Sum128 sum_from<Sum128>(const u64 lo, const u64 hi) { return sum128(lo, hi); }
template <class Sum>
__device__ __forceinline__ Sum sum_zero() { return sum_from<Sum>(0, 0); }
template <>
__device__ __forceinline__ SumSplit sum_zero<SumSplit>() { return wide_sum::sum_split_zero(); }

// Phase 2 of convert_body with accumulators of type Sum, the same values whichever: Sum192 or
// Sum128 over words (y the tile, `table` P.table), or SumSplit over split factors (`split`: y
// the tile's split copy, `table` P.table_split). With SumSplit the host found every y_i and
// table word below 2^40, k <= 64 and every c_j of at least 29 bits, so each inner product,
// below 2^92, is below 2^(n+63): the epilogue takes reduce_short. SumSplit cannot start from
// HPS scaling's 128-bit fraction (the host never splits HPS scaling).
template <int MODE, class Sum, class Factor>
__device__ __forceinline__ void inner_products(const ConvertParams& P, const ConvertBuffers& B, const u64 first,
                                               const u32 count, const Factor* y, const Factor* table,
                                               const u64* aux_lo, const u64* aux_hi) {
    constexpr bool SHORT = std::is_same<Sum, SumSplit>::value;
    // Split sums of the exact conversion and ModDown take the correction -v (A mod c_j) as
    // one more exact term, v (c_j - A mod c_j) in the low sum: v <= k and c_j < 2^40, so the
    // low sum stays below 2k 2^40 < 2^52 and the whole below 2^(n+63).
    constexpr bool FOLD = SHORT && (MODE == MODE_EXACT || MODE == MODE_MOD_DOWN);
    const u32 log_tile = P.log_tile;
    const u32 first_row = blockIdx.y * P.group;
    const u32 rows = min(P.group, P.l - first_row);
    const u32 log_half = log_tile - 1;
    const u32 half = 1u << log_half;
    const u32 items = ((rows + 1) >> 1) << log_half;
    for (u32 idx = threadIdx.x; idx < items; idx += blockDim.x) {
        const u32 c0 = idx & (half - 1);
        const u32 c1 = c0 + half;
        const u32 pair = idx >> log_half;
        const u32 j0 = first_row + 2 * pair;
        const bool second_row = 2 * pair + 1 < rows;
        const u32 j1 = second_row ? j0 + 1 : j0;
        Sum a00 = sum_zero<Sum>(), a01 = sum_zero<Sum>();
        if constexpr (MODE == MODE_HPS_SCALE && !SHORT) {
            a00 = sum_from<Sum>(aux_lo[c0], aux_hi[c0]);
            a01 = sum_from<Sum>(aux_lo[c1], aux_hi[c1]);
        }
        Sum a10 = a00, a11 = a01;
        const Factor* row0 = table + (u64)j0 * P.k;
        const Factor* row1 = table + (u64)j1 * P.k;
        for (u32 i = 0; i < P.k; ++i) {
            const Factor y0 = y[(i << log_tile) + c0];
            const Factor y1 = y[(i << log_tile) + c1];
            const Factor w0 = row0[i];
            const Factor w1 = row1[i];
            sum_mad(a00, y0, w0);
            sum_mad(a01, y1, w0);
            sum_mad(a10, y0, w1);
            sum_mad(a11, y1, w1);
        }
        if constexpr (FOLD) {
            const double v0 = wide_sum::exact_double(aux_lo[c0]);
            const double v1 = wide_sum::exact_double(aux_lo[c1]);
            // c_j - (A mod c_j) in (0, c_j]: congruent to -A.
            const double minus_a0 = wide_sum::exact_double(P.to[j0].p - P.product[j0]);
            const double minus_a1 = wide_sum::exact_double(P.to[j1].p - P.product[j1]);
            a00.low = __fma_rn(v0, minus_a0, a00.low);
            a01.low = __fma_rn(v1, minus_a0, a01.low);
            a10.low = __fma_rn(v0, minus_a1, a10.low);
            a11.low = __fma_rn(v1, minus_a1, a11.low);
        }
        finish_output<MODE, SHORT, FOLD>(P, B, j0, c0, first, count, to_sum192(a00), aux_lo, aux_hi);
        finish_output<MODE, SHORT, FOLD>(P, B, j0, c1, first, count, to_sum192(a01), aux_lo, aux_hi);
        if (second_row) {
            finish_output<MODE, SHORT, FOLD>(P, B, j1, c0, first, count, to_sum192(a10), aux_lo, aux_hi);
            finish_output<MODE, SHORT, FOLD>(P, B, j1, c1, first, count, to_sum192(a11), aux_lo, aux_hi);
        }
    }
}

// Source limbs per row of the transposed split tile of `split` = 2 (ysT[c * KP + i]): k
// rounded up to a multiple of 4 (the MMAs take 4 limbs at a time; the padding holds zeros),
// plus 4 where that is a multiple of 8, so that KP double2 are 64 bytes modulo 128 and the 8
// lanes of a quarter-warp (2 coefficients x 4 limbs) load from distinct banks. The host's
// shared-memory size (crates/rns/src/gpu/launch.rs, `mma_stride`) mirrors it.
__device__ __forceinline__ u32 mma_stride(const u32 k) {
    const u32 rounded = (k + 3) & ~3u;
    return (rounded & 7) == 0 ? rounded + 4 : rounded;
}

// d += a b over one m8n8k4 FP64 MMA: A 8 x 4 (lane: row lane / 4, column lane % 4), B 4 x 8
// (row lane % 4, column lane / 4), D 8 x 8 (row lane / 4, columns 2 (lane % 4) and the next).
// With integer operands and every partial sum below 2^53 each step is exact.
__device__ __forceinline__ void mma_f64(double (&d)[2], const double a, const double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

// Phase 2 of convert_body for `split` = 2: the SumSplit sums of inner_products (same bounds,
// same epilogues) on the tensor cores. A warp unit is 16 coefficients (two A fragments) by 8
// output limbs (one B fragment of the split table, read through L1); per 4 source limbs it
// issues 8 MMAs: high += y1 w1, middle += y1 w0 + y0 w1, low += y0 w0. The loop over units is
// warp-uniform (MMAs need the whole warp); only the epilogue is predicated.
template <int MODE>
__device__ __forceinline__ void inner_products_mma(const ConvertParams& P, const ConvertBuffers& B, const u64 first,
                                                   const u32 count, const double2* ys, const u64* aux_lo,
                                                   const u64* aux_hi) {
    constexpr bool FOLD = MODE == MODE_EXACT || MODE == MODE_MOD_DOWN;
    const u32 lane = threadIdx.x & 31u;
    const u32 first_row = blockIdx.y * P.group;
    const u32 rows = min(P.group, P.l - first_row);
    const u32 kp = mma_stride(P.k);
    const u32 coefficient_units = 1u << (P.log_tile - 4);  // tiles hold at least 16 coefficients
    const u32 units = coefficient_units * ((rows + 7) >> 3);
    const u32 quad = lane & 3u, group_lane = lane >> 2;
    for (u32 unit = threadIdx.x >> 5; unit < units; unit += blockDim.x >> 5) {
        const u32 c_base = (unit & (coefficient_units - 1)) << 4;
        const u32 r_base = (unit >> (P.log_tile - 4)) << 3;
        const u32 b_row = r_base + group_lane;
        const bool b_valid = b_row < rows;
        const double2* b_ptr = P.table_split + (u64)(first_row + (b_valid ? b_row : 0)) * P.k + quad;
        const double2* a_ptr = ys + (c_base + group_lane) * kp + quad;
        double high[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
        double middle[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
        double low[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
        for (u32 kk = 0; kk < P.k; kk += 4) {
            double2 w = make_double2(0.0, 0.0);
            if (b_valid && kk + quad < P.k) w = __ldg(b_ptr + kk);
            const double2 y0 = a_ptr[kk];            // zeros past k (the padding)
            const double2 y1 = a_ptr[kk + 8 * kp];   // coefficients 8 .. 15 of the unit
            mma_f64(high[0], y0.x, w.x);
            mma_f64(middle[0], y0.x, w.y);
            mma_f64(middle[0], y0.y, w.x);
            mma_f64(low[0], y0.y, w.y);
            mma_f64(high[1], y1.x, w.x);
            mma_f64(middle[1], y1.x, w.y);
            mma_f64(middle[1], y1.y, w.x);
            mma_f64(low[1], y1.y, w.y);
        }
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const u32 r = r_base + 2 * quad + e;
            if (r >= rows) continue;
            const OutputRow row = output_row<MODE, true, FOLD>(P, B, first_row + r);
#pragma unroll
            for (int f = 0; f < 2; ++f) {
                const u32 c = c_base + 8 * f + group_lane;
                SumSplit sum;
                sum.high = high[f][e];
                sum.middle = middle[f][e];
                sum.low = low[f][e];
                if constexpr (FOLD) {
                    // The correction -v (A mod c_j) as one more exact term (inner_products).
                    const double v = wide_sum::exact_double(aux_lo[c]);
                    sum.low = __fma_rn(v, wide_sum::exact_double(row.minus_a), sum.low);
                }
                finish_output<MODE, true, FOLD>(P, row, c, first, count, to_sum192(sum), aux_lo, aux_hi);
            }
        }
    }
}

// MMA: the kernels of `split` = 2 (the *_mma entry points), compiled apart so that the tensor
// cores' path and the others each get their own registers.
template <int MODE, bool MMA = false>
__device__ __forceinline__ void convert_body(const ConvertParams& P) {
    extern __shared__ u64 shared[];
    const ConvertBuffers B = buffers_of(P);
    const u32 log_tile = P.log_tile;
    const u32 tile = 1u << log_tile;
    u64* y = shared;                            // y[i * tile + c], k * tile words
    u64* aux_lo = shared + (P.k << log_tile);   // tile words
    u64* aux_hi = aux_lo + tile;                // tile words
    // `split`: y split (wide_sum::split_factor), ys[i * tile + c], 2 k tile words (16-byte
    // aligned: tile is even); `split` = 2: transposed and padded, ys[c * KP + i], 2 KP tile
    // words (mma_stride).
    double2* ys = reinterpret_cast<double2*>(aux_hi + tile);
    const u64 first = (u64)blockIdx.x << log_tile;
    const u32 count = (u32)min((u64)tile, P.n - first);
    const bool copies = B.copy != nullptr && blockIdx.y == 0;
    // Launched with a programmatic dependency (dependent_launch.cuh): the input comes from the
    // kernel before, which may still be running until here.
    dependent_launch::wait_for_inputs_and_allow_dependents();

    // Phase 1: load, copy, scale (zeros past the end of the last tile).
    const u32 loads = P.k << log_tile;
    for (u32 idx = threadIdx.x; idx < loads; idx += blockDim.x) {
        const u32 i = idx >> log_tile;
        const u32 c = idx & (tile - 1);
        u64 value = 0;
        if (c < count) {
            const u64 offset = (u64)i * P.n + first + c;
            const u64 x = B.input[offset];
            if (copies) B.copy[offset] = x;
            value = P.scale != nullptr ? modarith::mul_shoup(x, P.scale[i], P.scale_shoup[i], P.from[i].p) : x;
        }
        y[idx] = value;
        if (!MMA && MODE != MODE_HPS_SCALE && P.split) ys[idx] = wide_sum::split_factor(value);
        if (MMA) ys[c * mma_stride(P.k) + i] = wide_sum::split_factor(value);
    }
    if constexpr (MMA) {
        // The transposed tile's padding limbs k .. KP - 1: zeros, so the MMAs need no predicate.
        const u32 kp = mma_stride(P.k);
        const u32 pad = kp - P.k;
        for (u32 idx = threadIdx.x; idx < (pad << log_tile); idx += blockDim.x) {
            ys[(idx & (tile - 1)) * kp + P.k + (idx >> log_tile)] = make_double2(0.0, 0.0);
        }
    }
    __syncthreads();

    // Phase 1b: one value per coefficient, its k terms split over `lanes` neighbouring threads
    // (blockDim = tile * lanes, lanes <= 16 divides the warp) and merged by shuffles.
    const bool fixed_point = MODE == MODE_EXACT || MODE == MODE_MOD_DOWN || MODE == MODE_HPS_SCALE;
    const bool redundant = MODE == MODE_SHENOY_KUMARESAN || MODE == MODE_BEHZ_EXTEND;
    // The exact conversion and ModDown over moduli below 2^40 (`split`) first estimate
    // v = round(sum_i y_i / a_i) in FP64: each y_i / a_i is in [0, 1), k <= 64, so the estimate
    // is within 2^-40 of the exact sum, and the host's 128-bit fixed-point sum (what the CPU
    // rounds) within k 2^-88 of it. Where the estimate's fraction is at least 2^-30 from 1/2 the
    // three round alike; a warp with a coefficient nearer than that (planted values near A/2)
    // forms the fixed-point sums as before.
    bool exact_sums = fixed_point || redundant;
    if constexpr (MODE == MODE_EXACT || MODE == MODE_MOD_DOWN) {
        if (P.split) {
            const u32 lanes = blockDim.x >> log_tile;
            const u32 c = threadIdx.x / lanes;
            const u32 lane = threadIdx.x % lanes;
            double f = 0.0;
            for (u32 i = lane; i < P.k; i += lanes) {
                const double inverse = __drcp_rn(wide_sum::exact_double(P.from[i].p));
                f = __fma_rn(wide_sum::exact_double(y[(i << log_tile) + c]), inverse, f);
            }
            for (u32 offset = lanes >> 1; offset > 0; offset >>= 1) f += __shfl_down_sync(0xffffffffu, f, offset);
            const double whole = floor(f);
            const double fraction = f - whole;  // exact: whole is f with its fraction bits cleared
            const bool near_half = fabs(fraction - 0.5) < 0x1p-30;
            // Lane 0 of each group holds its coefficient's estimate.
            const int first_lane = (int)((threadIdx.x & 31u) & ~(lanes - 1));
            const bool group_near = __shfl_sync(0xffffffffu, near_half ? 1 : 0, first_lane) != 0;
            exact_sums = __any_sync(0xffffffffu, group_near);
            if (!exact_sums && lane == 0 && c < count) {
                aux_lo[c] = (u64)whole + (fraction > 0.5 ? 1 : 0);
                aux_hi[c] = 0;
            }
        }
    }
    if (exact_sums) {
        const u32 lanes = blockDim.x >> log_tile;
        const u32 c = threadIdx.x / lanes;
        const u32 lane = threadIdx.x % lanes;
        FixedPointSum s = fixed_point_zero();
        Sum192 d = sum192(0, 0);
        const u64* row = P.table + (u64)P.l * P.k;  // the redundant row (redundant modes)
        for (u32 i = lane; i < P.k; i += lanes) {
            const u64 value = y[(i << log_tile) + c];
            if (fixed_point) fixed_point_add(s, value, P.fraction_hi[i], P.fraction_lo[i]);
            if (redundant) sum192_mad(d, value, row[i]);
        }
        for (u32 offset = lanes >> 1; offset > 0; offset >>= 1) {
            if (fixed_point) fixed_point_merge(s, shuffle_down(s, offset));
            if (redundant) sum192_merge(d, shuffle_down(d, offset));
        }
        if (lane == 0 && c < count) {
            if (fixed_point) {
                u64 lo, hi;
                fixed_point_rounded(s, lo, hi);
                aux_lo[c] = lo;
                aux_hi[c] = hi;
            } else {
                const Modulus m = P.to[P.l];
                u64 value = sum192_reduce(d, m);
                if (MODE == MODE_SHENOY_KUMARESAN) {
                    value = modarith::sub(value, B.redundant_input[first + c], m.p);
                }
                const u64 r = modarith::mul_shoup(value, P.redundant_w, P.redundant_w_shoup, m.p);
                const bool negative = r > m.p / 2;
                aux_lo[c] = negative ? m.p - r : r;
                aux_hi[c] = negative ? 1 : 0;
            }
        }
    }
    if (fixed_point || redundant) __syncthreads();

    // Phase 2: each thread takes two output limbs (j0, j1) of two coefficients (c0, c0 + tile/2):
    // four inner products that share their loads of y and of the table rows. Products on the
    // FP64 pipe where the host found every factor below 2^40 (split), 128-bit sums where it
    // found every inner product below 2^128 (narrow), else 192-bit ones.
    if constexpr (MMA) {
        inner_products_mma<MODE>(P, B, first, count, ys, aux_lo, aux_hi);
        return;
    }
    if constexpr (MODE != MODE_HPS_SCALE) {
        if (P.split) {
            inner_products<MODE, SumSplit>(P, B, first, count, ys, P.table_split, aux_lo, aux_hi);
            return;
        }
    }
    if (P.narrow) {
        inner_products<MODE, Sum128>(P, B, first, count, y, P.table, aux_lo, aux_hi);
    } else {
        inner_products<MODE, Sum192>(P, B, first, count, y, P.table, aux_lo, aux_hi);
    }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_fast_convert(const ConvertParams p) {
    convert_body<MODE_FAST>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_exact_convert(const ConvertParams p) {
    convert_body<MODE_EXACT>(p);
}

// ModUp of up to CONVERT_DIGITS digits in one launch: digit z (blockIdx.z) converts as
// digit[z] says, each with its own bases, tile and output groups (grid x and y cover the
// largest; a block past its digit's tiles or groups returns at once). digit[z]'s batch_input[z]
// and batch_output[z] are its own input and output (convert_body's batch lookup by blockIdx.z).
#define CONVERT_DIGITS 4
struct DigitConvertParams {
    ConvertParams digit[CONVERT_DIGITS];
};

template <int MODE, bool MMA = false>
__device__ __forceinline__ void convert_digit(const DigitConvertParams& D) {
    const ConvertParams& P = D.digit[blockIdx.z];
    const u64 tiles = (P.n + (1ull << P.log_tile) - 1) >> P.log_tile;
    const u32 groups = (P.l + P.group - 1) / P.group;
    if (blockIdx.x >= tiles || blockIdx.y >= groups) return;
    convert_body<MODE, MMA>(P);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS)
    rns_fast_convert_digits(const __grid_constant__ DigitConvertParams p) {
    convert_digit<MODE_FAST>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS)
    rns_exact_convert_digits(const __grid_constant__ DigitConvertParams p) {
    convert_digit<MODE_EXACT>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_shenoy_kumaresan(const ConvertParams p) {
    convert_body<MODE_SHENOY_KUMARESAN>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_behz_extend(const ConvertParams p) {
    convert_body<MODE_BEHZ_EXTEND>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_behz_floor(const ConvertParams p) {
    convert_body<MODE_FLOOR>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_mod_down(const ConvertParams p) {
    convert_body<MODE_MOD_DOWN>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_hps_scale(const ConvertParams p) {
    convert_body<MODE_HPS_SCALE>(p);
}

// The same conversions for `split` = 2 (every factor below 2^40): products on the tensor cores.
// HPS scaling never splits.
extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_fast_convert_mma(const ConvertParams p) {
    convert_body<MODE_FAST, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_exact_convert_mma(const ConvertParams p) {
    convert_body<MODE_EXACT, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS)
    rns_fast_convert_digits_mma(const __grid_constant__ DigitConvertParams p) {
    convert_digit<MODE_FAST, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS)
    rns_exact_convert_digits_mma(const __grid_constant__ DigitConvertParams p) {
    convert_digit<MODE_EXACT, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_shenoy_kumaresan_mma(const ConvertParams p) {
    convert_body<MODE_SHENOY_KUMARESAN, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_behz_extend_mma(const ConvertParams p) {
    convert_body<MODE_BEHZ_EXTEND, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_behz_floor_mma(const ConvertParams p) {
    convert_body<MODE_FLOOR, true>(p);
}

extern "C" __global__ void __launch_bounds__(RNS_THREADS, RNS_MIN_BLOCKS) rns_mod_down_mma(const ConvertParams p) {
    convert_body<MODE_MOD_DOWN, true>(p);
}

// BEHZ S1 alone (BehzContext::small_montgomery_reduce): input over B_sk u {m~} (l + 1 limbs,
// m~ last), output over B_sk. One thread per output value (grid stride).
struct MontgomeryParams {
    const u64* input;
    u64* output;
    const Modulus* moduli;  // l moduli of B_sk
    const u64* q_mod;       // q mod m_j, and Shoup companions
    const u64* q_mod_shoup;
    const u64* m_tilde_inv;  // m~^-1 mod m_j, and Shoup companions
    const u64* m_tilde_inv_shoup;
    u64 m_tilde;
    u64 neg_q_inv;           // -q^-1 mod m~, and its Shoup companion
    u64 neg_q_inv_shoup;
    u64 n;
    u32 l;
    u32 unused;
};

extern "C" __global__ void __launch_bounds__(RNS_THREADS) rns_behz_montgomery(const MontgomeryParams p) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const u64 total = (u64)p.l * p.n;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (u64)gridDim.x * blockDim.x) {
        const u64 j = i / p.n;
        const u64 index = i - j * p.n;
        const u64 c_tilde = p.input[(u64)p.l * p.n + index];
        const u64 r = modarith::mul_shoup(c_tilde, p.neg_q_inv, p.neg_q_inv_shoup, p.m_tilde);
        const bool negative = r > p.m_tilde / 2;
        const u64 magnitude = negative ? p.m_tilde - r : r;
        const u64 m = p.moduli[j].p;
        const u64 q_r = modarith::mul_shoup(magnitude, p.q_mod[j], p.q_mod_shoup[j], m);
        const u64 c = p.input[i];
        const u64 shifted = negative ? modarith::sub(c, q_r, m) : modarith::add(c, q_r, m);
        p.output[i] = modarith::mul_shoup(shifted, p.m_tilde_inv[j], p.m_tilde_inv_shoup[j], m);
    }
}

namespace {

// (lo, hi) summed over `lanes` neighbouring threads (a power of two dividing 32), in the first.
__device__ __forceinline__ void merge_u128(u64& lo, u64& hi, const u32 lanes) {
    for (u32 offset = lanes >> 1; offset > 0; offset >>= 1) {
        const u64 other_lo = shuffle_down(lo, offset);
        const u64 other_hi = shuffle_down(hi, offset);
        acc_add(lo, hi, other_lo);
        hi += other_hi;
    }
}

// The decryption kernels' loop: `lanes` neighbouring threads share a coefficient (each takes
// every lanes-th limb, `value(index, lane)` merges their exact sums into the first lane and
// returns the plaintext value there), blockDim / lanes coefficients per block and step. The
// values go through shared memory so that consecutive threads store consecutive words (whole
// 256-byte runs per warp into the mapped host memory the output usually is). Every thread
// runs every step (the shuffles need whole warps); coefficients past n repeat the last one
// and are not stored.
template <class F>
__device__ __forceinline__ void decrypt_coefficients(u64* output, const u64 n, const u32 lanes, const F& value) {
    __shared__ u64 tile[RNS_THREADS];
    const u32 per_block = blockDim.x / lanes;
    const u32 group = threadIdx.x / lanes;
    const u32 lane = threadIdx.x % lanes;
    for (u64 first = (u64)blockIdx.x * per_block; first < n; first += (u64)gridDim.x * per_block) {
        const u64 index = min(first + group, n - 1);
        const u64 m = value(index, lane);
        if (lane == 0) tile[group] = m;
        __syncthreads();
        if (threadIdx.x < per_block && first + threadIdx.x < n) output[first + threadIdx.x] = tile[threadIdx.x];
        __syncthreads();
    }
}

}  // namespace

// BEHZ decryption (BehzContext::decrypt_scale_round): input over q (k limbs), output n values
// in [0, t). `lanes` threads per coefficient (decrypt_coefficients). `t` is the plaintext
// modulus with its Barrett constant (any t in [2, 2^62): Barrett reduction needs no primality). With `addend`
// set, the input is [input + addend]_q (decryption's c_0 + c_1 s without a separate addition).
struct BehzDecryptParams {
    const u64* input;
    const u64* addend;  // k limbs over q, or null
    u64* output;
    const Modulus* q;
    const u64* scale;  // gamma t q~_i mod q_i
    const u64* scale_shoup;
    const u64* row_t;  // -q_i^-1 mod t
    const u64* row_t_shoup;
    const u64* row_gamma;  // -q_i^-1 mod gamma
    const u64* row_gamma_shoup;
    Modulus t;
    Modulus gamma;
    u64 gamma_inv_t;
    u64 gamma_inv_t_shoup;
    u64 n;
    u32 k;
    u32 lanes;  // threads per coefficient: 1, 2, 4 or 8 (see decrypt_coefficients)
};

extern "C" __global__ void __launch_bounds__(RNS_THREADS) rns_behz_decrypt(const BehzDecryptParams p) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const u64 t = p.t.p;
    const u64 gamma = p.gamma.p;
    decrypt_coefficients(p.output, p.n, p.lanes, [&](const u64 index, const u32 lane) {
        u64 t_lo = 0, t_hi = 0, g_lo = 0, g_hi = 0;
        for (u32 i = lane; i < p.k; i += p.lanes) {
            const u64 offset = (u64)i * p.n + index;
            const u64 q_i = p.q[i].p;
            const u64 x =
                p.addend != nullptr ? modarith::add(p.input[offset], p.addend[offset], q_i) : p.input[offset];
            const u64 y = modarith::mul_shoup(x, p.scale[i], p.scale_shoup[i], q_i);
            acc_add(t_lo, t_hi, modarith::mul_shoup_lazy(y, p.row_t[i], p.row_t_shoup[i], t));
            acc_add(g_lo, g_hi, modarith::mul_shoup_lazy(y, p.row_gamma[i], p.row_gamma_shoup[i], gamma));
        }
        merge_u128(t_lo, t_hi, p.lanes);
        merge_u128(g_lo, g_hi, p.lanes);
        const u64 s_t = modarith::reduce_u128(t_lo, t_hi, p.t);
        const u64 s_gamma = modarith::reduce_u128(g_lo, g_hi, p.gamma);
        const u64 difference = s_gamma > gamma / 2
                                   ? modarith::add(s_t, modarith::reduce(gamma - s_gamma, p.t), t)
                                   : modarith::sub(s_t, modarith::reduce(s_gamma, p.t), t);
        return modarith::reduce(modarith::mul_shoup_lazy(difference, p.gamma_inv_t, p.gamma_inv_t_shoup, t), p.t);
    });
}

// HPS decryption (HpsContext::decrypt_scale_round): input over q (k limbs), output n values
// round(t x / q) mod t = sum_i x_i omega_i + round(sum_i x_i theta_i) mod t. `lanes` threads
// per coefficient (decrypt_coefficients). With `addend` set, the input is [input + addend]_q (as for BEHZ).
struct HpsDecryptParams {
    const u64* input;
    const u64* addend;  // k limbs over q, or null
    const Modulus* q;   // the k primes of q (read only with `addend`)
    u64* output;
    const u64* integer;  // omega_i mod t, and Shoup companions modulo t
    const u64* integer_shoup;
    const u64* fraction_hi;  // floor(theta_i 2^128)
    const u64* fraction_lo;
    Modulus t;
    u64 n;
    u32 k;
    u32 lanes;  // threads per coefficient: 1, 2, 4 or 8 (see decrypt_coefficients)
};

extern "C" __global__ void __launch_bounds__(RNS_THREADS) rns_hps_decrypt(const HpsDecryptParams p) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const Modulus t_modulus = p.t;
    const u64 t = t_modulus.p;
    decrypt_coefficients(p.output, p.n, p.lanes, [&](const u64 index, const u32 lane) {
        u64 lo = 0, hi = 0;
        FixedPointSum s = fixed_point_zero();
        for (u32 i = lane; i < p.k; i += p.lanes) {
            const u64 offset = (u64)i * p.n + index;
            const u64 x =
                p.addend != nullptr ? modarith::add(p.input[offset], p.addend[offset], p.q[i].p) : p.input[offset];
            acc_add(lo, hi, modarith::mul_shoup_lazy(x, p.integer[i], p.integer_shoup[i], t));
            fixed_point_add(s, x, p.fraction_hi[i], p.fraction_lo[i]);
        }
        merge_u128(lo, hi, p.lanes);
        for (u32 offset = p.lanes >> 1; offset > 0; offset >>= 1) {
            fixed_point_merge(s, shuffle_down(s, offset));
        }
        u64 r_lo, r_hi;
        fixed_point_rounded(s, r_lo, r_hi);
        acc_add(lo, hi, r_lo);
        hi += r_hi;
        return modarith::reduce_u128(lo, hi, t_modulus);
    });
}
