//! The GPU side (feature `cuda`): the Bluestein transform alone ([`GpuBluestein`]), the rings
//! `Z_Q[x]/Phi_m` with the reduction modulo `Phi_m` on the device ([`GpuCyclotomic`]), and BGV
//! over them ([`GpuBgv`]); every result bit-exact with the CPU reference.

mod bgv;
mod bluestein;
mod ring;

pub use bgv::{GpuBgv, GpuCiphertext};
pub use bluestein::GpuBluestein;
pub use ring::{CyclotomicKernels, GpuCyclotomic};
