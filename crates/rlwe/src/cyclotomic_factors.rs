//! The factors of `Phi_m` modulo a prime power `p^r` (`p` prime, not dividing `m`): the
//! plaintext slots of a ring `Z_{p^r}[x]/Phi_m` are `Z_{p^r}[x]/F_i`, one per factor, each of
//! degree `d = ord_m(p)` (HElib's `PAlgebraMod`; Halevi and Shoup, "Algorithms in HElib",
//! CRYPTO 2014, section 2). Over `x^N + 1` take `m = 2N`.
//!
//! Built from the structure of the roots rather than by a general factoring algorithm: in the
//! Galois ring `GR(p^r, d) = Z_{p^r}[y]/(g)` (`g` monic of degree `d`, irreducible modulo `p`,
//! found by Rabin's test) a primitive `m`-th root of unity `z` is the Teichmuller lift of one of
//! `GF(p^d)`; the roots of `Phi_m` are `z^j`, `j` in `Z_m^*`, and the Frobenius `z -> z^p`
//! permutes them in the cosets of `<p>`. The factor of the coset of `j` is
//! `F_j(x) = prod_k (x - z^(j p^k))`: its coefficients are fixed by the Frobenius, so they lie
//! in `Z_{p^r}` (checked). The factors come ordered by the least element of their coset.
//! Cost: about `phi(m) d^3` products modulo `p^r` for the cosets and `d^4 log2 p` for the
//! irreducibility tests, bounded by [`MAX_WORK`] (0.1 s at `m = 4369, p = 2`, `d = 16`; 1 s
//! at `m = 1705, p = 257`, `d = 60`); slots of higher degree need fast polynomial arithmetic.

use num_bigint::BigUint;
use num_traits::One;

use crate::zn_poly::{checked_power, inverse_mod_p, mul_mod};
use crate::{Result, RlweError};

/// The most products `phi(m) d^3 + d^4 log2 p` [`cyclotomic_factors`] takes on.
pub const MAX_WORK: u64 = 1 << 31;

/// `Phi_m` modulo `p^r` as the product of its `phi(m) / d` monic factors of degree `d`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CyclotomicFactors {
    /// `m`.
    pub m: u64,
    /// `p`.
    pub p: u64,
    /// `r`.
    pub r: u32,
    /// `d = ord_m(p)`, the degree of every factor (and of every slot over `Z_{p^r}`).
    pub degree: usize,
    /// The factors, monic, coefficients below `p^r` from the constant up (`d + 1` each).
    pub factors: Vec<Vec<u64>>,
    /// The least element of the coset of `<p>` in `Z_m^*` whose roots each factor has.
    pub representatives: Vec<u64>,
}

