use crate::{ModArithError, Result, primes::is_prime};

/// Largest supported bit size of a modulus. Below 2^62, `4p` fits a `u64`, which the
/// lazy butterflies (values in `[0, 4p)`) need.
pub const MAX_MODULUS_BITS: u32 = 62;

/// A prime modulus `p < 2^62` with its precomputed Barrett constant.
///
/// Canonical values are in `[0, p)`. Functions named `*_lazy` accept or return values in
/// a wider range, stated on each; everything else takes and returns canonical values
/// (debug builds assert it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Modulus {
    p: u64,
    /// `floor(2^128 / p)`, high and low words.
    barrett_hi: u64,
    barrett_lo: u64,
}

impl Modulus {
    /// A prime modulus. Errors if `p` is not a prime or has more than 62 bits.
    pub fn new(p: u64) -> Result<Self> {
        let bits = u64::BITS - p.leading_zeros();
        if bits > MAX_MODULUS_BITS {
            return Err(ModArithError::ModulusTooLarge { value: p, bits, max_bits: MAX_MODULUS_BITS });
        }
        if !is_prime(p) {
            return Err(ModArithError::NotPrime { value: p });
        }
        let mu = u128::MAX / p as u128; // floor((2^128 - 1) / p) = floor(2^128 / p) as p is odd
        Ok(Self { p, barrett_hi: (mu >> 64) as u64, barrett_lo: mu as u64 })
    }

    /// The prime `p`.
    #[inline]
    pub const fn value(&self) -> u64 {
        self.p
    }

    /// Number of bits of `p`.
    #[inline]
    pub const fn bits(&self) -> u32 {
        u64::BITS - self.p.leading_zeros()
    }

    /// `floor(2^128 / p)` as `(high, low)` words: the Barrett constant the GPU kernels use.
    #[inline]
    pub const fn barrett_constant(&self) -> (u64, u64) {
        (self.barrett_hi, self.barrett_lo)
    }

