//! Cyclotomic polynomials and the arithmetic of the index `m` of a ring `Z_q[x]/Phi_m(x)`
//! ([`crate::RingKind::Cyclotomic`]).

use modarith::Modulus;

use crate::{PolyError, Result};

/// The distinct prime factors of `m >= 1`, increasing.
pub fn prime_factors(mut m: u64) -> Vec<u64> {
    let mut factors = Vec::new();
    let mut d = 2u64;
    while d.saturating_mul(d) <= m {
        if m.is_multiple_of(d) {
            factors.push(d);
            while m.is_multiple_of(d) {
                m /= d;
            }
        }
        d += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    factors
}

/// `gcd(a, b)`.
pub fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Euler's totient `phi(m)`.
pub fn euler_phi(m: u64) -> u64 {
    prime_factors(m).iter().fold(m, |acc, &p| acc / p * (p - 1))
}

/// The largest `m` accepted (transforms of this length fit the 2^17-point NTTs with room).
pub const MAX_M: u64 = 1 << 17;

/// `Phi_m(x)`, coefficients from the constant term up (degree `phi(m)`, monic), for
/// `1 <= m <= 2^17`, by `Phi_m = prod_{d | m} (x^d - 1)^{mu(m / d)}`: the factors with
/// `mu = 1` multiplied, then those with `mu = -1` divided out exactly (each a sparse binomial,
/// `O(m)` per factor), in 128-bit integers. Errors with [`PolyError::InvalidParameter`]
/// outside that range and if a coefficient of the result leaves `i64` (none does for `m <= 2^17` with few prime factors; checked anyway).
pub fn cyclotomic_polynomial(m: u64) -> Result<Vec<i64>> {
    // Square-free divisors e of m: d = m / e has mu(m / d) = mu(e) = (-1)^|subset|.
    binomial_product(m, false)
}

/// `Psi_m = (x^m - 1) / Phi_m(x)` (degree `m - phi(m)`, monic), the product of `Phi_d` over the
/// proper divisors `d` of `m`, by `Psi_m = prod_{d | m, d < m} (x^d - 1)^{-mu(m / d)}` (the same
/// sparse binomial products and exact divisions as [`cyclotomic_polynomial`]). The reduction
/// modulo `Phi_m` through products ([`crate::bluestein::CyclotomicPlan::reduce_fast`]) uses it: for `g`
/// of degree `< m`, `floor(g / Phi_m)` is the part of degree `>= m` of `g Psi_m`. Errors as
/// [`cyclotomic_polynomial`].
pub fn cyclotomic_cofactor(m: u64) -> Result<Vec<i64>> {
    // d = m / e for square-free e > 1: exponent -mu(e).
    binomial_product(m, true)
}

/// The binomials of `Phi_m = prod_{d | m} (x^d - 1)^{mu(m / d)}` with `mu(m / d) != 0`: pairs
/// `(d, mu(m / d))`, `d = m / e` for the square-free divisors `e` of `m`, `e` increasing by its
/// prime subset (`d = m` first). `2^omega(m)` of them. The one listing behind
/// [`cyclotomic_polynomial`], [`cyclotomic_cofactor`] and [`crate::phi_reduction`]. Errors with
/// [`PolyError::InvalidParameter`] outside `1..=2^17`.
pub fn binomial_factors(m: u64) -> Result<Vec<(u64, i8)>> {
    if !(1..=MAX_M).contains(&m) {
        return Err(PolyError::InvalidParameter { name: "m", value: m, reason: "must be in 1..=2^17" });
    }
    let primes = prime_factors(m);
    Ok((0u32..(1 << primes.len()))
        .map(|subset| {
            let e: u64 = primes.iter().enumerate().filter(|(i, _)| subset >> i & 1 == 1).map(|(_, &p)| p).product();
            (m / e, if subset.count_ones() % 2 == 0 { 1 } else { -1 })
        })
        .collect())
}

/// `prod (x^(m/e) - 1)^(+-1)` over the square-free divisors `e` of `m`: exponent `mu(e)`
/// (`Phi_m`), or, for the cofactor, `-mu(e)` over `e > 1` (`Psi_m`). The factors with exponent
/// +1 are multiplied in, then those with -1 divided out exactly, in 128-bit integers.
fn binomial_product(m: u64, cofactor: bool) -> Result<Vec<i64>> {
    let (mut multiply, mut divide) = (Vec::new(), Vec::new());
    for (d, mu) in binomial_factors(m)? {
        // Phi_m: (x^d - 1)^mu; the cofactor: (x^d - 1)^-mu over d < m.
        if cofactor && d == m {
            continue;
        }
        if (mu == 1) != cofactor { multiply.push(d) } else { divide.push(d) }
    }
    let mut poly: Vec<i128> = vec![1];
    for d in multiply {
        // poly * (x^d - 1)
        let d = d as usize;
        let mut next = vec![0i128; poly.len() + d];
        for (i, &c) in poly.iter().enumerate() {
            next[i] -= c;
            next[i + d] += c;
        }
        poly = next;
    }
    for d in divide {
        // poly / (x^d - 1), exact: q_i = -r_i + q_{i - d}, read from the top.
        let d = d as usize;
        let degree = poly.len() - 1;
        let mut q = vec![0i128; degree + 1 - d];
        for i in (0..q.len()).rev() {
            q[i] = poly[i + d] + if i + 2 * d <= degree { q[i + d] } else { 0 };
        }
        poly = q;
    }
    poly.into_iter()
        .map(|c| {
            i64::try_from(c).map_err(|_| PolyError::InvalidParameter {
                name: "m",
                value: m,
                reason: "a coefficient of Phi_m does not fit 64 bits",
            })
        })
        .collect()
}

/// `a` modulo the monic polynomial `phi` (coefficients modulo `modulus`, lowest first, the
/// leading one `1`) by long division from the top coefficient down: `deg phi` coefficients.
/// The one host reduction by `Phi_m` (the ring layer's plans, the reference, the slot
/// encoder); `a` holds canonical values, and an `a` shorter than `deg phi` is padded with zeros.
pub fn reduce_by_monic(modulus: &Modulus, phi: &[u64], mut a: Vec<u64>) -> Vec<u64> {
    let n = phi.len().saturating_sub(1);
    for i in (n..a.len()).rev() {
        let c = a[i];
        if c != 0 {
            // a -= c x^(i - n) phi: phi is monic, so a[i] becomes 0.
            for (j, &pj) in phi.iter().enumerate() {
                a[i - n + j] = modulus.sub(a[i - n + j], modulus.mul(c, pj));
            }
        }
    }
    a.resize(n, 0);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known polynomials (Phi_15, and Phi_105, the first with a coefficient -2), degrees equal
    /// to phi(m), and x^m - 1 the product of Phi_d over the divisors (checked by evaluation at
    /// small integers with i128).
    #[test]
    fn cyclotomic_polynomials_are_right() {
        assert_eq!(cyclotomic_polynomial(1).unwrap(), vec![-1, 1]);
        assert_eq!(cyclotomic_polynomial(3).unwrap(), vec![1, 1, 1]);
        assert_eq!(cyclotomic_polynomial(15).unwrap(), vec![1, -1, 0, 1, -1, 1, 0, -1, 1]);
        let phi105 = cyclotomic_polynomial(105).unwrap();
        assert_eq!(phi105.len() - 1, 48);
        assert_eq!(phi105[7], -2);
        assert_eq!(*phi105.iter().min().unwrap(), -2);
        for m in [1u64, 5, 9, 21, 45, 63, 91, 127, 255, 315, 1023, 4369] {
            let phi = cyclotomic_polynomial(m).unwrap();
            assert_eq!(phi.len() as u64 - 1, euler_phi(m), "m = {m}");
            for x in [2i128, 3, -2] {
                // Modulo 2^128 (wrapping): evaluation is a ring homomorphism there too.
                let eval =
                    |p: &[i64]| p.iter().rev().fold(0i128, |acc, &c| acc.wrapping_mul(x).wrapping_add(i128::from(c)));
                let mut product = 1i128;
                for d in (1..=m).filter(|d| m.is_multiple_of(*d)) {
                    product = product.wrapping_mul(eval(&cyclotomic_polynomial(d).unwrap()));
                }
                assert_eq!(product, x.wrapping_pow(m as u32).wrapping_sub(1), "m = {m}, x = {x}");
            }
        }
        assert!(cyclotomic_polynomial(0).is_err());
        assert!(cyclotomic_polynomial(MAX_M + 1).is_err());
        assert_eq!(prime_factors(4369), vec![17, 257]);
        assert_eq!(euler_phi(4369), 16 * 256);
    }

    /// `Phi_m Psi_m = x^m - 1` exactly (schoolbook product in i128).
    #[test]
    fn cofactor_times_phi_is_x_m_minus_1() {
        for m in [1u64, 3, 9, 15, 63, 105, 255, 1023, 4369] {
            let (phi, psi) = (cyclotomic_polynomial(m).unwrap(), cyclotomic_cofactor(m).unwrap());
            assert_eq!(psi.len() as u64 - 1, m - euler_phi(m), "m = {m}");
            let mut product = vec![0i128; phi.len() + psi.len() - 1];
            for (i, &a) in phi.iter().enumerate() {
                for (j, &b) in psi.iter().enumerate() {
                    product[i + j] += i128::from(a) * i128::from(b);
                }
            }
            let mut want = vec![0i128; m as usize + 1];
            want[0] = -1;
            want[m as usize] = 1;
            assert_eq!(product, want, "m = {m}");
        }
    }
}