/// The factors of `Phi_m` modulo `p^r` (module docs).
///
/// Errors with [`RlweError::InvalidParameter`] for `m` outside `2 ..= 2^20`, `p` not a prime or dividing `m`,
/// `r = 0`, `p^r >= 2^62`, or a construction above [`MAX_WORK`]; never panics.
pub fn cyclotomic_factors(m: u64, p: u64, r: u32) -> Result<CyclotomicFactors> {
    let invalid = |name: &'static str, value: u64, requirement: &str| RlweError::InvalidParameter {
        name,
        value,
        requirement: requirement.to_string(),
    };
    if !(2..=1 << 20).contains(&m) {
        return Err(invalid("m", m, "must be in 2 ..= 2^20"));
    }
    if p < 2 || !modarith::is_prime(p) || m.is_multiple_of(p) {
        return Err(invalid("p", p, "must be a prime not dividing m"));
    }
    let modulus = checked_power(p, r)
        .filter(|&n| r >= 1 && n < 1 << 62)
        .ok_or_else(|| invalid("r", u64::from(r), "must be at least 1 with p^r below 2^62"))?;
    let degree = multiplicative_order(p % m, m).ok_or_else(|| invalid("p", p, "must be a unit modulo m"))?;
    let phi = poly::cyclotomic::euler_phi(m);
    let d = degree as u128;
    let work = u128::from(phi) * d.pow(3) + d.pow(4) * u128::from(64 - p.leading_zeros());
    if work > u128::from(MAX_WORK) {
        return Err(invalid(
            "m",
            m,
            &format!(
                "phi(m) d^3 + d^4 log2 p = {work} exceeds the work bound {MAX_WORK} (slots of degree d = {degree})"
            ),
        ));
    }
    let field = Ring { modulus: p, g: irreducible(p, degree)? };
    let root = primitive_root(&field, m)?;
    // The Teichmuller lift: root^(p^(d (r - 1))) in GR(p^r, d), an m-th root of unity.
    let galois = Ring { modulus, g: field.g.clone() };
    let exponent = BigUint::from(p).pow(degree as u32 * (r - 1));
    let lifted = galois.pow(&root, &exponent);
    let mut factors = Vec::new();
    let mut representatives = Vec::new();
    let mut seen = vec![false; m as usize];
    for j in 1..m {
        if seen[j as usize] || poly::cyclotomic::gcd(j as usize, m as usize) != 1 {
            continue;
        }
        // F_j(x) = prod_k (x - z^(j p^k)), coefficients in GR (polynomials in y).
        let mut product: Vec<Vec<u64>> = vec![galois.one()];
        let mut e = j;
        for _ in 0..degree {
            seen[e as usize] = true;
            let root_power = galois.pow(&lifted, &BigUint::from(e));
            product = galois.times_linear(&product, &root_power);
            e = (u128::from(e) * u128::from(p) % u128::from(m)) as u64;
        }
        let mut factor = Vec::with_capacity(degree + 1);
        for coefficient in &product {
            if coefficient.iter().skip(1).any(|&c| c != 0) {
                return Err(invalid("m", m, "the coset product left Z_{p^r} (internal error)"));
            }
            factor.push(coefficient.first().copied().unwrap_or(0));
        }
        factors.push(factor);
        representatives.push(j);
    }
    Ok(CyclotomicFactors { m, p, r, degree, factors, representatives })
}

/// The order of `a` modulo `m` (`None` unless `a` is a unit).
fn multiplicative_order(a: u64, m: u64) -> Option<usize> {
    if poly::cyclotomic::gcd(a as usize, m as usize) != 1 {
        return None;
    }
    let mut x = a % m;
    for k in 1..=m as usize {
        if x == 1 % m {
            return Some(k);
        }
        x = (u128::from(x) * u128::from(a) % u128::from(m)) as u64;
    }
    None
}

/// `Z_n[y]/(g)` for a monic `g` (coefficients from the constant up, `g.len() = d + 1`):
/// elements are `d` words below `n`.
struct Ring {
    modulus: u64,
    g: Vec<u64>,
}

impl Ring {
    fn degree(&self) -> usize {
        self.g.len() - 1
    }

    fn one(&self) -> Vec<u64> {
        let mut one = vec![0; self.degree()];
        one[0] = 1 % self.modulus;
        one
    }

    fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        mul_mod(a, b, &self.g, self.modulus)
    }

    fn pow(&self, base: &[u64], exponent: &BigUint) -> Vec<u64> {
        let mut result = self.one();
        for bit in (0..exponent.bits()).rev() {
            result = self.mul(&result, &result);
            if exponent.bit(bit) {
                result = self.mul(&result, base);
            }
        }
        result
    }

    /// `product * (x - root)` for a polynomial in `x` with coefficients in this ring.
    fn times_linear(&self, product: &[Vec<u64>], root: &[u64]) -> Vec<Vec<u64>> {
        let n = self.modulus;
        let mut out = vec![vec![0u64; self.degree()]; product.len() + 1];
        for (k, coefficient) in product.iter().enumerate() {
            // x * c_k
            for (o, &c) in out[k + 1].iter_mut().zip(coefficient) {
                *o = ((u128::from(*o) + u128::from(c)) % u128::from(n)) as u64;
            }
            // - root * c_k
            let scaled = self.mul(coefficient, root);
            for (o, &c) in out[k].iter_mut().zip(&scaled) {
                *o = ((u128::from(*o) + u128::from(n - c % n)) % u128::from(n)) as u64;
            }
        }
        out
    }

    fn is_one(&self, a: &[u64]) -> bool {
        a == self.one().as_slice()
    }
}

