//! The GPU side (feature `cuda`): the Bluestein transform alone ([`GpuBluestein`]) and the
//! rings `Z_Q[x]/Phi_m` with the reduction modulo `Phi_m` on the device ([`GpuCyclotomic`], the
//! ring layer's: `poly_cuda::bluestein`); every result bit-exact with the CPU reference.

pub mod bluestein;

pub use bluestein::GpuBluestein;
pub use poly_cuda::bluestein::{BluesteinKernels, ForwardInput, GpuCyclotomic};
