//! CPU reference for double-CRT polynomial rings `R_q = Z_q[x]/(x^N + 1)` and
//! `R_q = Z_q[x]/Phi_m(x)` (odd `m`), `q = q_0 ... q_{L-1}`.
//!
//! - [`RingContext`]: ring kind ([`RingKind`]), degree, RNS primes and one transform plan per
//!   prime ([`TransformKind`]: NTT, DGT or hierarchical DGT for `x^N + 1`, Bluestein's transform
//!   for `Phi_m`).
//! - [`Poly<R>`](Poly): a polynomial in representation [`Coeff`] or [`Eval`], stored as one
//!   limb-major `Vec<u64>` (limb `i` is `data[i * N..(i + 1) * N]`, canonical values).
//! - [`ntt`], [`dgt`], [`hdgt`], [`bluestein`]: the transforms; [`cyclotomic`]: `Phi_m` and
//!   the arithmetic of `m`; [`phi_reduction`]: the reduction modulo `Phi_m` by additions;
//!   [`sampling`]: deterministic sampling from a seed; [`reference`](mod@reference): slow exact helpers for tests; [`backend`]: the [`Backend`] trait
//!   that scheme code is written against, and its CPU implementation [`CpuBackend`].
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod backend;
pub mod bluestein;
pub mod context;
pub mod cyclotomic;
pub mod dgt;
mod error;
pub mod hdgt;
pub mod ntt;
#[cfg(target_arch = "x86_64")]
mod ntt_ifma;
pub mod phi_reduction;
pub mod poly;
pub mod prime_factor;
pub mod reference;
pub mod representation;
pub mod sampling;

pub use backend::{Backend, CpuBackend};
pub use context::{LimbPlan, RingContext, RingKind, TransformKind};
pub use error::PolyError;
pub use poly::Poly;
pub use representation::{Coeff, Eval, Representation};
pub use sampling::Seed;

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, PolyError>;
