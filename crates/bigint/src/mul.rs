//! Multiplication by NTT over the Solinas prime (Schoenhage-Strassen's "FFT over a finite
//! field" variant, as in Emmart and Weems, Parallel Processing Letters 21(3), 2011).
//!
//! 1. **Digits.** Each operand is cut into `b`-bit digits, `b` the largest in `1..=32` for
//!    which every coefficient of the product's convolution, at most
//!    `min(digits_a, digits_b) (2^b - 1)^2`, stays below `p`; the transform length `n` is the
//!    power of two at or above `digits_a + digits_b - 1` (a cyclic convolution of that length
//!    does not wrap). [`MulShape`] holds `(b, log2 n)`.
//! 2. **Transform** both digit vectors, multiply point by point (times `n^-1`), transform back:
//!    the exact convolution coefficients `c_k < p`.
//! 3. **Carries.** `sum_k c_k 2^(b k)`: coefficient `k` covers bits `[b k, b k + 64)`; its part
//!    in limb `j` (bits `[64 j, 64 j + 64)`) is `c_k << (b k - 64 j)` or `c_k >> (64 j - b k)`,
//!    truncated to 64 bits. Limb `j` sums its parts into `S_j < 2^68` (at most `127/b + 1`
//!    parts); then `sum_j S_j 2^(64 j)` is brought to canonical limbs by one carry pass
//!    ([`resolve`]). The GPU does the same sums, one thread per limb, and the carry pass as a
//!    parallel scan.

use crate::error::{BigIntError, Result};
use crate::field;
use crate::nat::BigNat;
use crate::ntt::NttPlan;

/// Largest operand, in bits: transforms stay at most `2^28` points.
pub const MAX_OPERAND_BITS: u64 = 1 << 30;

/// The digit size and transform length of one multiplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MulShape {
    digit_bits: u32,
    log_n: u32,
}

impl MulShape {
    /// The shape for a product of a `bits_a`-bit by a `bits_b`-bit number: the largest digit
    /// size whose convolution coefficients stay below `p`. Errors: [`BigIntError::TooLarge`]
    /// beyond [`MAX_OPERAND_BITS`].
    pub fn for_bits(bits_a: u64, bits_b: u64) -> Result<Self> {
        for bits in [bits_a, bits_b] {
            if bits > MAX_OPERAND_BITS {
                return Err(BigIntError::TooLarge { bits, max: MAX_OPERAND_BITS });
            }
        }
        let (bits_a, bits_b) = (bits_a.max(1), bits_b.max(1));
        for digit_bits in (1..=32u32).rev() {
            let (da, db) = (bits_a.div_ceil(u64::from(digit_bits)), bits_b.div_ceil(u64::from(digit_bits)));
            let max_digit = (1u128 << digit_bits) - 1;
            if u128::from(da.min(db)) * max_digit * max_digit < u128::from(field::P) {
                let log_n = (da + db - 1).next_power_of_two().trailing_zeros();
                return Ok(Self { digit_bits, log_n });
            }
        }
        // Unreachable below MAX_OPERAND_BITS: one-bit digits always fit.
        Err(BigIntError::TooLarge { bits: bits_a.max(bits_b), max: MAX_OPERAND_BITS })
    }

    /// Bits per digit.
    pub fn digit_bits(&self) -> u32 {
        self.digit_bits
    }

    /// `log2` of the transform length.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }

    /// The transform length.
    pub fn len(&self) -> usize {
        1 << self.log_n
    }

    /// Always false.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Digits of a `bits`-bit number.
    pub fn digits(&self, bits: u64) -> u64 {
        bits.div_ceil(u64::from(self.digit_bits))
    }

    /// Whether a `bits_a` by `bits_b` product can use this shape (no wrap, no coefficient at
    /// or above `p`).
    pub fn fits(&self, bits_a: u64, bits_b: u64) -> bool {
        let (da, db) = (self.digits(bits_a.max(1)), self.digits(bits_b.max(1)));
        let max_digit = (1u128 << self.digit_bits) - 1;
        da + db - 1 <= self.len() as u64 && u128::from(da.min(db)) * max_digit * max_digit < u128::from(field::P)
    }
}

/// The `digit_bits`-bit field starting at bit `position` of `limbs` (zeros past the end).
pub fn extract_bits(limbs: &[u64], position: u64, digit_bits: u32) -> u64 {
    let word = (position / 64) as usize;
    let shift = (position % 64) as u32;
    let lo = limbs.get(word).map_or(0, |&w| w >> shift);
    let hi = if shift != 0 && u64::from(shift) + u64::from(digit_bits) > 64 {
        limbs.get(word.saturating_add(1)).map_or(0, |&w| w << (64 - shift))
    } else {
        0
    };
    let mask = if digit_bits >= 64 { u64::MAX } else { (1u64 << digit_bits) - 1 };
    (lo | hi) & mask
}

/// The `n`-point digit vector of `floor(limbs / 2^bit_offset)`: digit `i` is bits
/// `[bit_offset + b i, bit_offset + b (i + 1))`, for `i < count`; zeros after.
pub fn split_digits(limbs: &[u64], bit_offset: u64, digit_bits: u32, count: usize, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    for (i, slot) in out.iter_mut().take(count).enumerate() {
        // Positions past 2^64 bits saturate: no limb is there, the digit is 0.
        let position = bit_offset.saturating_add((i as u64).saturating_mul(u64::from(digit_bits)));
        *slot = extract_bits(limbs, position, digit_bits);
    }
    out
}

