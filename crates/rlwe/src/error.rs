//! [`RlweError`]: the one error type of the core and of every scheme on it (bfv's `BfvError`
//! and bgv-encrypt's `BgvError` are this type), so one failure has one shape in every scheme.

use modarith::ModArithError;
use poly::PolyError;
use rns::RnsError;
use thiserror::Error;

/// Errors of the core and of the schemes on it. Each variant carries the offending values;
/// inputs are never changed when an operation errors.
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
    #[error("{what} belongs to key set {actual}, the operation's other operand to key set {expected}")]
    KeySetMismatch {
        /// The operand that does not match.
        what: &'static str,
        /// The key set of the other operand.
        expected: crate::KeySetId,
        /// The key set of `what`.
        actual: crate::KeySetId,
    },
    /// A key or ciphertext of other parameters.
    #[error("{what} belongs to different parameters: they differ in the {field}")]
    ParameterMismatch {
        /// What was checked.
        what: &'static str,
        /// The first defining value that differs (ring, degree, ciphertext primes, special
        /// primes, transform, plaintext modulus, scheme, error scale, ...).
        field: &'static str,
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
    /// A Galois element that is not a unit modulo the ring's index `m` below `m` (for
    /// `x^N + 1`, `m = 2N`: even, or not below `2N`).
    #[error(
        "invalid Galois element {element}: it must be a unit below the ring's index {two_n} (for x^N + 1: odd and below 2N = {two_n})"
    )]
    InvalidGaloisElement {
        /// The element.
        element: u64,
        /// The ring's index `m`: `2N` for `x^N + 1` (the field keeps its name for the callers
        /// of the power-of-two ring).
        two_n: u64,
    },
    /// The Galois keys have no key for the element an operation needs.
    #[error("{operation} needs the Galois key for element {element}, which the Galois keys do not hold")]
    MissingGaloisKey {
        /// The operation.
        operation: &'static str,
        /// The Galois element.
        element: u64,
    },
    /// A ciphertext has the wrong number of polynomials for the operation (a product not yet
    /// relinearized, where two are needed, says so).
    #[error("{operation} needs a ciphertext of {expected} polynomials, got {actual}{}", size_hint(expected, *actual))]
    InvalidCiphertextSize {
        /// The operation.
        operation: &'static str,
        /// The sizes it takes.
        expected: &'static str,
        /// The ciphertext's size.
        actual: usize,
    },
    /// A ciphertext at another level of the modulus chain than the operation needs (that of
    /// the other operand under a strict level policy, or a level that cannot be reached).
    #[error("{operation} needs a ciphertext at level {expected}, got one at level {actual}")]
    LevelMismatch {
        /// The operation.
        operation: &'static str,
        /// The level it needs.
        expected: usize,
        /// The ciphertext's level.
        actual: usize,
    },
    /// Automatic modulus switching cannot bring a product's noise down before the next
    /// multiplication: the product is already at level 0, and multiplying it again would give
    /// a ciphertext that decrypts to garbage.
    #[error(
        "{operation} of a product at level 0: automatic modulus switching has no level left to bring its noise \
         down, and the result would not decrypt; use parameters with more ciphertext primes (a deeper preset), \
         or ModSwitching::Manual to multiply anyway"
    )]
    ModulusChainExhausted {
        /// The operation.
        operation: &'static str,
    },
    /// Automatic modulus switching estimates that a product would not decrypt: the noise
    /// estimate of its result (the operands' estimates through the scheme's noise model)
    /// reaches the modulus of its level, and no level below would leave more room.
    #[error(
        "{operation} at level {level}: the product's estimated noise ({estimated_bits} bits) would reach the \
         modulus ({modulus_bits} bits), and the result would not decrypt; use parameters with more or larger \
         ciphertext primes, or ModSwitching::Manual to multiply anyway"
    )]
    NoiseEstimateExceeded {
        /// The operation.
        operation: &'static str,
        /// The level the product would be at.
        level: usize,
        /// The estimate of the product's noise, in bits (rounded up).
        estimated_bits: u32,
        /// `log2 q_l` (rounded down).
        modulus_bits: u32,
    },
    /// A rotation by `steps` slots that the Galois keys held cannot make, not even by
    /// composing their rotations.
    #[error(
        "{operation} by {steps} slots needs the Galois key for element {element}, or keys whose rotations add up \
         to {steps} (mod the row length), which the Galois keys do not hold; generate keys for this step, or the \
         default power-of-two steps"
    )]
    MissingRotationKey {
        /// The operation.
        operation: &'static str,
        /// The rotation asked for (slots to the left; negative to the right).
        steps: i64,
        /// The Galois element of that rotation.
        element: u64,
    },
    /// An operator that needs an evaluation key its [`crate::operators::BoundEvaluator`] was
    /// not given.
    #[error(
        "{operation} needs a {key}: bind one to the evaluator (BoundEvaluator::with_relinearization_key, with_galois_keys)"
    )]
    MissingEvaluationKey {
        /// The operation.
        operation: &'static str,
        /// The key it needs.
        key: &'static str,
    },
    /// A plaintext value is not below the plaintext modulus.
    #[error("plaintext value {value} at index {index} is not below the plaintext modulus {modulus}")]
    PlaintextOutOfRange {
        /// Its index.
        index: usize,
        /// The value.
        value: u64,
        /// `t`.
        modulus: u64,
    },
    /// A signed plaintext value outside `(-t/2, t/2]`.
    #[error("plaintext value {value} at index {index} is outside (-t/2, t/2] for t = {modulus}")]
    SignedPlaintextOutOfRange {
        /// Its index.
        index: usize,
        /// The value.
        value: i64,
        /// `t`.
        modulus: u64,
    },
    /// More values than fit.
    #[error("{what}: at most {max} values fit, got {actual}")]
    TooManyValues {
        /// What the values are for.
        what: &'static str,
        /// How many fit.
        max: usize,
        /// How many were given.
        actual: usize,
    },
    /// The plaintext modulus does not allow batching for this degree.
    #[error(
        "batching needs a prime plaintext modulus t = 1 mod 2N (1 mod m over Phi_m); t = {plaintext_modulus}, N = {degree}"
    )]
    BatchingUnsupported {
        /// `t`.
        plaintext_modulus: u64,
        /// `N`.
        degree: usize,
    },
    /// The ciphertext's noise is too large for it to decrypt correctly.
    #[error(
        "noise budget exhausted: the noise has {noise_bits} bits against a {modulus_bits}-bit modulus; the \
         ciphertext no longer decrypts reliably"
    )]
    NoiseBudgetExhausted {
        /// The bits of the noise (BFV: of the invariant noise times `q`).
        noise_bits: u64,
        /// The bits of the ciphertext modulus at the ciphertext's level.
        modulus_bits: u64,
    },
}

/// A device error (from a `poly_cuda::DevicePool`, say) as a backend error.
#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for RlweError {
    fn from(error: poly_cuda::GpuError) -> Self {
        RlweError::from_backend(error)
    }
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

/// Converts a backend's error into [`RlweError`] (`.be()?` after a backend call), for the
/// core and the schemes.
pub trait BackendResult<T> {
    /// The result with a backend error wrapped by [`RlweError::from_backend`].
    fn be(self) -> Result<T, RlweError>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> BackendResult<T> for Result<T, E> {
    fn be(self) -> Result<T, RlweError> {
        self.map_err(RlweError::from_backend)
    }
}

/// What to do about a ciphertext of `actual` polynomials where `expected` are needed: a product
/// of three polynomials where two are needed wants relinearizing.
fn size_hint(expected: &str, actual: usize) -> &'static str {
    if expected == "2" && actual == 3 { " (a product before relinearization: relinearize it first)" } else { "" }
}
