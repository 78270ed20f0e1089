//! Scalar modular arithmetic for word-size primes below 2^62.
//!
//! - [`Modulus`]: a prime with its Barrett constant; add, sub, neg, mul, pow, inverse,
//!   reduction of any `u128`, Shoup precomputation and multiplication, and the lazy
//!   variants (results in `[0, 2p)` or `[0, 4p)`) that NTT butterflies use.
//! - [`primes`]: deterministic generation of primes `p = 1 mod 2N` and primitive roots
//!   of unity.
//! - [`gaussian`]: Gaussian integers `Z_p[i]` and primitive roots of `i`, for the DGT.
//!
//! Every kernel helper in `kernels/include/modarith.cuh` mirrors a function here, under
//! the same name, and is tested against it.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;
pub mod gaussian;
mod modulus;
pub mod primes;

pub use error::ModArithError;
pub use gaussian::{GaussianInt, SignedGaussianInt, gaussian_prime_factors, primitive_root_of_i};
pub use modulus::{MAX_MODULUS_BITS, Modulus};
pub use primes::{generate_ntt_primes, inverse_mod, is_prime, primes_one_mod, primitive_root_of_unity};

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, ModArithError>;
