use modarith::ModArithError;
use poly::PolyError;
use thiserror::Error;

/// Errors of the RNS layer. Each variant carries the offending values; an operation that
/// returns an error has not written to its output and never touches its input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RnsError {
    /// An error of the polynomial layer.
    #[error(transparent)]
    Poly(#[from] PolyError),
    /// A modular-arithmetic error (a modulus that is not a prime, too large, ...).
    #[error(transparent)]
    Arith(#[from] ModArithError),
    /// An RNS base is empty or has more moduli than supported.
    #[error("an RNS base needs between 1 and {max} moduli; got {count}")]
    InvalidBaseSize { count: usize, max: usize },
    /// The same prime appears twice in a base, or in two bases that must be disjoint.
    #[error("modulus {modulus} appears more than once ({context})")]
    DuplicateModulus { modulus: u64, context: &'static str },
    /// Two values that must be coprime share a factor (for example `t` and a prime of `q`).
    #[error("{what} = {value} is not coprime to {other_name} = {other}")]
    NotCoprime { what: &'static str, value: u64, other_name: &'static str, other: u64 },
    /// A buffer has the wrong length.
    #[error("{what}: expected {expected} values, got {actual}")]
    LengthMismatch { what: &'static str, expected: usize, actual: usize },
    /// A buffer's length is not a positive multiple of its number of limbs.
    #[error("{what}: length {actual} is not a positive multiple of the {limbs} limbs of its base")]
    LengthNotMultiple { what: &'static str, actual: usize, limbs: usize },
    /// A residue is not below its limb's modulus.
    #[error("{what}: value {value} at limb {limb}, index {index} is not below its modulus {modulus}")]
    CoefficientOutOfRange { what: &'static str, limb: usize, index: usize, value: u64, modulus: u64 },
    /// A base's product is too small for the operation it is meant for.
    #[error("{operation}: the base product has {actual_bits} bits, at least {required_bits} are needed")]
    BaseTooSmall { operation: &'static str, required_bits: u64, actual_bits: u64 },
    /// A single auxiliary modulus (gamma, m_sk, ...) is too small for the operation.
    #[error("{name} = {value} is too small: at least {minimum} is needed")]
    ModulusTooSmall { name: &'static str, value: u64, minimum: u64 },
    /// A key-switching digit index is out of range.
    #[error("digit {digit} does not exist: there are {count} digits")]
    DigitOutOfRange { digit: usize, count: usize },
    /// A ring context is not over the base (or of the degree) the operation expects.
    #[error(
        "{what}: expected a ring of degree {expected_degree} over {expected_moduli:?}, got degree {actual_degree} over {actual_moduli:?}"
    )]
    ContextMismatch {
        what: &'static str,
        expected_degree: usize,
        expected_moduli: Vec<u64>,
        actual_degree: usize,
        actual_moduli: Vec<u64>,
    },
    /// A parameter is outside its allowed range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter { name: &'static str, value: u64, reason: &'static str },
}
