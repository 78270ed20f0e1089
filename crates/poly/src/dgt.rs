//! Discrete Galois transform (DGT) over one RNS prime `p = 1 mod 2N`: the negacyclic
//! transform of `Z_p[x]/(x^N + 1)` computed as a length-`N/2` transform over the Gaussian
//! integers `Z_p[i]` (Crandall; generalized to `p = 1 mod 4` by Al Badawi et al.; the
//! rewritten data-paths of Alves et al., "Faster homomorphic encryption over GPGPUs via
//! hierarchical DGT", Algorithms 1-3).
//!
//! Write `K = N/2`. The forward transform
//! 1. folds `a` into `K` Gaussian integers `a_n + i * a_{n+K}`,
//! 2. twists element `n` by `h^n`, where `h` = [`primitive_root_of_i`]`(p, K)` (`h^K = i`),
//! 3. applies the length-`K` DGT with the **real** root `g` = [`primitive_root_of_unity`]`(p, K)`
//!    by Gentleman-Sande butterflies (Algorithm 2), without a bit-reversal pass.
//!
//! Its output, in bit-reversed order and interleaved (`eval[2j] = re`, `eval[2j+1] = im`), is
//!
//! `eval_j = sum_{n<K} h^n (a_n + i a_{n+K}) g^(n * bitrev_{log K}(j)) = a(zeta_j)`,
//! `zeta_j = h * g^bitrev_{log K}(j)`,
//!
//! i.e. the polynomial `a` evaluated in `Z_p[i]` at the `K` roots `zeta_j` of `x^K = i` (so
//! `zeta_j^N = -1`). Multiplying two such vectors element by element **as Gaussian
//! integers** ([`gaussian_pointwise_mul`]) and transforming back gives the negacyclic
//! product: under a DGT context, evaluation-domain multiplication is Gaussian, not
//! coordinate-wise. The inverse is Cooley-Tukey (Algorithm 3) with `g^-1`, followed by the
//! inverse twist `h^-n`, into which `K^-1` is folded, and the unfold.
//!
//! Since `g` is real, a butterfly multiplies both parts of a Gaussian element by the same
//! word, with Shoup's method; butterflies are lazy (Harvey): values stay in `[0, 2p)`
//! (forward) or `[0, 4p)` (inverse) until the final reduction.

use crate::{PolyError, Result};
use modarith::{GaussianInt, Modulus, primitive_root_of_i, primitive_root_of_unity};

/// Smallest degree a DGT plan supports (`N/2 >= 2`, so that a root of unity of order `N/2`
/// exists).
pub const MIN_DGT_DEGREE: usize = 4;
/// Largest degree a DGT plan supports (the largest ring degree of the library).
pub const MAX_DGT_DEGREE: usize = 1 << 17;

/// `x - m` if `x >= m`, else `x`, as a conditional move (no data-dependent branch).
#[inline(always)]
pub(crate) fn reduce_once(x: u64, m: u64) -> u64 {
    x.min(x.wrapping_sub(m))
}

/// `a * w mod p` in `[0, 2p)` for any `a < 2^64`, `w < p`, `w_shoup = floor(w 2^64 / p)`.
#[inline(always)]
pub(crate) fn mul_shoup_lazy(a: u64, w: u64, w_shoup: u64, p: u64) -> u64 {
    let q = ((a as u128 * w_shoup as u128) >> 64) as u64;
    a.wrapping_mul(w).wrapping_sub(q.wrapping_mul(p))
}

/// `k` with its lowest `bits` bits reversed.
#[inline]
pub(crate) fn bit_reverse(k: usize, bits: u32) -> usize {
    if bits == 0 { 0 } else { k.reverse_bits() >> (usize::BITS - bits) }
}

