//! Base conversions between RNS bases.
//!
//! - [`BaseConverter::fast_convert`]: the fast base conversion of Bajard, Eynard, Hasan and
//!   Zucca ("A Full RNS Variant of FV like Somewhat Homomorphic Encryption Schemes", SAC 2016,
//!   Eq. 3 of the GPU-FV paper): `sum_i |x_i M~_i|_{m_i} * (M / m_i) mod c_j`. It returns
//!   `x + u M` with `0 <= u < k`, not `x` itself.
//! - [`BaseConverter::exact_convert`]: the exact conversion of Halevi, Polyakov and Shoup ("An
//!   Improved RNS Variant of the BFV Homomorphic Encryption Scheme", CT-RSA 2019, Sec. 2.1),
//!   which subtracts `v M` with `v = round(sum_i |x_i M~_i|_{m_i} / m_i)`. We evaluate that sum
//!   in 128-bit fixed point with integer operations (no floating point; see
//!   `docs/hps-precision.md`), and the output is the centered representative of `x`.
//! - [`ShenoyKumaresan`]: exact conversion with a redundant modulus `m_sk` (Shenoy and
//!   Kumaresan 1989, as adapted in BEHZ Sec. 4): the overflow `alpha` of the fast conversion
//!   is recovered from the residue modulo `m_sk`.
//!
//! Every function maps one coefficient to one output coefficient per target limb, reading
//! only that coefficient's residues: one GPU thread per coefficient.

use modarith::Modulus;
use num_bigint::{BigInt, BigUint};

use crate::base::RnsBase;
use crate::word::{FixedPointSum, biguint_mod, dot_shoup, fraction_128};
use crate::{Result, RnsError};

/// Precomputed tables for converting polynomials from base `A = {a_0..a_{k-1}}` to a disjoint
/// base `C = {c_0..c_{l-1}}`.
///
/// Tables (all `Vec<u64>`, canonical, with Shoup companions where a GPU multiplies by them):
/// - [`RnsBase::punctured_inverses`] of `A`: `A~_i = (A / a_i)^-1 mod a_i`;
/// - [`punctured_table`](Self::punctured_table): `[j * k + i] = (A / a_i) mod c_j`;
/// - [`product_table`](Self::product_table): `[j] = A mod c_j`;
/// - [`inverse_fractions`](Self::inverse_fractions): `floor(2^128 / a_i)` as `(hi, lo)` words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseConverter {
    from: RnsBase,
    to: RnsBase,
    punctured_mod_to: Vec<u64>,
    punctured_mod_to_shoup: Vec<u64>,
    product_mod_to: Vec<u64>,
    product_mod_to_shoup: Vec<u64>,
    inverse_hi: Vec<u64>,
    inverse_lo: Vec<u64>,
}

impl BaseConverter {
    /// Tables for `from -> to`. Errors if the bases share a prime.
    pub fn new(from: &RnsBase, to: &RnsBase) -> Result<Self> {
        from.check_disjoint(to, "in the source and target bases of a conversion")?;
        let k = from.len();
        let l = to.len();
        let mut punctured_mod_to = Vec::with_capacity(k * l);
        let mut punctured_mod_to_shoup = Vec::with_capacity(k * l);
        let mut product_mod_to = Vec::with_capacity(l);
        let mut product_mod_to_shoup = Vec::with_capacity(l);
        for c in to.moduli() {
            for star in from.punctured_products() {
                let w = biguint_mod(star, c.value());
                punctured_mod_to.push(w);
                punctured_mod_to_shoup.push(c.shoup(w));
            }
            let w = from.product_mod(c.value());
            product_mod_to.push(w);
            product_mod_to_shoup.push(c.shoup(w));
        }
        let mut inverse_hi = Vec::with_capacity(k);
        let mut inverse_lo = Vec::with_capacity(k);
        for a in from.moduli() {
            // floor(2^128 / a): every a >= 3 makes it fit 128 bits; 1 / a in fixed point.
            let (hi, lo) = fraction_128(&BigUint::from(1u8), &BigUint::from(a.value()));
            inverse_hi.push(hi);
            inverse_lo.push(lo);
        }
        Ok(Self {
            from: from.clone(),
            to: to.clone(),
            punctured_mod_to,
            punctured_mod_to_shoup,
            product_mod_to,
            product_mod_to_shoup,
            inverse_hi,
            inverse_lo,
        })
    }

