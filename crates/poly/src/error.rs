use modarith::ModArithError;
use thiserror::Error;

/// Errors of the polynomial layer. Each variant carries the offending values; an
/// operation that returns an error leaves its inputs untouched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PolyError {
    /// A modular-arithmetic error (bad prime, missing root, ...).
    #[error(transparent)]
    Arith(#[from] ModArithError),
    /// The ring degree is not a power of two in the supported range.
    #[error("ring degree {degree} is invalid: {reason}")]
    InvalidDegree {
        /// The ring degree.
        degree: usize,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A modulus is unsuitable for this ring.
    #[error("modulus {modulus} is unsuitable for degree {degree}: {reason}")]
    InvalidModulus {
        /// The modulus.
        modulus: u64,
        /// The ring degree.
        degree: usize,
        /// Why the modulus does not suit it.
        reason: &'static str,
    },
    /// The RNS basis is empty or too large.
    #[error("an RNS basis needs between 1 and {max} moduli; got {count}")]
    InvalidModulusCount {
        /// The number of moduli given.
        count: usize,
        /// The most moduli a basis may have.
        max: usize,
    },
    /// The same prime appears twice in an RNS basis.
    #[error("modulus {modulus} appears more than once in the RNS basis")]
    DuplicateModulus {
        /// The repeated prime.
        modulus: u64,
    },
    /// A buffer has the wrong length.
    #[error("expected {expected} values, got {actual}")]
    LengthMismatch {
        /// The length the buffer must have.
        expected: usize,
        /// Its length.
        actual: usize,
    },
    /// A coefficient is not reduced modulo its limb's prime.
    #[error("value {value} at limb {limb}, index {index} is not below its modulus {modulus}")]
    CoefficientOutOfRange {
        /// The limb of the coefficient.
        limb: usize,
        /// The coefficient's index within its limb.
        index: usize,
        /// The coefficient.
        value: u64,
        /// The limb's prime.
        modulus: u64,
    },
    /// Two operands (or an operand and a plan) belong to different ring contexts.
    #[error("operands belong to different ring contexts")]
    ContextMismatch,
    /// An invalid row/column split for the hierarchical DGT.
    #[error("hierarchical DGT split {rows} x {cols} is invalid for degree {degree}: {reason}")]
    InvalidSplit {
        /// The number of rows of the split.
        rows: usize,
        /// The number of columns of the split.
        cols: usize,
        /// The ring degree.
        degree: usize,
        /// Why the split is invalid.
        reason: &'static str,
    },
    /// The automorphism exponent is not a unit modulo 2N.
    #[error("automorphism exponent {exponent} is invalid for degree {degree}: must be odd")]
    InvalidAutomorphism {
        /// The automorphism exponent.
        exponent: u64,
        /// The ring degree `N`.
        degree: usize,
    },
    /// `x -> x^g` is no automorphism of `Z_q[x]/Phi_m`: `g` shares a factor with `m`.
    #[error("Galois element {element} is invalid for Phi_{m}: must be a unit modulo {m}")]
    InvalidGaloisElement {
        /// The Galois element `g`.
        element: u64,
        /// The cyclotomic index `m` of `Phi_m`.
        m: u64,
    },
    /// A transform that is not one of the ring kind's ([`crate::RingKind::supports`]), or an
    /// operation of one transform asked of another's context.
    #[error("transform {transform:?} does not apply to the ring {ring:?}")]
    InvalidTransform {
        /// The transform asked for.
        transform: crate::TransformKind,
        /// The ring kind.
        ring: crate::RingKind,
    },
    /// A parameter is outside its allowed range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: u64,
        /// What it must satisfy.
        reason: &'static str,
    },
    /// The operating system's random source failed (seed generation).
    #[error("the operating system's random source failed (code {code}): {message}")]
    OsRandomness {
        /// The error code of the random source.
        code: u32,
        /// Its description of the failure.
        message: String,
    },
}
