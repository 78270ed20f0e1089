//! Reduction modulo `Phi_m` with additions only: [`PhiReduction`].
//!
//! `Phi_m = prod_{d | m} (x^d - 1)^{mu(m / d)}` ([`crate::cyclotomic::binomial_factors`]), so
//! multiplying or dividing by `Phi_m` as a power series truncated at `x^K` is a short sequence of
//! steps "times `(x^d - 1)`" (`y_j = x_(j - d) - x_j`) and "divided by `(x^d - 1)`"
//! (`y_j = y_(j - d) - x_j`, a prefix sum along each residue class of `j` modulo `d`), each
//! `O(K)` additions; a factor with `d >= K` is `-1` there. For `g` of degree `< m`
//! (`Phi_m | x^m - 1`, so anything longer is folded modulo `x^m - 1` first) and `D = m - phi(m)`:
//!
//! 1. the quotient `Q = floor(g / Phi_m)` (degree `< D`) is the reversal of
//!    `rev(g) Phi_m^{-1} mod x^D`, because `Phi_m` is palindromic for `m >= 2`;
//! 2. the remainder is `g - (Q Phi_m mod x^phi(m))` on the `phi(m)` low coefficients.
//!
//! That is `2^omega(m)` steps of each kind, against two products of length `M >= 2m - 1` (four
//! NTTs) for the reduction through `Psi_m = (x^m - 1) / Phi_m` it replaces. The steps need no
//! multiplication, so one plan serves every modulus (the ring's primes, the plaintext modulus
//! `p^r`). The GPU runs the same steps (`kernels/bluestein.cu`, `cyc_reduce_binomial`) with the
//! same words.

use crate::cyclotomic::{binomial_factors, euler_phi};
use crate::{PolyError, Result};

/// One step of a [`BinomialSteps`] sequence: times or divided by `x^degree - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinomialStep {
    /// `d` of `x^d - 1`, below the sequence's length.
    pub degree: usize,
    /// Divided by (a prefix sum) rather than times (a difference).
    pub divide: bool,
}

/// A product of binomials `(x^d - 1)^(+-1)` as a power series truncated at `x^len`: the steps
/// with `d < len`, and the sign of those with `d >= len` (each `-1` there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinomialSteps {
    len: usize,
    steps: Vec<BinomialStep>,
    negate: bool,
}

impl BinomialSteps {
    /// `prod (x^d - 1)^(+-1)` over `factors` (`(d, +1)` times, `(d, -1)` divided by) modulo
    /// `x^len`: the multiplications first (any order gives the same series).
    fn new(len: usize, factors: impl Iterator<Item = (usize, bool)>) -> Self {
        let (mut steps, mut negate) = (Vec::new(), false);
        for (degree, divide) in factors {
            if degree >= len {
                negate = !negate;
            } else {
                steps.push(BinomialStep { degree, divide });
            }
        }
        steps.sort_by_key(|step| step.divide);
        Self { len, steps, negate }
    }

    /// The truncation length `K`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether `K = 0`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The steps with `d < K`, multiplications first.
    pub fn steps(&self) -> &[BinomialStep] {
        &self.steps
    }

    /// Whether the factors with `d >= K` negate the result.
    pub fn negate(&self) -> bool {
        self.negate
    }

    /// `x` (`K` canonical values modulo `q <= 2^63`) times the product, in place.
    pub fn apply(&self, q: u64, x: &mut [u64]) {
        debug_assert_eq!(x.len(), self.len);
        let sub = |a: u64, b: u64| if a >= b { a - b } else { a + (q - b) };
        for &BinomialStep { degree: d, divide } in &self.steps {
            if divide {
                // y_j = y_(j - d) - x_j, from the bottom: x[j - d] already holds y_(j - d).
                for j in 0..x.len() {
                    let previous = if j >= d { x[j - d] } else { 0 };
                    x[j] = sub(previous, x[j]);
                }
            } else {
                // y_j = x_(j - d) - x_j, from the top: x[j - d] still holds x_(j - d).
                for j in (0..x.len()).rev() {
                    let previous = if j >= d { x[j - d] } else { 0 };
                    x[j] = sub(previous, x[j]);
                }
            }
        }
        if self.negate {
            for v in x.iter_mut() {
                *v = sub(0, *v);
            }
        }
    }
}

/// The reduction modulo `Phi_m` of one `m >= 2` (module docs): the two step sequences, free of
/// any modulus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhiReduction {
    m: usize,
    n: usize,
    quotient: BinomialSteps,
    remainder: BinomialSteps,
}

/// The largest modulus [`PhiReduction::reduce`] takes (sums of two values stay below `2^64`).
pub const MAX_MODULUS: u64 = 1 << 63;

