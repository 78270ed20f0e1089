//! Word-level helpers shared by the conversions: arithmetic modulo a plaintext modulus that
//! need not be prime, the 128-bit fixed-point rounding accumulator of the exact
//! conversions and of HPS scaling, and small big-integer utilities for the precomputation.

use modarith::Modulus;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

use crate::{Result, RnsError};

/// Largest plaintext modulus: products of two residues and a few carries stay in a `u128`.
pub const MAX_PLAIN_MODULUS_BITS: u32 = 62;

/// Arithmetic modulo a word-size integer `2 <= t < 2^62` that need not be prime (BFV's
/// plaintext modulus is often `2^k`). Multiplication by a fixed operand uses Shoup's
/// precomputation, which is valid for any modulus below `2^63`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlainModulus {
    value: u64,
}

impl PlainModulus {
    /// Errors if `t < 2` or `t >= 2^62`.
    pub fn new(t: u64) -> Result<Self> {
        if t < 2 || t >> MAX_PLAIN_MODULUS_BITS != 0 {
            return Err(RnsError::InvalidParameter {
                name: "plaintext modulus t",
                value: t,
                reason: "must satisfy 2 <= t < 2^62",
            });
        }
        Ok(Self { value: t })
    }

    /// The modulus `t`.
    #[inline]
    pub const fn value(&self) -> u64 {
        self.value
    }

    /// `x mod t`.
    #[inline]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        (x % self.value as u128) as u64
    }

    /// `a * b mod t` for any words.
    #[inline]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce_u128(a as u128 * b as u128)
    }

    /// `a + b mod t` for canonical `a, b`.
    #[inline]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        let s = a + b;
        if s >= self.value { s - self.value } else { s }
    }

    /// `a - b mod t` for canonical `a, b`.
    #[inline]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        if a >= b { a - b } else { a + self.value - b }
    }

    /// Shoup's companion `floor(w * 2^64 / t)` of a fixed operand `w < t`.
    #[inline]
    pub fn shoup(&self, w: u64) -> u64 {
        (((w as u128) << 64) / self.value as u128) as u64
    }

    /// `a * w mod t` in `[0, 2t)` for any word `a`, with `w_shoup = shoup(w)`.
    #[inline]
    pub fn mul_shoup_lazy(&self, a: u64, w: u64, w_shoup: u64) -> u64 {
        let quotient = ((a as u128 * w_shoup as u128) >> 64) as u64;
        a.wrapping_mul(w).wrapping_sub(quotient.wrapping_mul(self.value))
    }

    /// `a^-1 mod t`, if `gcd(a, t) = 1`.
    pub fn inv(&self, a: u64) -> Option<u64> {
        inverse_mod(a, self.value)
    }
}

/// `a^-1 mod m` for any word modulus `m >= 2`, by the extended Euclidean algorithm; `None`
/// when `gcd(a, m) != 1`.
pub fn inverse_mod(a: u64, m: u64) -> Option<u64> {
    let (mut old_r, mut r) = ((a % m) as i128, m as i128);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let quotient = old_r / r;
        (old_r, r) = (r, old_r - quotient * r);
        (old_s, s) = (s, old_s - quotient * s);
    }
    if old_r != 1 {
        return None;
    }
    Some(old_s.rem_euclid(m as i128) as u64)
}

/// `x mod m` for a big integer and a word modulus.
pub fn biguint_mod(x: &BigUint, m: u64) -> u64 {
    (x % m).to_u64().unwrap_or(0)
}

/// `floor(2^128 * numerator / denominator)` as `(high, low)` words, for
/// `numerator < denominator`: the fraction `numerator / denominator` in 128-bit fixed point,
/// truncated (error in `[0, 2^-128)`).
pub fn fraction_128(numerator: &BigUint, denominator: &BigUint) -> (u64, u64) {
    if denominator.is_zero() {
        return (0, 0);
    }
    let scaled: BigUint = (numerator << 128u32).div_floor(denominator);
    let value = scaled.to_u128().unwrap_or(u128::MAX);
    ((value >> 64) as u64, value as u64)
}

/// Canonical residues `(y * w) mod m` summed over a row, with Shoup companions: the inner
/// product of fast base conversion. Lazy products are below `2^63`, so up to `2^65` of them
/// fit the `u128` accumulator.
#[inline]
pub fn dot_shoup(values: &[u64], row: &[u64], row_shoup: &[u64], modulus: &Modulus) -> u64 {
    let mut acc = 0u128;
    for ((&y, &w), &ws) in values.iter().zip(row).zip(row_shoup) {
        acc += modulus.mul_shoup_lazy(y, w, ws) as u128;
    }
    modulus.reduce_u128(acc)
}

