//! Errors of this crate.

/// What can go wrong; every failing operation leaves its inputs untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BigIntError {
    /// An operand longer than the multiplication supports.
    #[error("an operand of {bits} bits exceeds the supported {max} bits")]
    TooLarge {
        /// The operand's bits.
        bits: u64,
        /// The most bits an operand may have.
        max: u64,
    },
    /// A modulus of zero (or one: nothing to reduce into).
    #[error("the modulus must be at least 2")]
    BadModulus,
    /// An operand of a modular operation that is not below the modulus.
    #[error("operand `{what}` has {bits} bits and is not reduced modulo the {modulus_bits}-bit modulus")]
    NotReduced {
        /// The operand.
        what: &'static str,
        /// Its bits.
        bits: u64,
        /// The modulus' bits.
        modulus_bits: u64,
    },
    /// A Barrett input of more than twice the modulus' bits.
    #[error("a reduction input of {bits} bits exceeds the {max} bits Barrett reduction handles")]
    ReductionInputTooLarge {
        /// The input's bits.
        bits: u64,
        /// The most bits the reduction handles (twice the modulus' bits).
        max: u64,
    },
    /// `a - b` with `a < b`.
    #[error("subtraction of a larger number from a smaller one")]
    Negative,
    /// A batch whose members do not share one shape, or an empty batch.
    #[error("batch: {reason}")]
    Batch {
        /// What is wrong with the batch.
        reason: String,
    },
    /// A device operand of another length than the operation expects.
    #[error("device operand `{what}` has {found} limbs, expected {expected}")]
    LimbCount {
        /// The operand.
        what: &'static str,
        /// Its number of limbs.
        found: usize,
        /// The number of limbs the operation expects.
        expected: usize,
    },
    /// A residue of another modulus than the operation's.
    #[error("operand `{what}` is a residue of another modulus")]
    WrongModulus {
        /// The operand.
        what: &'static str,
    },
    /// A failure of the GPU layer (driver, memory, kernel loading).
    #[cfg(feature = "cuda")]
    #[error("GPU: {0}")]
    Gpu(#[from] poly_cuda::GpuError),
}

/// This crate's result type.
pub type Result<T> = core::result::Result<T, BigIntError>;
