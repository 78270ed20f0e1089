//! Slow, exact reference computations for tests, examples and debugging: the schoolbook
//! `O(N^2)` negacyclic convolution modulo a prime and over the integers, and CRT
//! reconstruction of RNS polynomials as big integers. Nothing here is meant to be fast; all
//! of it is written for obvious correctness, and it returns errors rather than panicking.

use std::sync::Arc;

use modarith::Modulus;
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};

use crate::context::RingContext;
use crate::poly::Poly;
use crate::representation::Coeff;
use crate::{PolyError, Result};

fn check_same_length(a: usize, b: usize) -> Result<()> {
    if a != b {
        return Err(PolyError::LengthMismatch { expected: a, actual: b });
    }
    Ok(())
}

/// `a * b mod (x^N + 1, p)` by the schoolbook rule, for `a`, `b` of equal length `N` with
/// canonical values. Errors on unequal lengths or a value not below `p` (reported as limb 0).
pub fn negacyclic_convolution(modulus: &Modulus, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    check_same_length(a.len(), b.len())?;
    let p = modulus.value();
    for (index, &value) in a.iter().chain(b).enumerate() {
        if value >= p {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index: index % a.len(), value, modulus: p });
        }
    }
    let n = a.len();
    // Reduced products are below 2^62 and there are at most N of them per output: the u128
    // sums cannot overflow for any N below 2^66.
    let mut positive = vec![0u128; n];
    let mut negative = vec![0u128; n];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            let product = modulus.mul(ai, bj) as u128;
            if i + j < n {
                positive[i + j] += product;
            } else {
                negative[i + j - n] += product;
            }
        }
    }
    Ok(positive
        .iter()
        .zip(&negative)
        .map(|(&pos, &neg)| modulus.sub(modulus.reduce_u128(pos), modulus.reduce_u128(neg)))
        .collect())
}

/// `a mod (Phi_m, p)` by long division with `Phi_m`'s integer coefficients
/// ([`crate::cyclotomic::cyclotomic_polynomial`]), for `a` of any length with canonical values:
/// `phi(m)` values. Errors for an `m` the polynomial refuses.
pub fn reduce_mod_cyclotomic(modulus: &Modulus, m: u64, a: &[u64]) -> Result<Vec<u64>> {
    let phi: Vec<u64> = crate::cyclotomic::cyclotomic_polynomial(m)?.iter().map(|&c| modulus.from_i64(c)).collect();
    Ok(crate::cyclotomic::reduce_by_monic(modulus, &phi, a.to_vec()))
}

/// `a * b mod (Phi_m, p)`: the schoolbook product (`u128` sums), then
/// [`reduce_mod_cyclotomic`]. Errors on unequal lengths or a value not below `p`.
pub fn cyclotomic_convolution(modulus: &Modulus, m: u64, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    check_same_length(a.len(), b.len())?;
    let p = modulus.value();
    for (index, &value) in a.iter().chain(b).enumerate() {
        if value >= p {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index: index % a.len(), value, modulus: p });
        }
    }
    let mut sums = vec![0u128; (2 * a.len()).saturating_sub(1)];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            sums[i + j] += modulus.mul(ai, bj) as u128;
        }
    }
    let product: Vec<u64> = sums.iter().map(|&v| modulus.reduce_u128(v)).collect();
    reduce_mod_cyclotomic(modulus, m, &product)
}

/// The ring product of two coefficient-representation polynomials of any ring kind, limb by
/// limb: [`negacyclic_convolution`] for `x^N + 1`, [`cyclotomic_convolution`] for `Phi_m`.
/// Errors with [`PolyError::ContextMismatch`] for incompatible contexts.
pub fn ring_product(a: &Poly<Coeff>, b: &Poly<Coeff>) -> Result<Poly<Coeff>> {
    let crate::RingKind::Cyclotomic { m } = a.context().ring_kind() else {
        return negacyclic_product(a, b);
    };
    if !a.context().is_compatible(b.context()) {
        return Err(PolyError::ContextMismatch);
    }
    let context = a.context();
    let mut data = Vec::with_capacity(context.poly_len());
    for (modulus, (la, lb)) in context.moduli().iter().zip(a.limbs().zip(b.limbs())) {
        data.extend(cyclotomic_convolution(modulus, m as u64, la, lb)?);
    }
    Poly::from_limbs(context, data)
}

