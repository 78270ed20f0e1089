//! CPU reference for double-CRT polynomial rings `R_q = Z_q[x]/(x^N + 1)`, `q = q_0 ... q_{L-1}`.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod dgt;
mod error;
pub mod hdgt;
pub mod ntt;
pub mod sampling;

pub use error::PolyError;

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, PolyError>;
