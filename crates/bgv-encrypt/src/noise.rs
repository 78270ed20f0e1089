//! The noise estimate every BGV ciphertext carries ([`BgvCiphertextState::estimated_noise_bits`](crate::BgvCiphertextState::estimated_noise_bits)):
//! `log2` of a bound on the centered phase `|f m + t e|_inf` (what
//! [`noise_budget`](crate::BgvContext::noise_budget) measures with the secret key), updated by
//! every operation from the model below, so [`ModSwitching::Auto`](crate::ModSwitching::Auto)
//! can refuse a product that would not decrypt before computing it (HElib keeps such a bound
//! in each `Ctxt` for its automatic level management).
//!
//! With `n = log2 N` (of `phi(m)` over `Phi_m`), `T = log2 t`, all in bits:
//!
//! | operation | estimate |
//! |---|---|
//! | fresh encryption `t (e u + e_1 + e_2 s) + m` | `T + n/2 + 5` |
//! | rounding floor of a switch `t (r_0 + r_1 s)` | `T + n/2 + 2` |
//! | `a + b`, `a - b` | `log2(2^a + 2^b)` |
//! | plaintext added | `log2(2^a + 2^(T - 1))` |
//! | times the integer `k` (centered) | `a + log2 abs(k)` |
//! | times a plaintext of norm `abs(m)_2` | `a + log2 abs(m)_2 + 2` |
//! | `a * b` | `a + b + n/2 - 2` |
//! | switch from level `l` | `log2(2^(a - log2 q_l) + 2^floor)` |
//! | key switch (relinearization, rotation) | `log2(2^a + 2^floor + 2^ks)` |
//!
//! with `ks = T + n/2 + 2.5 + log2(D)/2 + log2(max_j Q_j / P)` for `D` digits `Q_j` and the
//! special modulus `P`. Over `Phi_m` every term that comes from a ring product (fresh, floor,
//! products of ciphertexts and by plaintexts, `ks`) gains `r = log2 E_m`, the expansion of reducing a
//! polynomial of degree below `m` modulo `Phi_m`: with `R_k = x^k mod Phi_m`,
//! `E_m^2 = 1 + max_i sum_{phi <= k < m} R_k[i]^2` (a product taken modulo `x^m - 1` has
//! coefficients of one size; the reduction sums them with these weights). Over `x^N + 1`, `r = 0`.
//! This bounds every coefficient by the worst column, so over `Phi_m` the estimate is looser
//! (about 15 bits after a few products at `m = 1705`, against about 10 over `x^N + 1`);
//! HElib's bounds in the canonical embedding are tighter there. The products are the central-limit (6 sigma) heuristics of the
//! literature (Gentry, Halevi and Smart, "Homomorphic evaluation of the AES circuit", 2012,
//! appendix; Costache and Smart, "Which ring based somewhat homomorphic encryption scheme is
//! best?", 2016): a coefficient of a product of `N`-term polynomials with random-looking
//! coefficients is a sum of `N` terms, so it grows by `sqrt(N)` rather than `N`: bounds
//! `B = c sigma` (`c` about 4.5, the largest of `N` normal samples) multiply to
//! `c sqrt(N) sigma_a sigma_b = sqrt(N) B_a B_b / c`, hence `-2`. Tests compare
//! the estimate with the noise measured with the secret key along random circuits on every
//! preset: it is a bound there, and not loose by more than a few bits per operation.
//!
//! The estimate does not travel in the bytes (the correction-factor word has no room left for
//! it): a loaded ciphertext is estimated as fresh, or as the product of two switched
//! ciphertexts when it carries the product flag.

use crate::params::BgvParameters;

/// The model of the module docs for one parameter set.
#[derive(Debug, Clone)]
pub(crate) struct NoiseModel {
    /// `log2 N` (of `phi(m)`).
    n: f64,
    /// `log2 t`.
    log_t: f64,
    /// `log2 q_l` per level.
    prime_bits: Vec<f64>,
    /// The key-switching term `ks` of the module docs.
    key_switch: f64,
    /// The ring's expansion `r` (module docs).
    ring: f64,
}

