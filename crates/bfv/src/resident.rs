//! [`ResidentPlaintext`]: a plaintext whose coefficients stay where the backend keeps its
//! data (device memory on the GPU), so that decryption, encryption and plaintext operations
//! need not cross the bus: [`BfvContext::decrypt_resident`] leaves its output there; encryption
//! and the plaintext operations take either kind of plaintext ([`PlaintextOperand`]) and scale
//! or lift a resident one where it is; only [`ResidentPlaintext::to_plaintext`] (before
//! decoding) and [`BfvContext::upload_plaintext`] (after encoding) move the `N` words, or,
//! with the batch encoder's transform on the backend
//! ([`BatchEncoder::encode_resident`](crate::BatchEncoder::encode_resident),
//! [`decode_resident`](crate::BatchEncoder::decode_resident)), the slot values themselves.

use std::sync::Arc;

use poly::{Coeff, Eval};

use rlwe::{PlaintextEmbedding, PlaintextWords};

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext, Ciphertext, SecretKey};
use crate::{BfvParameters, Plaintext, Result};

mod sealed {
    /// Only this crate's plaintext types are operands.
    pub trait Sealed {}
}

/// A plaintext that encryption and the plaintext operations
/// ([`add_plain`](BfvContext::add_plain), [`sub_plain`](BfvContext::sub_plain),
/// [`mul_plain`](BfvContext::mul_plain)) accept: a host [`Plaintext`] (its `N` words are
/// uploaded by each operation) or a [`ResidentPlaintext`] (already on the backend: nothing
/// crosses the bus). Both give the same ciphertexts, bit for bit. Sealed.
pub trait PlaintextOperand<B: BfvBackend>: sealed::Sealed {
    /// The parameters the plaintext belongs to.
    fn params(&self) -> &Arc<BfvParameters>;

    /// `round(q m / t)` over `q` on `context`'s backend, coefficient representation (SEAL's
    /// precise scaling, [`rlwe::PlaintextScaling::scale_host`]).
    /// Errors with [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a
    /// plaintext of other parameters.
    fn scaled_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Coeff>>;

    /// `m` lifted to `(-t/2, t/2]` over `q` on `context`'s backend, evaluation representation
    /// (the operand of a plaintext multiplication). Errors as [`scaled_on`](Self::scaled_on).
    fn lifted_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Eval>>;
}

impl sealed::Sealed for Plaintext {}

impl<B: BfvBackend> PlaintextOperand<B> for Plaintext {
    fn params(&self) -> &Arc<BfvParameters> {
        Plaintext::params(self)
    }

    fn scaled_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Coeff>> {
        context.check(Plaintext::params(self), "plaintext")?;
        context.embed(level, PlaintextEmbedding::Scaled, PlaintextWords::Host(self.coefficients()))
    }

    fn lifted_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Eval>> {
        context.check(Plaintext::params(self), "plaintext")?;
        let lifted = context.embed(level, PlaintextEmbedding::Lifted, PlaintextWords::Host(self.coefficients()))?;
        context.backend.forward(lifted).be()
    }
}

impl<B: BfvBackend> sealed::Sealed for ResidentPlaintext<B> {}

impl<B: BfvBackend> PlaintextOperand<B> for ResidentPlaintext<B> {
    fn params(&self) -> &Arc<BfvParameters> {
        ResidentPlaintext::params(self)
    }

    fn scaled_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Coeff>> {
        context.check(ResidentPlaintext::params(self), "plaintext")?;
        context.embed(level, PlaintextEmbedding::Scaled, PlaintextWords::Resident(self.words()))
    }

    fn lifted_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Eval>> {
        context.check(ResidentPlaintext::params(self), "plaintext")?;
        let lifted = context.embed(level, PlaintextEmbedding::Lifted, PlaintextWords::Resident(self.words()))?;
        context.backend.forward(lifted).be()
    }
}

/// A plaintext of `N` coefficients in `[0, t)` held by a backend (the core's
/// [`rlwe::ResidentPlaintext`]): a host vector on the CPU, a device buffer on the GPU. Made
/// only from a checked [`Plaintext`] ([`BfvContext::upload_plaintext`]) or by decryption
/// ([`BfvContext::decrypt_resident`], whose output the backends reduce modulo `t`), so its
/// words are always in range.
pub type ResidentPlaintext<B> = rlwe::ResidentPlaintext<BfvParameters, B>;

impl<B: BfvBackend> BfvContext<B> {
    /// `plaintext` copied to the backend. Errors with
    /// [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a plaintext of
    /// other parameters.
    pub fn upload_plaintext(&self, plaintext: &Plaintext) -> Result<ResidentPlaintext<B>> {
        self.check(plaintext.params(), "plaintext")?;
        ResidentPlaintext::upload(&self.backend, plaintext)
    }

    /// [`decrypt`](Self::decrypt) with the plaintext left on the backend: on the GPU the work
    /// is queued and nothing waits; the words stay in device memory until
    /// [`ResidentPlaintext::to_plaintext`]. The same coefficients as `decrypt`; the same errors.
    pub fn decrypt_resident(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<ResidentPlaintext<B>> {
        let s = self.decryption_secret(ciphertext, secret)?;
        let (tables, prepared) = self.decryption_tables(ciphertext.level())?;
        let (c0, value) = self.phase_parts(ciphertext, s.poly())?;
        let words = self.backend.decrypt_scale_sum_resident(tables, prepared, c0, value, s.poly())?;
        Ok(self.resident(words))
    }

    pub(crate) fn resident(&self, words: B::PlainWords) -> ResidentPlaintext<B> {
        ResidentPlaintext::from_reduced_words(&self.params, &self.backend, words)
    }
}

/// A plaintext lifted and transformed once at the top level, where the backend computes (on
/// the device for the GPU), for many products with ciphertexts
/// ([`BfvContext::prepare_plain`]; a linear map's diagonals); its words stay resident for
/// additions. An operand like the others: the same ciphertexts, bit for bit.
#[derive(Debug, Clone)]
pub struct PreparedPlaintext<B: BfvBackend> {
    resident: ResidentPlaintext<B>,
    lifted: B::Poly<Eval>,
    level: usize,
}

impl<B: BfvBackend> PreparedPlaintext<B> {
    /// The parameters it was prepared under.
    pub fn params(&self) -> &Arc<BfvParameters> {
        self.resident.params()
    }
}

impl<B: BfvBackend> sealed::Sealed for PreparedPlaintext<B> {}

impl<B: BfvBackend> PlaintextOperand<B> for PreparedPlaintext<B> {
    fn params(&self) -> &Arc<BfvParameters> {
        self.resident.params()
    }

    fn scaled_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Coeff>> {
        self.resident.scaled_on(context, level)
    }

    fn lifted_on(&self, context: &BfvContext<B>, level: usize) -> Result<B::Poly<Eval>> {
        context.check(self.resident.params(), "prepared plaintext")?;
        if level == self.level {
            return Ok(self.lifted.clone());
        }
        context.backend.drop_limbs(&self.lifted, context.core().context_at_level(level)?)
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// `plaintext` on the backend, lifted and transformed at the top level once
    /// ([`PreparedPlaintext`]). Errors with
    /// [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a plaintext of
    /// other parameters.
    pub fn prepare_plain(&self, plaintext: &Plaintext) -> Result<PreparedPlaintext<B>> {
        let resident = self.upload_plaintext(plaintext)?;
        let level = self.top_level();
        let lifted = resident.lifted_on(self, level)?;
        Ok(PreparedPlaintext { resident, lifted, level })
    }
}
