//! What the shared code asks of a scheme (the small scheme traits): [`SchemeParameters`],
//! its parameters over the core's (the plaintext modulus, the tag its byte encodings carry),
//! and [`SchemeContext`], those parameters prepared on a backend over the core's context.
//! The plaintexts and encoders (encoding.rs), resident plaintexts (resident.rs), seeded
//! ciphertexts (seeded.rs) and the codec (codec.rs; serde in `serde_support`) are written
//! once over them.

use core::fmt::Debug;
use std::sync::Arc;

use crate::framing::{Frame, Scheme};
use crate::{Result, RlweBackend, RlweContext, RlweError, RlweParameters};

/// A scheme's validated parameters: the core's, a plaintext modulus `t` and the scheme's tag.
/// Equality is that of the defining values.
pub trait SchemeParameters: Eq + Debug + Send + Sync + 'static {
    /// The tag of the scheme's byte encodings.
    const SCHEME: Scheme;

    /// The representation the scheme keeps its ciphertexts' polynomials in (BFV:
    /// coefficients; BGV: evaluations).
    type Form: poly::Representation;

    /// What the scheme's ciphertexts carry beside their polynomials, level and key set
    /// ([`crate::Ciphertext::state`]; BGV: the correction factor; BFV: nothing).
    type CiphertextState: Clone + Debug + PartialEq + Send + Sync + 'static;

    /// The RLWE core's parameters.
    fn core(&self) -> &Arc<RlweParameters>;

    /// The plaintext modulus `t`.
    fn plaintext_modulus(&self) -> u64;

    /// The ring degree `N`.
    fn degree(&self) -> usize {
        self.core().degree()
    }

    /// The first defining value in which `other` differs (the core's, then `t`, then the
    /// scheme's own: a BFV override names its multiplication variant): what a
    /// [`RlweError::ParameterMismatch`] names. Meaningful only where the two are not equal.
    fn difference(&self, other: &Self) -> &'static str {
        match self.core().difference(other.core()) {
            Some(field) => field,
            None if self.plaintext_modulus() != other.plaintext_modulus() => "plaintext modulus",
            None => "scheme's settings",
        }
    }

    /// The framing of the scheme's objects under these parameters (the core's, with the
    /// scheme's tag and `t`).
    fn frame(&self) -> Frame<'_> {
        Frame { scheme: Self::SCHEME, params: self.core(), plaintext_modulus: self.plaintext_modulus() }
    }
}

/// Errors with [`RlweError::ParameterMismatch`] (naming `what`) unless `a` and `b` are the
/// same parameters or equal ones.
pub(crate) fn check_same<P: SchemeParameters>(a: &P, b: &P, what: &'static str) -> Result<()> {
    if core::ptr::eq(a, b) || a == b {
        Ok(())
    } else {
        Err(RlweError::ParameterMismatch { what, field: a.difference(b) })
    }
}

/// A scheme's parameters prepared on a backend, over the core's context: what the shared
/// code (codec, resident plaintexts, batch encoding on the backend) needs of it.
pub trait SchemeContext {
    /// The scheme's parameters.
    type Params: SchemeParameters;
    /// The backend.
    type Backend: RlweBackend;

    /// The parameters.
    fn params(&self) -> &Arc<Self::Params>;

    /// The core's context (keys, key switching, the rings).
    fn core(&self) -> &RlweContext<Self::Backend>;

    /// Errors with [`RlweError::ParameterMismatch`] (naming `what`) unless `other` are this
    /// context's parameters.
    fn check_params(&self, other: &Self::Params, what: &'static str) -> Result<()> {
        check_same(&**self.params(), other, what)
    }
}