/// `log2(2^a + 2^b)` without overflow.
pub(crate) fn add_bits(a: f64, b: f64) -> f64 {
    let (high, low) = if a >= b { (a, b) } else { (b, a) };
    high + (1.0 + (low - high).exp2()).log2()
}

impl NoiseModel {
    pub(crate) fn new(params: &BgvParameters) -> Self {
        let n = (params.degree() as f64).log2();
        let log_t = (params.plaintext_modulus() as f64).log2();
        let prime_bits: Vec<f64> = params.ciphertext_moduli().iter().map(|&q| (q as f64).log2()).collect();
        let special: f64 = params.special_moduli().iter().map(|&p| (p as f64).log2()).sum();
        let tables = params.core().key_switch_tables();
        let digits = tables.num_digits().max(1);
        let widest = (0..digits)
            .filter_map(|d| tables.digit_range(d).ok())
            .map(|range| prime_bits.get(range).map_or(0.0, |bits| bits.iter().sum::<f64>()))
            .fold(0.0, f64::max);
        let ring = match params.ring_kind() {
            poly::RingKind::Cyclotomic { m } => reduction_expansion_bits(m),
            _ => 0.0,
        };
        let key_switch = log_t + n / 2.0 + 2.5 + (digits as f64).log2() / 2.0 + (widest - special) + ring;
        Self { n, log_t, prime_bits, key_switch, ring }
    }

    /// A fresh encryption.
    pub(crate) fn fresh(&self) -> f64 {
        self.log_t + self.n / 2.0 + 5.0 + self.ring
    }

    /// What a modulus switch leaves at least.
    pub(crate) fn floor(&self) -> f64 {
        self.log_t + self.n / 2.0 + 2.0 + self.ring
    }

    /// `log2 q_0 .. q_level`.
    pub(crate) fn modulus_bits(&self, level: usize) -> f64 {
        self.prime_bits.iter().take(level + 1).sum()
    }

    /// A plaintext added to a ciphertext of noise `a`.
    pub(crate) fn add_plain(&self, a: f64) -> f64 {
        add_bits(a, self.log_t - 1.0)
    }

    /// A ciphertext of noise `a` times the integer `k` (centered, nonzero).
    pub(crate) fn times_integer(a: f64, k: u64) -> f64 {
        a + (k.max(1) as f64).log2()
    }

    /// A ciphertext of noise `a` times a plaintext of Euclidean norm `2^norm_bits`.
    pub(crate) fn times_plaintext(&self, a: f64, norm_bits: f64) -> f64 {
        a + norm_bits + 2.0 + self.ring
    }

    /// The tensor product of ciphertexts of noises `a` and `b`.
    pub(crate) fn product(&self, a: f64, b: f64) -> f64 {
        a + b + self.n / 2.0 - 2.0 + self.ring
    }

    /// A switch from `level` down one level.
    pub(crate) fn switched_from(&self, a: f64, level: usize) -> f64 {
        let bits = self.prime_bits.get(level).copied().unwrap_or(0.0);
        add_bits(a - bits, self.floor())
    }

    /// A key switch (relinearization, rotation) of a ciphertext of noise `a`.
    pub(crate) fn key_switched(&self, a: f64) -> f64 {
        add_bits(add_bits(a, self.floor()), self.key_switch)
    }

    /// Whether a phase of `noise` bits decrypts at `level`: below `q_l / 2` with one bit to
    /// spare.
    pub(crate) fn decrypts(&self, noise: f64, level: usize) -> bool {
        noise < self.modulus_bits(level) - 2.0
    }

    /// The estimate of a ciphertext loaded from bytes (module docs).
    pub(crate) fn loaded(&self, product: bool) -> f64 {
        if product { self.key_switched(self.product(self.floor(), self.floor())) } else { self.fresh() }
    }
}

