//! [`ResidentPlaintext`]: a decrypted plaintext whose `N` coefficients stay where the backend
//! keeps its data (device memory on the GPU) until a decoder needs them on the host, so a
//! decryption need not wait for the device or cross the bus
//! ([`BgvContext::decrypt_resident`](crate::BgvContext::decrypt_resident)).

use core::fmt;
use std::sync::Arc;

use crate::backend::BgvBackend;
use crate::{BgvParameters, Plaintext, Result};

/// A plaintext of `N` coefficients in `[0, t)` held by a backend: a host vector on the CPU, a
/// device buffer on the GPU. Made by decryption, whose kernel reduces modulo `t`, so its
/// words are always in range.
pub struct ResidentPlaintext<B: BgvBackend> {
    params: Arc<BgvParameters>,
    backend: B,
    words: B::PlainWords,
}

impl<B: BgvBackend> fmt::Debug for ResidentPlaintext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResidentPlaintext")
            .field("backend", &self.backend.name())
            .field("degree", &self.params.degree())
            .field("plaintext_modulus", &self.params.plaintext_modulus())
            .finish()
    }
}

impl<B: BgvBackend> ResidentPlaintext<B> {
    pub(crate) fn new(params: &Arc<BgvParameters>, backend: &B, words: B::PlainWords) -> Self {
        Self { params: Arc::clone(params), backend: backend.clone(), words }
    }

    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<BgvParameters> {
        &self.params
    }

    /// The plaintext on the host (for a decoder), after the work queued before it has
    /// finished: the `N` words cross the bus here. Errors if the backend fails, or (never for
    /// a decryption's output) for a word count other than `N`.
    pub fn to_plaintext(&self) -> Result<Plaintext> {
        let words = self.backend.download_plain_words(&self.words)?;
        if words.len() != self.params.degree() {
            return Err(poly::PolyError::LengthMismatch { expected: self.params.degree(), actual: words.len() }.into());
        }
        Ok(Plaintext::from_reduced(&self.params, words))
    }
}