    /// The source base `A`.
    pub fn from_base(&self) -> &RnsBase {
        &self.from
    }

    /// The target base `C`.
    pub fn to_base(&self) -> &RnsBase {
        &self.to
    }

    /// `[j * k + i] = (A / a_i) mod c_j` and its Shoup companions.
    pub fn punctured_table(&self) -> (&[u64], &[u64]) {
        (&self.punctured_mod_to, &self.punctured_mod_to_shoup)
    }

    /// `[j] = A mod c_j` and its Shoup companions.
    pub fn product_table(&self) -> (&[u64], &[u64]) {
        (&self.product_mod_to, &self.product_mod_to_shoup)
    }

    /// `floor(2^128 / a_i)` as high and low words.
    pub fn inverse_fractions(&self) -> (&[u64], &[u64]) {
        (&self.inverse_hi, &self.inverse_lo)
    }

    /// Checks `input` (a polynomial over `A`, any degree) and `output` (the same degree over
    /// `C`), returning the degree.
    pub(crate) fn check_io(&self, input: &[u64], output: &[u64]) -> Result<usize> {
        let degree = self.from.check_poly_any_degree(input, "conversion input")?;
        let expected = self.to.len() * degree;
        if output.len() != expected {
            return Err(RnsError::LengthMismatch { what: "conversion output", expected, actual: output.len() });
        }
        Ok(degree)
    }

    /// Fast base conversion (BEHZ): for each coefficient `x` (the integer in `[0, A)` with the
    /// given residues) writes `(x + u A) mod c_j`, where `u = (sum_i y_i (A / a_i) - x) / A`
    /// with `y_i = |x_i A~_i|_{a_i}` is an integer in `[0, k - 1]`.
    ///
    /// Errors if `input` is not a polynomial over `A` with canonical residues, or `output`
    /// has not `l * N` values; `output` is untouched then.
    pub fn fast_convert(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let degree = self.check_io(input, output)?;
        self.fast_convert_scaled(
            input,
            degree,
            self.from.punctured_inverses(),
            self.from.punctured_inverses_shoup(),
            output,
        );
        Ok(())
    }

    /// Fast conversion of `|x * s|_A` given per-limb scales `scale[i] = s * A~_i mod a_i`
    /// (BEHZ folds constant factors such as `m~` or `t` into the first step). No checks.
    pub(crate) fn fast_convert_scaled(
        &self,
        input: &[u64],
        degree: usize,
        scale: &[u64],
        scale_shoup: &[u64],
        output: &mut [u64],
    ) {
        let k = self.from.len();
        let mut y = vec![0u64; k];
        for index in 0..degree {
            self.scaled_residues(input, degree, index, scale, scale_shoup, &mut y);
            for (j, c) in self.to.moduli().iter().enumerate() {
                output[j * degree + index] = self.dot_row(j, &y, c);
            }
        }
    }

    /// `y_i = x_i * scale_i mod a_i` for one coefficient.
    #[inline]
    pub(crate) fn scaled_residues(
        &self,
        input: &[u64],
        degree: usize,
        index: usize,
        scale: &[u64],
        scale_shoup: &[u64],
        y: &mut [u64],
    ) {
        for (i, a) in self.from.moduli().iter().enumerate() {
            y[i] = a.mul_shoup(input[i * degree + index], scale[i], scale_shoup[i]);
        }
    }

    /// `sum_i y_i (A / a_i) mod c_j`.
    #[inline]
    pub(crate) fn dot_row(&self, j: usize, y: &[u64], c: &Modulus) -> u64 {
        let k = self.from.len();
        let row = j * k..(j + 1) * k;
        dot_shoup(y, &self.punctured_mod_to[row.clone()], &self.punctured_mod_to_shoup[row], c)
    }

    /// The overflow count `v = round(sum_i y_i / a_i)` in 128-bit fixed point.
    #[inline]
    pub(crate) fn overflow_count(&self, y: &[u64]) -> u64 {
        let mut sum = FixedPointSum::default();
        for ((&yi, &hi), &lo) in y.iter().zip(&self.inverse_hi).zip(&self.inverse_lo) {
            sum.add_product(yi, hi, lo);
        }
        // sum_i y_i / a_i < k <= 256: the rounded value fits any word.
        sum.rounded() as u64
    }

