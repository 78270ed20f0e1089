//! [`PreparedPlaintext`]: a plaintext lifted and transformed once, kept where the backend
//! computes, for many products with ciphertexts (`BgvContext::prepare_plain`,
//! `mul_plain_prepared`): the diagonals of a linear map are multiplied at every application.

use std::sync::Arc;

use poly::Eval;

use crate::BgvParameters;
use crate::backend::BgvBackend;
use crate::noise::centered_norm_bits;

/// What the noise estimate and automatic switching read of a plaintext factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlaintextShape {
    /// Not a constant: the product counts as a product (`mul_plain`'s docs).
    pub(crate) general: bool,
    /// `log2` of the centered plaintext's norm.
    pub(crate) norm_bits: f64,
    /// The constant coefficient, below `t`.
    pub(crate) constant: u64,
}

impl PlaintextShape {
    /// The shape of the plaintext of `coefficients` (below `t`).
    pub(crate) fn of(coefficients: &[u64], t: u64) -> Self {
        Self {
            general: coefficients.iter().skip(1).any(|&c| c != 0),
            norm_bits: centered_norm_bits(coefficients, t),
            constant: coefficients.first().copied().unwrap_or(0) % t,
        }
    }
}

/// A plaintext's centered lift at the top level in the evaluation representation, on the
/// backend (a device buffer on the GPU), with what the noise estimate needs of it.
#[derive(Debug, Clone)]
pub struct PreparedPlaintext<B: BgvBackend> {
    pub(crate) params: Arc<BgvParameters>,
    pub(crate) message: B::Poly<Eval>,
    pub(crate) level: usize,
    pub(crate) shape: PlaintextShape,
}

impl<B: BgvBackend> PreparedPlaintext<B> {
    /// The parameters it was prepared under.
    pub fn params(&self) -> &Arc<BgvParameters> {
        &self.params
    }
}
