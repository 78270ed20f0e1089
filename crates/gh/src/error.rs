//! Errors of this crate.

/// What can go wrong; a failing operation leaves its inputs untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GhError {
    /// Parameters outside what this implementation supports.
    #[error("bad parameters: {reason}")]
    BadParameters { reason: String },
    /// Key generation found no usable key in the allowed number of attempts.
    #[error("key generation failed after {attempts} attempts: {reason}")]
    KeyGeneration { attempts: u32, reason: String },
    /// A ciphertext, or a key, of another key pair.
    #[error("{what} belongs to key {found:#x}, not to key {expected:#x}")]
    WrongKey { what: &'static str, found: u64, expected: u64 },
    /// A ciphertext that is not reduced modulo `d` (of another size or modulus).
    #[error("ciphertext of {bits} bits is not below the {modulus_bits}-bit modulus d")]
    NotReduced { bits: u64, modulus_bits: u64 },
    /// A plaintext other than 0 or 1.
    #[error("plaintext {value} is not a bit")]
    NotABit { value: u8 },
    /// An error of the big-integer layer.
    #[error(transparent)]
    BigInt(#[from] bigint::BigIntError),
    /// An error of the prime arithmetic of key generation.
    #[error(transparent)]
    ModArith(#[from] modarith::ModArithError),
}

/// This crate's result type.
pub type Result<T> = core::result::Result<T, GhError>;