/// Errors unless `a.len() == expected` and every value is below `p`.
pub(crate) fn check_canonical(a: &[u64], expected: usize, p: u64) -> Result<()> {
    if a.len() != expected {
        return Err(PolyError::LengthMismatch { expected, actual: a.len() });
    }
    // A branch-free maximum first keeps the common (valid) case vectorized.
    if a.iter().fold(0, |m, &v| m.max(v)) >= p
        && let Some((index, &value)) = a.iter().enumerate().find(|&(_, &v)| v >= p)
    {
        return Err(PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus: p });
    }
    Ok(())
}

/// A Gaussian table split into parts, each with its Shoup companions.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GaussianTable {
    re: Vec<u64>,
    im: Vec<u64>,
    re_shoup: Vec<u64>,
    im_shoup: Vec<u64>,
}

impl GaussianTable {
    fn new(modulus: &Modulus, values: impl Iterator<Item = GaussianInt>) -> Self {
        let (re, im): (Vec<u64>, Vec<u64>) = values.map(|v| (v.re, v.im)).unzip();
        let re_shoup = re.iter().map(|&w| modulus.shoup(w)).collect();
        let im_shoup = im.iter().map(|&w| modulus.shoup(w)).collect();
        Self { re, im, re_shoup, im_shoup }
    }
}

/// Precomputed tables for the DGT of degree `N` (length `K = N/2` over `Z_p[i]`) modulo one
/// prime `p = 1 mod 2N`.
///
/// Tables (canonical, each with its Shoup companion `floor(w * 2^64 / p)`):
/// - twist, `K` Gaussian entries: `h^n`, `n = 0..K`, as separate real and imaginary arrays
///   ([`DgtPlan::twist_re`], [`DgtPlan::twist_im`]).
/// - inverse twist, `K` Gaussian entries: `h^-n * K^-1` ([`DgtPlan::inverse_twist_re`],
///   [`DgtPlan::inverse_twist_im`]).
/// - twiddles, `K` real entries: `twiddles()[m + t] = g^(t * K / (2m))` for every stage
///   half-width `m = 1, 2, 4, ..., K/2` and `t = 0..m` (entry 0 is 1 and unused). The
///   butterfly stage whose partners are `m` elements apart uses entries `m..2m`. The entries
///   do not depend on `K` beyond `g`: the first `L` entries are the table of any length-`L`
///   transform with root `g^(K/L)`, which the hierarchical DGT uses.
/// - inverse twiddles, same layout: `inverse_twiddles()[m + t] = g^-(t * K / (2m))`.
///
/// Orderings: [`DgtPlan::forward_inplace`] maps coefficients in natural order to the
/// evaluation vector described in the [module documentation](self) (Gaussian element `j` in
/// bit-reversed order, interleaved as `eval[2j] = re`, `eval[2j+1] = im`);
/// [`DgtPlan::inverse_inplace`] maps that vector back to coefficients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtPlan {
    modulus: Modulus,
    degree: usize,
    root_of_i: GaussianInt,
    root_of_unity: u64,
    twist: GaussianTable,
    inverse_twist: GaussianTable,
    twiddles: Vec<u64>,
    twiddles_shoup: Vec<u64>,
    inverse_twiddles: Vec<u64>,
    inverse_twiddles_shoup: Vec<u64>,
}

