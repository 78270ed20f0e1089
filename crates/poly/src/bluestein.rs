//! The length-`m` DFT over `Z_p` by Bluestein's algorithm on a power-of-two negacyclic NTT.
//!
//! With `c_j = w^(h j^2)`, `h = (m + 1) / 2` (so `2h = 1 mod m` for odd `m`), `jk = h (j^2 +
//! k^2 - (k - j)^2) mod m`, hence `X_k = c_k sum_j (x_j c_j) c_(k-j)^-1`: a linear convolution
//! of `a_j = x_j c_j` (`j < m`) with `b_l = c_(l - (m - 1))^-1` (`l < 2m - 1`), read at
//! `k + m - 1`. A negacyclic product of length `M >= 2m - 1` leaves those indices untouched
//! (terms wrap from index `M` on, and the linear product stops below `3m - 2 < M + m - 1`).
//! The NTT of `b` is precomputed.
//!
//! [`CyclotomicPlan`] is the transform of one limb of a ring `Z_p[x]/Phi_m(x)`
//! ([`crate::RingKind::Cyclotomic`]): the DFT's values at the primitive `m`-th roots, and back
//! through the inverse DFT and the reduction modulo `Phi_m` by two products
//! ([`CyclotomicPlan::reduce_fast`], the GPU's algorithm).

use modarith::Modulus;

use crate::cyclotomic::{MAX_M, gcd, prime_factors};
use crate::ntt::NttPlan;
use crate::phi_reduction::PhiReduction;
use crate::prime_factor::PrimeFactorPlan;
use crate::{PolyError, Result};

/// The power of two `M >= 2m - 1` that the convolution of a length-`m` transform uses.
pub fn bluestein_length(m: usize) -> usize {
    // 1 for m = 0 (no ring has it); saturating at 2^63 far beyond any ring (MAX_M).
    m.saturating_mul(2).saturating_sub(1).max(1).checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1))
}

/// `count` primes of `bits` bits (descending from `2^bits`) with `p = 1 mod m` and
/// `p = 1 mod 2M`, `M = bluestein_length(m)`, for odd `m >= 3`. Errors with
/// [`PolyError::InvalidParameter`] for an even `m`, too few bits or too few primes.
pub fn bluestein_primes(bits: u32, m: u64, count: usize) -> Result<Vec<u64>> {
    if m < 3 || m.is_multiple_of(2) || m > MAX_M {
        return Err(PolyError::InvalidParameter {
            name: "m",
            value: m,
            reason: "must be odd, at least 3 and at most 2^17",
        });
    }
    let step = m * 2 * bluestein_length(m as usize) as u64;
    let primes = modarith::primes_one_mod(bits, step, count, &[]).map_err(|error| match error {
        modarith::ModArithError::NotEnoughPrimes { .. } => PolyError::InvalidParameter {
            name: "bits",
            value: u64::from(bits),
            reason: "too few primes of that size are 1 mod 2 m M",
        },
        _ => PolyError::InvalidParameter {
            name: "bits",
            value: u64::from(bits),
            reason: "must be at most 62 and leave room for p = 1 mod 2 m M",
        },
    })?;
    Ok(primes)
}

/// A primitive `m`-th root of unity modulo `p` (`m | p - 1`): `g^((p - 1) / m)` for the
/// smallest `g >= 2` whose power has exact order `m`. Errors with
/// [`PolyError::InvalidParameter`] unless `m >= 2` divides `p - 1` (and `p` is prime).
pub fn primitive_root_of_order(modulus: &Modulus, m: u64) -> Result<u64> {
    let p = modulus.value();
    if m < 2 || !(p - 1).is_multiple_of(m) {
        return Err(PolyError::InvalidParameter { name: "m", value: m, reason: "must divide p - 1" });
    }
    let factors = prime_factors(m);
    for g in 2..p {
        let w = modulus.pow(g, (p - 1) / m);
        if factors.iter().all(|&q| modulus.pow(w, m / q) != 1) {
            return Ok(w);
        }
    }
    Err(PolyError::InvalidParameter { name: "p", value: p, reason: "must be prime" })
}