    /// `a + b mod p` for canonical `a, b`.
    #[inline]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < self.p && b < self.p);
        let s = a + b;
        // Branch-free (min of s and s - p, wrapping): on random words a branch mispredicts.
        s.min(s.wrapping_sub(self.p))
    }

    /// `a - b mod p` for canonical `a, b`.
    #[inline]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < self.p && b < self.p);
        let d = a.wrapping_sub(b);
        d.min(d.wrapping_add(self.p))
    }

    /// `-a mod p` for canonical `a`.
    #[inline]
    pub fn neg(&self, a: u64) -> u64 {
        debug_assert!(a < self.p);
        let r = self.p - a;
        r.min(r.wrapping_sub(self.p))
    }

    /// `x mod p` for any 128-bit `x`, by Barrett reduction with `floor(2^128 / p)`.
    ///
    /// The quotient estimate misses the true quotient by at most 2 (truncated constant,
    /// dropped low partial product), so the remainder before correction is below `3p`.
    #[inline]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        let x0 = x as u64;
        let x1 = (x >> 64) as u64;
        let (m1, m0) = (self.barrett_hi, self.barrett_lo);
        let a = x0 as u128 * m0 as u128;
        let b = x1 as u128 * m0 as u128;
        let c = x0 as u128 * m1 as u128;
        let mid = (a >> 64) + (b as u64 as u128) + (c as u64 as u128);
        let carry = (mid >> 64) + (b >> 64) + (c >> 64);
        // Only the quotient modulo 2^64 matters: the remainder is below 3p < 2^64.
        let q = x1.wrapping_mul(m1).wrapping_add(carry as u64);
        let r = x0.wrapping_sub(q.wrapping_mul(self.p));
        let r = r.min(r.wrapping_sub(self.p));
        r.min(r.wrapping_sub(self.p))
    }

    /// `x mod p` for any `u64`.
    #[inline]
    pub fn reduce(&self, x: u64) -> u64 {
        self.reduce_u128(x as u128)
    }

    /// `a * b mod p` by Barrett reduction; `a` and `b` may be any `u64`.
    #[inline]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce_u128(a as u128 * b as u128)
    }

    /// Shoup's precomputation for a fixed operand `w < p`: `floor(w * 2^64 / p)`.
    #[inline]
    pub fn shoup(&self, w: u64) -> u64 {
        debug_assert!(w < self.p);
        (((w as u128) << 64) / self.p as u128) as u64
    }

    /// `a * w mod p` in `[0, 2p)`, for any `a < 2^64`, with `w_shoup = shoup(w)`.
    #[inline]
    pub fn mul_shoup_lazy(&self, a: u64, w: u64, w_shoup: u64) -> u64 {
        let q = ((a as u128 * w_shoup as u128) >> 64) as u64;
        a.wrapping_mul(w).wrapping_sub(q.wrapping_mul(self.p))
    }

    /// `a * w mod p`, canonical, for any `a < 2^64`, with `w_shoup = shoup(w)`.
    #[inline]
    pub fn mul_shoup(&self, a: u64, w: u64, w_shoup: u64) -> u64 {
        let r = self.mul_shoup_lazy(a, w, w_shoup);
        r.min(r.wrapping_sub(self.p))
    }

    /// `a + b` for `a, b` in `[0, 2p)`, result in `[0, 2p)`.
    #[inline]
    pub fn add_lazy(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < 2 * self.p && b < 2 * self.p);
        let s = a + b;
        s.min(s.wrapping_sub(2 * self.p))
    }

    /// `a - b` for `a, b` in `[0, 2p)`, result in `[0, 2p)`.
    #[inline]
    pub fn sub_lazy(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < 2 * self.p && b < 2 * self.p);
        let d = a.wrapping_sub(b);
        d.min(d.wrapping_add(2 * self.p))
    }

    /// Brings `a` in `[0, 2p)` to `[0, p)`.
    #[inline]
    pub fn reduce_from_2p(&self, a: u64) -> u64 {
        debug_assert!(a < 2 * self.p);
        a.min(a.wrapping_sub(self.p))
    }

    /// Brings `a` in `[0, 4p)` to `[0, 2p)`.
    #[inline]
    pub fn reduce_from_4p_to_2p(&self, a: u64) -> u64 {
        debug_assert!(a < 4 * self.p);
        a.min(a.wrapping_sub(2 * self.p))
    }

    /// Brings `a` in `[0, 4p)` to `[0, p)`.
    #[inline]
    pub fn reduce_from_4p(&self, a: u64) -> u64 {
        self.reduce_from_2p(self.reduce_from_4p_to_2p(a))
    }

    /// `a^e mod p` by square-and-multiply; `a` may be any `u64`.
    pub fn pow(&self, a: u64, mut e: u64) -> u64 {
        let mut base = self.reduce(a);
        let mut acc = if self.p == 1 { 0 } else { 1 };
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        acc
    }

    /// `a^-1 mod p` (Fermat). Errors if `a = 0 mod p`.
    pub fn inv(&self, a: u64) -> Result<u64> {
        let a = self.reduce(a);
        if a == 0 {
            return Err(ModArithError::NotInvertible { value: a, modulus: self.p });
        }
        Ok(self.pow(a, self.p - 2))
    }

    /// `a` as a signed representative in `(-p/2, p/2]`.
    #[inline]
    pub fn center(&self, a: u64) -> i64 {
        debug_assert!(a < self.p);
        if a > self.p / 2 { a as i64 - self.p as i64 } else { a as i64 }
    }

    /// `x mod p` for a signed `x`.
    #[inline]
    pub fn from_i64(&self, x: i64) -> u64 {
        let r = self.reduce(x.unsigned_abs());
        if x < 0 { self.neg(r) } else { r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PRIMES: [u64; 5] = [
        3,
        65537,
        0x3fff_ffff_ffe8_0001, // 62-bit NTT prime
        1_152_921_504_606_584_833,
        4_611_686_018_427_387_847, // largest 62-bit prime
    ];

    fn any_modulus() -> impl Strategy<Value = Modulus> {
        prop::sample::select(PRIMES.to_vec()).prop_map(|p| Modulus::new(p).unwrap())
    }

    #[test]
    fn rejects_composites_and_large_values() {
        assert_eq!(Modulus::new(91), Err(ModArithError::NotPrime { value: 91 }));
        assert!(matches!(Modulus::new(1 << 62), Err(ModArithError::ModulusTooLarge { .. })));
        assert!(matches!(Modulus::new(0), Err(ModArithError::NotPrime { .. })));
        assert!(matches!(Modulus::new(1), Err(ModArithError::NotPrime { .. })));
    }

    proptest! {
        #[test]
        fn reduce_u128_matches_u128_remainder(m in any_modulus(), x: u128) {
            prop_assert_eq!(m.reduce_u128(x) as u128, x % m.value() as u128);
        }

        #[test]
        fn reduce_u128_edge_values(m in any_modulus(), k in 0u128..4) {
            for x in [u128::MAX - k, k, (m.value() as u128) * (m.value() as u128) - 1 - k] {
                prop_assert_eq!(m.reduce_u128(x) as u128, x % m.value() as u128);
            }
        }

        #[test]
        fn field_ops_match_u128(m in any_modulus(), a: u64, b: u64) {
            let p = m.value();
            let (a, b) = (a % p, b % p);
            let wide = |x: u128| (x % p as u128) as u64;
            prop_assert_eq!(m.add(a, b), wide(a as u128 + b as u128));
            prop_assert_eq!(m.sub(a, b), wide(a as u128 + p as u128 - b as u128));
            prop_assert_eq!(m.neg(a), wide(p as u128 - a as u128));
            prop_assert_eq!(m.mul(a, b), wide(a as u128 * b as u128));
            prop_assert_eq!(m.from_i64(m.center(a)), a);
        }

        #[test]
        fn shoup_matches_barrett_for_any_word(m in any_modulus(), a: u64, w: u64) {
            let w = w % m.value();
            let ws = m.shoup(w);
            let lazy = m.mul_shoup_lazy(a, w, ws);
            prop_assert!(lazy < 2 * m.value());
            prop_assert_eq!(m.mul_shoup(a, w, ws), m.mul(a, w));
            prop_assert_eq!(lazy % m.value(), m.mul(a, w));
        }

        #[test]
        fn lazy_ops_stay_in_range(m in any_modulus(), a: u64, b: u64, c: u64) {
            let p = m.value();
            let (a2, b2, c4) = (a % (2 * p), b % (2 * p), c % (4 * p));
            let s = m.add_lazy(a2, b2);
            let d = m.sub_lazy(a2, b2);
            prop_assert!(s < 2 * p && d < 2 * p);
            prop_assert_eq!(s % p, (a2 + b2) % p );
            prop_assert_eq!(d % p, (a2 + 2 * p - b2) % p );
            prop_assert_eq!(m.reduce_from_4p(c4), c4 % p);
            prop_assert!(m.reduce_from_4p_to_2p(c4) < 2 * p);
        }

        #[test]
        fn pow_and_inverse_match_bigint(m in any_modulus(), a: u64, e: u64) {
            use num_bigint::BigUint;
            let p = m.value();
            let expect = BigUint::from(a).modpow(&BigUint::from(e), &BigUint::from(p));
            prop_assert_eq!(BigUint::from(m.pow(a, e)), expect);
            if a % p != 0 {
                let inv = m.inv(a).unwrap();
                prop_assert_eq!(m.mul(inv, a % p), 1);
            } else {
                prop_assert!(m.inv(a).is_err());
            }
        }
    }
}
