//! Digit extraction's polynomials over `Z_{p^e}`: the lowest base-`p` digit of a residue as a
//! polynomial of small degree, which BGV and BFV bootstrapping evaluate on slots holding
//! `Z_{p^e}` values (with [`crate::polynomial_eval`]) to remove the low digits of a
//! decryption's phase.
//!
//! Chen and Han ("Homomorphic lower digits removal and improved FHE bootstrapping", Eurocrypt
//! 2018, Lemma 3.3) show that the map `x -> x mod p` (the digit in `[0, p)`) on `Z_{p^e}` is a
//! polynomial of degree at most `(e - 1)(p - 1) + 1`, where Halevi and Shoup's digit extraction
//! composes `e - 1` lifting polynomials of degree `p`. The polynomial here is its Newton
//! interpolation: with `g(x) = x mod p` on the integers, `F(x) = sum_{i <= D} (Delta^i g)(0)
//! C(x, i)` with `D = (e - 1)(p - 1) + 1`. It is a polynomial over `Z_{p^e}` because `p` divides
//! `(Delta^i g)(0)` at least as often as it divides `i!`, and it equals `g` modulo `p^e` on
//! every integer because the terms past `D` have `p^e | (Delta^i g)(0)` (both are the
//! valuation bound `v_p((Delta^i g)(0)) >= floor((i - 1) / (p - 1))` behind the lemma). The
//! construction checks the first property on every coefficient and refuses otherwise; the
//! tests check the result on every residue for small `p` and `e`.

use num_bigint::BigInt;
use num_integer::Integer;

use crate::{Result, RlweError};

/// The coefficients (lowest degree first, reduced modulo `p^e`) of the polynomial `F` of
/// degree at most `(e - 1)(p - 1) + 1` with `F(x) = x mod p` (the lowest base-`p` digit, in
/// `[0, p)`) modulo `p^e` for every integer `x`. Errors when `p` is not a prime, `e` is 0, or
/// `p^e` is 2^62 or more (the plaintext moduli of the schemes are below).
pub fn lowest_digit_polynomial(p: u64, e: u32) -> Result<Vec<u64>> {
    let modulus = prime_power(p, e)?;
    let degree = (e as usize - 1) * (p as usize - 1) + 1;
    let big_p = BigInt::from(p);
    let big_modulus = BigInt::from(modulus);
    // (Delta^i g)(0) for i <= D: the forward differences of g(j) = j mod p, j = 0 ..= D.
    let mut row: Vec<BigInt> = (0..=degree as u64).map(|j| BigInt::from(j % p)).collect();
    let mut differences = Vec::with_capacity(degree + 1);
    for _ in 0..=degree {
        differences.push(row[0].clone());
        row = row.windows(2).map(|w| &w[1] - &w[0]).collect();
    }
    // Newton's form to monomials: F = sum_i c_i x (x - 1) .. (x - i + 1) with c_i =
    // (Delta^i g)(0) / i!, each made p-integral (the powers of p cancelled) and taken modulo p^e.
    let mut coefficients = vec![BigInt::from(0); degree + 1];
    let mut falling = vec![BigInt::from(1)]; // x (x - 1) .. (x - i + 1), modulo p^e
    let mut factorial = BigInt::from(1);
    for (i, difference) in differences.iter().enumerate() {
        if i > 0 {
            factorial *= BigInt::from(i as u64);
            // falling *= (x - (i - 1)).
            let shift = BigInt::from(i as u64 - 1);
            let mut next = vec![BigInt::from(0); falling.len() + 1];
            for (k, c) in falling.iter().enumerate() {
                next[k + 1] += c;
                next[k] -= c * &shift;
            }
            falling = next.into_iter().map(|c| c.mod_floor(&big_modulus)).collect();
        }
        let (mut numerator, mut denominator) = (difference.clone(), factorial.clone());
        while denominator.is_multiple_of(&big_p) {
            if !numerator.is_multiple_of(&big_p) {
                return Err(RlweError::InvalidParameter {
                    name: "digit extraction prime",
                    value: p,
                    requirement: format!("the Newton coefficient of degree {i} is not p-integral (p must be prime)"),
                });
            }
            numerator /= &big_p;
            denominator /= &big_p;
        }
        let inverse = inverse_mod(&denominator.mod_floor(&big_modulus), &big_modulus).ok_or_else(|| {
            RlweError::InvalidParameter {
                name: "digit extraction prime",
                value: p,
                requirement: "p must be prime".into(),
            }
        })?;
        let c = (numerator * inverse).mod_floor(&big_modulus);
        for (k, f) in falling.iter().enumerate() {
            coefficients[k] = (&coefficients[k] + &c * f).mod_floor(&big_modulus);
        }
    }
    Ok(coefficients
        .into_iter()
        .map(|c| u64::try_from(c).unwrap_or(0)) // canonical below p^e < 2^62: always fits
        .collect())
}

