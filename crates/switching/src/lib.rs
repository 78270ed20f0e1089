//! Scheme switching between BFV and BGV under one secret key (Kim, Polyakov and Zucca,
//! "Revisiting homomorphic encryption schemes for finite fields", ASIACRYPT 2021): the two
//! schemes differ by a scaling of the message, so a ciphertext of one is a ciphertext of the
//! other after a multiplication by a constant modulo `q_l`. Both directions run on the backend
//! (one scalar multiplication per polynomial) at any level, for ciphertexts of any size.
//!
//! - **BFV to BGV**: a BFV phase `(q_l/t) m + v` (any `v` with `|v| < q_l / (2t)`, which is
//!   what correct BFV decryption needs) times `t` is `q_l m + t v = t v mod q_l`, and
//!   `t v = -q_l m mod t`: a BGV ciphertext with correction factor `[-q_l]_t` and noise `t v`.
//! - **BGV to BFV**: a BGV phase `f m + t e` times `t^{-1} mod q_l` decrypts in BFV to
//!   `[-q_l^{-1} f m]_t`; multiplying first by the integer `g = [-q_l f^{-1}]_t` (centered)
//!   makes that `m`. The noise grows by `|g| <= t/2`, and not at all when `f = [-q_l]_t` (a
//!   ciphertext that came from BFV at this level).
//!
//! The BFV and BGV parameters must share the ring (degree, primes, transform) and `t`.

//!
//! The switch is a method of the BGV context through [`SchemeSwitching`]:
//!
//! ```
//! use bfv::BfvContext;
//! use bgv_encrypt::{BatchEncoder, BgvContext, BgvParametersBuilder};
//! use poly::CpuBackend;
//! use scheme_switching::SchemeSwitching;
//!
//! # fn main() -> Result<(), rlwe::RlweError> {
//! let bgv_params = BgvParametersBuilder::new(8192)
//!     .ciphertext_moduli_bits(&[50, 50, 50])
//!     .special_moduli_bits(&[55])
//!     .plaintext_modulus(65537)
//!     .build()?;
//! let bfv_params = bfv::BfvParametersBuilder::new(8192)
//!     .ciphertext_moduli(bgv_params.ciphertext_moduli())
//!     .special_moduli(bgv_params.special_moduli())
//!     .plaintext_modulus(65537)
//!     .build()?;
//! let bgv = BgvContext::new(CpuBackend, &bgv_params)?;
//! let bfv = BfvContext::new(CpuBackend, &bfv_params)?;
//! let secret = bgv.generate_secret_key()?;
//! let public = bgv.generate_public_key(&secret)?;
//! let encoder = BatchEncoder::new(&bgv_params)?;
//! let x = bgv.encrypt(&encoder.encode(&[1, 2, 3])?, &public)?;
//! let in_bfv = bgv.to_bfv(&bfv, &x)?;
//! let back = bgv.from_bfv(&bfv, &in_bfv)?;
//! assert_eq!(&encoder.decode(&bgv.decrypt(&back, &secret)?)?[..3], &[1, 2, 3]);
//! # Ok(())
//! # }
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

use bfv::{BfvBackend, BfvContext};
use bgv_encrypt::{BgvBackend, BgvContext, Ciphertext};
use rlwe::{BackendResult, Result, RlweError};

/// Switching between the BGV context it is implemented for and a BFV context of the same ring
/// and plaintext modulus (module docs).
pub trait SchemeSwitching<B: BfvBackend + BgvBackend> {
    /// The BGV ciphertext of the plaintext of the BFV ciphertext `ciphertext` (of `bfv`, at any
    /// level and size), under the same secret key. Errors with
    /// [`RlweError::ParameterMismatch`] for another ring or `t`.
    // `from` names the scheme the ciphertext comes from; the context does the work.
    #[allow(clippy::wrong_self_convention)]
    fn from_bfv(&self, bfv: &BfvContext<B>, ciphertext: &bfv::Ciphertext<B>) -> Result<Ciphertext<B>>;

