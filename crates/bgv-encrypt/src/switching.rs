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

use bfv::BfvContext;

use crate::backend::BgvBackend;
use crate::context::{BackendResult, BgvContext, Ciphertext, inverse_mod};
use crate::{BgvError, Result};

impl<B: BgvBackend> BgvContext<B> {
    /// Errors with [`BgvError::ParameterMismatch`] unless `bfv` shares this context's ring and
    /// plaintext modulus.
    fn check_bfv(&self, bfv: &BfvContext<B>) -> Result<()> {
        self.check_key(bfv.params().core(), "BFV context (ring)")?;
        if bfv.params().plaintext_modulus() != self.params.plaintext_modulus() {
            return Err(BgvError::ParameterMismatch { what: "BFV context (plaintext modulus)" });
        }
        Ok(())
    }

    /// `[-q_l]_t`, the correction factor of a ciphertext switched from BFV at level `l`.
    fn bfv_correction(&self, level: usize) -> Result<u64> {
        let t = self.params.plaintext_modulus();
        let q_mod_t = rns::RnsBase::new(&self.params.ciphertext_moduli()[..=level])?.product_mod(t);
        Ok((t - q_mod_t) % t)
    }

    /// The BGV ciphertext of the plaintext of the BFV ciphertext `ciphertext` (of `bfv`, at any
    /// level and size), under the same secret key (module docs). Errors with
    /// [`BgvError::ParameterMismatch`] for another ring or `t`.
    pub fn from_bfv(&self, bfv: &BfvContext<B>, ciphertext: &bfv::Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_bfv(bfv)?;
        if ciphertext.params() != bfv.params() {
            return Err(BgvError::ParameterMismatch { what: "BFV ciphertext" });
        }
        let t = self.params.plaintext_modulus();
        let polys = ciphertext
            .polys()
            .iter()
            .map(|p| self.backend.forward(self.backend.scalar_mul(p, t).be()?).be())
            .collect::<Result<Vec<_>>>()?;
        let level = ciphertext.level();
        Ok(self.ciphertext(polys, level, self.bfv_correction(level)?, ciphertext.key_set()))
    }

    /// The BFV ciphertext (of `bfv`) of the plaintext of `ciphertext`, under the same secret key
    /// (module docs): every polynomial times `g t^{-1} mod q_i`. Errors with
    /// [`BgvError::ParameterMismatch`] for another ring or `t`.
    pub fn to_bfv(&self, bfv: &BfvContext<B>, ciphertext: &Ciphertext<B>) -> Result<bfv::Ciphertext<B>> {
        self.check_bfv(bfv)?;
        self.check_ciphertext(ciphertext)?;
        let t = self.params.plaintext_modulus();
        let level = ciphertext.level;
        let target = self.bfv_correction(level)?;
        let inverse = inverse_mod(ciphertext.correction, t).ok_or(BgvError::InvalidParameter {
            name: "correction factor",
            value: ciphertext.correction,
            requirement: "must be invertible modulo t".to_string(),
        })?;
        let g = (u128::from(target) * u128::from(inverse) % u128::from(t)) as u64;
        // g centered, times t^{-1}, modulo each prime of the level.
        let primes = &self.params.ciphertext_moduli()[..=level];
        let mut scalars = Vec::with_capacity(primes.len());
        for &p in primes {
            let m = modarith::Modulus::new(p)?;
            let t_inv = m.inv(m.reduce(t))?;
            let g_mod = if g > t / 2 { m.neg(m.reduce(t - g)) } else { m.reduce(g) };
            scalars.push(m.mul(g_mod, t_inv));
        }
        let polys = ciphertext
            .polys
            .iter()
            .map(|p| {
                let mut coefficients = self.inverse_copy(p)?;
                self.backend.scalar_mul_per_limb_assign(&mut coefficients, &scalars).be()?;
                Ok(coefficients)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(bfv.ciphertext_from_polys(polys, level)?.with_key_set(ciphertext.key_set))
    }
}
