// Element-wise kernels on batches of RNS polynomials, bit-exact with crates/poly (Poly).
//
// Data: [poly][limb][N] u64, canonical; `limbs_per_poly` primes per polynomial (the first
// ones of the context), `moduli` one modarith::Modulus per limb. Every kernel walks the
// `total` values in pairs (16-byte loads; N is even, so a pair never straddles two limbs)
// with a grid-stride loop; the limb of value i is (i >> log_n) % limbs_per_poly.
// Outputs may alias inputs (in-place operation): each thread reads a pair before it
// writes that same pair, and no other thread touches it.
#include <cstdint>

#include "dependent_launch.cuh"
#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

namespace {

__device__ __forceinline__ int limb_of(const u64 pair, const int log_n, const int limbs_per_poly) {
    return (int)(((pair << 1) >> log_n) % (u64)limbs_per_poly);
}

#define FOR_EACH_PAIR(pairs)                                                                \
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (pairs); \
         i += (u64)gridDim.x * blockDim.x)

}  // namespace

// out = a + b mod q_i.
extern "C" __global__ void ew_add(ulonglong2* out, const ulonglong2* a, const ulonglong2* b,
                                  const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const u64 p = moduli[limb_of(i, log_n, limbs_per_poly)].p;
        const ulonglong2 x = a[i], y = b[i];
        out[i] = make_ulonglong2(modarith::add(x.x, y.x, p), modarith::add(x.y, y.y, p));
    }
}

// out = a - b mod q_i.
extern "C" __global__ void ew_sub(ulonglong2* out, const ulonglong2* a, const ulonglong2* b,
                                  const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const u64 p = moduli[limb_of(i, log_n, limbs_per_poly)].p;
        const ulonglong2 x = a[i], y = b[i];
        out[i] = make_ulonglong2(modarith::sub(x.x, y.x, p), modarith::sub(x.y, y.y, p));
    }
}

// out = -a mod q_i.
extern "C" __global__ void ew_neg(ulonglong2* out, const ulonglong2* a, const Modulus* __restrict__ moduli,
                                  int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const u64 p = moduli[limb_of(i, log_n, limbs_per_poly)].p;
        const ulonglong2 x = a[i];
        out[i] = make_ulonglong2(modarith::neg(x.x, p), modarith::neg(x.y, p));
    }
}

// out = a * b mod q_i, coordinate-wise (NTT evaluation representation), Barrett. Here and
// below, operands are canonical (device polynomials), so modarith::mul_canonical applies.
extern "C" __global__ void ew_mul(ulonglong2* out, const ulonglong2* a, const ulonglong2* b,
                                  const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const Modulus m = moduli[limb_of(i, log_n, limbs_per_poly)];
        const ulonglong2 x = a[i], y = b[i];
        out[i] = make_ulonglong2(modarith::mul_canonical(x.x, y.x, m), modarith::mul_canonical(x.y, y.y, m));
    }
}

// acc = acc + a * b mod q_i, coordinate-wise.
extern "C" __global__ void ew_mul_add(ulonglong2* acc, const ulonglong2* a, const ulonglong2* b,
                                      const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const Modulus m = moduli[limb_of(i, log_n, limbs_per_poly)];
        const ulonglong2 x = a[i], y = b[i], z = acc[i];
        acc[i] = make_ulonglong2(modarith::add(z.x, modarith::mul_canonical(x.x, y.x, m), m.p),
                                 modarith::add(z.y, modarith::mul_canonical(x.y, y.y, m), m.p));
    }
}

// The tensor product of two ciphertexts (c_0, c_1), (d_0, d_1) in the NTT evaluation
// representation, in one pass: out0 = c_0 d_0, out1 = c_0 d_1 + c_1 d_0, out2 = c_1 d_1 mod q_i,
// coordinate-wise (each input read once instead of the twice of three products and a
// multiply-add). The middle term by Karatsuba, (c_0 + c_1)(d_0 + d_1) - c_0 d_0 - c_1 d_1 (three
// products instead of four; the sums reduced first, as mul_canonical wants). Canonical values,
// so the words of ew_mul / ew_mul_add.
__device__ __forceinline__ void tensor_word(const u64 x0, const u64 x1, const u64 y0, const u64 y1, const Modulus& m,
                                            u64& z0, u64& z1, u64& z2) {
    z0 = modarith::mul_canonical(x0, y0, m);
    z2 = modarith::mul_canonical(x1, y1, m);
    const u64 cross = modarith::mul_canonical(modarith::add(x0, x1, m.p), modarith::add(y0, y1, m.p), m);
    z1 = modarith::sub(modarith::sub(cross, z0, m.p), z2, m.p);
}