/// The ring product of two coefficient-representation polynomials, limb by limb through
/// [`negacyclic_convolution`]. Errors with [`PolyError::ContextMismatch`] for incompatible
/// contexts.
pub fn negacyclic_product(a: &Poly<Coeff>, b: &Poly<Coeff>) -> Result<Poly<Coeff>> {
    if !a.context().is_compatible(b.context()) {
        return Err(PolyError::ContextMismatch);
    }
    let context = a.context();
    let mut data = Vec::with_capacity(context.poly_len());
    for (modulus, (la, lb)) in context.moduli().iter().zip(a.limbs().zip(b.limbs())) {
        data.extend(negacyclic_convolution(modulus, la, lb)?);
    }
    Poly::from_limbs(context, data)
}

/// `a * b mod (x^N + 1)` over the integers, by the schoolbook rule. Errors on unequal lengths.
pub fn negacyclic_convolution_bigint(a: &[BigInt], b: &[BigInt]) -> Result<Vec<BigInt>> {
    check_same_length(a.len(), b.len())?;
    let n = a.len();
    let mut out = vec![BigInt::zero(); n];
    for (i, ai) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            let product = ai * bj;
            if i + j < n {
                out[i + j] += product;
            } else {
                out[i + j - n] -= product;
            }
        }
    }
    Ok(out)
}

/// `Q = q_0 * ... * q_{L-1}`.
pub fn modulus_product(context: &RingContext) -> BigUint {
    context.moduli().iter().fold(BigUint::one(), |acc, m| acc * m.value())
}

/// The coefficients of `poly` as integers in `[0, Q)`, by the Chinese remainder theorem:
/// `a_j = sum_i [a_{i,j} * (Q/q_i)^-1 mod q_i] * (Q/q_i) mod Q`.
pub fn crt_reconstruct(poly: &Poly<Coeff>) -> Result<Vec<BigUint>> {
    let context = poly.context();
    let q = modulus_product(context);
    // Per limb: Q/q_i and (Q/q_i)^-1 mod q_i.
    let mut basis = Vec::with_capacity(context.num_limbs());
    for modulus in context.moduli() {
        let q_hat = &q / modulus.value();
        let q_hat_mod = (&q_hat % modulus.value()).iter_u64_digits().next().unwrap_or(0);
        basis.push((q_hat, modulus.inv(q_hat_mod)?));
    }
    let mut out = vec![BigUint::zero(); context.degree()];
    for ((modulus, (q_hat, q_hat_inv)), limb) in context.moduli().iter().zip(&basis).zip(poly.limbs()) {
        for (acc, &residue) in out.iter_mut().zip(limb) {
            *acc += q_hat * modulus.mul(residue, *q_hat_inv);
        }
    }
    for acc in &mut out {
        *acc %= &q;
    }
    Ok(out)
}

/// The coefficients of `poly` as integers in `(-Q/2, Q/2]` (the centered lift of
/// [`crt_reconstruct`]).
pub fn crt_reconstruct_centered(poly: &Poly<Coeff>) -> Result<Vec<BigInt>> {
    let q = modulus_product(poly.context());
    let half = &q >> 1u32;
    let q = BigInt::from(q);
    Ok(crt_reconstruct(poly)?
        .into_iter()
        .map(|c| if c > half { BigInt::from(c) - &q } else { BigInt::from(c) })
        .collect())
}

/// The integer polynomial `sum_j coeffs[j] x^j` reduced into every limb of `context`.
/// Errors with [`PolyError::LengthMismatch`] unless `coeffs.len() == N`.
pub fn poly_from_bigint(context: &Arc<RingContext>, coeffs: &[BigInt]) -> Result<Poly<Coeff>> {
    let n = context.degree();
    check_same_length(n, coeffs.len())?;
    let mut data = Vec::with_capacity(context.poly_len());
    for modulus in context.moduli() {
        let p = BigInt::from(modulus.value());
        for c in coeffs {
            // `mod_floor`-style: the remainder of a negative number is brought to [0, p).
            let mut r = c % &p;
            if r < BigInt::zero() {
                r += &p;
            }
            data.push(r.iter_u64_digits().next().unwrap_or(0));
        }
    }
    Poly::from_limbs(context, data)
}