/// `p^e` for a prime `p` and `e >= 1`, below 2^62.
fn prime_power(p: u64, e: u32) -> Result<u64> {
    let is_prime = p >= 2 && (2..).take_while(|d: &u64| d * d <= p).all(|d| !p.is_multiple_of(d));
    if !is_prime {
        return Err(RlweError::InvalidParameter {
            name: "digit extraction prime",
            value: p,
            requirement: "a prime".into(),
        });
    }
    if e == 0 {
        return Err(RlweError::InvalidParameter {
            name: "digit extraction exponent",
            value: 0,
            requirement: "at least 1".into(),
        });
    }
    p.checked_pow(e).filter(|&q| q < 1 << 62).ok_or_else(|| RlweError::InvalidParameter {
        name: "digit extraction exponent",
        value: u64::from(e),
        requirement: format!("p^e below 2^62 (p = {p})"),
    })
}

/// `a^-1` modulo `m`, if `a` is a unit.
fn inverse_mod(a: &BigInt, m: &BigInt) -> Option<BigInt> {
    let extended = a.extended_gcd(m);
    (extended.gcd == BigInt::from(1)).then(|| extended.x.mod_floor(m))
}

/// `e` with `t = p^e` (`e >= 1`), if `t` is a power of `p`: the plaintext spaces of digit
/// removal and of bootstrapping's raise.
pub fn prime_power_exponent(t: u64, p: u64) -> Option<u32> {
    if p < 2 {
        return None;
    }
    let (mut rest, mut e) = (t, 0u32);
    while rest > 1 && rest.is_multiple_of(p) {
        rest /= p;
        e += 1;
    }
    (rest == 1 && e >= 1).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_of_prime_powers() {
        assert_eq!(prime_power_exponent(256, 2), Some(8));
        assert_eq!(prime_power_exponent(81, 3), Some(4));
        assert_eq!(prime_power_exponent(3, 3), Some(1));
        assert_eq!(prime_power_exponent(1, 3), None);
        assert_eq!(prime_power_exponent(24, 2), None);
        assert_eq!(prime_power_exponent(81, 1), None);
        assert_eq!(prime_power_exponent(0, 3), None);
    }
    use crate::polynomial_eval::PolynomialPlan;

    /// On every residue of `Z_{p^e}` for small primes and exponents, the polynomial gives the
    /// lowest digit, at degree at most `(e - 1)(p - 1) + 1` (Horner's rule in `u128`, an
    /// independent evaluation).
    #[test]
    fn lowest_digit_polynomial_gives_the_lowest_digit_everywhere() {
        for (p, max_e) in [(2u64, 10u32), (3, 6), (5, 4), (7, 3), (17, 2), (257, 2)] {
            for e in 1..=max_e {
                let coefficients = lowest_digit_polynomial(p, e).unwrap();
                let modulus = p.pow(e);
                let plan = PolynomialPlan::new(&coefficients, modulus).unwrap();
                assert!(plan.degree() <= (e as usize - 1) * (p as usize - 1) + 1, "p = {p}, e = {e}");
                for x in 0..modulus {
                    assert_eq!(plan.evaluate_plain(x), x % p, "p = {p}, e = {e}, x = {x}");
                }
            }
        }
    }

    /// `e = 1` is the identity; `p = 2, e = 2` is `x^2` modulo 4 (`x^2 = x mod 2` there).
    #[test]
    fn small_cases_are_the_known_polynomials() {
        assert_eq!(lowest_digit_polynomial(5, 1).unwrap(), vec![0, 1]);
        let f = lowest_digit_polynomial(2, 2).unwrap();
        let plan = PolynomialPlan::new(&f, 4).unwrap();
        for x in 0..4 {
            assert_eq!(plan.evaluate_plain(x), x * x % 4);
        }
    }

    #[test]
    fn bad_primes_and_exponents_are_refused() {
        for (p, e) in [(4u64, 2u32), (1, 3), (0, 1), (9, 1), (3, 0), (3, 40), (1 << 31, 2)] {
            assert!(
                matches!(lowest_digit_polynomial(p, e), Err(RlweError::InvalidParameter { .. })),
                "p = {p}, e = {e}"
            );
        }
    }
}