    /// The BFV ciphertext (of `bfv`) of the plaintext of `ciphertext`, under the same secret key:
    /// every polynomial times `g t^{-1} mod q_i`. Errors with [`RlweError::ParameterMismatch`]
    /// for another ring or `t`.
    fn to_bfv(&self, bfv: &BfvContext<B>, ciphertext: &Ciphertext<B>) -> Result<bfv::Ciphertext<B>>;
}

/// Errors with [`RlweError::ParameterMismatch`] unless `bfv` shares `bgv`'s ring and plaintext
/// modulus.
fn check_twins<B: BfvBackend + BgvBackend>(bgv: &BgvContext<B>, bfv: &BfvContext<B>) -> Result<()> {
    bgv.core().check(bfv.params().core(), "BFV context (ring)")?;
    if bfv.params().plaintext_modulus() != bgv.params().plaintext_modulus() {
        return Err(RlweError::ParameterMismatch { what: "BFV context", field: "plaintext modulus" });
    }
    Ok(())
}

/// `[-q_l]_t`, the correction factor of a ciphertext switched from BFV at level `l`.
fn bfv_correction<B: BgvBackend>(bgv: &BgvContext<B>, level: usize) -> Result<u64> {
    let t = bgv.params().plaintext_modulus();
    let q_mod_t = rns::RnsBase::new(&bgv.params().ciphertext_moduli()[..=level])?.product_mod(t);
    Ok((t - q_mod_t) % t)
}

impl<B: BfvBackend + BgvBackend> SchemeSwitching<B> for BgvContext<B> {
    fn from_bfv(&self, bfv: &BfvContext<B>, ciphertext: &bfv::Ciphertext<B>) -> Result<Ciphertext<B>> {
        check_twins(self, bfv)?;
        if ciphertext.params() != bfv.params() {
            let field = rlwe::SchemeParameters::difference(&**bfv.params(), ciphertext.params());
            return Err(RlweError::ParameterMismatch { what: "BFV ciphertext", field });
        }
        let t = self.params().plaintext_modulus();
        let backend = self.backend();
        let polys = ciphertext
            .polys()
            .iter()
            .map(|p| backend.forward(backend.scalar_mul(p, t).be()?).be())
            .collect::<Result<Vec<_>>>()?;
        let level = ciphertext.level();
        self.ciphertext_from_polys(polys, level, bfv_correction(self, level)?, ciphertext.key_set())
    }

    fn to_bfv(&self, bfv: &BfvContext<B>, ciphertext: &Ciphertext<B>) -> Result<bfv::Ciphertext<B>> {
        check_twins(self, bfv)?;
        let t = self.params().plaintext_modulus();
        let level = ciphertext.level();
        let target = bfv_correction(self, level)?;
        let correction = ciphertext.state().correction_factor();
        let inverse = modarith::inverse_mod(correction, t).ok_or(RlweError::InvalidParameter {
            name: "correction factor",
            value: correction,
            requirement: "must be invertible modulo t".to_string(),
        })?;
        let g = (u128::from(target) * u128::from(inverse) % u128::from(t)) as u64;
        // g centered, times t^{-1}, modulo each prime of the level.
        let primes = &self.params().ciphertext_moduli()[..=level];
        let mut scalars = Vec::with_capacity(primes.len());
        for &p in primes {
            let m = modarith::Modulus::new(p)?;
            let t_inv = m.inv(m.reduce(t))?;
            let g_mod = if g > t / 2 { m.neg(m.reduce(t - g)) } else { m.reduce(g) };
            scalars.push(m.mul(g_mod, t_inv));
        }
        let mut polys = self.coefficients(ciphertext)?;
        for coefficients in &mut polys {
            self.backend().scalar_mul_per_limb_assign(coefficients, &scalars).be()?;
        }
        Ok(bfv.ciphertext_from_polys(polys, level)?.with_key_set(ciphertext.key_set()))
    }
}
