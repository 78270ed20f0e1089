//! Errors of this crate.

/// What can go wrong; a failing operation leaves its inputs untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GhError {
    /// Parameters outside what this implementation supports.
    #[error("bad parameters: {reason}")]
    BadParameters {
        /// What is unsupported.
        reason: String,
    },
    /// Key generation found no usable key in the allowed number of attempts.
    #[error("key generation failed after {attempts} attempts: {reason}")]
    KeyGeneration {
        /// The number of attempts made.
        attempts: u32,
        /// Why the last attempt failed.
        reason: String,
    },
    /// A ciphertext, or a key, of another key pair.
    #[error("{what} belongs to key {found:#x}, not to key {expected:#x}")]
    WrongKey {
        /// The ciphertext or key.
        what: &'static str,
        /// The id of the key it belongs to.
        found: u64,
        /// The id of the key the operation uses.
        expected: u64,
    },
    /// A ciphertext that is not reduced modulo `d` (of another size or modulus).
    #[error("ciphertext of {bits} bits is not below the {modulus_bits}-bit modulus d")]
    NotReduced {
        /// The ciphertext's bits.
        bits: u64,
        /// The bits of the modulus `d`.
        modulus_bits: u64,
    },
    /// A plaintext other than 0 or 1.
    #[error("plaintext {value} is not a bit")]
    NotABit {
        /// The plaintext.
        value: u8,
    },
    /// An error of the big-integer layer.
    #[error(transparent)]
    BigInt(#[from] bigint::BigIntError),
    /// An error of the prime arithmetic of key generation.
    #[error(transparent)]
    ModArith(#[from] modarith::ModArithError),
}

/// This crate's result type.
pub type Result<T> = core::result::Result<T, GhError>;