impl PhiReduction {
    /// The plan of `m` in `2..=2^17`. Errors with [`PolyError::InvalidParameter`] outside.
    pub fn new(m: u64) -> Result<Self> {
        if m < 2 {
            return Err(PolyError::InvalidParameter { name: "m", value: m, reason: "must be at least 2" });
        }
        let factors = binomial_factors(m)?;
        let (m_words, n) = (m as usize, euler_phi(m) as usize);
        // Phi_m^{-1}: (x^d - 1)^{-mu}: times where mu = -1, divided by where mu = +1.
        let inverse = factors.iter().map(|&(d, sign)| (d as usize, sign == 1));
        // Phi_m: times where mu = +1, divided by where mu = -1.
        let direct = factors.iter().map(|&(d, sign)| (d as usize, sign == -1));
        Ok(Self {
            m: m_words,
            n,
            quotient: BinomialSteps::new(m_words - n, inverse),
            remainder: BinomialSteps::new(n, direct),
        })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// `phi(m)`, the length of a remainder.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// `Phi_m^{-1} mod x^(m - phi(m))`: step 1 (the quotient of the reversed input).
    pub fn quotient_steps(&self) -> &BinomialSteps {
        &self.quotient
    }

    /// `Phi_m mod x^phi(m)`: step 2 (the quotient times `Phi_m`).
    pub fn remainder_steps(&self) -> &BinomialSteps {
        &self.remainder
    }

    /// `a` (any length, canonical values modulo `q`, `2 <= q <= 2^63`) modulo `Phi_m` and `q`:
    /// `phi(m)` coefficients. Errors with [`PolyError::InvalidParameter`] for such a `q` and
    /// [`PolyError::CoefficientOutOfRange`] for a value not below `q`.
    pub fn reduce(&self, q: u64, a: &[u64]) -> Result<Vec<u64>> {
        if !(2..=MAX_MODULUS).contains(&q) {
            return Err(PolyError::InvalidParameter { name: "q", value: q, reason: "must be in 2..=2^63" });
        }
        if let Some((index, &value)) = a.iter().enumerate().find(|&(_, &v)| v >= q) {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus: q });
        }
        let add = |a: u64, b: u64| {
            let s = a + b;
            if s >= q { s - q } else { s }
        };
        let (m, n) = (self.m, self.n);
        // g = a mod (x^m - 1), which keeps the residue modulo Phi_m.
        let mut g = vec![0u64; m];
        for (j, &v) in a.iter().enumerate() {
            g[j % m] = add(g[j % m], v);
        }
        // 1. rev(Q) = rev(g) Phi_m^{-1} mod x^D.
        let d = m - n;
        let mut work: Vec<u64> = (0..d).map(|i| g[m - 1 - i]).collect();
        self.quotient.apply(q, &mut work);
        work.reverse();
        // 2. g - Q Phi_m on the low n coefficients.
        work.resize(n, 0);
        self.remainder.apply(q, &mut work);
        Ok(g[..n].iter().zip(&work).map(|(&x, &y)| if x >= y { x - y } else { x + (q - y) }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cyclotomic::cyclotomic_polynomial;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Equal to long division by `Phi_m` (exact, in i128) for `m` with one to four distinct
    /// primes, square factors, even `m`, HElib's `21845`, inputs shorter than, as long as and
    /// longer than `m`, random and all-`q - 1` words, and moduli from 2 to `2^63` (prime or not:
    /// the steps only add). The largest `m` with fewer cases (the oracle is quadratic).
    #[test]
    fn equals_long_division() {
        let mut rng = StdRng::seed_from_u64(0x9b1_2ed);
        let moduli = [2u64, 256, 3u64.pow(20), (1 << 50) - 27, (1 << 62) - 57, 1 << 63];
        for m in [2u64, 3, 4, 9, 12, 15, 16, 25, 45, 63, 105, 127, 255, 315, 1155, 4369, 15015, 21845] {
            let plan = PhiReduction::new(m).unwrap();
            let phi = cyclotomic_polynomial(m).unwrap();
            let large = m > 2000;
            let m = m as usize;
            let lengths = if large { vec![m] } else { vec![1, plan.degree(), m, 2 * m + 3] };
            for &q in if large { &moduli[4..5] } else { &moduli[..] } {
                for &len in &lengths {
                    let random: Vec<u64> = (0..len).map(|_| rng.gen_range(0..q)).collect();
                    let want = long_division_i128(q, &phi, &random);
                    assert_eq!(plan.reduce(q, &random).unwrap(), want, "m {m}, q {q}, len {len}");
                    let top = vec![q - 1; len];
                    let want = long_division_i128(q, &phi, &top);
                    assert_eq!(plan.reduce(q, &top).unwrap(), want, "m {m}, q {q}, len {len}, q - 1");
                }
            }
        }
    }

    /// `a` modulo `phi` (monic, integer) and `q` by long division in i128.
    fn long_division_i128(q: u64, phi: &[i64], a: &[u64]) -> Vec<u64> {
        let q = i128::from(q);
        let n = phi.len() - 1;
        let terms: Vec<(usize, i128)> =
            phi.iter().enumerate().filter(|(_, c)| **c != 0).map(|(j, &c)| (j, i128::from(c))).collect();
        let mut a: Vec<i128> = a.iter().map(|&v| i128::from(v)).collect();
        for i in (n..a.len()).rev() {
            let c = a[i];
            for &(j, p) in &terms {
                a[i - n + j] = (a[i - n + j] - c * p).rem_euclid(q);
            }
        }
        a.resize(n, 0);
        a.into_iter().map(|v| v as u64).collect()
    }

    /// The step counts of HElib's `m = 21845 = 5 * 17 * 257`: four binomials below each length
    /// but the `x^m - 1` one, which is `-1` there; bad inputs are typed errors.
    #[test]
    fn steps_of_21845_and_bad_input() {
        let plan = PhiReduction::new(21845).unwrap();
        assert_eq!((plan.quotient_steps().len(), plan.remainder_steps().len()), (21845 - 16384, 16384));
        assert_eq!(plan.quotient_steps().steps().len(), 7);
        assert!(plan.quotient_steps().negate());
        assert_eq!(plan.remainder_steps().steps().len(), 7);
        assert!(PhiReduction::new(1).is_err());
        assert!(PhiReduction::new((1 << 17) + 1).is_err());
        assert!(matches!(plan.reduce(1, &[0]), Err(PolyError::InvalidParameter { .. })));
        assert!(matches!(plan.reduce(17, &[3, 17]), Err(PolyError::CoefficientOutOfRange { index: 1, value: 17, .. })));
    }
}