    /// Exact base conversion (HPS) of the centered representative: for each coefficient `x`
    /// (the integer in `[0, A)` with the given residues) writes `x' mod c_j`, where `x' = x`
    /// if `x < A/2` and `x' = x - A` otherwise: `x'` is the centered representative, in
    /// `(-A/2, A/2)`.
    ///
    /// The overflow is found in 128-bit fixed point; its truncation error is below
    /// `k 2^-66`, so the only inputs with a different output are `x` in
    /// `[A/2, A/2 + k A 2^-66)`, which are written as `x` instead of `x - A` (still congruent
    /// modulo `A`). When `A < 2^65 / k` there are no such inputs. See `docs/hps-precision.md`.
    ///
    /// Same errors as [`fast_convert`](Self::fast_convert).
    pub fn exact_convert(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let degree = self.check_io(input, output)?;
        self.exact_convert_unchecked(input, degree, output);
        Ok(())
    }

    pub(crate) fn exact_convert_unchecked(&self, input: &[u64], degree: usize, output: &mut [u64]) {
        let k = self.from.len();
        let mut y = vec![0u64; k];
        let (scale, scale_shoup) = (self.from.punctured_inverses(), self.from.punctured_inverses_shoup());
        for index in 0..degree {
            self.scaled_residues(input, degree, index, scale, scale_shoup, &mut y);
            let v = self.overflow_count(&y);
            for (j, c) in self.to.moduli().iter().enumerate() {
                let sum = self.dot_row(j, &y, c);
                let correction = c.mul_shoup(v, self.product_mod_to[j], self.product_mod_to_shoup[j]);
                output[j * degree + index] = c.sub(sum, correction);
            }
        }
    }
}

/// Exact conversion from `B u {m_sk}` to a base `C` with the Shenoy-Kumaresan technique
/// (BEHZ Lemma 6): for `x` with `-lambda M <= x < lambda M` (`M = prod B`), given its residues
/// modulo `B` and `m_sk`, the fast conversion gives `x + alpha M` with
/// `alpha in [1 - ceil(lambda), |B| - 1 + ceil(lambda)]`, and
/// `alpha = [(FastBconv(x, B, m_sk) - x_sk) M^-1]_{m_sk}` (centered) as long as
/// `m_sk >= 2 (|B| + ceil(lambda))`. The output is `x mod c_j`, exactly.
///
/// Input layout: the `|B|` limbs of `B`, then the limb of `m_sk`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShenoyKumaresan {
    /// `B -> C u {m_sk}`: the fast conversion into the target and the redundant modulus.
    converter: BaseConverter,
    redundant: Modulus,
    /// `M^-1 mod m_sk`.
    product_inv_redundant: u64,
    product_inv_redundant_shoup: u64,
    /// Largest `ceil(lambda)` the redundant modulus allows: `floor(m_sk / 2) - |B|`.
    max_lambda: u64,
    target_len: usize,
}

impl ShenoyKumaresan {
    /// Tables for `B u {m_sk} -> C`. Errors if the moduli are not pairwise distinct, or if
    /// `m_sk < 2 (|B| + 1)` (no input range at all would be exact).
    pub fn new(base: &RnsBase, redundant: Modulus, target: &RnsBase) -> Result<Self> {
        let redundant_base = RnsBase::from_moduli(vec![redundant])?;
        base.check_disjoint(&redundant_base, "in B and {m_sk}")?;
        target.check_disjoint(&redundant_base, "in the target base and {m_sk}")?;
        let extended_target = target.union(&redundant_base)?;
        let converter = BaseConverter::new(base, &extended_target)?;
        let minimum = 2 * (base.len() as u64 + 1);
        if redundant.value() < minimum {
            return Err(RnsError::ModulusTooSmall { name: "m_sk", value: redundant.value(), minimum });
        }
        let product_inv_redundant = base.product_inverse_mod(&redundant)?;
        Ok(Self {
            converter,
            redundant,
            product_inv_redundant,
            product_inv_redundant_shoup: redundant.shoup(product_inv_redundant),
            max_lambda: redundant.value() / 2 - base.len() as u64,
            target_len: target.len(),
        })
    }

