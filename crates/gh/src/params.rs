//! Parameter settings.

use rand::Rng;

use crate::error::{GhError, Result};

/// Gentry and Halevi's security parameter `lambda`, from which [`GhParams::gh_noise`] follows
/// (their choice `lambda = 72` gives their `s = 15`, `S = 512`, `p = 4` too).
pub const SECURITY_PARAMETER: usize = 72;

/// The least expected number of nonzero noise coefficients (Gentry and Halevi: at least `s`,
/// 15 for their `s`).
const MIN_NOISE: usize = 15;

/// A Gentry-Halevi setting: the lattice dimension `n` (the ring `Z[x]/(x^n + 1)`), the bit size
/// `t` of the coefficients of the secret generator `v(x)`, the window of Encrypt's evaluation of
/// `u(r)`, and Encrypt's noise: the expected number of nonzero coefficients of `u`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GhParams {
    name: &'static str,
    n: usize,
    t: u32,
    window: usize,
    noise: usize,
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
        Ok(Self { name, n, t, window, noise: Self::gh_noise(n) })
    }

    /// Gentry and Halevi's noise for dimension `n` (their `FHEparams::setPrms`): an expected
    /// `max(15, ceil(2 lambda / (log2 n - 2)))` nonzero coefficients of `u` (so that
    /// `C(n, noise / 2) > 2^lambda`, `lambda` = [`SECURITY_PARAMETER`]), at most `n / 2` (each
    /// coefficient nonzero with probability at most 1/2): 16 of 2,048 in the small setting, 29 of 128,
    /// `n / 2` up to `n = 64`.
    pub fn gh_noise(n: usize) -> usize {
        let log_n = n.max(8).trailing_zeros() as usize;
        let noise = (2 * SECURITY_PARAMETER).div_ceil(log_n - 2).max(MIN_NOISE);
        noise.min(n / 2)
    }

    /// The CI setting: `n = 64`, `t = 64` (`d` of about 4,300 bits), window 8.
    pub fn toy() -> Self {
        Self { name: "toy", n: 64, t: 64, window: 8, noise: 32 }
    }

    /// The CI setting of Recrypt: `n = 32`, `t = 256` (`d` of about 8,200 bits), window 8. The
    /// squashed decryption circuit ([`crate::RecryptParams::for_setting`]: `s = 4`, `S = 16`,
    /// `p = 3`) has degree 14 in the encrypted indicator bits; [`GhParams::toy`]'s `t = 64` is
    /// too small for it, here a recrypted ciphertext keeps about 250 bits of margin below
    /// `d / 2`, enough for further multiplications.
    pub fn toy_recrypt() -> Self {
        Self { name: "toy-recrypt", n: 32, t: 256, window: 8, noise: 16 }
    }

    /// Gentry and Halevi's "small" setting: `n = 2048`, `t = 380` (`d` of about 790,000 bits),
    /// window 64 as in Wang et al.'s GPU implementation, and Gentry and Halevi's sparse noise:
    /// 16 nonzero coefficients of `u` expected ([`GhParams::gh_noise`]).
    pub fn small() -> Self {
        Self { name: "small", n: 2048, t: 380, window: 64, noise: 16 }
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

    /// The expected number of nonzero coefficients of Encrypt's noise `u` (each is `+-1` with
    /// probability `noise / 2n`, 0 otherwise).
    pub fn noise(&self) -> usize {
        self.noise
    }

    /// Encrypt's noise vector: `n` values in `{-1, 0, 1}`, each `+-1` with probability
    /// `noise / 2n` (with `noise = n / 2`: 0 with probability 1/2, `+-1` with 1/4 each).
    pub fn sample_noise<R: Rng>(&self, rng: &mut R) -> Vec<i8> {
        let n = self.n;
        let k = self.noise.min(n / 2);
        if 2 * k == n {
            return (0..n)
                .map(|_| match rng.gen_range(0..4u8) {
                    0 => -1,
                    1 => 1,
                    _ => 0,
                })
                .collect();
        }
        (0..n)
            .map(|_| {
                let x = rng.gen_range(0..2 * n);
                if x < k {
                    -1
                } else if x < 2 * k {
                    1
                } else {
                    0
                }
            })
            .collect()
    }

    /// This setting with another window.
    pub fn with_window(&self, window: usize) -> Result<Self> {
        Ok(Self { window: Self::new(self.name, self.n, self.t, window)?.window, ..self.clone() })
    }

    /// This setting with another noise: `noise` in `1 ..= n / 2` nonzero coefficients of `u`
    /// expected (`n / 2`: each coefficient 0 with probability 1/2).
    pub fn with_noise(&self, noise: usize) -> Result<Self> {
        if !(1..=self.n / 2).contains(&noise) {
            return Err(GhError::BadParameters {
                reason: format!("noise {noise} is outside 1 ..= n / 2 = {}", self.n / 2),
            });
        }
        Ok(Self { noise, ..self.clone() })
    }
}
