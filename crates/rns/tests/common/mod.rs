//! Helpers shared by the integration tests: prime choice, random polynomials, and exact
//! big-integer references (negacyclic products, floor and rounding divisions).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use modarith::{Modulus, generate_ntt_primes};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use rand::{Rng, SeedableRng, rngs::StdRng};
use rns::RnsBase;

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// `count` NTT primes of `bits` bits for degree `degree`, avoiding `exclude`.
pub fn primes(bits: u32, degree: usize, count: usize, exclude: &[u64]) -> Vec<u64> {
    generate_ntt_primes(bits, 2 * degree as u64, count, exclude).unwrap()
}

/// A polynomial with uniform residues: uniform integers modulo the base product (CRT).
pub fn random_poly(base: &RnsBase, degree: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut data = Vec::with_capacity(base.len() * degree);
    for m in base.moduli() {
        data.extend((0..degree).map(|_| rng.gen_range(0..m.value())));
    }
    data
}

/// A uniform integer in `[0, bound)`.
pub fn random_below(bound: &BigUint, rng: &mut StdRng) -> BigUint {
    let words = (bound.bits() / 64 + 2) as usize;
    let digits: Vec<u64> = (0..words).map(|_| rng.r#gen()).collect();
    let mut bytes = Vec::with_capacity(words * 8);
    for d in digits {
        bytes.extend_from_slice(&d.to_le_bytes());
    }
    BigUint::from_bytes_le(&bytes) % bound
}

/// A uniform integer in `[low, high)`.
pub fn random_in(low: &BigInt, high: &BigInt, rng: &mut StdRng) -> BigInt {
    let width = (high - low).to_biguint().unwrap();
    low + BigInt::from(random_below(&width, rng))
}

/// Coefficients uniform in `[-bound, bound]`.
pub fn random_small(degree: usize, bound: i64, rng: &mut StdRng) -> Vec<BigInt> {
    (0..degree).map(|_| BigInt::from(rng.gen_range(-bound..=bound))).collect()
}

/// `a * b mod (x^N + 1)` over the integers, schoolbook.
pub fn negacyclic(a: &[BigInt], b: &[BigInt]) -> Vec<BigInt> {
    let n = a.len();
    let mut out = vec![BigInt::zero(); n];
    for (i, ai) in a.iter().enumerate() {
        if ai.is_zero() {
            continue;
        }
        for (j, bj) in b.iter().enumerate() {
            let product = ai * bj;
            if i + j < n {
                out[i + j] += product;
            } else {
                out[i + j - n] -= product;
            }
        }
    }
    out
}

/// `a * b mod (x^N + 1, p)`, schoolbook, canonical.
pub fn negacyclic_mod(m: &Modulus, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            let product = m.mul(ai, bj);
            if i + j < n {
                out[i + j] = m.add(out[i + j], product);
            } else {
                out[i + j - n] = m.sub(out[i + j - n], product);
            }
        }
    }
    out
}

/// The ring product of two limb-major polynomials over `base`, limb by limb.
pub fn ring_mul(base: &RnsBase, degree: usize, a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    for (i, m) in base.moduli().iter().enumerate() {
        let limb = i * degree..(i + 1) * degree;
        out.extend(negacyclic_mod(m, &a[limb.clone()], &b[limb]));
    }
    out
}

/// Limb-wise `a + b` over `base`.
pub fn ring_add(base: &RnsBase, degree: usize, a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).enumerate().map(|(idx, (&x, &y))| base.moduli()[idx / degree].add(x, y)).collect()
}

/// `floor(a / b)` for `b > 0`.
pub fn floor_div(a: &BigInt, b: &BigInt) -> BigInt {
    a.div_floor(b)
}

/// `floor(a / b + 1/2)` for `b > 0`: rounding with halves up.
pub fn round_div(a: &BigInt, b: &BigInt) -> BigInt {
    let numerator: BigInt = 2 * a + b;
    let denominator: BigInt = 2 * b;
    numerator.div_floor(&denominator)
}

/// `x mod m` in `[0, m)`.
pub fn mod_floor(x: &BigInt, m: u64) -> u64 {
    let r = x.mod_floor(&BigInt::from(m));
    r.to_biguint().unwrap().iter_u64_digits().next().unwrap_or(0)
}

/// `x` as a `BigInt`.
pub fn big(x: &BigUint) -> BigInt {
    BigInt::from_biguint(Sign::Plus, x.clone())
}

/// The infinity norm.
pub fn max_abs(values: &[BigInt]) -> BigInt {
    values.iter().map(|v| v.abs()).max().unwrap_or_else(BigInt::zero)
}

/// `1` as a `BigInt`.
pub fn one() -> BigInt {
    BigInt::one()
}

/// The coefficients of a limb-major polynomial at one index, across limbs.
pub fn residues_at(data: &[u64], limbs: usize, degree: usize, index: usize) -> Vec<u64> {
    (0..limbs).map(|limb| data[limb * degree + index]).collect()
}