impl DgtPlan {
    /// Tables for degree `degree` modulo `modulus`.
    ///
    /// `degree` must be a power of two in `4..=2^17`; `modulus` must be `1 mod 2 * degree`.
    pub fn new(modulus: Modulus, degree: usize) -> Result<Self> {
        if !degree.is_power_of_two() || !(MIN_DGT_DEGREE..=MAX_DGT_DEGREE).contains(&degree) {
            return Err(PolyError::InvalidDegree { degree, reason: "a DGT plan needs a power of two in 4..=2^17" });
        }
        let p = modulus.value();
        let two_n = 2 * degree as u64;
        if p % two_n != 1 {
            return Err(PolyError::InvalidModulus { modulus: p, degree, reason: "must be 1 mod 2N" });
        }
        let half = degree / 2;
        let root_of_i = primitive_root_of_i(&modulus, half as u64)?;
        let root_of_unity = primitive_root_of_unity(&modulus, half as u64)?;
        let root_of_i_inv = modulus.gauss_inv(root_of_i)?;
        let root_of_unity_inv = modulus.inv(root_of_unity)?;
        let half_inv = modulus.inv(half as u64)?;

        let gauss_powers = |base: GaussianInt, start: GaussianInt| {
            let mut acc = start;
            (0..half).map(move |_| {
                let current = acc;
                acc = modulus.gauss_mul(acc, base);
                current
            })
        };
        let twist = GaussianTable::new(&modulus, gauss_powers(root_of_i, GaussianInt::ONE));
        let inverse_twist = GaussianTable::new(&modulus, gauss_powers(root_of_i_inv, GaussianInt::new(half_inv, 0)));

        let stage_table = |root: u64| {
            let powers = real_powers(&modulus, root, half);
            let mut table = vec![1u64; half];
            let mut m = 1;
            while m < half {
                let stride = half / (2 * m);
                for t in 0..m {
                    table[m + t] = powers[t * stride];
                }
                m *= 2;
            }
            let shoup = table.iter().map(|&w| modulus.shoup(w)).collect::<Vec<_>>();
            (table, shoup)
        };
        let (twiddles, twiddles_shoup) = stage_table(root_of_unity);
        let (inverse_twiddles, inverse_twiddles_shoup) = stage_table(root_of_unity_inv);

        Ok(Self {
            modulus,
            degree,
            root_of_i,
            root_of_unity,
            twist,
            inverse_twist,
            twiddles,
            twiddles_shoup,
            inverse_twiddles,
            inverse_twiddles_shoup,
        })
    }

    /// The prime `p`.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The ring degree `N` (the transform has length `N/2` over `Z_p[i]`).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// `h`, the primitive `N/2`-th root of `i` (`h^(N/2) = i`, order `2N`) of the twist.
    pub fn root_of_i(&self) -> GaussianInt {
        self.root_of_i
    }

    /// `g`, the real primitive `N/2`-th root of unity of the butterflies.
    pub fn root_of_unity(&self) -> u64 {
        self.root_of_unity
    }

    /// Real parts of the twist `h^n`, `n = 0..N/2`.
    pub fn twist_re(&self) -> &[u64] {
        &self.twist.re
    }

    /// Imaginary parts of the twist `h^n`, `n = 0..N/2`.
    pub fn twist_im(&self) -> &[u64] {
        &self.twist.im
    }

    /// Shoup companions of [`DgtPlan::twist_re`].
    pub fn twist_re_shoup(&self) -> &[u64] {
        &self.twist.re_shoup
    }

    /// Shoup companions of [`DgtPlan::twist_im`].
    pub fn twist_im_shoup(&self) -> &[u64] {
        &self.twist.im_shoup
    }

    /// Real parts of the inverse twist `h^-n * (N/2)^-1`, `n = 0..N/2`.
    pub fn inverse_twist_re(&self) -> &[u64] {
        &self.inverse_twist.re
    }

    /// Imaginary parts of the inverse twist `h^-n * (N/2)^-1`, `n = 0..N/2`.
    pub fn inverse_twist_im(&self) -> &[u64] {
        &self.inverse_twist.im
    }

    /// Shoup companions of [`DgtPlan::inverse_twist_re`].
    pub fn inverse_twist_re_shoup(&self) -> &[u64] {
        &self.inverse_twist.re_shoup
    }

    /// Shoup companions of [`DgtPlan::inverse_twist_im`].
    pub fn inverse_twist_im_shoup(&self) -> &[u64] {
        &self.inverse_twist.im_shoup
    }

    /// Forward twiddles, `N/2` entries: `[m + t] = g^(t * (N/2) / (2m))` (see the type's
    /// documentation for the stage layout).
    pub fn twiddles(&self) -> &[u64] {
        &self.twiddles
    }

    /// Shoup companions of [`DgtPlan::twiddles`].
    pub fn twiddles_shoup(&self) -> &[u64] {
        &self.twiddles_shoup
    }