/// One limb's sum before carries: `lo + hi 2^64`, `hi` signed and small.
pub type LimbSum = (u64, i64);

/// The limb sums `S_j` (`j < out_limbs`) of `sum_k coefficients[k] 2^(b k)`.
pub fn gather(coefficients: &[u64], digit_bits: u32, out_limbs: usize) -> Vec<LimbSum> {
    let mut sums = vec![0u128; out_limbs + 1];
    for (k, &c) in coefficients.iter().enumerate() {
        let offset = k as u64 * u64::from(digit_bits);
        let word = (offset / 64) as usize;
        if word >= out_limbs {
            break;
        }
        let shift = (offset % 64) as u32;
        sums[word] += u128::from(c << shift);
        if shift != 0 {
            sums[word + 1] += u128::from(c >> (64 - shift));
        }
    }
    sums.truncate(out_limbs);
    sums.into_iter().map(|s| (s as u64, (s >> 64) as i64)).collect()
}

/// `sum_j (lo_j + hi_j 2^64) 2^(64 j)` as canonical limbs `mod 2^(64 len)`, and what lies above
/// them (the carry out of the top limb, negative when the sum is negative).
pub fn resolve(sums: &[LimbSum]) -> (Vec<u64>, i64) {
    let mut carry: i128 = 0;
    let limbs = sums
        .iter()
        .map(|&(lo, hi)| {
            let v = i128::from(lo) + (i128::from(hi) << 64) + carry;
            carry = v >> 64;
            v as u64
        })
        .collect();
    (limbs, carry as i64)
}

/// The forward transform of the digits of `a` (shifted right by `bit_offset` bits) in `shape`.
pub(crate) fn transform(limbs: &[u64], bit_offset: u64, digits: u64, shape: MulShape, plan: &NttPlan) -> Vec<u64> {
    let mut v = split_digits(limbs, bit_offset, shape.digit_bits, digits as usize, shape.len());
    plan.forward(&mut v);
    v
}

/// The convolution coefficients from two transforms: pointwise product times `n^-1`, inverse.
pub(crate) fn convolve(fa: &[u64], fb: &[u64], plan: &NttPlan) -> Vec<u64> {
    let n_inv = plan.n_inv();
    let mut c: Vec<u64> = fa.iter().zip(fb).map(|(&x, &y)| field::mul(field::mul(x, y), n_inv)).collect();
    plan.inverse_unscaled(&mut c);
    c
}

fn plan_for(shape: MulShape) -> Result<NttPlan> {
    NttPlan::new(shape.log_n).ok_or(BigIntError::TooLarge { bits: 1 << shape.log_n, max: MAX_OPERAND_BITS })
}

fn limbs_for_bits(bits: u64) -> usize {
    bits.div_ceil(64) as usize
}

/// `a * b`. Errors: [`BigIntError::TooLarge`] for operands over [`MAX_OPERAND_BITS`].
pub fn mul(a: &BigNat, b: &BigNat) -> Result<BigNat> {
    let shape = MulShape::for_bits(a.bits(), b.bits())?;
    mul_in_shape(a, b, shape)
}

/// `a * b` with a given shape. Errors: [`BigIntError::TooLarge`] when the shape does not fit.
pub fn mul_in_shape(a: &BigNat, b: &BigNat, shape: MulShape) -> Result<BigNat> {
    if !shape.fits(a.bits(), b.bits()) {
        return Err(BigIntError::TooLarge { bits: a.bits().max(b.bits()), max: shape.len() as u64 });
    }
    if a.is_zero() || b.is_zero() {
        return Ok(BigNat::zero());
    }
    let plan = plan_for(shape)?;
    let fa = transform(a.limbs(), 0, shape.digits(a.bits()), shape, &plan);
    let fb = transform(b.limbs(), 0, shape.digits(b.bits()), shape, &plan);
    let c = convolve(&fa, &fb, &plan);
    let (limbs, _) = resolve(&gather(&c, shape.digit_bits, limbs_for_bits(a.bits() + b.bits())));
    Ok(BigNat::from_limbs(limbs))
}

/// `a^2`, with one forward transform.
pub fn square(a: &BigNat) -> Result<BigNat> {
    let shape = MulShape::for_bits(a.bits(), a.bits())?;
    if a.is_zero() {
        return Ok(BigNat::zero());
    }
    let plan = plan_for(shape)?;
    let fa = transform(a.limbs(), 0, shape.digits(a.bits()), shape, &plan);
    let c = convolve(&fa, &fa, &plan);
    let (limbs, _) = resolve(&gather(&c, shape.digit_bits, limbs_for_bits(2 * a.bits())));
    Ok(BigNat::from_limbs(limbs))
}

/// Many independent products (the CPU form of the GPU's batched launch).
pub fn mul_batch(pairs: &[(BigNat, BigNat)]) -> Result<Vec<BigNat>> {
    pairs.iter().map(|(a, b)| mul(a, b)).collect()
}
