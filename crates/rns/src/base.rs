//! RNS bases: the product of the moduli, the punctured products and their inverses, and
//! CRT reconstruction by Garner's mixed-radix algorithm (Garner 1959; Algorithm 4 of
//! Al Badawi et al., "Implementation and Performance Evaluation of RNS Variants of the BFV
//! Homomorphic Encryption Scheme" / GPU-FV).

use modarith::Modulus;
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::Zero;

use crate::word::biguint_mod;
use crate::{Result, RnsError};

/// Largest number of moduli in one base (a union such as `q u B_sk` may exceed the 64 primes
/// of a ring context).
pub const MAX_BASE_MODULI: usize = 256;

/// An RNS base `{m_0, ..., m_{k-1}}` of distinct primes below `2^62`, with everything that
/// conversions out of it need, precomputed with big integers:
///
/// - `M = m_0 ... m_{k-1}` ([`product`](Self::product)),
/// - the punctured products `M_i* = M / m_i` and `M~_i = (M_i*)^-1 mod m_i`
///   ([`punctured_inverses`](Self::punctured_inverses), with Shoup companions),
/// - Garner's constants `C_i = (m_0 ... m_{i-1})^-1 mod m_i` and the table
///   `m_j mod m_i` for the mixed-radix digits.
///
/// A polynomial over the base is limb-major: limb `i` holds the residues modulo `m_i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RnsBase {
    moduli: Vec<Modulus>,
    product: BigUint,
    punctured: Vec<BigUint>,
    punctured_inv: Vec<u64>,
    punctured_inv_shoup: Vec<u64>,
    garner_inv: Vec<u64>,
    garner_inv_shoup: Vec<u64>,
    /// `[i * k + j] = m_j mod m_i`.
    radix_mod: Vec<u64>,
}

impl RnsBase {
    /// A base of the given primes. Errors if the list is empty or longer than
    /// [`MAX_BASE_MODULI`], a value is not a prime below `2^62`, or a prime repeats.
    pub fn new(moduli: &[u64]) -> Result<Self> {
        let moduli = moduli.iter().map(|&m| Modulus::new(m)).collect::<core::result::Result<Vec<_>, _>>()?;
        Self::from_moduli(moduli)
    }

    /// A base of already-checked moduli (same errors as [`new`](Self::new)).
    pub fn from_moduli(moduli: Vec<Modulus>) -> Result<Self> {
        if moduli.is_empty() || moduli.len() > MAX_BASE_MODULI {
            return Err(RnsError::InvalidBaseSize { count: moduli.len(), max: MAX_BASE_MODULI });
        }
        for (i, m) in moduli.iter().enumerate() {
            if moduli[..i].iter().any(|other| other.value() == m.value()) {
                return Err(RnsError::DuplicateModulus { modulus: m.value(), context: "within one RNS base" });
            }
        }
        let k = moduli.len();
        let product: BigUint = moduli.iter().map(|m| BigUint::from(m.value())).product();
        let mut punctured = Vec::with_capacity(k);
        let mut punctured_inv = Vec::with_capacity(k);
        let mut punctured_inv_shoup = Vec::with_capacity(k);
        for m in &moduli {
            let star = &product / m.value();
            let inverse = m.inv(biguint_mod(&star, m.value()))?;
            punctured.push(star);
            punctured_inv.push(inverse);
            punctured_inv_shoup.push(m.shoup(inverse));
        }
        let mut garner_inv = Vec::with_capacity(k);
        let mut garner_inv_shoup = Vec::with_capacity(k);
        let mut radix_mod = vec![0u64; k * k];
        for (i, mi) in moduli.iter().enumerate() {
            let mut prefix = 1u64;
            for (j, mj) in moduli.iter().enumerate() {
                let residue = mi.reduce(mj.value());
                radix_mod[i * k + j] = residue;
                if j < i {
                    prefix = mi.mul(prefix, residue);
                }
            }
            let inverse = mi.inv(prefix)?;
            garner_inv.push(inverse);
            garner_inv_shoup.push(mi.shoup(inverse));
        }
        Ok(Self {
            moduli,
            product,
            punctured,
            punctured_inv,
            punctured_inv_shoup,
            garner_inv,
            garner_inv_shoup,
            radix_mod,
        })
    }

    /// The moduli followed by `other`'s, as one base (`q u B`, limbs in that order). Errors
    /// if the bases share a prime.
    pub fn union(&self, other: &RnsBase) -> Result<Self> {
        self.check_disjoint(other, "in two bases that must be disjoint")?;
        Self::from_moduli(self.moduli.iter().chain(&other.moduli).copied().collect())
    }

    /// The moduli at `range` as a base (a digit of a key-switching decomposition, ...).
    pub fn sub_base(&self, range: core::ops::Range<usize>) -> Result<Self> {
        match self.moduli.get(range.clone()) {
            Some(slice) => Self::from_moduli(slice.to_vec()),
            None => Err(RnsError::InvalidParameter {
                name: "sub-base end",
                value: range.end as u64,
                reason: "range exceeds the base",
            }),
        }
    }