/// The length-`m` DFT `X_k = sum_j x_j w^(jk)` and its inverse over one prime (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BluesteinPlan {
    modulus: Modulus,
    m: usize,
    /// `w`, a primitive `m`-th root.
    root: u64,
    ntt: NttPlan,
    /// `c_j = w^(h j^2)` and `c_j^-1`, `j < m`, for the forward transform.
    chirp: Vec<u64>,
    chirp_inv: Vec<u64>,
    /// The NTT of `b` (forward) and of its counterpart with `w^-1` (inverse transform).
    kernel: Vec<u64>,
    kernel_inv: Vec<u64>,
    /// `m^-1 mod p`.
    m_inv: u64,
}

impl BluesteinPlan {
    /// The plan for odd `m >= 3` modulo the prime `p` (`p = 1 mod m` and `= 1 mod 2M`).
    pub fn new(modulus: Modulus, m: usize) -> Result<Self> {
        if m < 3 || m.is_multiple_of(2) {
            return Err(PolyError::InvalidParameter {
                name: "m",
                value: m as u64,
                reason: "must be odd and at least 3",
            });
        }
        let root = primitive_root_of_order(&modulus, m as u64)?;
        let ntt = NttPlan::new(modulus, bluestein_length(m))?;
        let h = (m as u64).div_ceil(2); // (m + 1) / 2
        let power = |base: u64, j: u64| modulus.pow(base, (h * (j * j % m as u64)) % m as u64);
        let root_inv = modulus.inv(root)?;
        let chirp: Vec<u64> = (0..m as u64).map(|j| power(root, j)).collect();
        let chirp_inv: Vec<u64> = (0..m as u64).map(|j| power(root_inv, j)).collect();
        let kernel_of = |inverse_chirp: &[u64]| -> Result<Vec<u64>> {
            // b_l = c_(l - (m - 1))^-1, and c_(-j) = c_j.
            let mut b = vec![0u64; ntt.degree()];
            for (l, slot) in b.iter_mut().enumerate().take(2 * m - 1) {
                *slot = inverse_chirp[l.abs_diff(m - 1)];
            }
            ntt.forward_inplace(&mut b)?;
            Ok(b)
        };
        // Forward: b from c^-1 (w); inverse transform: the same with w^-1, whose chirp is c^-1
        // and whose b is built from c.
        let kernel = kernel_of(&chirp_inv)?;
        let kernel_inv = kernel_of(&chirp)?;
        let m_inv = modulus.inv(modulus.reduce(m as u64))?;
        Ok(Self { modulus, m, root, ntt, chirp, chirp_inv, kernel, kernel_inv, m_inv })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The prime.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The primitive `m`-th root `w` of the transform.
    pub fn root(&self) -> u64 {
        self.root
    }

    /// `c_j = w^(h j^2)`, `j < m` (the forward transform's chirp).
    pub fn chirp(&self) -> &[u64] {
        &self.chirp
    }

    /// The forward NTT (bit-reversed order, as `poly::ntt::NttPlan`) of the convolution's second
    /// operand `b_l = c_(l - (m - 1))^-1`, length `M`.
    pub fn kernel(&self) -> &[u64] {
        &self.kernel
    }

    /// `c_j^-1`, `j < m` (the inverse transform's chirp).
    pub fn chirp_inv(&self) -> &[u64] {
        &self.chirp_inv
    }

    /// The forward NTT of the inverse transform's second operand (built from `c`).
    pub fn kernel_inv(&self) -> &[u64] {
        &self.kernel_inv
    }

    /// `m^-1 mod p`.
    pub fn m_inv(&self) -> u64 {
        self.m_inv
    }

    /// The negacyclic NTT of length `M` the convolution runs on.
    pub fn ntt(&self) -> &NttPlan {
        &self.ntt
    }

    /// The length `M` of the convolution.
    pub fn convolution_length(&self) -> usize {
        self.ntt.degree()
    }

    /// `X_k = sum_j x_j w^(jk)`, `k < m`, for `m` canonical values.
    pub fn forward(&self, x: &[u64]) -> Result<Vec<u64>> {
        self.transform(x, &self.chirp, &self.kernel)
    }

    /// `x_j = m^-1 sum_k X_k w^(-jk)`: the inverse of [`forward`](Self::forward).
    pub fn inverse(&self, values: &[u64]) -> Result<Vec<u64>> {
        let mut out = self.transform(values, &self.chirp_inv, &self.kernel_inv)?;
        for v in &mut out {
            *v = self.modulus.mul(*v, self.m_inv);
        }
        Ok(out)
    }

    fn transform(&self, x: &[u64], chirp: &[u64], kernel: &[u64]) -> Result<Vec<u64>> {
        let (m, q) = (self.m, &self.modulus);
        if x.len() != m {
            return Err(PolyError::LengthMismatch { expected: m, actual: x.len() });
        }
        if let Some((index, &value)) = x.iter().enumerate().find(|&(_, &v)| v >= q.value()) {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus: q.value() });
        }
        let mut a = vec![0u64; self.ntt.degree()];
        for ((slot, &xj), &cj) in a.iter_mut().zip(x).zip(chirp) {
            *slot = q.mul(xj, cj);
        }
        self.ntt.forward_inplace(&mut a)?;
        for (v, &k) in a.iter_mut().zip(kernel) {
            *v = q.mul(*v, k);
        }
        self.ntt.inverse_inplace(&mut a)?;
        Ok((0..m).map(|k| q.mul(a[k + m - 1], chirp[k])).collect())
    }
}

