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
    InvalidBaseSize {
        /// The number of moduli given.
        count: usize,
        /// The most moduli a base may have.
        max: usize,
    },
    /// The same prime appears twice in a base, or in two bases that must be disjoint.
    #[error("modulus {modulus} appears more than once ({context})")]
    DuplicateModulus {
        /// The repeated prime.
        modulus: u64,
        /// Where it repeats (one base, or which two bases).
        context: &'static str,
    },
    /// Two values that must be coprime share a factor (for example `t` and a prime of `q`).
    #[error("{what} = {value} is not coprime to {other_name} = {other}")]
    NotCoprime {
        /// The name of the first value (for example `t`).
        what: &'static str,
        /// The first value.
        value: u64,
        /// The name of the value it shares a factor with (for example `q_i`).
        other_name: &'static str,
        /// That value.
        other: u64,
    },
    /// A buffer has the wrong length.
    #[error("{what}: expected {expected} values, got {actual}")]
    LengthMismatch {
        /// The buffer.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// Its length.
        actual: usize,
    },
    /// A buffer's length is not a positive multiple of its number of limbs.
    #[error("{what}: length {actual} is not a positive multiple of the {limbs} limbs of its base")]
    LengthNotMultiple {
        /// The buffer.
        what: &'static str,
        /// Its length.
        actual: usize,
        /// The number of limbs (moduli) of its base.
        limbs: usize,
    },
    /// A residue is not below its limb's modulus.
    #[error("{what}: value {value} at limb {limb}, index {index} is not below its modulus {modulus}")]
    CoefficientOutOfRange {
        /// The buffer.
        what: &'static str,
        /// The limb of the residue.
        limb: usize,
        /// The residue's index within its limb.
        index: usize,
        /// The residue.
        value: u64,
        /// The limb's modulus.
        modulus: u64,
    },
    /// A base's product is too small for the operation it is meant for.
    #[error("{operation}: the base product has {actual_bits} bits, at least {required_bits} are needed")]
    BaseTooSmall {
        /// The operation, and what the base must hold.
        operation: &'static str,
        /// The bits of the base product the operation needs.
        required_bits: u64,
        /// The bits of the base product.
        actual_bits: u64,
    },
    /// A single auxiliary modulus (gamma, m_sk, ...) is too small for the operation.
    #[error("{name} = {value} is too small: at least {minimum} is needed")]
    ModulusTooSmall {
        /// The modulus (`gamma`, `m_sk`, ...).
        name: &'static str,
        /// Its value.
        value: u64,
        /// The smallest value the operation accepts.
        minimum: u64,
    },
    /// A key-switching digit index is out of range.
    #[error("digit {digit} does not exist: there are {count} digits")]
    DigitOutOfRange {
        /// The requested digit index.
        digit: usize,
        /// The number of digits.
        count: usize,
    },
    /// A ring context is not over the base (or of the degree) the operation expects.
    #[error(
        "{what}: expected a ring of degree {expected_degree} over {expected_moduli:?}, got degree {actual_degree} over {actual_moduli:?}"
    )]
    ContextMismatch {
        /// The operand (or operation) whose context does not match.
        what: &'static str,
        /// The ring degree the operation expects.
        expected_degree: usize,
        /// The primes, in order, the operation expects.
        expected_moduli: Vec<u64>,
        /// The context's ring degree.
        actual_degree: usize,
        /// The context's primes, in order.
        actual_moduli: Vec<u64>,
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
}