    /// Errors with [`RnsError::DuplicateModulus`] if a prime of `other` is in this base.
    pub fn check_disjoint(&self, other: &RnsBase, context: &'static str) -> Result<()> {
        match other.moduli.iter().find(|m| self.contains(m.value())) {
            Some(m) => Err(RnsError::DuplicateModulus { modulus: m.value(), context }),
            None => Ok(()),
        }
    }

    /// Whether `value` is one of the moduli.
    pub fn contains(&self, value: u64) -> bool {
        self.moduli.iter().any(|m| m.value() == value)
    }

    /// Number of moduli `k`.
    #[allow(clippy::len_without_is_empty)] // a base is never empty
    pub fn len(&self) -> usize {
        self.moduli.len()
    }

    /// The moduli, in limb order.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// The moduli as plain values, in limb order.
    pub fn values(&self) -> Vec<u64> {
        self.moduli.iter().map(|m| m.value()).collect()
    }

    /// `M = m_0 ... m_{k-1}`.
    pub fn product(&self) -> &BigUint {
        &self.product
    }

    /// `M_i* = M / m_i`, for `i` in limb order.
    pub fn punctured_products(&self) -> &[BigUint] {
        &self.punctured
    }

    /// `M~_i = (M / m_i)^-1 mod m_i`, in limb order.
    pub fn punctured_inverses(&self) -> &[u64] {
        &self.punctured_inv
    }

    /// Shoup companions of [`punctured_inverses`](Self::punctured_inverses).
    pub fn punctured_inverses_shoup(&self) -> &[u64] {
        &self.punctured_inv_shoup
    }

    /// Garner's constants `C_i = (m_0 ... m_{i-1})^-1 mod m_i` (`C_0 = 1`).
    pub fn garner_inverses(&self) -> &[u64] {
        &self.garner_inv
    }

    /// Shoup companions of [`garner_inverses`](Self::garner_inverses).
    pub fn garner_inverses_shoup(&self) -> &[u64] {
        &self.garner_inv_shoup
    }

    /// The `k x k` table `[i * k + j] = m_j mod m_i` that the mixed-radix digits use.
    pub fn radix_residues(&self) -> &[u64] {
        &self.radix_mod
    }

    /// The residues of `x` (limb order).
    pub fn residues(&self, x: &BigUint) -> Vec<u64> {
        self.moduli.iter().map(|m| biguint_mod(x, m.value())).collect()
    }

    /// The residues of a signed `x` (limb order).
    pub fn residues_signed(&self, x: &BigInt) -> Vec<u64> {
        let magnitude = self.residues(x.magnitude());
        if x.sign() == Sign::Minus {
            self.moduli.iter().zip(magnitude).map(|(m, r)| m.neg(r)).collect()
        } else {
            magnitude
        }
    }

    /// The limb-major polynomial with these signed integer coefficients.
    pub fn decompose_poly(&self, coefficients: &[BigInt]) -> Vec<u64> {
        let n = coefficients.len();
        let mut data = vec![0u64; self.len() * n];
        for (index, c) in coefficients.iter().enumerate() {
            for (limb, r) in self.residues_signed(c).into_iter().enumerate() {
                data[limb * n + index] = r;
            }
        }
        data
    }

    /// Garner's mixed-radix digits `v` of the integer `x in [0, M)` with these residues:
    /// `x = v_0 + v_1 m_0 + v_2 m_0 m_1 + ...`, `0 <= v_i < m_i`. Word arithmetic only (what
    /// a GPU thread does per coefficient). Errors on a wrong length or a non-canonical residue.
    pub fn mixed_radix_digits(&self, residues: &[u64]) -> Result<Vec<u64>> {
        self.check_residues(residues, "residues")?;
        Ok(self.mixed_radix_unchecked(residues))
    }

    fn mixed_radix_unchecked(&self, residues: &[u64]) -> Vec<u64> {
        let k = self.len();
        let mut digits = Vec::with_capacity(k);
        for (i, (mi, &xi)) in self.moduli.iter().zip(residues).enumerate() {
            // The value of the digits found so far, mod m_i, by Horner's rule.
            let mut partial = 0u64;
            for j in (0..i).rev() {
                partial = mi.add(mi.mul(partial, self.radix_mod[i * k + j]), mi.reduce(digits[j]));
            }
            let digit = mi.mul_shoup(mi.sub(xi, partial), self.garner_inv[i], self.garner_inv_shoup[i]);
            digits.push(digit);
        }
        digits
    }

    /// CRT reconstruction of the integer in `[0, M)` with these residues, by Garner's
    /// algorithm. Errors on a wrong length or a non-canonical residue.
    pub fn reconstruct(&self, residues: &[u64]) -> Result<BigUint> {
        let digits = self.mixed_radix_digits(residues)?;
        Ok(self.assemble(&digits))
    }

