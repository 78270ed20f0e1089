//! hegpu: lattice homomorphic encryption on GPUs, with a CPU reference for everything.
//!
//! This facade re-exports the layers; depend on a single crate when that is all you need.
//! [`prelude`] brings the types most programs use into scope.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub use bfv;
/// BGV (crate `bgv-encrypt`).
pub use bgv_encrypt as bgv;
pub use modarith;
pub use poly;
#[cfg(feature = "cuda")]
pub use poly_cuda;
pub use rlwe;
pub use scheme_switching;

/// The types most programs need: ring contexts, typed polynomials, the backend trait and
/// the CPU backend, seeds; the BFV context, parameters and encoders; the BGV context and
/// backend trait (BGV's parameters and encoders are under [`bgv`], beside bfv's names).
pub mod prelude {
    pub use bfv::{BatchEncoder, BfvBackend, BfvContext, BfvError, CoefficientEncoder, MulVariant, Preset};
    pub use bgv_encrypt::{BgvBackend, BgvContext, BgvError};
    pub use modarith::Modulus;
    pub use poly::{Backend, Coeff, CpuBackend, Eval, Poly, PolyError, RingContext, Seed, TransformKind};
    pub use rlwe::RlweError;
    pub use scheme_switching::SchemeSwitching;
}
