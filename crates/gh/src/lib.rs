//! The Gentry-Halevi fully homomorphic encryption scheme (Gentry and Halevi, "Implementing
//! Gentry's fully-homomorphic encryption scheme", EUROCRYPT 2011) over the `bigint` crate's
//! multiplication and Barrett reduction, on the CPU and (feature `cuda`) on the GPU as Wang,
//! Hu, Chen, Huang and Sunar run it ("Accelerating fully homomorphic encryption using GPU",
//! HPEC 2012).
//!
//! - [`GhParams`]: the settings ([`GhParams::toy`] for CI, [`GhParams::small`]: `n = 2048`,
//!   `|d|` about 790,000 bits).
//! - [`keygen`]: `v`, `d = resultant(v, x^n + 1)`, `w`, `r` (CPU, by CRT over NTT primes; the
//!   inverse modulo `d` by Lehmer's extended Euclid).
//! - [`PublicKey::encrypt`], [`SecretKey::decrypt`], [`PublicKey::add`], [`PublicKey::mul`].
//! - [`recrypt_keygen`], [`PublicKey::recrypt`]: the squashed decryption circuit evaluated
//!   homomorphically ([`recrypt`]; [`GhParams::toy_recrypt`] for CI).
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod error;
mod keygen;
pub mod params;
pub mod recrypt;
pub mod scheme;

#[cfg(feature = "cuda")]
pub mod gpu;

pub use error::{GhError, Result};
pub use params::GhParams;
pub use recrypt::{RecryptKey, RecryptParams, recrypt_keygen, recrypt_keygen_with};
pub use scheme::{Ciphertext, PublicKey, SecretKey, keygen};
