//! The BGV scheme (Brakerski, Gentry and Vaikuntanathan) in double-CRT form, written once over
//! the [`poly::Backend`] trait on the RLWE core (crate `rlwe`): the same code runs on the CPU
//! reference backend and on the GPU, and gives the same ciphertexts, bit for bit, for the same
//! seeds.
//!
//! A ciphertext `(c_0, c_1, ...)` at level `l` decrypts as `[c_0 + c_1 s + ...]_{q_l} mod t`
//! times the inverse of its *correction factor* `f` (SEAL's and OpenFHE's name): the phase is
//! `f m + t e`. Every error term of keys and encryptions is a multiple of `t` (the core's error
//! scale), so the message sits in the low digits and survives modulus switching, which
//! multiplies `f` by `q_l^-1 mod t`.
//!
//! - [`params`]: [`BgvParameters`] and [`Preset`]s (the HE Standard's 128-bit sets, Phantom's
//!   BGV sets); [`BatchEncoder`] (SIMD slots, SEAL's layout, as bfv) and
//!   [`CoefficientEncoder`] (any `t`);
//! - [`BgvContext`]: key generation (the core's keys with error scale `t`), encryption (public
//!   and secret key; seeded symmetric ciphertexts), decryption at any level, the noise budget,
//!   evaluation (add, sub, negate, plaintext add/sub/mul, multiply, square, relinearize),
//!   modulus switching (to the next level, to a level, and automatically before each
//!   multiplication: [`ModSwitching::Auto`]), rotations with Galois keys, operations between
//!   levels ([`LevelPolicy`]);
//! - scheme switching with BFV under the same secret key: crate `scheme-switching`, over both
//!   schemes (this crate does not depend on bfv);
//! - byte encodings of ciphertexts (with their level and correction factor), plaintexts and
//!   keys through the core's framing with the BGV tag; serde (feature `serde`, on by
//!   default) through them: [`BgvContext::serializable`], [`BgvContext::seed`] (a
//!   `DeserializeSeed` carrying the context), [`BgvContext::load`];
//! - [`BgvBackend`]: what a backend adds for the scheme (the exact reduction of a phase to
//!   `Z_t`, on the CPU and as one GPU kernel).
//!
//! ```
//! use bgv_encrypt::{BatchEncoder, BgvContext, Preset};
//! use poly::CpuBackend;
//!
//! # fn main() -> Result<(), bgv_encrypt::BgvError> {
//! let params = Preset::Secure { log_degree: 12 }.build()?;
//! let context = BgvContext::new(CpuBackend, &params)?;
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

pub mod backend;
pub mod context;
#[cfg(feature = "cuda")]
mod decryption_replay;
pub mod digit_removal;
mod encoding;
mod error;
mod evaluate;
mod evaluator;
mod galois;
pub mod mod_raise;
pub mod noise;
pub mod params;
pub mod prelude;
mod prepared;
mod resident;
mod scheme;
#[cfg(feature = "serde")]
pub mod serde_impl;
pub mod serialize;

pub use backend::BgvBackend;
pub use context::{
    BgvCiphertextState, BgvContext, Ciphertext, LevelPolicy, ModSwitching, PublicKey, RelinKey, SecretKey,
    SeededCiphertext,
};
pub use encoding::{BatchEncoder, CoefficientEncoder, Plaintext};
pub use error::BgvError;
pub use params::{BgvParameters, BgvParametersBuilder, Preset};
pub use prepared::PreparedPlaintext;
pub use resident::ResidentPlaintext;
pub use rlwe::GaloisKeys;
#[cfg(feature = "serde")]
pub use serde_impl::{
    CiphertextSeed, GaloisKeysSeed, PlaintextSeed, PublicKeySeed, RelinKeySeed, SecretKeySeed, SeededCiphertextSeed,
};

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, BgvError>;
