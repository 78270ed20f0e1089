//! [`ResidentPlaintext`]: a plaintext whose coefficients stay where the backend keeps its
//! data (device memory on the GPU), so that decryption and encryption need not cross the bus:
//! [`BfvContext::decrypt_resident`] leaves its output there, [`BfvContext::encrypt_resident`]
//! scales it there, and only [`ResidentPlaintext::to_plaintext`] (before decoding) and
//! [`BfvContext::upload_plaintext`] (after encoding) move the `N` words.

use core::fmt;
use std::sync::Arc;

use poly::Seed;

use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, PublicKey, SecretKey};
use crate::{BfvParameters, Plaintext, Result};

/// A plaintext of `N` coefficients in `[0, t)` held by a backend: a host vector on the CPU,
/// a device buffer on the GPU. Made only from a checked [`Plaintext`]
/// ([`BfvContext::upload_plaintext`]) or by decryption ([`BfvContext::decrypt_resident`],
/// whose output the backends reduce modulo `t`), so its words are always in range.
pub struct ResidentPlaintext<B: BfvBackend> {
    params: Arc<BfvParameters>,
    backend: B,
    words: B::PlainWords,
}

impl<B: BfvBackend> fmt::Debug for ResidentPlaintext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResidentPlaintext")
            .field("backend", &self.backend.name())
            .field("degree", &self.params.degree())
            .field("plaintext_modulus", &self.params.plaintext_modulus())
            .finish()
    }
}

impl<B: BfvBackend> ResidentPlaintext<B> {
    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }

    /// The plaintext on the host (for a decoder), after the work queued before it has
    /// finished: the `N` words cross the bus here. Errors if the backend fails.
    pub fn to_plaintext(&self) -> Result<Plaintext> {
        let words = self.backend.download_plain_words(&self.words)?;
        Plaintext::from_reduced_coefficients(&self.params, words)
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// `plaintext` copied to the backend. Errors with
    /// [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a plaintext of
    /// other parameters.
    pub fn upload_plaintext(&self, plaintext: &Plaintext) -> Result<ResidentPlaintext<B>> {
        self.check(plaintext.params(), "plaintext")?;
        let words = self.backend.upload_plain_words(plaintext.coefficients())?;
        Ok(self.resident(words))
    }

    /// [`decrypt`](Self::decrypt) with the plaintext left on the backend: on the GPU the work
    /// is queued and nothing waits; the words stay in device memory until
    /// [`ResidentPlaintext::to_plaintext`]. The same coefficients as `decrypt`; the same errors.
    pub fn decrypt_resident(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<ResidentPlaintext<B>> {
        let (c0, value) = self.phase_parts(ciphertext, secret)?;
        let words =
            self.backend.decrypt_scale_sum_resident(self.params.multiplication_tables(), c0, value, &secret.s_q)?;
        Ok(self.resident(words))
    }

    /// Encrypts a resident plaintext under `public_key` with a fresh OS seed.
    pub fn encrypt_resident(
        &self,
        plaintext: &ResidentPlaintext<B>,
        public_key: &PublicKey<B>,
    ) -> Result<Ciphertext<B>> {
        self.encrypt_resident_with_seed(plaintext, public_key, &Seed::from_os()?)
    }

    /// [`encrypt_with_seed`](Self::encrypt_with_seed) of a resident plaintext, scaled where it
    /// is (on the GPU no plaintext word crosses the bus): the same ciphertext as
    /// `encrypt_with_seed` of the plaintext on the host, bit for bit; the same errors.
    pub fn encrypt_resident_with_seed(
        &self,
        plaintext: &ResidentPlaintext<B>,
        public_key: &PublicKey<B>,
        seed: &Seed,
    ) -> Result<Ciphertext<B>> {
        self.check(&plaintext.params, "plaintext")?;
        self.check(&public_key.params, "public key")?;
        let scaled = self.scaled_resident_plaintext(&plaintext.words)?;
        self.encrypt_scaled(scaled, public_key, seed)
    }

    fn resident(&self, words: B::PlainWords) -> ResidentPlaintext<B> {
        ResidentPlaintext { params: Arc::clone(&self.params), backend: self.backend.clone(), words }
    }
}
