//! Unsigned big integers for lattice schemes over the integers (Gentry-Halevi): million-bit
//! multiplication by NTT over the Solinas prime `p = 2^64 - 2^32 + 1`, Barrett reduction, and
//! modular arithmetic for a fixed modulus; on the CPU (the reference) and, with feature
//! `cuda`, on the GPU ([`gpu`]), bit for bit the same.
//!
//! - [`field`]: the prime field, its fast reduction and roots of unity of order up to `2^32`.
//! - [`NttPlan`]: the cyclic NTT over it.
//! - [`BigNat`]: little-endian 64-bit limbs; conversions to and from `num_bigint::BigUint`.
//! - [`mul`](mul()), [`square`], [`mul_batch`]: digit splitting, transforms, pointwise product,
//!   inverse, carries ([`MulShape`] says how a product is cut).
//! - [`BarrettModulus`]: `mu = floor(4^k / m)` precomputed, reduction, `add_mod`, `sub_mod`,
//!   `mul_mod`, `pow_mod`.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod barrett;
pub mod error;
pub mod field;
pub mod mul;
pub mod nat;
pub mod ntt;

#[cfg(feature = "cuda")]
pub mod gpu;

pub use barrett::BarrettModulus;
pub use error::{BigIntError, Result};
pub use mul::{MAX_OPERAND_BITS, MulShape, mul, mul_batch, square};
pub use nat::BigNat;
pub use ntt::NttPlan;
