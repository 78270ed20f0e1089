//! [`BigNat`]: an unsigned integer as little-endian 64-bit limbs, normalized (no zero limb at
//! the top; zero has no limbs), with the limb-level operations the multiplication and the
//! reduction need. Conversions to and from `num_bigint::BigUint`.

use core::cmp::Ordering;

use num_bigint::BigUint;

use crate::error::{BigIntError, Result};

/// An unsigned integer: little-endian 64-bit limbs, the top one non-zero.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BigNat {
    limbs: Vec<u64>,
}

impl core::fmt::Debug for BigNat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "BigNat({} bits)", self.bits())
    }
}

impl BigNat {
    /// Zero.
    pub fn zero() -> Self {
        Self { limbs: Vec::new() }
    }

    /// The number with these little-endian limbs (zero limbs at the top are dropped).
    pub fn from_limbs(mut limbs: Vec<u64>) -> Self {
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        Self { limbs }
    }

    /// `value`.
    pub fn from_u64(value: u64) -> Self {
        Self::from_limbs(vec![value])
    }

    /// `2^bits`.
    pub fn power_of_two(bits: u64) -> Self {
        let mut limbs = vec![0u64; (bits / 64) as usize + 1];
        if let Some(top) = limbs.last_mut() {
            *top = 1 << (bits % 64);
        }
        Self { limbs }
    }

    /// The limbs, little-endian, without zero limbs at the top.
    pub fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// The limbs padded with zeros to `len` (truncated if shorter: callers pass at least
    /// [`BigNat::limbs`]`.len()`).
    pub fn limbs_padded(&self, len: usize) -> Vec<u64> {
        let mut limbs = self.limbs.clone();
        limbs.resize(len, 0);
        limbs
    }

    /// Number of significant bits (0 for zero).
    pub fn bits(&self) -> u64 {
        match self.limbs.last() {
            None => 0,
            Some(&top) => 64 * (self.limbs.len() as u64 - 1) + u64::from(64 - top.leading_zeros()),
        }
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// Bit `index`.
    pub fn bit(&self, index: u64) -> bool {
        self.limbs.get((index / 64) as usize).is_some_and(|limb| (limb >> (index % 64)) & 1 == 1)
    }

    /// `self + other`.
    pub fn add(&self, other: &Self) -> Self {
        let len = self.limbs.len().max(other.limbs.len());
        let mut out = Vec::with_capacity(len + 1);
        let mut carry = 0u64;
        for i in 0..len {
            let a = self.limbs.get(i).copied().unwrap_or(0);
            let b = other.limbs.get(i).copied().unwrap_or(0);
            let sum = u128::from(a) + u128::from(b) + u128::from(carry);
            out.push(sum as u64);
            carry = (sum >> 64) as u64;
        }
        out.push(carry);
        Self::from_limbs(out)
    }

    /// `self * k` (one pass over the limbs).
    pub fn mul_u64(&self, k: u64) -> Self {
        let mut out = Vec::with_capacity(self.limbs.len() + 1);
        let mut carry = 0u64;
        for &a in &self.limbs {
            let product = u128::from(a) * u128::from(k) + u128::from(carry);
            out.push(product as u64);
            carry = (product >> 64) as u64;
        }
        out.push(carry);
        Self::from_limbs(out)
    }

    /// `self - other`; [`BigIntError::Negative`] when `other > self`.
    pub fn sub(&self, other: &Self) -> Result<Self> {
        if self < other {
            return Err(BigIntError::Negative);
        }
        let mut out = Vec::with_capacity(self.limbs.len());
        let mut borrow = 0u64;
        for (i, &a) in self.limbs.iter().enumerate() {
            let b = other.limbs.get(i).copied().unwrap_or(0);
            let (d1, b1) = a.overflowing_sub(b);
            let (d2, b2) = d1.overflowing_sub(borrow);
            out.push(d2);
            borrow = u64::from(b1 | b2);
        }
        Ok(Self::from_limbs(out))
    }

    /// `floor(self / 2^shift)`.
    pub fn shr(&self, shift: u64) -> Self {
        let words = (shift / 64) as usize;
        let bits = (shift % 64) as u32;
        if words >= self.limbs.len() {
            return Self::zero();
        }
        let src = &self.limbs[words..];
        let out = (0..src.len())
            .map(|i| {
                let lo = src[i] >> bits;
                let hi = if bits == 0 { 0 } else { src.get(i + 1).map_or(0, |&h| h << (64 - bits)) };
                lo | hi
            })
            .collect();
        Self::from_limbs(out)
    }

    /// `self * 2^shift`.
    pub fn shl(&self, shift: u64) -> Self {
        if self.is_zero() {
            return Self::zero();
        }
        let words = (shift / 64) as usize;
        let bits = (shift % 64) as u32;
        let mut out = vec![0u64; words + self.limbs.len() + 1];
        for (i, &limb) in self.limbs.iter().enumerate() {
            out[words + i] |= limb << bits;
            if bits != 0 {
                out[words + i + 1] |= limb >> (64 - bits);
            }
        }
        Self::from_limbs(out)
    }

    /// `self mod 2^bits`.
    pub fn low_bits(&self, bits: u64) -> Self {
        let words = bits.div_ceil(64) as usize;
        let mut out: Vec<u64> = self.limbs.iter().take(words).copied().collect();
        if !bits.is_multiple_of(64)
            && let Some(top) = out.get_mut((bits / 64) as usize)
        {
            *top &= (1u64 << (bits % 64)) - 1;
        }
        Self::from_limbs(out)
    }
}

impl PartialOrd for BigNat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BigNat {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs.len().cmp(&other.limbs.len()).then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl From<&BigUint> for BigNat {
    fn from(value: &BigUint) -> Self {
        Self::from_limbs(value.to_u64_digits())
    }
}

impl From<&BigNat> for BigUint {
    fn from(value: &BigNat) -> Self {
        let mut bytes = Vec::with_capacity(8 * value.limbs.len());
        for limb in &value.limbs {
            bytes.extend_from_slice(&limb.to_le_bytes());
        }
        BigUint::from_bytes_le(&bytes)
    }
}

impl From<u64> for BigNat {
    fn from(value: u64) -> Self {
        Self::from_u64(value)
    }
}