    /// The base `B` (without `m_sk`).
    pub fn base(&self) -> &RnsBase {
        self.converter.from_base()
    }

    /// The redundant modulus `m_sk`.
    pub fn redundant(&self) -> Modulus {
        self.redundant
    }

    /// The fast converter `B -> C u {m_sk}` whose tables this uses (the `m_sk` row last).
    pub fn converter(&self) -> &BaseConverter {
        &self.converter
    }

    /// `M^-1 mod m_sk` and its Shoup companion.
    pub fn product_inverse_redundant(&self) -> (u64, u64) {
        (self.product_inv_redundant, self.product_inv_redundant_shoup)
    }

    /// The largest `ceil(lambda)` for which the conversion is exact: inputs must satisfy
    /// `|x| < max_lambda * M` (precisely, `-max_lambda M <= x < max_lambda M`).
    pub fn max_lambda(&self) -> u64 {
        self.max_lambda
    }

    /// The inclusive range of integers that convert exactly: `[-max_lambda M, max_lambda M)`.
    pub fn exact_range(&self) -> (BigInt, BigInt) {
        let bound = BigInt::from(self.base().product().clone()) * self.max_lambda;
        (-bound.clone(), bound - 1)
    }

    /// Converts each coefficient `x` (given modulo `B u {m_sk}`) to `x mod c_j`. Exact for
    /// `x` in [`exact_range`](Self::exact_range); outside it, the result is `x + e M` for some
    /// small integer `e`.
    ///
    /// Errors if `input` is not a polynomial over `B u {m_sk}` (limbs of `B` first) with
    /// canonical residues, or `output` has not `|C| * N` values; `output` is untouched then.
    pub fn convert(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let b_len = self.base().len();
        let limbs = b_len + 1;
        if input.is_empty() || !input.len().is_multiple_of(limbs) {
            return Err(RnsError::LengthNotMultiple { what: "Shenoy-Kumaresan input", actual: input.len(), limbs });
        }
        let degree = input.len() / limbs;
        self.base().check_poly(&input[..b_len * degree], degree, "Shenoy-Kumaresan input")?;
        let m_sk = self.redundant.value();
        if let Some(index) = input[b_len * degree..].iter().position(|&v| v >= m_sk) {
            return Err(RnsError::CoefficientOutOfRange {
                what: "Shenoy-Kumaresan input",
                limb: b_len,
                index,
                value: input[b_len * degree + index],
                modulus: m_sk,
            });
        }
        let expected = self.target_len * degree;
        if output.len() != expected {
            return Err(RnsError::LengthMismatch { what: "Shenoy-Kumaresan output", expected, actual: output.len() });
        }
        self.convert_unchecked(input, degree, output);
        Ok(())
    }

    pub(crate) fn convert_unchecked(&self, input: &[u64], degree: usize, output: &mut [u64]) {
        let base = self.converter.from_base();
        let b_len = base.len();
        let mut y = vec![0u64; b_len];
        let (scale, scale_shoup) = (base.punctured_inverses(), base.punctured_inverses_shoup());
        let (product_mod, product_mod_shoup) = self.converter.product_table();
        let m_sk = &self.redundant;
        let half = m_sk.value() / 2;
        for index in 0..degree {
            self.converter.scaled_residues(input, degree, index, scale, scale_shoup, &mut y);
            let fast_sk = self.converter.dot_row(self.target_len, &y, m_sk);
            let x_sk = input[b_len * degree + index];
            let alpha =
                m_sk.mul_shoup(m_sk.sub(fast_sk, x_sk), self.product_inv_redundant, self.product_inv_redundant_shoup);
            // Centered alpha: subtract alpha * M when alpha > 0, add |alpha| * M when negative.
            let negative = alpha > half;
            let magnitude = if negative { m_sk.value() - alpha } else { alpha };
            for (j, c) in self.converter.to_base().moduli().iter().take(self.target_len).enumerate() {
                let sum = self.converter.dot_row(j, &y, c);
                let correction = c.mul_shoup(magnitude, product_mod[j], product_mod_shoup[j]);
                output[j * degree + index] = if negative { c.add(sum, correction) } else { c.sub(sum, correction) };
            }
        }
    }
}
