//! [`BgvError`]: every error of this crate, typed; inputs are left untouched when one is
//! returned.

use modarith::ModArithError;
use poly::PolyError;
use rns::RnsError;

/// Errors of the BGV scheme.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BgvError {
    #[error(transparent)]
    Poly(#[from] PolyError),

    #[error(transparent)]
    Rns(#[from] RnsError),

    #[error(transparent)]
    Arith(#[from] ModArithError),

    /// An error of the RLWE core (keys, key switching, framing).
    #[error(transparent)]
    Core(#[from] rlwe::RlweError),

    /// An error of the BFV side of a scheme switch or of a shared step.
    #[error(transparent)]
    Bfv(#[from] bfv::BfvError),

    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),

    #[error("invalid parameter {name} = {value}: {requirement}")]
    InvalidParameter { name: &'static str, value: u64, requirement: String },

    #[error("{what} belongs to different BGV parameters")]
    ParameterMismatch { what: &'static str },

    #[error("{operation} needs a ciphertext of {expected} polynomials, got {actual}")]
    InvalidCiphertextSize { operation: &'static str, expected: &'static str, actual: usize },

    /// Two ciphertexts at different levels under [`crate::LevelPolicy::Strict`], or a level
    /// that cannot be reached (switching up).
    #[error("{operation}: ciphertext at level {actual}, expected level {expected}")]
    LevelMismatch { operation: &'static str, expected: usize, actual: usize },

    #[error("{operation} needs the Galois key for element {element}, which the Galois keys do not hold")]
    MissingGaloisKey { operation: &'static str, element: u64 },

    #[error("plaintext value {value} at index {index} is not below the plaintext modulus {modulus}")]
    PlaintextOutOfRange { index: usize, value: u64, modulus: u64 },

    #[error("plaintext value {value} at index {index} is outside (-t/2, t/2] for t = {modulus}")]
    SignedPlaintextOutOfRange { index: usize, value: i64, modulus: u64 },

    #[error("{what}: at most {max} values fit, got {actual}")]
    TooManyValues { what: &'static str, max: usize, actual: usize },

    #[error("batching needs a prime plaintext modulus t = 1 mod 2N; t = {plaintext_modulus}, N = {degree}")]
    BatchingUnsupported { plaintext_modulus: u64, degree: usize },

    #[error("malformed {what}: {reason}")]
    Malformed { what: &'static str, reason: String },

    #[error(
        "noise budget exhausted: the noise has {noise_bits} bits of the {modulus_bits}-bit modulus; \
         decryption is no longer reliable"
    )]
    NoiseBudgetExhausted { noise_bits: u64, modulus_bits: u64 },
}

impl BgvError {
    /// Wraps a backend's error.
    pub fn from_backend(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        BgvError::Backend(Box::new(error))
    }
}

/// A device error (from a [`poly_cuda::DevicePool`], say) as a backend error.
#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for BgvError {
    fn from(error: poly_cuda::GpuError) -> Self {
        BgvError::from_backend(error)
    }
}
