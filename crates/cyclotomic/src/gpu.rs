//! The GPU side (feature `cuda`): the Bluestein transform alone ([`GpuBluestein`]), the rings
//! `Z_Q[x]/Phi_m` with the reduction modulo `Phi_m` on the device ([`GpuCyclotomic`], the ring
//! layer's: `poly_cuda::bluestein`), and BGV over them ([`GpuBgv`]); every result bit-exact
//! with the CPU reference.

mod bgv;
mod bluestein;

pub use bgv::{CyclotomicKernels, GpuBgv, GpuCiphertext};
pub use bluestein::GpuBluestein;
pub use poly_cuda::bluestein::{BluesteinKernels, ForwardInput, GpuCyclotomic};
