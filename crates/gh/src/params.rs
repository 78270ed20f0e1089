//! Parameter settings.

use crate::error::{GhError, Result};

/// A Gentry-Halevi setting: the lattice dimension `n` (the ring `Z[x]/(x^n + 1)`), the bit size
/// `t` of the coefficients of the secret generator `v(x)`, and the window of Encrypt's
/// evaluation of `u(r)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GhParams {
    name: &'static str,
    n: usize,
    t: u32,
    window: usize,
}

impl GhParams {
    /// A setting; `n` a power of two in `2^3 ..= 2^15`, `t` in `8 ..= 1024`, `window` a power of
    /// two dividing `n`.
    pub fn new(name: &'static str, n: usize, t: u32, window: usize) -> Result<Self> {
        if !n.is_power_of_two() || !(8..=1 << 15).contains(&n) {
            return Err(GhError::BadParameters { reason: format!("n = {n} is not a power of two in 2^3 ..= 2^15") });
        }
        if !(8..=1024).contains(&t) {
            return Err(GhError::BadParameters { reason: format!("t = {t} is outside 8 ..= 1024") });
        }
        if !window.is_power_of_two() || window > n {
            return Err(GhError::BadParameters { reason: format!("window {window} is not a power of two <= n") });
        }
        Ok(Self { name, n, t, window })
    }

    /// The CI setting: `n = 64`, `t = 64` (`d` of about 4,300 bits), window 8.
    pub fn toy() -> Self {
        Self { name: "toy", n: 64, t: 64, window: 8 }
    }

    /// The CI setting of Recrypt: `n = 32`, `t = 256` (`d` of about 8,200 bits), window 8. The
    /// squashed decryption circuit ([`crate::RecryptParams::for_setting`]: `s = 4`, `S = 16`,
    /// `p = 3`) has degree 14 in the encrypted indicator bits; [`GhParams::toy`]'s `t = 64` is
    /// too small for it, here a recrypted ciphertext keeps about 250 bits of margin below
    /// `d / 2`, enough for further multiplications.
    pub fn toy_recrypt() -> Self {
        Self { name: "toy-recrypt", n: 32, t: 256, window: 8 }
    }

    /// Gentry and Halevi's "small" setting: `n = 2048`, `t = 380` (`d` of about 790,000 bits),
    /// window 64 as in Wang et al.'s GPU implementation.
    pub fn small() -> Self {
        Self { name: "small", n: 2048, t: 380, window: 64 }
    }

    /// The setting's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The dimension.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Bits of the coefficients of `v`.
    pub fn t(&self) -> u32 {
        self.t
    }

    /// The window of Encrypt's polynomial evaluation.
    pub fn window(&self) -> usize {
        self.window
    }

    /// This setting with another window.
    pub fn with_window(&self, window: usize) -> Result<Self> {
        Self::new(self.name, self.n, self.t, window)
    }
}