/// Sum of `x_i * f_i` for words `x_i` and fixed-point fractions `f_i = (hi_i * 2^64 + lo_i) /
/// 2^128`, computed exactly: every `x * f` is a 192-bit product whose top word is its
/// integer part and whose two low words are its fractional part. The integer parts add up
/// in `integer`, the fractional parts in `fraction` (mod 2^128) with carries into `integer`.
///
/// This is exactly what a GPU thread does with 64-bit multiply-high and add-with-carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FixedPointSum {
    /// Integer part of the sum so far.
    pub integer: u128,
    /// Fractional part of the sum so far, scaled by `2^128`.
    pub fraction: u128,
}

impl FixedPointSum {
    /// Adds `x * (hi * 2^64 + lo) / 2^128`.
    #[inline]
    pub fn add_product(&mut self, x: u64, hi: u64, lo: u64) {
        let low_product = x as u128 * lo as u128;
        let high_product = x as u128 * hi as u128;
        // x * (hi * 2^64 + lo) = high_product * 2^64 + low_product: three words.
        let word0 = low_product as u64;
        let (word1, carry1) = ((low_product >> 64) as u64).overflowing_add(high_product as u64);
        let word2 = ((high_product >> 64) as u64) + carry1 as u64;
        let fraction = ((word1 as u128) << 64) | word0 as u128;
        let (sum, carry2) = self.fraction.overflowing_add(fraction);
        self.fraction = sum;
        self.integer += word2 as u128 + carry2 as u128;
    }

    /// `floor(sum + 1/2)`: the sum rounded to the nearest integer, halves up.
    #[inline]
    pub fn rounded(&self) -> u128 {
        self.integer + (self.fraction >> 127)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    #[test]
    fn plain_modulus_shoup_and_inverse_match_u128() {
        let mut rng = StdRng::seed_from_u64(1);
        for t in [2u64, 3, 1 << 16, 65537, (1 << 62) - 1, 1_000_000_007 * 3] {
            let plain = PlainModulus::new(t).unwrap();
            for _ in 0..1000 {
                let a: u64 = rng.r#gen();
                let w = rng.gen_range(0..t);
                let lazy = plain.mul_shoup_lazy(a, w, plain.shoup(w));
                assert!(lazy < 2 * t);
                assert_eq!(lazy % t, ((a as u128 * w as u128) % t as u128) as u64);
                let x = rng.gen_range(1..t);
                match plain.inv(x) {
                    Some(inverse) => assert_eq!(plain.mul(x, inverse), 1),
                    None => assert_ne!(num_integer::gcd(x, t), 1),
                }
            }
        }
        assert!(PlainModulus::new(1).is_err());
        assert!(PlainModulus::new(1 << 62).is_err());
    }

    #[test]
    fn fixed_point_sum_is_exact_against_bigint() {
        let mut rng = StdRng::seed_from_u64(2);
        for _ in 0..2000 {
            let count = rng.gen_range(1..80);
            let mut sum = FixedPointSum::default();
            let mut exact = BigUint::zero();
            for _ in 0..count {
                let x: u64 = rng.r#gen::<u64>() >> rng.gen_range(0..3);
                let (hi, lo): (u64, u64) = (rng.r#gen(), rng.r#gen());
                sum.add_product(x, hi, lo);
                exact += BigUint::from(x) * ((BigUint::from(hi) << 64u32) + BigUint::from(lo));
            }
            let half = BigUint::from(1u8) << 127u32;
            let expected_rounded: BigUint = (&exact + half) >> 128u32;
            assert_eq!(BigUint::from(sum.rounded()), expected_rounded);
            assert_eq!(BigUint::from(sum.integer), &exact >> 128u32);
        }
    }

    #[test]
    fn fraction_128_truncates() {
        let (hi, lo) = fraction_128(&BigUint::from(1u8), &BigUint::from(3u8));
        assert_eq!(hi, 0x5555_5555_5555_5555);
        assert_eq!(lo, 0x5555_5555_5555_5555);
        let (hi, lo) = fraction_128(&BigUint::from(1u8), &BigUint::from(2u8));
        assert_eq!((hi, lo), (1 << 63, 0));
    }
}