/// `Z_p[x]/Phi_m(x)` for odd `m` over one prime, in the coefficient and the evaluation
/// representation (values at the primitive `m`-th roots `w^k`, `gcd(k, m) = 1`, in increasing
/// `k`): the transform plan of one limb of a [`crate::RingKind::Cyclotomic`] context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CyclotomicPlan {
    plan: BluesteinPlan,
    /// `Phi_m` modulo `p`, from the constant term up (monic, degree `phi(m)`).
    phi: Vec<u64>,
    /// The `k < m` coprime to `m`, increasing: where the evaluations sit in the DFT.
    primitive: Vec<usize>,
    /// The reduction modulo `Phi_m` of [`reduce_fast`](Self::reduce_fast) (additions only).
    reduction: PhiReduction,
    /// The prime-factor DFT, for the `m` that have one: the transforms' fast path there, on the
    /// CPU and the GPU (the same words as Bluestein's).
    prime_factor: Option<PrimeFactorPlan>,
}

impl CyclotomicPlan {
    /// The plan for odd `m >= 3` and a prime `p` of [`bluestein_primes`].
    pub fn new(modulus: Modulus, m: usize) -> Result<Self> {
        let plan = BluesteinPlan::new(modulus, m)?;
        let phi: Vec<u64> =
            crate::cyclotomic::cyclotomic_polynomial(m as u64)?.into_iter().map(|c| modulus.from_i64(c)).collect();
        let primitive = (1..m).filter(|&k| gcd(k, m) == 1).collect();
        let reduction = PhiReduction::new(m as u64)?;
        let prime_factor = PrimeFactorPlan::new(modulus, m, plan.root())?;
        Ok(Self { plan, phi, primitive, reduction, prime_factor })
    }

    /// The Bluestein plan of the ring's prime.
    pub fn plan(&self) -> &BluesteinPlan {
        &self.plan
    }

    /// The `k < m` coprime to `m`, increasing: evaluation `s` is the value at `w^(k_s)`.
    pub fn primitive_indices(&self) -> &[usize] {
        &self.primitive
    }

    /// The reduction modulo `Phi_m` (the same for every prime).
    pub fn reduction(&self) -> &PhiReduction {
        &self.reduction
    }

    /// The prime-factor DFT, when `m` has one ([`crate::prime_factor`]).
    pub fn prime_factor(&self) -> Option<&PrimeFactorPlan> {
        self.prime_factor.as_ref()
    }

    /// `phi(m)`: the ring's dimension.
    pub fn degree(&self) -> usize {
        self.primitive.len()
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.plan.m()
    }

    /// The prime.
    pub fn modulus(&self) -> &Modulus {
        self.plan.modulus()
    }

    /// `Phi_m` modulo `p`.
    pub fn phi(&self) -> &[u64] {
        &self.phi
    }

