//! [`CyclotomicRing`]: `Z_p[x]/Phi_m(x)` for odd `m` over one prime, in the coefficient and the
//! evaluation representation (values at the primitive `m`-th roots `w^k`, `gcd(k, m) = 1`, in
//! increasing `k`).

use modarith::Modulus;

use crate::bluestein::BluesteinPlan;
use crate::{CyclotomicError, Result};

/// `Z_p[x]/Phi_m` over one prime (module docs).
#[derive(Debug, Clone)]
pub struct CyclotomicRing {
    plan: BluesteinPlan,
    /// `Phi_m` modulo `p`, from the constant term up (monic, degree `phi(m)`).
    phi: Vec<u64>,
    /// The `k < m` coprime to `m`, increasing: where the evaluations sit in the DFT.
    primitive: Vec<usize>,
    /// The forward NTTs (length `M`, as the Bluestein plan's) of `Psi_m = (x^m - 1) / Phi_m`
    /// and of `Phi_m`: the two products of [`reduce_fast`](Self::reduce_fast).
    psi_ntt: Vec<u64>,
    phi_ntt: Vec<u64>,
}

impl CyclotomicRing {
    /// The ring for odd `m >= 3` and a prime `p` of [`crate::bluestein_primes`].
    pub fn new(modulus: Modulus, m: usize) -> Result<Self> {
        let plan = BluesteinPlan::new(modulus, m)?;
        let phi: Vec<u64> = crate::cyclotomic_polynomial(m as u64)?.into_iter().map(|c| modulus.from_i64(c)).collect();
        let primitive = (1..m).filter(|&k| gcd(k, m) == 1).collect();
        let ntt = plan.ntt();
        let padded_ntt = |coefficients: Vec<u64>| -> Result<Vec<u64>> {
            let mut padded = coefficients;
            padded.resize(ntt.degree(), 0);
            ntt.forward_inplace(&mut padded)?;
            Ok(padded)
        };
        let psi: Vec<u64> = crate::cyclotomic_cofactor(m as u64)?.into_iter().map(|c| modulus.from_i64(c)).collect();
        let psi_ntt = padded_ntt(psi)?;
        let phi_ntt = padded_ntt(phi.clone())?;
        Ok(Self { plan, phi, primitive, psi_ntt, phi_ntt })
    }

    /// The Bluestein plan of the ring's prime.
    pub fn plan(&self) -> &BluesteinPlan {
        &self.plan
    }

    /// The `k < m` coprime to `m`, increasing: evaluation `s` is the value at `w^(k_s)`.
    pub fn primitive_indices(&self) -> &[usize] {
        &self.primitive
    }

    /// The forward NTT (length `M`) of `Psi_m = (x^m - 1) / Phi_m` modulo `p`.
    pub fn psi_ntt(&self) -> &[u64] {
        &self.psi_ntt
    }

