//! [`KeySetId`]: the identifier of a key set, so that keys and ciphertexts of different
//! secret keys are never combined silently.
//!
//! A secret key draws its identifier when it is generated: 64 bits of the ChaCha20 keystream
//! of its seed, on a stream no sampler uses (tag `0xFF`), so the same seed gives the same
//! identifier (and the same key polynomials as before: no sampled value changes). The public
//! key, the relinearization key and the Galois keys made from a secret key carry its
//! identifier, a ciphertext carries that of the key it was encrypted under, and a ciphertext
//! computed from others carries theirs. Every operation that combines two of them checks
//! that the identifiers agree ([`KeySetId::combine`]) and errors with
//! [`RlweError::KeySetMismatch`] otherwise, before computing anything.
//!
//! An object may carry no identifier (`None`): one built by a decoder's constructor, or
//! decoded from bytes of format version 1. It combines with anything and passes its partner's
//! identifier on. The byte encodings (format version 2) end with the identifier
//! ([`crate::framing`]; 0 for none).
//!
//! The identifier is a label, not a secret and not an authenticator: it catches mistakes (a
//! relinearization key of another key pair), not an adversary, who can copy any label.

use core::fmt;

use poly::Seed;

use crate::{Result, RlweError};

/// The ChaCha20 stream of the identifier: tag `0xFF` in the top byte, which no sampling
/// distribution uses (`poly::sampling::Distribution`'s tags are 1 to 3).
const KEY_SET_STREAM: u64 = 0xFF << 56;

/// The identifier of a key set (module docs). Never zero: zero encodes "none" in bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeySetId(u64);

impl fmt::Debug for KeySetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeySetId({:016x})", self.0)
    }
}

impl fmt::Display for KeySetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl KeySetId {
    /// The identifier of the secret key of `seed`: the first 64 bits of the seed's ChaCha20
    /// stream `0xFF << 56` (zero, with probability `2^-64`, becomes one).
    pub fn from_seed(seed: &Seed) -> Self {
        let block = poly::sampling::chacha20_block(seed, KEY_SET_STREAM, 0);
        let value = u64::from(block[0]) | (u64::from(block[1]) << 32);
        Self(value.max(1))
    }

    /// The identifier of a value read from bytes: `None` for 0.
    pub fn from_u64(value: u64) -> Option<Self> {
        (value != 0).then_some(Self(value))
    }

    /// The value (never 0).
    pub fn value(self) -> u64 {
        self.0
    }

    /// The value of an optional identifier as stored in bytes (0 for none).
    pub fn to_u64(id: Option<Self>) -> u64 {
        id.map_or(0, Self::value)
    }

    /// The identifier of the result of combining an object carrying `first` with one carrying
    /// `second`: the one they share, or the only one there is. Errors with
    /// [`RlweError::KeySetMismatch`] (naming `what`, the second operand) when both carry one
    /// and they differ.
    pub fn combine(first: Option<Self>, second: Option<Self>, what: &'static str) -> Result<Option<Self>> {
        match (first, second) {
            (Some(a), Some(b)) if a != b => Err(RlweError::KeySetMismatch { what, expected: a, actual: b }),
            (Some(a), _) => Ok(Some(a)),
            (None, b) => Ok(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_deterministic_per_seed_and_differ_between_seeds() {
        let a = KeySetId::from_seed(&Seed::from([1; 32]));
        assert_eq!(a, KeySetId::from_seed(&Seed::from([1; 32])));
        let b = KeySetId::from_seed(&Seed::from([2; 32]));
        assert_ne!(a, b);
        assert_eq!(KeySetId::from_u64(a.value()), Some(a));
        assert_eq!(KeySetId::from_u64(0), None);
        assert_eq!(KeySetId::to_u64(None), 0);
    }

    #[test]
    fn combine_refuses_two_different_identifiers_only() {
        let a = KeySetId::from_seed(&Seed::from([1; 32]));
        let b = KeySetId::from_seed(&Seed::from([2; 32]));
        assert_eq!(KeySetId::combine(Some(a), Some(a), "x").unwrap(), Some(a));
        assert_eq!(KeySetId::combine(Some(a), None, "x").unwrap(), Some(a));
        assert_eq!(KeySetId::combine(None, Some(b), "x").unwrap(), Some(b));
        assert_eq!(KeySetId::combine(None, None, "x").unwrap(), None);
        match KeySetId::combine(Some(a), Some(b), "relinearization key") {
            Err(RlweError::KeySetMismatch { what: "relinearization key", expected, actual }) => {
                assert_eq!((expected, actual), (a, b));
            }
            other => panic!("{other:?}"),
        }
    }
}
