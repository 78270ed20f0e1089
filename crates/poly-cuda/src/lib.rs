//! GPU backend for the double-CRT rings of [`poly`]: polynomials in device memory, NTT and
//! element-wise CUDA kernels, bit-exact with the CPU reference.
//!
//! Everything GPU-related is behind the feature `cuda`; without it this crate is empty and
//! builds with no CUDA toolkit. With it, the `hegpu-kernels` crate compiles the CUDA kernels
//! (one fatbin per `kernels/*.cu`, flags in `kernels/nvcc.flags`); this crate loads its own
//! modules once per device. The CUDA driver is loaded at run time (cudarc,
//! `dynamic-loading`): a machine with no driver gets [`GpuError::DriverNotLoadable`], never a
//! crash.
//!
//! - [`GpuDevice`]: a CUDA context, its one stream, this crate's kernels, and the kernel sets
//!   of other crates ([`GpuDevice::kernel_set`]).
//! - [`GpuTuning`]: a device's launch choices as data ([`GpuDevice::with_tuning`]); library
//!   code reads no environment variable.
//! - [`kernel`]: typed kernel handles ([`kernel_set!`]), the one launch path
//!   ([`kernel::Launch`]), the launch geometry and device-address helpers that every GPU crate
//!   shares.
//! - [`GpuContext`]: a [`poly::RingContext`] on a device, with moduli and NTT twiddle
//!   tables uploaded once; for a ring `Z_q[x]/Phi_m`, Bluestein's transform
//!   ([`bluestein::GpuCyclotomic`]), or the prime-factor DFT where `m` allows it
//!   ([`prime_factor::GpuPrimeFactor`]).
//! - [`DevicePoly<R>`](DevicePoly): a polynomial in representation `Coeff` or `Eval`,
//!   limb-major `[L][N]` on the device; add, sub, neg, scalar and evaluation products,
//!   automorphisms, forward and inverse NTT. [`DevicePolyBatch`]: many polynomials in one
//!   buffer, transformed by one launch sequence.
//! - [`GpuBackend`]: the [`poly::Backend`] implementation.
//! - [`DevicePool`]: workers (device handles with streams of their own) over every GPU, for
//!   batches of independent operations.
//!
//! Orderings are those of `poly`: limb `i` at `i * N`; NTT evaluations bit-reversed,
//! `out[j] = a(psi^(2 bitrev(j) + 1))`.
// Without `cuda` the items the crate docs link to do not exist.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(feature = "cuda")]
mod backend;
#[cfg(feature = "cuda")]
pub mod bluestein;
#[cfg(feature = "cuda")]
mod centered_lift;
#[cfg(feature = "cuda")]
mod context;
#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
mod device_poly;
#[cfg(feature = "cuda")]
pub mod dgt;
#[cfg(feature = "cuda")]
mod elementwise;
#[cfg(feature = "cuda")]
mod error;
#[cfg(feature = "cuda")]
pub mod graph;
#[cfg(feature = "cuda")]
mod inverse_scale;
#[cfg(feature = "cuda")]
pub mod kernel;
#[cfg(feature = "cuda")]
pub mod launch_trace;
#[cfg(feature = "cuda")]
mod ntt;
#[cfg(feature = "cuda")]
pub mod pool;
#[cfg(feature = "cuda")]
pub mod prime_factor;
#[cfg(feature = "cuda")]
pub mod sampling;
#[cfg(feature = "cuda")]
mod tuning;

#[cfg(feature = "cuda")]
pub use backend::GpuBackend;

/// What the crates built on this one (`rns`'s GPU key switching, BGV's fused decryption) use
/// beyond polynomials: the fused transforms' parameter types, the centered lift's tables, the
/// per-thread streams and the staging limit. Not needed to use the GPU backend.
#[cfg(feature = "cuda")]
pub mod raw {
    pub use crate::centered_lift::{CenteredLift, LIFT_MAX_T_BITS, LiftFinish};
    pub use crate::device::{DeviceStreams, STAGING_MAX_WORDS};
    pub use crate::inverse_scale::InverseScale;
    pub use crate::ntt::{InnerProductKeys, ModDownTarget, OwnLimbs};
}
#[cfg(feature = "cuda")]
pub use context::GpuContext;
#[cfg(feature = "cuda")]
pub use device::{GpuDevice, device_count, driver_available};
#[cfg(feature = "cuda")]
pub use device_poly::{DevicePoly, DevicePolyBatch};
#[cfg(feature = "cuda")]
pub use dgt::{DgtSchedule, GpuDgtPlan};
#[cfg(feature = "cuda")]
pub use error::{GpuError, Result};
#[cfg(feature = "cuda")]
pub use ntt::FP64_NTT_MAX_PRIME_BITS;
#[cfg(feature = "cuda")]
pub use pool::{DevicePool, Worker};
#[cfg(feature = "cuda")]
pub use tuning::{CyclotomicTuning, GpuTuning, GraphTuning, NttSplit, NttTuning, RnsTuning};

/// Re-export of the CUDA host library, for callers that launch kernels of their own.
#[cfg(feature = "cuda")]
pub use cudarc;
/// Re-export of the compiled kernel modules (the same build as this crate's), for callers
/// that load modules of their own ([`kernel_set!`]).
#[cfg(feature = "cuda")]
pub use hegpu_kernels;
