//! The length-`m` DFT over `Z_p` by Bluestein's algorithm on a power-of-two negacyclic NTT.
//!
//! With `c_j = w^(h j^2)`, `h = (m + 1) / 2` (so `2h = 1 mod m` for odd `m`), `jk = h (j^2 +
//! k^2 - (k - j)^2) mod m`, hence `X_k = c_k sum_j (x_j c_j) c_(k-j)^-1`: a linear convolution
//! of `a_j = x_j c_j` (`j < m`) with `b_l = c_(l - (m - 1))^-1` (`l < 2m - 1`), read at
//! `k + m - 1`. A negacyclic product of length `M >= 2m - 1` leaves those indices untouched
//! (terms wrap from index `M` on, and the linear product stops below `3m - 2 < M + m - 1`).
//! The NTT of `b` is precomputed.

use modarith::Modulus;
use poly::ntt::NttPlan;

use crate::polynomial::prime_factors;
use crate::{CyclotomicError, Result};

/// The power of two `M >= 2m - 1` that the convolution of a length-`m` transform uses.
pub fn bluestein_length(m: usize) -> usize {
    (2 * m - 1).next_power_of_two()
}

/// `count` primes of `bits` bits (descending from `2^bits`) with `p = 1 mod m` and
/// `p = 1 mod 2M`, `M = bluestein_length(m)`, for odd `m >= 3`. Errors with
/// [`CyclotomicError::InvalidParameter`] for an even `m`, too few bits or too few primes.
pub fn bluestein_primes(bits: u32, m: u64, count: usize) -> Result<Vec<u64>> {
    if m < 3 || m.is_multiple_of(2) || m > crate::polynomial::MAX_M {
        return Err(CyclotomicError::InvalidParameter {
            name: "m",
            value: m,
            requirement: "must be odd, at least 3 and at most 2^17".to_string(),
        });
    }
    let step = m * 2 * bluestein_length(m as usize) as u64;
    if !(2..=62).contains(&bits) || (1u64 << bits) <= step {
        return Err(CyclotomicError::InvalidParameter {
            name: "bits",
            value: u64::from(bits),
            requirement: format!("must be at most 62 and leave room for p = 1 mod {step}"),
        });
    }
    let lower = 1u64 << (bits - 1);
    let mut candidate = ((1u64 << bits) - 1) / step * step + 1;
    let mut primes = Vec::with_capacity(count);
    while primes.len() < count && candidate > lower {
        if modarith::is_prime(candidate) {
            primes.push(candidate);
        }
        candidate -= step;
    }
    if primes.len() < count {
        return Err(CyclotomicError::InvalidParameter {
            name: "bits",
            value: u64::from(bits),
            requirement: format!("only {} primes of that size are 1 mod {step}", primes.len()),
        });
    }
    Ok(primes)
}

/// A primitive `m`-th root of unity modulo `p` (`m | p - 1`): `g^((p - 1) / m)` for the
/// smallest `g >= 2` whose power has exact order `m`.
pub(crate) fn primitive_root_of_order(modulus: &Modulus, m: u64) -> Result<u64> {
    let p = modulus.value();
    if m < 2 || !(p - 1).is_multiple_of(m) {
        return Err(CyclotomicError::InvalidParameter {
            name: "m",
            value: m,
            requirement: format!("must divide p - 1 = {}", p - 1),
        });
    }
    let factors = prime_factors(m);
    for g in 2..p {
        let w = modulus.pow(g, (p - 1) / m);
        if factors.iter().all(|&q| modulus.pow(w, m / q) != 1) {
            return Ok(w);
        }
    }
    Err(CyclotomicError::InvalidParameter { name: "p", value: p, requirement: "must be prime".to_string() })
}

/// The length-`m` DFT `X_k = sum_j x_j w^(jk)` and its inverse over one prime (module docs).
#[derive(Debug, Clone)]
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
            return Err(CyclotomicError::InvalidParameter {
                name: "m",
                value: m as u64,
                requirement: "must be odd and at least 3".to_string(),
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
            return Err(CyclotomicError::LengthMismatch { what: "transform input", expected: m, actual: x.len() });
        }
        if let Some(&bad) = x.iter().find(|&&v| v >= q.value()) {
            return Err(CyclotomicError::InvalidParameter {
                name: "transform input value",
                value: bad,
                requirement: format!("must be below p = {}", q.value()),
            });
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
}