/// A deterministic pseudo-random sequence (xorshift64) for the searches below: they need
/// varied candidates, not secret ones.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A monic polynomial of degree `d` irreducible modulo the prime `p` (Rabin's test on a
/// deterministic pseudo-random sequence of candidates; degree 1: `y`).
fn irreducible(p: u64, d: usize) -> Result<Vec<u64>> {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15 ^ p ^ ((d as u64) << 32));
    for _ in 0..100_000 {
        let g: Vec<u64> = (0..d).map(|_| next() % p).chain([1]).collect();
        if d == 1 || rabin_irreducible(p, &g) {
            return Ok(g);
        }
    }
    Err(RlweError::InvalidParameter {
        name: "slot degree",
        value: d as u64,
        requirement: "no irreducible polynomial of this degree was found (internal error)".to_string(),
    })
}

/// Rabin's test over `GF(p)`: `g` (monic, degree `d`) is irreducible iff `y^(p^d) = y` modulo
/// `g` and `gcd(y^(p^(d/q)) - y, g) = 1` for every prime `q` dividing `d`.
fn rabin_irreducible(p: u64, g: &[u64]) -> bool {
    let ring = Ring { modulus: p, g: g.to_vec() };
    let d = ring.degree();
    let mut y = vec![0u64; d];
    if d < 2 {
        return true;
    }
    y[1] = 1;
    // y^(p^k) for k = 0 ..= d.
    let mut powers = vec![y.clone()];
    for _ in 0..d {
        let last = powers.last().cloned().unwrap_or_default();
        powers.push(ring.pow(&last, &BigUint::from(p)));
    }
    if powers[d] != y {
        return false;
    }
    poly::cyclotomic::prime_factors(d as u64).into_iter().all(|q| {
        let mut difference = powers[d / q as usize].clone();
        difference[1] = (difference[1] + p - 1) % p;
        inverse_mod_p(&difference, g, p).is_some()
    })
}

/// A primitive `m`-th root of unity of `GF(p^d) = GF(p)[y]/(g)`: `a^((p^d - 1) / m)` for the
/// first `a` of a deterministic sequence whose power has order exactly `m`.
fn primitive_root(field: &Ring, m: u64) -> Result<Vec<u64>> {
    let d = field.degree();
    let p = field.modulus;
    let order = BigUint::from(p).pow(d as u32) - BigUint::one();
    let cofactor = &order / BigUint::from(m);
    let primes = poly::cyclotomic::prime_factors(m);
    let mut next = xorshift(0x2545_f491_4f6c_dd1d ^ m ^ (p << 20));
    for _ in 0..10_000 {
        let a: Vec<u64> = (0..d).map(|_| next() % p).collect();
        let z = field.pow(&a, &cofactor);
        if !field.is_one(&field.pow(&z, &BigUint::from(m))) {
            continue;
        }
        if primes.iter().all(|&q| !field.is_one(&field.pow(&z, &BigUint::from(m / q)))) {
            return Ok(z);
        }
    }
    Err(RlweError::InvalidParameter {
        name: "m",
        value: m,
        requirement: "no primitive m-th root of unity was found (internal error)".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_and_bad_input() {
        assert_eq!(multiplicative_order(2, 21845), Some(16));
        assert_eq!(multiplicative_order(2, 31), Some(5));
        assert_eq!(multiplicative_order(3, 9), None);
        assert!(cyclotomic_factors(21, 7, 1).is_err());
        assert!(cyclotomic_factors(21, 4, 1).is_err());
        assert!(cyclotomic_factors(21, 2, 0).is_err());
        assert!(cyclotomic_factors(21, 2, 62).is_err());
        assert!(cyclotomic_factors(1, 2, 1).is_err());
        // Slots of degree 256 (m = 514, p = 3): beyond the work bound.
        assert!(matches!(cyclotomic_factors(514, 3, 1), Err(RlweError::InvalidParameter { name: "m", .. })));
    }
}
