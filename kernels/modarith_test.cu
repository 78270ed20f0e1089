// Test kernel for kernels/include/modarith.cuh: applies every helper to host-chosen inputs
// so that crates/poly-cuda/tests/modarith.rs can compare each result with crates/modarith.
//
// Inputs, `count` of each (the host keeps every precondition):
//   canon_a, canon_b  canonical, in [0, p)
//   lazy_a, lazy_b    in [0, 2p)
//   lazy4             in [0, 4p)
//   raw_x, raw_y      any 64-bit words
// Output: out[i * MODARITH_TEST_OUTPUTS + f] for input i and function f, in this order:
//   0 add(ca, cb)        1 sub(ca, cb)          2 neg(ca)
//   3 reduce_u128(x, y)  (x low word, y high)   4 reduce(x)            5 mul(x, y)
//   6 shoup(cb)          7 mul_shoup_lazy(x, cb, shoup(cb))            8 mul_shoup(x, cb, shoup(cb))
//   9 add_lazy(la, lb)   10 sub_lazy(la, lb)    11 reduce_from_2p(la)
//   12 reduce_from_4p_to_2p(l4)                 13 reduce_from_4p(l4)
//   14 mul_canonical(ca, cb)                    15 mul_canonical(wa, wb)
//   16 reduce_short(x, y mod 2^(n-1))
// with wa, wb the lazy inputs with their bits from the prime's bit length up cleared (below
// 2^n, mul_canonical's precondition), n the bit length of p (reduce_short's input is then
// below 2^(n+63), its precondition).
#include <cstdint>

#include "centered_lift.cuh"
#include "modarith.cuh"

using modarith::u64;

#define MODARITH_TEST_OUTPUTS 17

extern "C" __global__ void modarith_test(const u64* canon_a, const u64* canon_b, const u64* lazy_a,
                                         const u64* lazy_b, const u64* lazy4, const u64* raw_x, const u64* raw_y,
                                         modarith::Modulus m, u64* out, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const u64 p = m.p;
    const u64 ca = canon_a[i], cb = canon_b[i], la = lazy_a[i], lb = lazy_b[i], l4 = lazy4[i];
    const u64 x = raw_x[i], y = raw_y[i];
    const u64 w_shoup = modarith::shoup(cb, m);
    u64* o = out + (size_t)i * MODARITH_TEST_OUTPUTS;
    o[0] = modarith::add(ca, cb, p);
    o[1] = modarith::sub(ca, cb, p);
    o[2] = modarith::neg(ca, p);
    o[3] = modarith::reduce_u128(x, y, m);
    o[4] = modarith::reduce(x, m);
    o[5] = modarith::mul(x, y, m);
    o[6] = w_shoup;
    o[7] = modarith::mul_shoup_lazy(x, cb, w_shoup, p);
    o[8] = modarith::mul_shoup(x, cb, w_shoup, p);
    o[9] = modarith::add_lazy(la, lb, p);
    o[10] = modarith::sub_lazy(la, lb, p);
    o[11] = modarith::reduce_from_2p(la, p);
    o[12] = modarith::reduce_from_4p_to_2p(l4, p);
    o[13] = modarith::reduce_from_4p(l4, p);
    o[14] = modarith::mul_canonical(ca, cb, m);
    const u64 below_2n = ~0ull >> __clzll(p);
    o[15] = modarith::mul_canonical(la & below_2n, lb & below_2n, m);
    o[16] = modarith::reduce_short(x, y & (below_2n >> 1), m);
}

// centered_lift::finish (kernels/include/centered_lift.cuh) on host-chosen sums: case i is
// words[5 i ..] = {fraction lo, fraction carries, s0, s1, s2}; out[i] its result with `finish`'s
// constants (crates/poly-cuda/tests/centered_lift.rs compares it with exact arithmetic).
extern "C" __global__ void centered_lift_finish_test(const u64* words, const centered_lift::Finish finish, u64* out,
                                                     int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const u64* w = words + 5 * (size_t)i;
    const centered_lift::Fraction fraction = {w[0], w[1]};
    const wide_sum::Sum192 sum = {w[2], w[3], w[4]};
    out[i] = centered_lift::finish(fraction, sum, finish);
}
