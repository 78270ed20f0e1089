//! The BFV scheme (Brakerski; Fan and Vercauteren) in both RNS variants (BEHZ and HPS),
//! written once over the [`poly::Backend`] trait: the same code runs on the CPU reference
//! backend and on the GPU.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod encoding;
mod error;
pub mod params;

pub use encoding::{BatchEncoder, CoefficientEncoder, Plaintext};
pub use error::BfvError;
pub use params::{BfvParameters, BfvParametersBuilder, ModuliChoice, MulTables, MulVariant, Preset};

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, BfvError>;