    /// Inverse twiddles, `N/2` entries: `[m + t] = g^-(t * (N/2) / (2m))`.
    pub fn inverse_twiddles(&self) -> &[u64] {
        &self.inverse_twiddles
    }

    /// Shoup companions of [`DgtPlan::inverse_twiddles`].
    pub fn inverse_twiddles_shoup(&self) -> &[u64] {
        &self.inverse_twiddles_shoup
    }

    /// Forward DGT in place: `N` canonical coefficients in natural order become the `N`
    /// canonical words of the evaluation vector (`N/2` Gaussian elements in bit-reversed
    /// order, `a[2j] = re(a(zeta_j))`, `a[2j+1] = im(a(zeta_j))`; see the module docs).
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`
    /// (reported as limb 0: a plan sees a single limb).
    pub fn forward_inplace(&self, a: &mut [u64]) -> Result<()> {
        check_canonical(a, self.degree, self.modulus.value())?;
        let coefficients = a.to_vec();
        self.fold_and_twist(&coefficients, a);
        forward_butterflies(a, 2, &self.twiddles, &self.twiddles_shoup, self.modulus.value());
        reduce_all_from_2p(a, self.modulus.value());
        Ok(())
    }

    /// Inverse of [`DgtPlan::forward_inplace`]: the canonical interleaved evaluation vector
    /// in bit-reversed order becomes canonical coefficients in natural order.
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`.
    pub fn inverse_inplace(&self, a: &mut [u64]) -> Result<()> {
        check_canonical(a, self.degree, self.modulus.value())?;
        let mut evaluations = a.to_vec();
        inverse_butterflies(
            &mut evaluations,
            2,
            &self.inverse_twiddles,
            &self.inverse_twiddles_shoup,
            self.modulus.value(),
        );
        self.untwist_and_unfold(&evaluations, a);
        Ok(())
    }

    /// Gaussian element-wise product of two evaluation vectors of this plan (see
    /// [`gaussian_pointwise_mul`]).
    pub fn pointwise_mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()> {
        if out.len() != self.degree {
            return Err(PolyError::LengthMismatch { expected: self.degree, actual: out.len() });
        }
        gaussian_pointwise_mul(&self.modulus, a, b, out)
    }

    /// Steps 1-2 of the forward transform: `out[2n] + i out[2n+1] = h^n (a_n + i a_{n+K})`,
    /// values in `[0, 2p)`. `coefficients` and `out` have length `N`.
    pub(crate) fn fold_and_twist(&self, coefficients: &[u64], out: &mut [u64]) {
        let p = self.modulus.value();
        let two_p = 2 * p;
        let (low, high) = coefficients.split_at(self.degree / 2);
        let t = &self.twist;
        let tables = t.re.iter().zip(&t.im).zip(t.re_shoup.iter().zip(&t.im_shoup));
        for ((pair, (&x, &y)), ((&hr, &hi), (&hr_s, &hi_s))) in
            out.chunks_exact_mut(2).zip(low.iter().zip(high)).zip(tables)
        {
            // (x + iy)(hr + i hi) = (x hr - y hi) + i (x hi + y hr)
            let re = mul_shoup_lazy(x, hr, hr_s, p) + two_p - mul_shoup_lazy(y, hi, hi_s, p);
            let im = mul_shoup_lazy(x, hi, hi_s, p) + mul_shoup_lazy(y, hr, hr_s, p);
            pair[0] = reduce_once(re, two_p);
            pair[1] = reduce_once(im, two_p);
        }
    }

