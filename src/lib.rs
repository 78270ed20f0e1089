//! hegpu: lattice homomorphic encryption on GPUs, with a CPU reference for everything.
//!
//! This facade re-exports the layers; depend on a single crate when that is all you need.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub use modarith;
pub use poly;
#[cfg(feature = "cuda")]
pub use poly_cuda;
