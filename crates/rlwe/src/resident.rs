//! [`ResidentPlaintext`]: a plaintext whose `N` coefficients stay where the backend keeps its
//! data (device memory on the GPU), so that decryption, encryption and plaintext operations
//! need not cross the bus; and the batch encoder's transform on a scheme context's backend
//! ([`BatchEncoder::encode_resident`], [`BatchEncoder::decode_resident`]), for a context
//! that prepares the plaintext ring there ([`BatchingContext`]).

use core::fmt;
use std::sync::Arc;

use poly::{Backend as _, Eval, Poly};

use crate::encoding::{BatchEncoder, Plaintext, refused};
use crate::error::BackendResult;
use crate::scheme::{SchemeContext, SchemeParameters};
use crate::{PlaintextBackend, Result, RlweError};

/// A plaintext of `N` coefficients in `[0, t)` held by a backend: a host vector on the CPU,
/// a device buffer on the GPU. Made from a checked [`Plaintext`] or by a decryption (whose
/// output the backends reduce modulo `t`), so its words are always in range.
pub struct ResidentPlaintext<P: SchemeParameters, B: PlaintextBackend> {
    params: Arc<P>,
    backend: B,
    words: B::PlainWords,
}

impl<P: SchemeParameters, B: PlaintextBackend> fmt::Debug for ResidentPlaintext<P, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResidentPlaintext")
            .field("backend", &self.backend.name())
            .field("degree", &self.params.degree())
            .field("plaintext_modulus", &self.params.plaintext_modulus())
            .finish()
    }
}

/// A copy in new storage (on a device: as [`poly::Backend::Poly`]'s clone, which fails only
/// as an allocation does).
impl<P: SchemeParameters, B: PlaintextBackend> Clone for ResidentPlaintext<P, B> {
    fn clone(&self) -> Self {
        Self { params: Arc::clone(&self.params), backend: self.backend.clone(), words: self.words.clone() }
    }
}

impl<P: SchemeParameters, B: PlaintextBackend> ResidentPlaintext<P, B> {
    /// The plaintext of `words` on `backend`, which the caller guarantees are `N` values in
    /// `[0, t)`: a checked plaintext's coefficients uploaded, or a decryption's output.
    pub fn from_reduced_words(params: &Arc<P>, backend: &B, words: B::PlainWords) -> Self {
        Self { params: Arc::clone(params), backend: backend.clone(), words }
    }

    /// `plaintext` copied to `backend`.
    pub fn upload(backend: &B, plaintext: &Plaintext<P>) -> Result<Self> {
        let words = backend.upload_plain_words(plaintext.coefficients())?;
        Ok(Self::from_reduced_words(plaintext.params(), backend, words))
    }

    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<P> {
        &self.params
    }

    /// The words on the backend.
    pub fn words(&self) -> &B::PlainWords {
        &self.words
    }

    /// The plaintext on the host (for a decoder), after the work queued before it has
    /// finished: the `N` words cross the bus here. Errors if the backend fails, or (never for
    /// a decryption's output) with [`RlweError::TooManyValues`] for more than `N` words.
    pub fn to_plaintext(&self) -> Result<Plaintext<P>> {
        let words = self.backend.download_plain_words(&self.words)?;
        Plaintext::from_reduced_coefficients(&self.params, words)
    }
}

/// A scheme context that prepares the plaintext ring `Z_t[x]` (one prime, NTT) on its backend
/// when `t` allows batching, so that a [`BatchEncoder`] can run its transform there.
pub trait BatchingContext: SchemeContext<Backend: PlaintextBackend> {
    /// The backend context of the plaintext ring; `None` when `t` does not allow batching.
    fn plaintext_ring(&self) -> Option<&<Self::Backend as poly::Backend>::Context>;
}

impl<P: SchemeParameters> BatchEncoder<P> {
    /// [`encode`](Self::encode) with the transform on `context`'s backend: the same plaintext,
    /// left there (on the GPU the `N` slot values are the only words that cross the bus).
    /// Errors as `encode`, and with [`RlweError::ParameterMismatch`] for a context of other
    /// parameters.
    pub fn encode_resident<C: BatchingContext<Params = P>>(
        &self,
        context: &C,
        values: &[u64],
    ) -> Result<ResidentPlaintext<P, C::Backend>> {
        let ring_t = self.plaintext_ring(context)?;
        let evaluations = self.slots.evaluations(values).map_err(|e| refused(e, "batch slots"))?;
        let backend = context.core().backend();
        let host = Poly::<Eval>::from_limbs(backend.ring(ring_t), evaluations)?;
        let coefficients = backend.inverse(backend.upload(ring_t, &host).be()?).be()?;
        let words = backend.plain_words_from_poly(coefficients)?;
        Ok(ResidentPlaintext::from_reduced_words(context.params(), backend, words))
    }

    /// [`decode`](Self::decode) with the transform on `context`'s backend (on the GPU the `N`
    /// slot values are the only words that cross the bus). Errors with
    /// [`RlweError::ParameterMismatch`] for a plaintext or context of other parameters.
    pub fn decode_resident<C: BatchingContext<Params = P>>(
        &self,
        context: &C,
        plaintext: &ResidentPlaintext<P, C::Backend>,
    ) -> Result<Vec<u64>> {
        let ring_t = self.plaintext_ring(context)?;
        context.check_params(plaintext.params(), "plaintext")?;
        let backend = context.core().backend();
        let coefficients = backend.poly_from_plain_words(ring_t, plaintext.words())?;
        let evaluations = backend.download(&backend.forward(coefficients).be()?).be()?;
        let evaluations = evaluations.as_slice();
        let positions = self.slots.positions().ok_or(RlweError::BatchingUnsupported {
            plaintext_modulus: self.params.plaintext_modulus(),
            degree: self.params.degree(),
        })?;
        Ok(positions.iter().map(|&position| evaluations[position]).collect())
    }

    /// `context`'s plaintext ring, after checking that `context` has this encoder's parameters.
    fn plaintext_ring<'a, C: BatchingContext<Params = P>>(
        &self,
        context: &'a C,
    ) -> Result<&'a <C::Backend as poly::Backend>::Context> {
        context.check_params(&self.params, "batch encoder")?;
        context.plaintext_ring().ok_or(RlweError::BatchingUnsupported {
            plaintext_modulus: self.params.plaintext_modulus(),
            degree: self.params.degree(),
        })
    }
}