    /// Last steps of the inverse: `out_n + i out_{n+K} = h^-n K^-1 (e[2n] + i e[2n+1])`,
    /// canonical. `evaluations` (any `u64` values: lazy ranges are fine, the Shoup
    /// products accept any word) and `out` have length `N`.
    pub(crate) fn untwist_and_unfold(&self, evaluations: &[u64], out: &mut [u64]) {
        let p = self.modulus.value();
        let two_p = 2 * p;
        let (low, high) = out.split_at_mut(self.degree / 2);
        let t = &self.inverse_twist;
        let tables = t.re.iter().zip(&t.im).zip(t.re_shoup.iter().zip(&t.im_shoup));
        for ((pair, (lo, hi_out)), ((&hr, &hi), (&hr_s, &hi_s))) in
            evaluations.chunks_exact(2).zip(low.iter_mut().zip(high.iter_mut())).zip(tables)
        {
            let (x, y) = (pair[0], pair[1]);
            let re = mul_shoup_lazy(x, hr, hr_s, p) + two_p - mul_shoup_lazy(y, hi, hi_s, p);
            let im = mul_shoup_lazy(x, hi, hi_s, p) + mul_shoup_lazy(y, hr, hr_s, p);
            *lo = reduce_once(reduce_once(re, two_p), p);
            *hi_out = reduce_once(reduce_once(im, two_p), p);
        }
    }
}

/// `base^k`, `k = 0..count`.
fn real_powers(modulus: &Modulus, base: u64, count: usize) -> Vec<u64> {
    let mut acc = 1u64;
    (0..count)
        .map(|_| {
            let current = acc;
            acc = modulus.mul(acc, base);
            current
        })
        .collect()
}

/// Reduces every value of `a` from `[0, 2p)` to `[0, p)`.
pub(crate) fn reduce_all_from_2p(a: &mut [u64], p: u64) {
    for v in a {
        *v = reduce_once(*v, p);
    }
}

/// Gentleman-Sande butterflies of a length-`L` transform over `data`, viewed as `L`
/// elements of `width` consecutive words each (`data.len() = L * width`, `L` a power of
/// two); every word of an element is multiplied by the same real twiddle. Stage by stage,
/// partners `m = L/2, ..., 2, 1` elements apart, block offset `t` uses `twiddles[m + t]`.
/// Natural order in, bit-reversed order out, no scaling. Values in `[0, 2p)` in and out.
pub(crate) fn forward_butterflies(data: &mut [u64], width: usize, twiddles: &[u64], twiddles_shoup: &[u64], p: u64) {
    // Width 2 (one Gaussian element) is the common case: a constant width lets the
    // compiler unroll the innermost loop.
    if width == 2 {
        forward_butterflies_impl::<2>(data, width, twiddles, twiddles_shoup, p);
    } else {
        forward_butterflies_impl::<0>(data, width, twiddles, twiddles_shoup, p);
    }
}

/// [`forward_butterflies`] with the width fixed at compile time (`WIDTH > 0`) or not (`0`).
#[inline(always)]
fn forward_butterflies_impl<const WIDTH: usize>(
    data: &mut [u64],
    width: usize,
    twiddles: &[u64],
    twiddles_shoup: &[u64],
    p: u64,
) {
    let width = if WIDTH > 0 { WIDTH } else { width };
    let two_p = 2 * p;
    let length = data.len() / width;
    let mut m = length / 2;
    while m >= 1 {
        let stage = twiddles[m..2 * m].iter().zip(&twiddles_shoup[m..2 * m]);
        for block in data.chunks_exact_mut(2 * m * width) {
            let (upper, lower) = block.split_at_mut(m * width);
            for ((xs, ys), (&w, &w_shoup)) in
                upper.chunks_exact_mut(width).zip(lower.chunks_exact_mut(width)).zip(stage.clone())
            {
                for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
                    let (u, v) = (*x, *y);
                    *x = reduce_once(u + v, two_p);
                    *y = mul_shoup_lazy(u + two_p - v, w, w_shoup, p);
                }
            }
        }
        m /= 2;
    }
}

/// Cooley-Tukey butterflies undoing [`forward_butterflies`] up to the factor `L`: with the
/// inverse twiddles, bit-reversed order in, natural order out, partners `m = 1, 2, ..., L/2`
/// elements apart. Values in `[0, 4p)` in and out.
pub(crate) fn inverse_butterflies(data: &mut [u64], width: usize, twiddles: &[u64], twiddles_shoup: &[u64], p: u64) {
    if width == 2 {
        inverse_butterflies_impl::<2>(data, width, twiddles, twiddles_shoup, p);
    } else {
        inverse_butterflies_impl::<0>(data, width, twiddles, twiddles_shoup, p);
    }
}

