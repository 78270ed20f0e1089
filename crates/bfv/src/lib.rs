//! The BFV scheme (Brakerski; Fan and Vercauteren) in both RNS variants, BEHZ (Bajard,
//! Eynard, Hasan, Zucca) and HPS (Halevi, Polyakov, Shoup), written once over the
//! [`poly::Backend`] trait: the same code runs on the CPU reference backend and on the GPU,
//! and gives the same ciphertexts, bit for bit, for the same seeds.
//!
//! - [`params`]: [`BfvParameters`] (validated against the HE Standard's 128-bit table) and
//!   [`Preset`]s;
//! - [`BatchEncoder`] (SIMD slots, SEAL's layout) and [`CoefficientEncoder`] (any `t`);
//! - [`BfvContext`]: key generation, encryption (public and secret key; the symmetric
//!   ciphertext travels as a seed for its uniform half), decryption, the exact noise budget,
//!   and evaluation (add, sub, negate, plaintext add/sub/mul, multiplication, squaring,
//!   relinearization with one or several special primes), byte encodings of ciphertexts,
//!   plaintexts and keys;
//! - serde (feature `serde`, on by default): parameters and plaintexts implement `Serialize`
//!   and `Deserialize`/a seed; ciphertexts and keys serialize through
//!   [`BfvContext::serializable`] and load through a `DeserializeSeed` carrying the context
//!   ([`BfvContext::seed`], [`CiphertextSeed`], ...) or [`BfvContext::load`]: objects travel
//!   as their byte encodings and are validated by the same decoders;
//! - [`GaloisKeys`] and the automorphisms of ciphertexts: [`BfvContext::apply_galois`],
//!   [`BfvContext::rotate_rows`] (both rows of the batching slots, left or right) and
//!   [`BfvContext::rotate_columns`] (the two rows swapped);
//! - [`ResidentPlaintext`]: a plaintext kept on the backend (device memory on the GPU):
//!   [`BfvContext::decrypt_resident`] leaves one there, and encryption and the plaintext
//!   operations take either kind ([`PlaintextOperand`]), so it need not cross the bus;
//! - [`BfvBackend`]: the RNS steps a backend runs for the scheme (on top of the core's
//!   [`rlwe::RlweBackend`]).
//!
//! Keys, key switching and encryption of zero are the RLWE core's (crate `rlwe`); this crate
//! re-exports the key types.
//!
//! ```
//! use bfv::{BatchEncoder, BfvContext, Preset};
//! use poly::CpuBackend;
//!
//! # fn main() -> Result<(), bfv::BfvError> {
//! let params = Preset::Secure { log_degree: 12 }.build()?;
//! let context = BfvContext::new(CpuBackend, &params)?;
//! let secret = context.generate_secret_key()?;
//! let public = context.generate_public_key(&secret)?;
//! let relin = context.generate_relin_key(&secret)?;
//! let encoder = BatchEncoder::new(&params)?;
//! let x = context.encrypt(&encoder.encode(&[1, 2, 3])?, &public)?;
//! let y = context.encrypt(&encoder.encode(&[4, 5, 6])?, &public)?;
//! let product = context.mul_relin(&x, &y, &relin)?;
//! let slots = encoder.decode(&context.decrypt(&product, &secret)?)?;
//! assert_eq!(&slots[..3], &[4, 10, 18]);
//! # Ok(())
//! # }
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

/// The RLWE core this crate is built on (keys, key switching, parameters).
pub use rlwe;

pub mod backend;
mod context;
pub mod digit_removal;
mod encoding;
mod error;
mod evaluate;
mod evaluator;
mod galois;
pub mod levels;
pub mod mod_raise;
pub mod params;
pub mod prelude;
mod resident;
mod scheme;
#[cfg(feature = "serde")]
pub mod serde_impl;
pub mod serialize;

pub use backend::BfvBackend;
pub use context::{BfvContext, Ciphertext, EvalPair, PublicKey, RelinKey, SecretKey, SeededCiphertext};
pub use encoding::{BatchEncoder, CoefficientEncoder, Plaintext};
pub use error::BfvError;
pub use galois::GaloisKeys;
pub use params::{BfvParameters, BfvParametersBuilder, ModuliChoice, MulVariant, Preset};
pub use resident::{PlaintextOperand, PreparedPlaintext, ResidentPlaintext};
pub use rlwe::KeySetId;
#[cfg(feature = "serde")]
pub use serde_impl::{
    CiphertextSeed, GaloisKeysSeed, PlaintextSeed, PublicKeySeed, RelinKeySeed, SecretKeySeed, SeededCiphertextSeed,
};

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, BfvError>;
