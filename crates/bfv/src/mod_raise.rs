//! Bootstrapping's first step for BFV: a ciphertext of `t = p^r` becomes a ciphertext of the
//! plaintext space `p^e` (`e > r`) whose coefficients carry the message in their high digits
//! (Chen and Han, Eurocrypt 2018; Geelen and Vercauteren, J. Cryptology 2023: the switch to the
//! modulus `p^e` and the homomorphic inner product with an encryption of the secret; written
//! here from the algebra below).
//!
//! 1. Modulus switching to `q' = p^e` by rounding every word: `c' = round(c p^e / q)`. The
//!    phase `floor(q / t) m + e + q k` becomes `p^(e-r) m + e' + p^e k'` with `e'` about
//!    `(1 + |s|_1) / 2` (the rounding), as `p^e floor(q / t) / q` is `p^(e-r)` up to
//!    `p^e / q`.
//! 2. The inner product with the bootstrapping key, an encryption of `s` under the plaintext
//!    modulus `p^e` (the same secret): `c'_0 + c'_1 Enc(s)` (a plaintext product and a
//!    plaintext sum) encrypts `c'_0 + c'_1 s mod p^e = p^(e-r) m + e'` in the coefficients:
//!    the message in the `r` high digits, `e'` in the low `e - r`, which digit removal takes out
//!    once the coefficients are in slots.
//!
//! The switch runs on the host with exact integers, so every backend gives the same words.

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::context::BackendResult;
use crate::{BfvBackend, BfvContext, BfvError, Ciphertext, Plaintext, PublicKey, Result, SecretKey};

impl<B: BfvBackend> BfvContext<B> {
    /// The bootstrapping key of [`raise_for_bootstrapping`](Self::raise_for_bootstrapping): an
    /// encryption under this context (the target, plaintext modulus `p^e`) of the secret's
    /// coefficients (fresh OS randomness). Errors as [`encrypt`](Self::encrypt) for keys of
    /// another core.
    pub fn bootstrapping_key(&self, secret: &SecretKey<B>, public: &PublicKey<B>) -> Result<Ciphertext<B>> {
        self.encrypt(&self.secret_as_plaintext(secret)?, public)
    }

    /// [`bootstrapping_key`](Self::bootstrapping_key) from a seed (reproducible, for tests).
    pub fn bootstrapping_key_from_seed(
        &self,
        secret: &SecretKey<B>,
        public: &PublicKey<B>,
        seed: &poly::Seed,
    ) -> Result<Ciphertext<B>> {
        self.encrypt_with_seed(&self.secret_as_plaintext(secret)?, public, seed)
    }

    /// The secret's coefficients (small integers, centered modulo the first prime) as a
    /// plaintext of this context.
    fn secret_as_plaintext(&self, secret: &SecretKey<B>) -> Result<Plaintext> {
        self.core().check(secret.params(), "secret key")?;
        let backend = self.backend();
        let coefficients = backend.download(&rlwe::RlweBackend::inverse_copy(backend, secret.s_q())?).be()?;
        let q0 = coefficients.context().moduli()[0].value();
        let t = self.params().plaintext_modulus();
        let words: zeroize::Zeroizing<Vec<u64>> =
            zeroize::Zeroizing::new(coefficients.limbs().next().map_or_else(Vec::new, |limb| {
                limb.iter().map(|&v| if v > q0 / 2 { (t - (q0 - v) % t) % t } else { v % t }).collect()
            }));
        // The host copy of the secret is overwritten before it is dropped.
        drop(zeroize::Zeroizing::new(coefficients.into_vec()));
        Plaintext::from_coefficients(self.params(), &words)
    }

    /// `a` (plaintext modulus `t = p^r`) raised to `target` (plaintext modulus `p^e`, `e > r`,
    /// the same core) with `key` (`target`'s [`bootstrapping_key`](Self::bootstrapping_key)):
    /// its coefficients decrypt under `target` to `p^(e-r) m + d`, `m` the message and `d`
    /// about the secret's norm (module documentation). Errors with
    /// [`BfvError::ParameterMismatch`] for another core and [`BfvError::InvalidParameter`]
    /// unless both plaintext moduli are powers of `p`, the target's the larger, below the
    /// input's modulus; `a` is left as it is.
    pub fn raise_for_bootstrapping(
        &self,
        a: &Ciphertext<B>,
        target: &BfvContext<B>,
        key: &Ciphertext<B>,
        p: u64,
    ) -> Result<Ciphertext<B>> {
        let (t, t_target) = (self.params().plaintext_modulus(), target.params().plaintext_modulus());
        self.core().raise_multiplier(target.params().core(), t, t_target, p)?;
        let polys = self.download(a)?;
        let [c0, c1] = polys.as_slice() else {
            return Err(BfvError::InvalidCiphertextSize {
                operation: "raise_for_bootstrapping",
                expected: "2 (relinearized)",
                actual: polys.len(),
            });
        };
        let q = poly::reference::modulus_product(c0.context());
        if q <= BigUint::from(t_target) {
            return Err(BfvError::InvalidParameter {
                name: "target plaintext modulus",
                value: t_target,
                requirement: "p^e must be below the ciphertext's modulus".to_string(),
            });
        }
        let switch = |poly: &poly::Poly<poly::Coeff>| -> Result<Plaintext> {
            let words: Vec<u64> = poly::reference::crt_reconstruct(poly)?
                .iter()
                .map(|c| {
                    // round(c p^e / q) mod p^e.
                    let rounded: BigUint = (c * t_target * 2u32 + &q) / (&q * 2u32);
                    (rounded % t_target).to_u64().unwrap_or(0)
                })
                .collect();
            Plaintext::from_coefficients(target.params(), &words)
        };
        let (c0, c1) = (switch(c0)?, switch(c1)?);
        target.add_plain(&target.mul_plain(key, &c1)?, &c0)
    }
}
