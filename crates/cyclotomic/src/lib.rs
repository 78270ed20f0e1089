//! Rings `Z_p[x]/Phi_m(x)` for odd `m` (HElib's rings; `m` need not be a power of two): HElib's
//! `m` with the security check by `phi(m)`, and the length-`m` transform alone on the GPU.
//!
//! The ring, `Phi_m` and Bluestein's transform are the ring layer's (`poly::bluestein`,
//! `poly::cyclotomic`, `poly::RingKind::Cyclotomic`), re-exported here under their old names;
//! BGV over these rings is the one BGV (`bgv-encrypt`, `BgvParametersBuilder::new_cyclotomic`),
//! on the CPU and the GPU.
//!
//! - [`cyclotomic_polynomial`]: `Phi_m` with exact integer arithmetic (`x^m - 1` divided by
//!   `Phi_d` for every proper divisor `d` of `m`);
//! - [`bluestein_primes`]: primes `p = 1 mod m` and `= 1 mod 2M` (`M` the power-of-two length
//!   of the convolution);
//! - [`BluesteinPlan`]: the length-`m` DFT `X_k = sum_j x_j w^(jk)` (`w` a primitive `m`-th
//!   root modulo `p`) as a convolution (Bluestein's chirp-z algorithm: `jk = (j^2 + k^2 -
//!   (k - j)^2) / 2`), computed with one negacyclic NTT of length `M >= 2m - 1` (the linear
//!   convolution needs no wrap-around below index `2m - 1`), so the GPU can reuse its
//!   power-of-two NTT kernels;
//! - [`CyclotomicRing`]: the evaluation representation of `Z_p[x]/Phi_m` at the `phi(m)`
//!   primitive `m`-th roots (the DFT at indices coprime to `m`), its inverse (the inverse DFT of
//!   the evaluations with zeros elsewhere, reduced modulo `Phi_m` by two products with the
//!   cofactor [`cyclotomic_cofactor`]), and products;
//! - [`params`]: HElib's `m` and the 128-bit security bound by `phi(m)`;
//! - `gpu` (feature `cuda`): the transforms and the reduction modulo `Phi_m` on the GPU
//!   (`poly_cuda::bluestein`), bit-exact with the CPU.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod params;

pub use error::CyclotomicError;
// The ring and its transform live in the ring layer (`poly::bluestein`, `poly::cyclotomic`;
// `RingContext::new_cyclotomic`); these names keep this crate's API.
pub use poly::bluestein::{BluesteinPlan, CyclotomicPlan as CyclotomicRing, bluestein_length, bluestein_primes};
pub use poly::cyclotomic::{cyclotomic_cofactor, cyclotomic_polynomial, euler_phi, prime_factors};

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, CyclotomicError>;