/// `log2 E_m` of the module docs (0 where `Phi_m` cannot be formed). `O((m - phi) phi)`: one
/// multiply-add pass over `phi` words per power `x^k`.
fn reduction_expansion_bits(m: usize) -> f64 {
    let Ok(phi_m) = poly::cyclotomic::cyclotomic_polynomial(m as u64) else { return 0.0 };
    let phi = phi_m.len().saturating_sub(1);
    if phi == 0 || m <= phi {
        return 0.0;
    }
    // x^phi = -(Phi_m - x^phi) modulo Phi_m; then x^(k+1) = x x^k, the top word folded back.
    let lower: Vec<f64> = phi_m[..phi].iter().map(|&c| c as f64).collect();
    let mut power: Vec<f64> = lower.iter().map(|c| -c).collect();
    let mut columns = vec![0.0f64; phi];
    for k in phi..m {
        for (column, value) in columns.iter_mut().zip(&power) {
            *column += value * value;
        }
        if k + 1 < m {
            let top = power[phi - 1];
            power.copy_within(0..phi - 1, 1);
            power[0] = 0.0;
            for (value, c) in power.iter_mut().zip(&lower) {
                *value -= top * c;
            }
        }
    }
    (1.0 + columns.iter().copied().fold(0.0, f64::max)).log2() / 2.0
}

/// `log2` of the Euclidean norm of `coefficients` taken centered modulo `t` (at least 0).
pub(crate) fn centered_norm_bits(coefficients: &[u64], t: u64) -> f64 {
    let sum: f64 = coefficients
        .iter()
        .map(|&c| {
            let centered = if c > t / 2 { (t - c) as f64 } else { c as f64 };
            centered * centered
        })
        .sum();
    (sum.max(1.0)).log2() / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_bits_is_the_log_of_the_sum() {
        for (a, b) in [(0.0f64, 0.0f64), (10.0, 3.0), (3.0, 10.0), (500.0, 499.0), (1000.0, -5.0)] {
            let exact = if a < 900.0 { (a.exp2() + b.exp2()).log2() } else { a };
            assert!((add_bits(a, b) - exact).abs() < 1e-9, "{a} {b}");
        }
        assert_eq!(centered_norm_bits(&[0, 0], 17), 0.0);
        // (3, -4) modulo 17: norm 5.
        assert!((centered_norm_bits(&[3, 13], 17) - 5f64.log2()).abs() < 1e-12);
    }

    /// `E_m` against the reduction written out with big integers: `x^k mod Phi_m` by long
    /// division for each `k < m`. Prime `m` (`Phi_m = 1 + x + .. + x^(m-1)`, `phi = m - 1`):
    /// `x^(m-1) = -(1 + .. + x^(m-2))`, so every column has weight 1 and `E_m^2 = 2`.
    #[test]
    fn reduction_expansion_is_the_column_weight() {
        assert!((reduction_expansion_bits(7) - 0.5).abs() < 1e-12);
        for m in [15usize, 21, 105, 255] {
            let phi_m = poly::cyclotomic::cyclotomic_polynomial(m as u64).unwrap();
            let phi = phi_m.len() - 1;
            let mut columns = vec![0i128; phi];
            for k in phi..m {
                // x^k by long division over the integers (Phi_m is monic).
                let mut r = vec![0i128; k + 1];
                r[k] = 1;
                for top in (phi..=k).rev() {
                    let c = r[top];
                    for (i, &p) in phi_m.iter().enumerate() {
                        r[top - phi + i] -= c * i128::from(p);
                    }
                }
                for (column, value) in columns.iter_mut().zip(&r[..phi]) {
                    *column += value * value;
                }
            }
            let want = ((1 + columns.into_iter().max().unwrap()) as f64).log2() / 2.0;
            assert!((reduction_expansion_bits(m) - want).abs() < 1e-9, "m = {m}");
        }
    }
}