    /// The representative in `(-M/2, M/2]` (the centered reconstruction).
    pub fn reconstruct_centered(&self, residues: &[u64]) -> Result<BigInt> {
        Ok(self.center(self.reconstruct(residues)?))
    }

    fn assemble(&self, digits: &[u64]) -> BigUint {
        let mut x = BigUint::zero();
        for (m, &digit) in self.moduli.iter().zip(digits).rev() {
            x = x * m.value() + digit;
        }
        x
    }

    /// The representative of `x in [0, M)` in `(-M/2, M/2]`.
    pub fn center(&self, x: BigUint) -> BigInt {
        if &x << 1u32 > self.product { BigInt::from(x) - BigInt::from(self.product.clone()) } else { BigInt::from(x) }
    }

    /// Reconstructs every coefficient of a limb-major polynomial (`N = data.len() / k`), in
    /// `[0, M)`, in coefficient order.
    pub fn reconstruct_poly(&self, data: &[u64]) -> Result<Vec<BigUint>> {
        let degree = self.check_poly_any_degree(data, "polynomial")?;
        let mut residues = vec![0u64; self.len()];
        let mut out = Vec::with_capacity(degree);
        for index in 0..degree {
            for (limb, r) in residues.iter_mut().enumerate() {
                *r = data[limb * degree + index];
            }
            out.push(self.assemble(&self.mixed_radix_unchecked(&residues)));
        }
        Ok(out)
    }

    /// Like [`reconstruct_poly`](Self::reconstruct_poly), centered in `(-M/2, M/2]`.
    pub fn reconstruct_poly_centered(&self, data: &[u64]) -> Result<Vec<BigInt>> {
        Ok(self.reconstruct_poly(data)?.into_iter().map(|x| self.center(x)).collect())
    }

    fn check_residues(&self, residues: &[u64], what: &'static str) -> Result<()> {
        if residues.len() != self.len() {
            return Err(RnsError::LengthMismatch { what, expected: self.len(), actual: residues.len() });
        }
        for (limb, (m, &value)) in self.moduli.iter().zip(residues).enumerate() {
            if value >= m.value() {
                return Err(RnsError::CoefficientOutOfRange { what, limb, index: 0, value, modulus: m.value() });
            }
        }
        Ok(())
    }

    /// Checks that `data` is a limb-major polynomial over this base with `degree`
    /// coefficients per limb and canonical residues.
    pub fn check_poly(&self, data: &[u64], degree: usize, what: &'static str) -> Result<()> {
        // A degree whose product with the limb count overflows cannot match any slice; a zero
        // degree is no polynomial (and `chunks_exact(0)` would panic).
        match self.len().checked_mul(degree) {
            Some(expected) if expected == data.len() && degree > 0 => self.check_canonical(data, degree, what),
            Some(expected) => Err(RnsError::LengthMismatch { what, expected, actual: data.len() }),
            None => Err(RnsError::LengthMismatch { what, expected: usize::MAX, actual: data.len() }),
        }
    }

    /// Like [`check_poly`](Self::check_poly) for any degree: returns `N = data.len() / k`,
    /// and errors if that is not a positive whole number.
    pub fn check_poly_any_degree(&self, data: &[u64], what: &'static str) -> Result<usize> {
        let k = self.len();
        if data.is_empty() || !data.len().is_multiple_of(k) {
            return Err(RnsError::LengthNotMultiple { what, actual: data.len(), limbs: k });
        }
        let degree = data.len() / k;
        self.check_canonical(data, degree, what)?;
        Ok(degree)
    }

    fn check_canonical(&self, data: &[u64], degree: usize, what: &'static str) -> Result<()> {
        for (limb, (m, chunk)) in self.moduli.iter().zip(data.chunks_exact(degree)).enumerate() {
            if let Some(index) = chunk.iter().position(|&v| v >= m.value()) {
                return Err(RnsError::CoefficientOutOfRange {
                    what,
                    limb,
                    index,
                    value: chunk[index],
                    modulus: m.value(),
                });
            }
        }
        Ok(())
    }

    /// `M mod m` for a word modulus `m`.
    pub fn product_mod(&self, m: u64) -> u64 {
        biguint_mod(&self.product, m)
    }

    /// `M^-1 mod m` for a prime `m` not in the base.
    pub fn product_inverse_mod(&self, m: &Modulus) -> Result<u64> {
        Ok(m.inv(self.product_mod(m.value()))?)
    }

    /// Whether `x` (any integer) is coprime to every modulus.
    pub fn is_coprime_to(&self, x: u64) -> bool {
        self.moduli.iter().all(|m| x.gcd(&m.value()) == 1)
    }

    /// Number of bits of `M`.
    pub fn product_bits(&self) -> u64 {
        self.product.bits()
    }
}