    /// The evaluations `f(w^k)`, `gcd(k, m) = 1`, of `f` (`phi(m)` coefficients): by the
    /// prime-factor DFT where `m` has one, else Bluestein's (the same words).
    pub fn forward(&self, coefficients: &[u64]) -> Result<Vec<u64>> {
        self.check_len(coefficients)?;
        if let Some(plan) = &self.prime_factor {
            self.check_range(coefficients, |j| j)?;
            return Ok(plan.forward(coefficients));
        }
        let mut padded = coefficients.to_vec();
        padded.resize(self.m(), 0);
        let all = self.plan.forward(&padded)?;
        Ok(self.primitive.iter().map(|&k| all[k]).collect())
    }

    /// The coefficients of the `f` with these evaluations: the inverse DFT of the evaluations
    /// with zeros at the other `m`-th roots is `f` times the idempotent of `Phi_m` modulo
    /// `x^m - 1`, which reduces to `f` modulo `Phi_m`.
    pub fn inverse(&self, evaluations: &[u64]) -> Result<Vec<u64>> {
        self.check_len(evaluations)?;
        if let Some(plan) = &self.prime_factor {
            self.check_range(evaluations, |s| self.primitive[s])?;
            return self.reduce_fast(&plan.inverse(evaluations));
        }
        let mut all = vec![0u64; self.m()];
        for (&k, &v) in self.primitive.iter().zip(evaluations) {
            all[k] = v;
        }
        let full = self.plan.inverse(&all)?;
        self.reduce_fast(&full)
    }

    /// `a` (any length, canonical values) modulo `Phi_m`, `phi(m)` coefficients, by the
    /// binomial steps of [`PhiReduction`] (additions only, `O(2^omega(m) m)`; the GPU runs the
    /// same steps) instead of [`reduce`](Self::reduce)'s long division. Errors with
    /// [`PolyError::CoefficientOutOfRange`] for a value not below `p`.
    pub fn reduce_fast(&self, a: &[u64]) -> Result<Vec<u64>> {
        self.reduction.reduce(self.modulus().value(), a)
    }

    /// `a` (any length) modulo `Phi_m`, `phi(m)` coefficients.
    pub fn reduce(&self, a: Vec<u64>) -> Vec<u64> {
        crate::cyclotomic::reduce_by_monic(self.modulus(), &self.phi, a)
    }