extern "C" __global__ void ew_tensor(ulonglong2* out0, ulonglong2* out1, ulonglong2* out2, const ulonglong2* c0,
                                     const ulonglong2* c1, const ulonglong2* d0, const ulonglong2* d1,
                                     const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly, u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const Modulus m = moduli[limb_of(i, log_n, limbs_per_poly)];
        const ulonglong2 x0 = c0[i], x1 = c1[i], y0 = d0[i], y1 = d1[i];
        ulonglong2 z0, z1, z2;
        tensor_word(x0.x, x1.x, y0.x, y1.x, m, z0.x, z1.x, z2.x);
        tensor_word(x0.y, x1.y, y0.y, y1.y, m, z0.y, z1.y, z2.y);
        out0[i] = z0;
        out1[i] = z1;
        out2[i] = z2;
    }
}

// Gaussian product of (re, im) pairs (DGT evaluation representation), as Modulus::gauss_mul:
// (a + bi)(c + di) = (ac - bd) + (ad + bc) i.
__device__ __forceinline__ ulonglong2 gauss_mul(const ulonglong2 x, const ulonglong2 y, const Modulus& m) {
    using modarith::mul_canonical;
    const u64 re = modarith::sub(mul_canonical(x.x, y.x, m), mul_canonical(x.y, y.y, m), m.p);
    const u64 im = modarith::add(mul_canonical(x.x, y.y, m), mul_canonical(x.y, y.x, m), m.p);
    return make_ulonglong2(re, im);
}

// out = a * b, Gaussian-coordinate-wise on (re, im) pairs.
extern "C" __global__ void ew_gauss_mul(ulonglong2* out, const ulonglong2* a, const ulonglong2* b,
                                        const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly,
                                        u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const Modulus m = moduli[limb_of(i, log_n, limbs_per_poly)];
        out[i] = gauss_mul(a[i], b[i], m);
    }
}

// acc = acc + a * b, Gaussian-coordinate-wise on (re, im) pairs.
extern "C" __global__ void ew_gauss_mul_add(ulonglong2* acc, const ulonglong2* a, const ulonglong2* b,
                                            const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly,
                                            u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const Modulus m = moduli[limb_of(i, log_n, limbs_per_poly)];
        const ulonglong2 prod = gauss_mul(a[i], b[i], m);
        const ulonglong2 z = acc[i];
        acc[i] = make_ulonglong2(modarith::add(z.x, prod.x, m.p), modarith::add(z.y, prod.y, m.p));
    }
}

// out = c_i * a mod q_i with scalars[limb] = {c_i, floor(c_i 2^64 / q_i)} (Shoup), c_i < q_i.
extern "C" __global__ void ew_scalar_mul(ulonglong2* out, const ulonglong2* a, const ulonglong2* __restrict__ scalars,
                                         const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly,
                                         u64 pairs) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    FOR_EACH_PAIR(pairs) {
        const int limb = limb_of(i, log_n, limbs_per_poly);
        const u64 p = moduli[limb].p;
        const ulonglong2 c = scalars[limb];
        const ulonglong2 x = a[i];
        out[i] = make_ulonglong2(modarith::mul_shoup(x.x, c.x, c.y, p), modarith::mul_shoup(x.y, c.x, c.y, p));
    }
}