/// [`inverse_butterflies`] with the width fixed at compile time (`WIDTH > 0`) or not (`0`).
#[inline(always)]
fn inverse_butterflies_impl<const WIDTH: usize>(
    data: &mut [u64],
    width: usize,
    twiddles: &[u64],
    twiddles_shoup: &[u64],
    p: u64,
) {
    let width = if WIDTH > 0 { WIDTH } else { width };
    let two_p = 2 * p;
    let length = data.len() / width;
    let mut m = 1;
    while m < length {
        let stage = twiddles[m..2 * m].iter().zip(&twiddles_shoup[m..2 * m]);
        for block in data.chunks_exact_mut(2 * m * width) {
            let (upper, lower) = block.split_at_mut(m * width);
            for ((xs, ys), (&w, &w_shoup)) in
                upper.chunks_exact_mut(width).zip(lower.chunks_exact_mut(width)).zip(stage.clone())
            {
                for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
                    let u = reduce_once(*x, two_p);
                    let v = mul_shoup_lazy(*y, w, w_shoup, p);
                    *x = u + v;
                    *y = u + two_p - v;
                }
            }
        }
        m *= 2;
    }
}

/// Element-wise product of two DGT evaluation vectors as **Gaussian integers**:
/// `out[2j] + i out[2j+1] = (a[2j] + i a[2j+1]) (b[2j] + i b[2j+1]) mod p`.
///
/// This is the evaluation-domain multiplication of a DGT context (it is not the
/// coordinate-wise product an NTT context uses). Inputs canonical, output canonical.
/// Errors (leaving `out` untouched) if the lengths differ or are odd, or if a value of `a`
/// or `b` is not below `p`.
pub fn gaussian_pointwise_mul(modulus: &Modulus, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()> {
    let p = modulus.value();
    check_gaussian_operands(a, b, out.len(), p)?;
    for ((o, x), y) in out.chunks_exact_mut(2).zip(a.chunks_exact(2)).zip(b.chunks_exact(2)) {
        let (re, im) = gaussian_product(modulus, x[0], x[1], y[0], y[1]);
        o[0] = re;
        o[1] = im;
    }
    Ok(())
}

/// In-place variant of [`gaussian_pointwise_mul`]: `acc <- acc * b` element-wise in `Z_p[i]`.
pub fn gaussian_pointwise_mul_assign(modulus: &Modulus, acc: &mut [u64], b: &[u64]) -> Result<()> {
    let p = modulus.value();
    check_gaussian_operands(acc, b, b.len(), p)?;
    for (x, y) in acc.chunks_exact_mut(2).zip(b.chunks_exact(2)) {
        let (re, im) = gaussian_product(modulus, x[0], x[1], y[0], y[1]);
        x[0] = re;
        x[1] = im;
    }
    Ok(())
}

fn check_gaussian_operands(a: &[u64], b: &[u64], out_len: usize, p: u64) -> Result<()> {
    if !out_len.is_multiple_of(2) {
        return Err(PolyError::InvalidParameter {
            name: "Gaussian vector length",
            value: out_len as u64,
            reason: "must be even (interleaved re, im)",
        });
    }
    check_canonical(a, out_len, p)?;
    check_canonical(b, out_len, p)
}

/// `(ar + i ai)(br + i bi) mod p` with one Barrett reduction per part: the unreduced sums
/// are below `2 p^2 < 2^125`.
#[inline(always)]
fn gaussian_product(modulus: &Modulus, ar: u64, ai: u64, br: u64, bi: u64) -> (u64, u64) {
    let p = modulus.value();
    let re = ar as u128 * br as u128 + (p - ai) as u128 * bi as u128;
    let im = ar as u128 * bi as u128 + ai as u128 * br as u128;
    (modulus.reduce_u128(re), modulus.reduce_u128(im))
}
