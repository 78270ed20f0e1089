//! [`RlweError`]: the errors of the scheme core.

use modarith::ModArithError;
use poly::PolyError;
use rns::RnsError;
use thiserror::Error;

/// Errors of the scheme core. Inputs are never changed when an operation errors.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RlweError {
    /// An error of the polynomial layer (sizes, rings, sampling).
    #[error(transparent)]
    Poly(#[from] PolyError),
    /// An error of the RNS layer.
    #[error(transparent)]
    Rns(#[from] RnsError),
    /// An error of the scalar arithmetic.
    #[error(transparent)]
    Arith(#[from] ModArithError),
    /// An error of the backend (device errors on the GPU).
    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A parameter outside its bounds.
    #[error("invalid parameter {name} = {value}: {requirement}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: u64,
        /// What it must satisfy.
        requirement: String,
    },
    /// `log2(Q * P)` beyond the 128-bit table without the explicit opt-out.
    #[error(
        "log2(Q*P) = {modulus_bits} bits exceeds the {max_bits} bits that 128-bit classical security allows at \
         N = {degree} (HE Standard, ternary secret); call allow_insecure() to opt out"
    )]
    Insecure {
        /// The ring degree.
        degree: usize,
        /// `log2(Q * P)`.
        modulus_bits: u64,
        /// The table's bound at this degree (0 outside the table).
        max_bits: u64,
    },
    /// Two objects of different key sets (a ciphertext and a relinearization key of another
    /// secret key, ...): see [`crate::KeySetId`].
    #[error("{what} belongs to key set {actual:016x}, the operation's other operand to key set {expected:016x}")]
    KeySetMismatch {
        /// The operand that does not match.
        what: &'static str,
        /// The key set of the other operand.
        expected: u64,
        /// The key set of `what`.
        actual: u64,
    },
    /// A key or ciphertext of other parameters.
    #[error("{what} belongs to different parameters")]
    ParameterMismatch {
        /// What was checked.
        what: &'static str,
    },
    /// Bytes that are not an encoding of the expected kind (bad magic, version or kind,
    /// truncated, trailing bytes, counts the input cannot hold).
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// What was decoded.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A Galois element that is even or not below `2N`.
    #[error("invalid Galois element {element}: it must be odd and below 2N = {two_n}")]
    InvalidGaloisElement {
        /// The element.
        element: u64,
        /// `2N`.
        two_n: u64,
    },
}

impl RlweError {
    /// Wraps a backend's error; a [`PolyError`] (the CPU backend's) stays one.
    pub fn from_backend<E: std::error::Error + Send + Sync + 'static>(error: E) -> Self {
        let boxed: Box<dyn std::error::Error + Send + Sync + 'static> = Box::new(error);
        match boxed.downcast::<PolyError>() {
            Ok(poly) => RlweError::Poly(*poly),
            Err(other) => match other.downcast::<RlweError>() {
                Ok(rlwe) => *rlwe,
                Err(other) => RlweError::Backend(other),
            },
        }
    }
}

/// Converts a backend's error into [`RlweError`].
pub(crate) trait BackendResult<T> {
    fn be(self) -> Result<T, RlweError>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> BackendResult<T> for Result<T, E> {
    fn be(self) -> Result<T, RlweError> {
        self.map_err(RlweError::from_backend)
    }
}
