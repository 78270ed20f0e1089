// Batched key switching, bit-exact with crates/rns (KeySwitchContext) and crates/poly (the
// evaluation-domain products): ModUp of every one-prime digit in one launch, and the inner
// product of the extended digits with a key-switching key in one launch.
// Host side: crates/rns/src/gpu/keyswitch/ (the parameter structs below are mirrored in
// mod_up.rs, inner_product.rs and mod_down.rs, field by field, as #[repr(C)] structs).
//
// Data: limb-major polynomials over q u P (the limbs of q first, then P), limb i of a
// polynomial at data + i * n; a batch of D polynomials is [D][limbs][n]. Every stored word is
// a canonical residue.
#include <cstdint>

#include "modarith.cuh"
#include "wide_sum.cuh"

using modarith::Modulus;
using modarith::u64;
using wide_sum::Sum192;
using wide_sum::sum192;
using wide_sum::sum192_mad;
using wide_sum::sum192_reduce;
typedef uint32_t u32;

// Threads per block of every kernel here (the host launches with this many).
#define KS_THREADS 256
// Most key digits one inner-product launch reads (the host splits larger keys into chunks).
#define KS_MAX_DIGITS 128

// ModUp of digits of one prime each (one special prime: SEAL's digits). Digit t of the
// launch is the limb s = first_source + t of the input (over q); its output polynomial over
// q u P has limb s copied and every other limb i equal to the extension of x = input[s]:
//   centered (Extension::Exact): x' = x - q_s if x > q_s / 2, else x; limb i is x' mod m_i;
//   not centered (Extension::Fast): limb i is x mod m_i.
// That is what the CPU's exact and fast conversions of a one-limb base compute (for one limb
// the exact conversion's overflow is v = round(x / q_s) with no fixed-point error: q_s is odd,
// so x / q_s is never within 2^-63 of 1/2), so the words are the same.
struct ModUpParams {
    const u64* input;     // over q: the source limbs, limb s at input + s * n
    u64* output;          // digits polynomials over q u P, digit t at output + t * limbs * n
    const Modulus* q_p;   // the limbs moduli of q u P
    u64 n;                // coefficients per limb
    u32 limbs;            // limbs of q u P
    u32 first_source;     // digit t reads limb first_source + t
    u32 digits;           // digits of this launch (grid y)
    u32 centered;         // 1: Extension::Exact, 0: Extension::Fast
    u32 limb_group;       // output limbs per thread (grid z = ceil(limbs / limb_group))
    u32 unused;
};

// Grid (ceil(n / KS_THREADS), digits, ceil(limbs / limb_group)): one thread per
// (coefficient, digit, group of output limbs); it reads its source word once and writes the
// group's limbs (consecutive threads write consecutive coefficients).
extern "C" __global__ void __launch_bounds__(KS_THREADS)
    keyswitch_mod_up_one_prime(const __grid_constant__ ModUpParams P) {
    const u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= P.n) return;
    const u32 digit = blockIdx.y;
    const u32 source = P.first_source + digit;
    const u64 q_s = P.q_p[source].p;
    const u64 x = P.input[(u64)source * P.n + index];
    const bool negative = P.centered != 0 && x > (q_s >> 1);
    // |x'|: below q_s < 2^62, reduced by one Barrett step per target prime.
    const u64 magnitude = negative ? q_s - x : x;
    u64* out = P.output + (u64)digit * P.limbs * P.n + index;
    const u32 begin = blockIdx.z * P.limb_group;
    const u32 end = min(begin + P.limb_group, P.limbs);
    for (u32 limb = begin; limb < end; ++limb) {
        u64 value = x;
        if (limb != source) {
            const Modulus m = P.q_p[limb];
            const u64 r = modarith::reduce(magnitude, m);
            value = negative ? modarith::neg(r, m.p) : r;
        }
        out[(u64)limb * P.n] = value;
    }
}

