//! Barrett reduction modulo a fixed `m` (Barrett, CRYPTO 1986; the base-2 form of Menezes, van
//! Oorschot and Vanstone, Handbook of Applied Cryptography, algorithm 14.42), and modular
//! add, sub and mul for that modulus.
//!
//! With `k` the bit length of `m` and `mu = floor(2^(2k) / m)` (precomputed), a `t < 2^(2k)`
//! is reduced as `q = floor(floor(t / 2^(k-1)) mu / 2^(k+1))`, `r = t - q m`; then
//! `0 <= r < 3m`, and at most two subtractions of `m` finish it. The transforms of `mu` and
//! `m` in one [`MulShape`] (for `(k+2)`-bit operands, which covers `a b`, `q1 mu` and `q m`)
//! are computed once.

use num_bigint::BigUint;

use crate::error::{BigIntError, Result};
use crate::mul::{MulShape, convolve, gather, resolve, transform};
use crate::nat::BigNat;
use crate::ntt::NttPlan;

/// A modulus `m >= 2` with its Barrett constant and precomputed transforms.
#[derive(Debug, Clone)]
pub struct BarrettModulus {
    m: BigNat,
    k: u64,
    mu: BigNat,
    shape: MulShape,
    plan: NttPlan,
    m_hat: Vec<u64>,
    mu_hat: Vec<u64>,
}

impl BarrettModulus {
    /// Precomputes `mu` and the transforms. Errors: [`BigIntError::BadModulus`] for `m < 2`,
    /// [`BigIntError::TooLarge`] for a modulus over the multiplication's limit.
    pub fn new(m: &BigNat) -> Result<Self> {
        if m.bits() < 2 {
            return Err(BigIntError::BadModulus);
        }
        let k = m.bits();
        let shape = MulShape::for_bits(k + 2, k + 2)?;
        let mu_big = BigUint::from(&BigNat::power_of_two(2 * k)) / BigUint::from(m);
        let mu = BigNat::from(&mu_big);
        let plan =
            NttPlan::new(shape.log_n()).ok_or(BigIntError::TooLarge { bits: k, max: crate::MAX_OPERAND_BITS })?;
        let m_hat = transform(m.limbs(), 0, shape.digits(k), shape, &plan);
        let mu_hat = transform(mu.limbs(), 0, shape.digits(mu.bits()), shape, &plan);
        Ok(Self { m: m.clone(), k, mu, shape, plan, m_hat, mu_hat })
    }

    /// The modulus.
    pub fn modulus(&self) -> &BigNat {
        &self.m
    }

    /// Its bit length `k`.
    pub fn bits(&self) -> u64 {
        self.k
    }

    /// `floor(2^(2k) / m)`.
    pub fn mu(&self) -> &BigNat {
        &self.mu
    }

    /// The shape of every product of this modulus.
    pub fn shape(&self) -> MulShape {
        self.shape
    }

    /// Limbs of a reduced value (`ceil(k / 64)`).
    pub fn limbs(&self) -> usize {
        self.k.div_ceil(64) as usize
    }

    /// The NTT plan of [`Self::shape`].
    pub fn plan(&self) -> &NttPlan {
        &self.plan
    }

    /// The transform of `m`'s digits.
    pub fn m_hat(&self) -> &[u64] {
        &self.m_hat
    }

    /// The transform of `mu`'s digits.
    pub fn mu_hat(&self) -> &[u64] {
        &self.mu_hat
    }

    /// Errors unless `a < m`.
    pub fn check_reduced(&self, what: &'static str, a: &BigNat) -> Result<()> {
        if a >= &self.m {
            return Err(BigIntError::NotReduced { what, bits: a.bits(), modulus_bits: self.k });
        }
        Ok(())
    }

    /// `t mod m` for `t < 2^(2k)`. Errors: [`BigIntError::ReductionInputTooLarge`] beyond.
    pub fn reduce(&self, t: &BigNat) -> Result<BigNat> {
        if t.bits() > 2 * self.k {
            return Err(BigIntError::ReductionInputTooLarge { bits: t.bits(), max: 2 * self.k });
        }
        let (k, shape, plan) = (self.k, self.shape, &self.plan);
        let digit_bits = shape.digit_bits();
        // q1 = floor(t / 2^(k-1)) < 2^(k+1), transformed straight from t's bits.
        let q1_hat = transform(t.limbs(), k - 1, shape.digits(k + 1), shape, plan);
        let q2 = convolve(&q1_hat, &self.mu_hat, plan);
        let (q2, _) = resolve(&gather(&q2, digit_bits, (2 * k + 3).div_ceil(64) as usize));
        // q3 = floor(q2 / 2^(k+1)) <= floor(t / m) < 2^(k+1).
        let q3_hat = transform(&q2, k + 1, shape.digits(k + 1), shape, plan);
        let qm = convolve(&q3_hat, &self.m_hat, plan);
        // r = t - q3 m < 3m < 2^(k+2): only the low limbs are needed.
        let r_limbs = (k + 2).div_ceil(64) as usize;
        let mut sums = gather(&qm, digit_bits, r_limbs);
        for (j, sum) in sums.iter_mut().enumerate() {
            let t_j = i128::from(t.limbs().get(j).copied().unwrap_or(0));
            let v = t_j - (i128::from(sum.0) + (i128::from(sum.1) << 64));
            *sum = (v as u64, (v >> 64) as i64);
        }
        let (r, _) = resolve(&sums);
        let mut r = BigNat::from_limbs(r);
        for _ in 0..2 {
            if r >= self.m {
                r = r.sub(&self.m)?;
            }
        }
        Ok(r)
    }

    /// `a b mod m`, for `a, b < m`.
    pub fn mul_mod(&self, a: &BigNat, b: &BigNat) -> Result<BigNat> {
        self.check_reduced("a", a)?;
        self.check_reduced("b", b)?;
        self.reduce(&crate::mul::mul_in_shape(a, b, self.shape)?)
    }

    /// `a^2 mod m`, for `a < m`.
    pub fn square_mod(&self, a: &BigNat) -> Result<BigNat> {
        self.check_reduced("a", a)?;
        self.reduce(&crate::mul::square(a)?)
    }

    /// `a + b mod m`, for `a, b < m`.
    pub fn add_mod(&self, a: &BigNat, b: &BigNat) -> Result<BigNat> {
        self.check_reduced("a", a)?;
        self.check_reduced("b", b)?;
        let s = a.add(b);
        if s >= self.m { s.sub(&self.m) } else { Ok(s) }
    }

    /// `a - b mod m`, for `a, b < m`.
    pub fn sub_mod(&self, a: &BigNat, b: &BigNat) -> Result<BigNat> {
        self.check_reduced("a", a)?;
        self.check_reduced("b", b)?;
        if a >= b { a.sub(b) } else { a.add(&self.m).sub(b) }
    }

    /// `a^e mod m` (square and multiply), for `a < m`.
    pub fn pow_mod(&self, a: &BigNat, e: &BigNat) -> Result<BigNat> {
        self.check_reduced("a", a)?;
        let mut result = self.reduce(&BigNat::from_u64(1))?;
        for i in (0..e.bits()).rev() {
            result = self.square_mod(&result)?;
            if e.bit(i) {
                result = self.mul_mod(&result, a)?;
            }
        }
        Ok(result)
    }
}
