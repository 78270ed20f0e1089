//! Gaussian integers modulo a prime `p = 1 mod 4`: elements `re + i * im` of `Z_p[i]`,
//! `i^2 = -1`, and primitive roots of `i`, which twist the DGT into a negacyclic
//! convolution (Alves et al., "Faster homomorphic encryption over GPGPUs via
//! hierarchical DGT", Appendix C).

use crate::Modulus;

/// A Gaussian integer `re + i * im` with canonical parts modulo some prime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GaussianInt {
    pub re: u64,
    pub im: u64,
}

impl GaussianInt {
    pub const fn new(re: u64, im: u64) -> Self {
        Self { re, im }
    }

    pub const ONE: Self = Self { re: 1, im: 0 };
}

impl Modulus {
    /// `a + b` in `Z_p[i]`.
    #[inline]
    pub fn gauss_add(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        GaussianInt::new(self.add(a.re, b.re), self.add(a.im, b.im))
    }

    /// `a - b` in `Z_p[i]`.
    #[inline]
    pub fn gauss_sub(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        GaussianInt::new(self.sub(a.re, b.re), self.sub(a.im, b.im))
    }

    /// `a * b` in `Z_p[i]`: `(ac - bd) + i (ad + bc)`.
    #[inline]
    pub fn gauss_mul(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        let re = self.sub(self.mul(a.re, b.re), self.mul(a.im, b.im));
        let im = self.add(self.mul(a.re, b.im), self.mul(a.im, b.re));
        GaussianInt::new(re, im)
    }

    /// The conjugate `re - i * im`.
    #[inline]
    pub fn gauss_conj(&self, a: GaussianInt) -> GaussianInt {
        GaussianInt::new(a.re, self.neg(a.im))
    }

    /// The norm `re^2 + im^2 mod p`.
    #[inline]
    pub fn gauss_norm(&self, a: GaussianInt) -> u64 {
        self.add(self.mul(a.re, a.re), self.mul(a.im, a.im))
    }

    /// `a^e` in `Z_p[i]`.
    pub fn gauss_pow(&self, a: GaussianInt, mut e: u64) -> GaussianInt {
        let mut base = a;
        let mut acc = GaussianInt::ONE;
        while e > 0 {
            if e & 1 == 1 {
                acc = self.gauss_mul(acc, base);
            }
            base = self.gauss_mul(base, base);
            e >>= 1;
        }
        acc
    }
}