// The key-switching inner product over q u P in the evaluation representation:
//   output[0] = sum_t extended[t] * key_b[t],  output[1] = sum_t extended[t] * key_a[t]
// (plus the current output values when `accumulate` is set: digits processed in chunks).
// The key digits are separate device buffers; their addresses travel in this by-value
// struct (KS_MAX_DIGITS per launch), read by every thread from the constant bank.
struct InnerProductParams {
    const u64* extended;             // digits polynomials over q u P, digit t at + t * limbs * n
    u64* output;                     // 2 polynomials over q u P: the b sum, then the a sum
    const Modulus* moduli;           // the limbs moduli of q u P
    const u64* key_b[KS_MAX_DIGITS]; // digit t of the key: one polynomial over q u P each
    const u64* key_a[KS_MAX_DIGITS];
    u64 n;                           // coefficients per limb (even)
    u32 log_n;
    u32 limbs;
    u32 digits;                      // 1..=KS_MAX_DIGITS
    u32 accumulate;                  // 1: add the current output values
    // When set, the limbs from special_from on (the special primes) of both sums live here
    // instead, [2][limbs - special_from][n] (ModDown transforms them back as one batch), and
    // those rows of `output` are neither read nor written.
    u64* special;
    u32 special_from;
    // A Galois element g (odd, below 2n) whose automorphism the digits take first, on their NTT
    // evaluations (hoisted key switching: the digits were extended once for several g); 0: none.
    u32 galois;
};

// Where a sum's word `word` (limb-major over q u P) lives: `output` (+ poly_words for the a
// sum), or the special buffer for the special limbs.
__device__ __forceinline__ u64* sum_address(const InnerProductParams& P, const u64 word, const bool a_sum) {
    const u64 poly_words = (u64)P.limbs * P.n;
    const u64 q_words = (u64)P.special_from * P.n;
    if (P.special != nullptr && word >= q_words) {
        return P.special + (a_sum ? poly_words - q_words : 0) + (word - q_words);
    }
    return P.output + (a_sum ? poly_words : 0) + word;
}

namespace {

__device__ __forceinline__ ulonglong2 load_pair(const u64* base, const u64 word) {
    return *reinterpret_cast<const ulonglong2*>(base + word);
}

__device__ __forceinline__ void store_pair(u64* base, const u64 word, const u64 x, const u64 y) {
    *reinterpret_cast<ulonglong2*>(base + word) = make_ulonglong2(x, y);
}

// One thread per pair of words (16-byte loads and stores; n is even, so a pair never
// straddles two limbs), grid-stride over limbs * n / 2 pairs.
//   NTT (GAUSSIAN = false): the two words are independent coordinates, products coordinate-wise.
//   DGT (GAUSSIAN = true): the pair is one Gaussian element (re, im), multiplied as
//   Modulus::gauss_mul does: (a + bi)(c + di) = (ac - bd) + (ad + bc) i; the subtracted
//   products are summed apart and subtracted once, modulo the prime.
template <bool GAUSSIAN>
__device__ __forceinline__ void inner_product(const InnerProductParams& P) {
    const u64 poly_words = (u64)P.limbs * P.n;
    const u64 pairs = poly_words >> 1;
    for (u64 pair = (u64)blockIdx.x * blockDim.x + threadIdx.x; pair < pairs; pair += (u64)gridDim.x * blockDim.x) {
        const u64 word = pair << 1;
        const Modulus m = P.moduli[word >> P.log_n];
        // b: (x, y) sums, a: (x, y) sums; Gaussian: x = re + ..., y = im, and the re - parts.
        Sum192 bx = sum192(0, 0), by = sum192(0, 0), ax = sum192(0, 0), ay = sum192(0, 0);
        Sum192 bx_neg = sum192(0, 0), ax_neg = sum192(0, 0);
        if (P.accumulate != 0) {
            const ulonglong2 b = load_pair(sum_address(P, word, false), 0);
            const ulonglong2 a = load_pair(sum_address(P, word, true), 0);
            bx = sum192(b.x, 0);
            by = sum192(b.y, 0);
            ax = sum192(a.x, 0);
            ay = sum192(a.y, 0);
        }
        const u64* extended = P.extended + word;
        // sigma_g on NTT evaluations (bit-reversed order) maps value j of a limb to value
        // brev((e - 1) / 2), e = (2 brev(j) + 1) g mod 2n (ew_automorphism_eval). For the pair
        // (2i, 2i + 1), e differs by n (g odd), so the sources are the pair of brev((e - 1) / 2)
        // in order when it is even, swapped when odd: one 16-byte load either way.
        bool swap = false;
        if (!GAUSSIAN && P.galois != 0) {
            const u64 n = P.n;
            const u64 j = word & (n - 1);
            const int shift = 64 - (int)P.log_n;
            const u64 e = ((2 * (__brevll(j) >> shift) + 1) * (u64)P.galois) & (2 * n - 1);
            const u64 source = __brevll((e - 1) >> 1) >> shift;
            swap = (source & 1) != 0;
            extended = P.extended + (word - j) + (source & ~1ull);
        }
#pragma unroll 4
        for (u32 t = 0; t < P.digits; ++t) {
            ulonglong2 e = *reinterpret_cast<const ulonglong2*>(extended + (u64)t * poly_words);
            if (swap) {
                e = make_ulonglong2(e.y, e.x);
            }
            const ulonglong2 kb = load_pair(P.key_b[t], word);
            const ulonglong2 ka = load_pair(P.key_a[t], word);
            sum192_mad(bx, e.x, kb.x);
            sum192_mad(ax, e.x, ka.x);
            if (GAUSSIAN) {
                sum192_mad(bx_neg, e.y, kb.y);
                sum192_mad(by, e.x, kb.y);
                sum192_mad(by, e.y, kb.x);
                sum192_mad(ax_neg, e.y, ka.y);
                sum192_mad(ay, e.x, ka.y);
                sum192_mad(ay, e.y, ka.x);
            } else {
                sum192_mad(by, e.y, kb.y);
                sum192_mad(ay, e.y, ka.y);
            }
        }
        u64 b_x = sum192_reduce(bx, m), a_x = sum192_reduce(ax, m);
        if (GAUSSIAN) {
            b_x = modarith::sub(b_x, sum192_reduce(bx_neg, m), m.p);
            a_x = modarith::sub(a_x, sum192_reduce(ax_neg, m), m.p);
        }
        store_pair(sum_address(P, word, false), 0, b_x, sum192_reduce(by, m));
        store_pair(sum_address(P, word, true), 0, a_x, sum192_reduce(ay, m));
    }
}

}  // namespace

