use modarith::ModArithError;
use poly::PolyError;
use rns::RnsError;
use thiserror::Error;

/// Errors of the BFV layer. Each variant carries the offending values; an operation that
/// returns an error leaves its inputs untouched.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BfvError {
    /// An error of the polynomial layer.
    #[error(transparent)]
    Poly(#[from] PolyError),
    /// An error of the RNS layer.
    #[error(transparent)]
    Rns(#[from] RnsError),
    /// A modular-arithmetic error.
    #[error(transparent)]
    Arith(#[from] ModArithError),
    /// An error of the backend (a device fault, out of device memory, ...).
    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A parameter violates its bound.
    #[error("invalid parameter {name} = {value}: {requirement}")]
    InvalidParameter { name: &'static str, value: u64, requirement: String },
    /// The parameters exceed the HE Standard's 128-bit classical security bound.
    #[error(
        "log2(Q*P) = {modulus_bits} bits exceeds the {max_bits} bits that 128-bit classical security allows at \
         N = {degree} (HE Standard, ternary secret); call allow_insecure() to opt out"
    )]
    Insecure { degree: usize, modulus_bits: u64, max_bits: u64 },
    /// Operands (ciphertexts, keys, plaintexts) were made under different parameters.
    #[error("{what} belongs to different BFV parameters")]
    ParameterMismatch { what: &'static str },
    /// Operands of different key sets (a ciphertext and a relinearization or Galois key of
    /// another secret key, two ciphertexts under different keys): see [`rlwe::KeySetId`].
    #[error("{what} belongs to key set {actual:016x}, the operation's other operand to key set {expected:016x}")]
    KeySetMismatch { what: &'static str, expected: u64, actual: u64 },
    /// A ciphertext has the wrong number of polynomials for the operation.
    #[error("{operation} needs a ciphertext of {expected} polynomials, got {actual}")]
    InvalidCiphertextSize { operation: &'static str, expected: &'static str, actual: usize },
    /// A Galois element that is even or not below `2N`: it defines no automorphism of the
    /// ring (elements are taken as they are, not reduced modulo `2N`).
    /// An operation on a ciphertext at another level of the modulus chain than it needs (the
    /// top level, or that of the other operand).
    #[error("{operation} needs a ciphertext at level {expected}, got one at level {actual}")]
    LevelMismatch {
        /// The operation.
        operation: &'static str,
        /// The level it needs.
        expected: usize,
        /// The ciphertext's level.
        actual: usize,
    },
    #[error("invalid Galois element {element}: it must be odd and below 2N = {two_n}")]
    InvalidGaloisElement { element: u64, two_n: u64 },
    /// The Galois keys have no key for the element an operation needs.
    #[error("{operation} needs the Galois key for element {element}, which the Galois keys do not hold")]
    MissingGaloisKey { operation: &'static str, element: u64 },
    /// A plaintext value is not below the plaintext modulus.
    #[error("plaintext value {value} at index {index} is not below the plaintext modulus {modulus}")]
    PlaintextOutOfRange { index: usize, value: u64, modulus: u64 },
    /// A signed plaintext value is outside `(-t/2, t/2]`.
    #[error("plaintext value {value} at index {index} is outside (-t/2, t/2] for t = {modulus}")]
    SignedPlaintextOutOfRange { index: usize, value: i64, modulus: u64 },
    /// Too many (or a wrong number of) values for a plaintext.
    #[error("{what}: at most {max} values fit, got {actual}")]
    TooManyValues { what: &'static str, max: usize, actual: usize },
    /// The plaintext modulus does not allow batching for this degree.
    #[error("batching needs a prime plaintext modulus t = 1 mod 2N; t = {plaintext_modulus}, N = {degree}")]
    BatchingUnsupported { plaintext_modulus: u64, degree: usize },
    /// Bytes that are not a valid encoding.
    #[error("malformed {what}: {reason}")]
    Malformed { what: &'static str, reason: String },
    /// The ciphertext's noise is too large for it to decrypt correctly.
    #[error(
        "noise budget exhausted: the invariant noise has {noise_bits} bits, at least {modulus_bits} - 1 bits of q \
         would be needed to decrypt"
    )]
    NoiseBudgetExhausted { noise_bits: u64, modulus_bits: u64 },
}

impl From<rlwe::RlweError> for BfvError {
    /// The core's errors as the variants of the same meaning.
    fn from(error: rlwe::RlweError) -> Self {
        use rlwe::RlweError as E;
        match error {
            E::Poly(e) => BfvError::Poly(e),
            E::Rns(e) => BfvError::Rns(e),
            E::Arith(e) => BfvError::Arith(e),
            E::Backend(e) => BfvError::Backend(e),
            E::InvalidParameter { name, value, requirement } => BfvError::InvalidParameter { name, value, requirement },
            E::Insecure { degree, modulus_bits, max_bits } => BfvError::Insecure { degree, modulus_bits, max_bits },
            E::ParameterMismatch { what } => BfvError::ParameterMismatch { what },
            E::InvalidGaloisElement { element, two_n } => BfvError::InvalidGaloisElement { element, two_n },
            E::Malformed { what, reason } => BfvError::Malformed { what, reason },
            E::KeySetMismatch { what, expected, actual } => BfvError::KeySetMismatch { what, expected, actual },
            other => BfvError::Backend(Box::new(other)),
        }
    }
}

impl BfvError {
    /// Wraps a backend error, unwrapping it into [`BfvError::Poly`] when it is a [`PolyError`]
    /// (the CPU backend's error type).
    pub fn from_backend<E: std::error::Error + Send + Sync + 'static>(error: E) -> Self {
        let boxed: Box<dyn std::error::Error + Send + Sync + 'static> = Box::new(error);
        match boxed.downcast::<PolyError>() {
            Ok(poly) => BfvError::Poly(*poly),
            Err(other) => match other.downcast::<rlwe::RlweError>() {
                Ok(core) => BfvError::from(*core),
                Err(other) => BfvError::Backend(other),
            },
        }
    }
}

/// A device error (from a [`poly_cuda::DevicePool`], say) as a backend error.
#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for BfvError {
    fn from(error: poly_cuda::GpuError) -> Self {
        BfvError::from_backend(error)
    }
}