    /// `a b` modulo `Phi_m` through the evaluation representation.
    pub fn mul(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        let (fa, fb) = (self.forward(a)?, self.forward(b)?);
        let q = self.modulus();
        let product: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| q.mul(x, y)).collect();
        self.inverse(&product)
    }

    /// [`PolyError::CoefficientOutOfRange`] at the first value not below `p`, its index as
    /// Bluestein's transform reports it (`index(s)`).
    fn check_range(&self, values: &[u64], index: impl Fn(usize) -> usize) -> Result<()> {
        let q = self.modulus().value();
        match values.iter().position(|&v| v >= q) {
            Some(s) => Err(PolyError::CoefficientOutOfRange { limb: 0, index: index(s), value: values[s], modulus: q }),
            None => Ok(()),
        }
    }

    fn check_len(&self, values: &[u64]) -> Result<()> {
        if values.len() != self.degree() {
            return Err(PolyError::LengthMismatch { expected: self.degree(), actual: values.len() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// The transform equals direct evaluation `sum_j x_j w^(jk)` (O(m^2)) for odd m of one,
    /// two and three prime factors, and the inverse undoes it; random and edge inputs (zero,
    /// one, all p - 1).
    #[test]
    fn bluestein_equals_direct_evaluation() {
        let mut rng = StdRng::seed_from_u64(3);
        for m in [3usize, 5, 7, 9, 15, 21, 45, 63, 105, 127, 255, 315, 1023] {
            let p = bluestein_primes(50, m as u64, 1).unwrap()[0];
            let q = Modulus::new(p).unwrap();
            let plan = BluesteinPlan::new(q, m).unwrap();
            let w = plan.root();
            assert_eq!(q.pow(w, m as u64), 1);
            let mut inputs: Vec<Vec<u64>> = vec![vec![0; m], vec![1; m], vec![p - 1; m]];
            inputs.push((0..m).map(|_| rng.gen_range(0..p)).collect());
            for x in inputs {
                let got = plan.forward(&x).unwrap();
                for (k, &gk) in got.iter().enumerate() {
                    let direct = x
                        .iter()
                        .enumerate()
                        .fold(0u64, |acc, (j, &xj)| q.add(acc, q.mul(xj, q.pow(w, (j * k % m) as u64))));
                    assert_eq!(gk, direct, "m = {m}, k = {k}");
                }
                assert_eq!(plan.inverse(&got).unwrap(), x, "m = {m}");
            }
            assert!(plan.forward(&vec![0; m + 1]).is_err());
            assert!(plan.forward(&vec![p; m]).is_err());
        }
        assert!(BluesteinPlan::new(Modulus::new(bluestein_primes(50, 9, 1).unwrap()[0]).unwrap(), 8).is_err());
        assert!(bluestein_primes(50, 8, 1).is_err());
    }

    /// Products through the evaluation representation equal the schoolbook product reduced
    /// modulo `Phi_m` (with u128 arithmetic), forward/inverse round trip, and evaluations equal
    /// direct evaluation at `w^k`.
    #[test]
    fn ring_products_equal_naive_products_modulo_phi() {
        let mut rng = StdRng::seed_from_u64(5);
        for m in [3usize, 9, 15, 21, 105, 127, 255, 1023] {
            let p = bluestein_primes(55, m as u64, 1).unwrap()[0];
            let q = Modulus::new(p).unwrap();
            let ring = CyclotomicPlan::new(q, m).unwrap();
            let n = ring.degree();
            let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let mut naive = vec![0u64; 2 * n - 1];
            for (i, &x) in a.iter().enumerate() {
                for (j, &y) in b.iter().enumerate() {
                    naive[i + j] = ((u128::from(naive[i + j]) + u128::from(x) * u128::from(y)) % u128::from(p)) as u64;
                }
            }
            assert_eq!(ring.mul(&a, &b).unwrap(), ring.reduce(naive), "m = {m}");
            assert_eq!(ring.inverse(&ring.forward(&a).unwrap()).unwrap(), a, "m = {m}");
            let w = ring.plan.root();
            let evals = ring.forward(&a).unwrap();
            for (slot, &k) in ring.primitive.iter().enumerate().take(5) {
                let x = q.pow(w, k as u64);
                let direct = a.iter().rev().fold(0u64, |acc, &c| q.add(q.mul(acc, x), c));
                assert_eq!(evals[slot], direct, "m = {m}, k = {k}");
            }
            assert!(ring.forward(&a[1..]).is_err());
        }
    }

    /// The reduction through products equals the long division, for inputs of every length up to
    /// `M` and beyond (random values, all `p - 1`, `x^j` at the edges).
    #[test]
    fn fast_reduction_equals_long_division() {
        let mut rng = StdRng::seed_from_u64(7);
        for m in [3usize, 5, 9, 15, 21, 63, 105, 127, 255, 315, 1023] {
            let p = bluestein_primes(50, m as u64, 1).unwrap()[0];
            let ring = CyclotomicPlan::new(Modulus::new(p).unwrap(), m).unwrap();
            let big_m = ring.plan().convolution_length();
            let n = ring.degree();
            for len in [0, 1, n - 1, n, n + 1, m - 1, m, 2 * n - 1, 2 * m - 1, big_m, big_m + 3, 3 * big_m] {
                let a: Vec<u64> = (0..len).map(|_| rng.gen_range(0..p)).collect();
                assert_eq!(ring.reduce_fast(&a).unwrap(), ring.reduce(a.clone()), "m = {m}, len = {len}");
            }
            assert_eq!(ring.reduce_fast(&vec![p - 1; big_m]).unwrap(), ring.reduce(vec![p - 1; big_m]), "m = {m}");
            for j in [0, n - 1, n, m - 1, m, big_m - 1] {
                let mut a = vec![0u64; big_m];
                a[j] = 1;
                assert_eq!(ring.reduce_fast(&a).unwrap(), ring.reduce(a.clone()), "m = {m}, x^{j}");
            }
            assert!(ring.reduce_fast(&[p]).is_err());
        }
    }
}