// NTT evaluation representation: products coordinate-wise.
extern "C" __global__ void __launch_bounds__(KS_THREADS)
    keyswitch_inner_product(const __grid_constant__ InnerProductParams P) {
    inner_product<false>(P);
}

// DGT evaluation representation: Gaussian products of (re, im) pairs.
extern "C" __global__ void __launch_bounds__(KS_THREADS)
    keyswitch_inner_product_gaussian(const __grid_constant__ InnerProductParams P) {
    inner_product<true>(P);
}

// ModDown in the evaluation representation (BGV keeps ciphertexts there), for both key-switching
// sums s (over q u P, evaluation representation, [2][limbs_qp][n]): with r the forward transform
// over q of the exact conversion P -> q of s's P limbs (inverse-transformed and multiplied by
// E^-1 first, crates/rns/src/gpu/keyswitch/mod_down.rs), limb i of output k is
//   out_k = addend_k + (s_k - E r_k) P^-1 mod q_i,
// which is the forward transform of E ModDown(E^-1 s_k) (rns::KeySwitchContext::mod_down):
// the transform is linear per prime, and E (E^-1 s)_q = s_q. Products by Barrett (E may exceed
// q_i) and Shoup (P^-1); every value canonical, so the words are the host's.
struct ModDownEvalParams {
    const u64* sums;       // [2][limbs_qp][n]: the limbs of q first
    const u64* remainder;  // [2][limbs_q][n]: r_0, r_1
    const u64* addend0;    // [limbs_q][n], or null
    const u64* addend1;    // [limbs_q][n], or null
    u64* out0;             // [limbs_q][n]
    u64* out1;             // [limbs_q][n]
    const Modulus* moduli; // the limbs of q
    const u64* p_inv;      // P^-1 mod q_i
    const u64* p_inv_shoup;
    u64 error_scale;       // E
    u32 log_n;
    u32 limbs_q;
    u32 limbs_qp;
    u32 unused;
};

// Grid (ceil(limbs_q n / KS_THREADS), 2): one thread per word of one output.
extern "C" __global__ void __launch_bounds__(KS_THREADS)
    keyswitch_mod_down_eval(const __grid_constant__ ModDownEvalParams P) {
    const u64 words = (u64)P.limbs_q << P.log_n;
    const u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= words) return;
    const u32 k = blockIdx.y;
    const u32 limb = (u32)(index >> P.log_n);
    const Modulus m = P.moduli[limb];
    const u64 s = P.sums[(u64)k * ((u64)P.limbs_qp << P.log_n) + index];
    const u64 r = P.remainder[(u64)k * words + index];
    const u64 scaled = P.error_scale == 1 ? r : modarith::mul(r, P.error_scale, m);
    u64 value = modarith::mul_shoup(modarith::sub(s, scaled, m.p), P.p_inv[limb], P.p_inv_shoup[limb], m.p);
    const u64* addend = k == 0 ? P.addend0 : P.addend1;
    if (addend != nullptr) value = modarith::add(addend[index], value, m.p);
    (k == 0 ? P.out0 : P.out1)[index] = value;
}
