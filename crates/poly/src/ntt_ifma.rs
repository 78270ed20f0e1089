//! The wide stages of [`crate::ntt::NttPlan`]'s transforms on x86-64 CPUs with AVX-512 IFMA
//! (52-bit integer multiply-adds), for primes below 2^50: eight butterflies per instruction
//! sequence where the scalar code takes one.
//!
//! Shoup's product with 52-bit words: for `w < p` and `w52 = floor(w 2^52 / p)`, every `y <
//! 2^52` gives `q = floor(y w52 / 2^52)` (`vpmadd52huq`) with `y w - q p` in `[0, 2p)` (as with
//! 64-bit words: `q` is at most `y w / p` and more than `y w / p - 2`), so that value is the
//! difference of the low 52 bits of `y w` and of `q p` (`vpmadd52luq`) modulo 2^52. The lazy
//! ranges are the scalar code's (`[0, 4p)` forward, `[0, 2p)` inverse), below 2^52 because `p <
//! 2^50`; the canonical outputs are the same words.
//!
//! Stages whose partners are at least 8 apart (contiguous runs of 8) run here; the last three
//! forward stages and the first three inverse ones stay scalar.

use std::arch::x86_64::{
    __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_loadu_si512, _mm512_madd52hi_epu64, _mm512_madd52lo_epu64,
    _mm512_min_epu64, _mm512_set1_epi64, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_sub_epi64,
};

/// Lanes of a vector.
const LANES: usize = 8;
/// Low 52 bits.
const MASK52: u64 = (1 << 52) - 1;
/// The largest prime (exclusive) the 52-bit path takes: `4p` stays below 2^52.
pub(crate) const MAX_PRIME: u64 = 1 << 50;

/// Whether this CPU runs the 52-bit path.
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512ifma")
}

/// The constants of one prime, broadcast.
#[derive(Clone, Copy)]
struct Prime {
    p: __m512i,
    two_p: __m512i,
    mask: __m512i,
}

impl Prime {
    #[target_feature(enable = "avx512f")]
    fn new(p: u64) -> Self {
        Self { p: splat(p), two_p: splat(2 * p), mask: splat(MASK52) }
    }
}

#[target_feature(enable = "avx512f")]
fn splat(v: u64) -> __m512i {
    _mm512_set1_epi64(v as i64)
}

/// `x - m` where `x >= m`, else `x` (unsigned lanes).
#[target_feature(enable = "avx512f")]
fn reduce_once(x: __m512i, m: __m512i) -> __m512i {
    _mm512_min_epu64(x, _mm512_sub_epi64(x, m))
}

/// `y w mod p` in `[0, 2p)` for lanes `y < 2^52`.
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul_shoup_lazy(y: __m512i, w: __m512i, w52: __m512i, m: &Prime) -> __m512i {
    let zero = _mm512_setzero_si512();
    let q = _mm512_madd52hi_epu64(zero, y, w52);
    let product = _mm512_madd52lo_epu64(zero, y, w);
    let correction = _mm512_madd52lo_epu64(zero, q, m.p);
    _mm512_and_si512(_mm512_sub_epi64(product, correction), m.mask)
}

#[target_feature(enable = "avx512f")]
fn load(a: &[u64]) -> __m512i {
    debug_assert!(a.len() >= LANES);
    // SAFETY: callers pass runs of at least LANES words (chunks_exact); unaligned loads.
    unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f")]
fn store(a: &mut [u64], v: __m512i) {
    debug_assert!(a.len() >= LANES);
    // SAFETY: as `load`.
    unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) }
}

/// The forward transform's stages while partners are at least 8 apart, on `a` (length `n`,
/// values in `[0, 4p)`, left in `[0, 4p)`), with the plan's twiddles and their 52-bit Shoup
/// companions. Returns `(m, half)`: the blocks and the partners' distance of the last stage
/// done (`(1, n)` when none), from which the scalar code goes on.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 IFMA ([`available`]); `p < 2^50`; `a`, `twid` and
/// `twid52` have length `n`, a power of two.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) unsafe fn forward_wide(a: &mut [u64], twid: &[u64], twid52: &[u64], p: u64) -> (usize, usize) {
    let n = a.len();
    let prime = Prime::new(p);
    let (mut m, mut half) = (1usize, n);
    while m < n / 2 && half / 2 >= LANES {
        half >>= 1;
        for (j, block) in a.chunks_exact_mut(2 * half).enumerate() {
            let (w, w52) = (splat(twid[m + j]), splat(twid52[m + j]));
            let (xs, ys) = block.split_at_mut(half);
            for (x, y) in xs.chunks_exact_mut(LANES).zip(ys.chunks_exact_mut(LANES)) {
                let u = reduce_once(load(x), prime.two_p);
                let v = mul_shoup_lazy(load(y), w, w52, &prime);
                store(x, _mm512_add_epi64(u, v));
                store(y, _mm512_sub_epi64(_mm512_add_epi64(u, prime.two_p), v));
            }
        }
        m <<= 1;
    }
    (m, half)
}

/// The inverse transform's stages with partners at least 8 apart after the scalar code's
/// first ones: `a` in `[0, 2p)` after the stages of distance below `half` (`h = n / (2 half)`
/// blocks left), through the last stage with `N^-1` folded in (`ni`, and `last`, the last
/// twiddle times `N^-1`, each with its 52-bit companion), to canonical values.
///
/// # Safety
/// As [`forward_wide`]; `half >= 8` and a power of two below `n`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) unsafe fn inverse_wide(
    a: &mut [u64],
    inv_twid: &[u64],
    inv_twid52: &[u64],
    p: u64,
    mut half: usize,
    (ni, ni52): (u64, u64),
    (last, last52): (u64, u64),
) {
    let n = a.len();
    let prime = Prime::new(p);
    let mut h = n / (2 * half);
    while h > 1 {
        for (j, block) in a.chunks_exact_mut(2 * half).enumerate() {
            let (w, w52) = (splat(inv_twid[h + j]), splat(inv_twid52[h + j]));
            let (xs, ys) = block.split_at_mut(half);
            for (x, y) in xs.chunks_exact_mut(LANES).zip(ys.chunks_exact_mut(LANES)) {
                let (u, v) = (load(x), load(y));
                store(x, reduce_once(_mm512_add_epi64(u, v), prime.two_p));
                let d = _mm512_sub_epi64(_mm512_add_epi64(u, prime.two_p), v);
                store(y, mul_shoup_lazy(d, w, w52, &prime));
            }
        }
        half <<= 1;
        h >>= 1;
    }
    let (xs, ys) = a.split_at_mut(n / 2);
    let (ni, ni52, last, last52) = (splat(ni), splat(ni52), splat(last), splat(last52));
    for (x, y) in xs.chunks_exact_mut(LANES).zip(ys.chunks_exact_mut(LANES)) {
        let (u, v) = (load(x), load(y));
        let sum = mul_shoup_lazy(_mm512_add_epi64(u, v), ni, ni52, &prime);
        store(x, reduce_once(sum, prime.p));
        let d = _mm512_sub_epi64(_mm512_add_epi64(u, prime.two_p), v);
        store(y, reduce_once(mul_shoup_lazy(d, last, last52, &prime), prime.p));
    }
}