// The automorphism a(x) -> a(x^g) on coefficients, g odd, as Poly::automorphism: coefficient
// j moves to k = j g mod 2N, negated if k >= N. Written as a gather (coalesced stores): output
// j comes from e = j g^-1 mod 2N, i.e. out[j] = a[e] if e < N, else -a[e - N].
// One value per thread; `total` values; g_inv = g^-1 mod 2N. Out-of-place only.
extern "C" __global__ void ew_automorphism(u64* __restrict__ out, const u64* __restrict__ a,
                                           const Modulus* __restrict__ moduli, int log_n, int limbs_per_poly,
                                           u64 g_inv, u64 total) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const u64 n = 1ull << log_n;
    const u64 two_n_mask = 2 * n - 1;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (u64)gridDim.x * blockDim.x) {
        const u64 row = i >> log_n;
        const u64 j = i & (n - 1);
        const u64 p = moduli[row % (u64)limbs_per_poly].p;
        const u64 e = (j * g_inv) & two_n_mask;
        const u64* limb = a + (row << log_n);
        out[i] = e < n ? limb[e] : modarith::neg(limb[e - n], p);
    }
}

// The automorphism a(x) -> a(x^g) on NTT evaluations (bit-reversed order, out[j] =
// a(psi^(2 bitrev(j) + 1))): a permutation. Value j of each limb is value
// bitrev((e - 1) / 2) of the input limb, e = (2 bitrev(j) + 1) g mod 2N (poly's
// Poly::automorphism_ntt). log_n >= 1.
extern "C" __global__ void ew_automorphism_eval(u64* __restrict__ out, const u64* __restrict__ a, int log_n, u64 g,
                                                u64 total) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const u64 n = 1ull << log_n;
    const u64 two_n_mask = 2 * n - 1;
    const int shift = 64 - log_n;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (u64)gridDim.x * blockDim.x) {
        const u64 row = i >> log_n;
        const u64 j = i & (n - 1);
        const u64 e = ((2 * (__brevll(j) >> shift) + 1) * (g & two_n_mask)) & two_n_mask;
        out[i] = a[(row << log_n) + (__brevll((e - 1) >> 1) >> shift)];
    }
}

// Sums or differences of up to EW_MAX_MANY polynomial pairs in one launch (a ciphertext's
// polynomials are separate buffers): polynomial k = blockIdx.y, out[k] = a[k] +- b[k] over
// `pairs` value pairs each (all of one context). In place when out[k] == a[k].
#define EW_MAX_MANY 4
struct ManyParams {
    ulonglong2* out[EW_MAX_MANY];
    const ulonglong2* a[EW_MAX_MANY];
    const ulonglong2* b[EW_MAX_MANY];
    const Modulus* moduli;
    u64 pairs;
    int log_n;
    int limbs_per_poly;
    int subtract;  // 0: a + b, 1: a - b
    int unused;
};

extern "C" __global__ void ew_add_sub_many(const __grid_constant__ ManyParams P) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const int k = blockIdx.y;
    ulonglong2* out = P.out[k];
    const ulonglong2* a = P.a[k];
    const ulonglong2* b = P.b[k];
    FOR_EACH_PAIR(P.pairs) {
        const u64 p = P.moduli[limb_of(i, P.log_n, P.limbs_per_poly)].p;
        const ulonglong2 x = a[i], y = b[i];
        out[i] = P.subtract != 0 ? make_ulonglong2(modarith::sub(x.x, y.x, p), modarith::sub(x.y, y.y, p))
                                 : make_ulonglong2(modarith::add(x.x, y.x, p), modarith::add(x.y, y.y, p));
    }
}

// Copies of up to EW_MAX_MANY buffers in one launch (the inputs and outputs of a replayed
// graph: crates/poly-cuda/src/graph.rs): buffer k = blockIdx.y, dst[k][i] = src[k][i] for
// i < pairs[k] value pairs. Buffers do not overlap.
struct CopyManyParams {
    ulonglong2* dst[EW_MAX_MANY];
    const ulonglong2* src[EW_MAX_MANY];
    u64 pairs[EW_MAX_MANY];
};

extern "C" __global__ void ew_copy_many(const __grid_constant__ CopyManyParams P) {
    dependent_launch::wait_for_inputs_and_allow_dependents();  // programmatic dependency
    const int k = blockIdx.y;
    ulonglong2* __restrict__ dst = P.dst[k];
    const ulonglong2* __restrict__ src = P.src[k];
    FOR_EACH_PAIR(P.pairs[k]) { dst[i] = src[i]; }
}