    /// The forward NTT (length `M`) of `Phi_m` modulo `p`.
    pub fn phi_ntt(&self) -> &[u64] {
        &self.phi_ntt
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

    /// The evaluations `f(w^k)`, `gcd(k, m) = 1`, of `f` (`phi(m)` coefficients).
    pub fn forward(&self, coefficients: &[u64]) -> Result<Vec<u64>> {
        self.check_len(coefficients, "coefficients")?;
        let mut padded = coefficients.to_vec();
        padded.resize(self.m(), 0);
        let all = self.plan.forward(&padded)?;
        Ok(self.primitive.iter().map(|&k| all[k]).collect())
    }

    /// The coefficients of the `f` with these evaluations: the inverse DFT of the evaluations
    /// with zeros at the other `m`-th roots is `f` times the idempotent of `Phi_m` modulo
    /// `x^m - 1`, which reduces to `f` modulo `Phi_m`.
    pub fn inverse(&self, evaluations: &[u64]) -> Result<Vec<u64>> {
        self.check_len(evaluations, "evaluations")?;
        let mut all = vec![0u64; self.m()];
        for (&k, &v) in self.primitive.iter().zip(evaluations) {
            all[k] = v;
        }
        let full = self.plan.inverse(&all)?;
        self.reduce_fast(&full)
    }

    /// `a` (any length, canonical values) modulo `Phi_m`, `phi(m)` coefficients, with two
    /// products of length `M` instead of [`reduce`](Self::reduce)'s long division (the GPU's
    /// algorithm, `kernels/cyclotomic.cu`): `g = a mod (x^m - 1)` (folding, which keeps the
    /// residue since `Phi_m | x^m - 1`), then the quotient `Q = floor(g / Phi_m)` is the part of
    /// degree `>= m` of `g Psi_m` (`Psi_m = (x^m - 1) / Phi_m`: `g Psi_m = (x^m - 1) Q + R Psi_m`
    /// with `deg(R Psi_m) < m`), and `g - Phi_m Q` has degree `< phi(m)`. Neither product wraps
    /// around in the negacyclic NTT of length `M >= 2m - 1`: `deg(g Psi_m) < 2m - phi(m)` and
    /// `deg(Phi_m Q) < m`. Errors with [`CyclotomicError::InvalidParameter`] for a value not
    /// below `p`.
    pub fn reduce_fast(&self, a: &[u64]) -> Result<Vec<u64>> {
        let (q, m, n) = (self.modulus(), self.m(), self.degree());
        if let Some(&bad) = a.iter().find(|&&v| v >= q.value()) {
            return Err(CyclotomicError::InvalidParameter {
                name: "coefficient",
                value: bad,
                requirement: format!("must be below p = {}", q.value()),
            });
        }
        let ntt = self.plan.ntt();
        let big_m = ntt.degree();
        let mut g = vec![0u64; big_m];
        for (j, &v) in a.iter().enumerate() {
            g[j % m] = q.add(g[j % m], v);
        }
        let low: Vec<u64> = g[..n].to_vec();
        ntt.forward_inplace(&mut g)?;
        for (v, &w) in g.iter_mut().zip(&self.psi_ntt) {
            *v = q.mul(*v, w);
        }
        ntt.inverse_inplace(&mut g)?;
        let mut quotient = vec![0u64; big_m];
        quotient[..m - n].copy_from_slice(&g[m..2 * m - n]);
        ntt.forward_inplace(&mut quotient)?;
        for (v, &w) in quotient.iter_mut().zip(&self.phi_ntt) {
            *v = q.mul(*v, w);
        }
        ntt.inverse_inplace(&mut quotient)?;
        Ok(low.iter().zip(&quotient).map(|(&x, &y)| q.sub(x, y)).collect())
    }

    /// `a` (any length) modulo `Phi_m`, `phi(m)` coefficients.
    pub fn reduce(&self, mut a: Vec<u64>) -> Vec<u64> {
        let q = self.modulus();
        let n = self.degree();
        for i in (n..a.len()).rev() {
            let c = a[i];
            if c != 0 {
                // a -= c x^(i - n) Phi_m (Phi_m monic: a[i] becomes 0).
                for (j, &pj) in self.phi.iter().enumerate() {
                    a[i - n + j] = q.sub(a[i - n + j], q.mul(c, pj));
                }
            }
        }
        a.truncate(n);
        a.resize(n, 0);
        a
    }

    /// `a b` modulo `Phi_m` through the evaluation representation.
    pub fn mul(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        let (fa, fb) = (self.forward(a)?, self.forward(b)?);
        let q = self.modulus();
        let product: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| q.mul(x, y)).collect();
        self.inverse(&product)
    }

    fn check_len(&self, values: &[u64], what: &'static str) -> Result<()> {
        if values.len() != self.degree() {
            return Err(CyclotomicError::LengthMismatch { what, expected: self.degree(), actual: values.len() });
        }
        Ok(())
    }
}

pub(crate) fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bluestein_primes;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// Products through the evaluation representation equal the schoolbook product reduced
    /// modulo `Phi_m` (with u128 arithmetic), forward/inverse round trip, and evaluations equal
    /// direct evaluation at `w^k`.
    #[test]
    fn ring_products_equal_naive_products_modulo_phi() {
        let mut rng = StdRng::seed_from_u64(5);
        for m in [3usize, 9, 15, 21, 105, 127, 255, 1023] {
            let p = bluestein_primes(55, m as u64, 1).unwrap()[0];
            let q = Modulus::new(p).unwrap();
            let ring = CyclotomicRing::new(q, m).unwrap();
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
            let ring = CyclotomicRing::new(Modulus::new(p).unwrap(), m).unwrap();
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
