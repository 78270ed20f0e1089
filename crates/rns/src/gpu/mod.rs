//! The RNS operations on the GPU (feature `cuda`), bit-exact with the CPU code of this crate:
//! the kernels of `kernels/rns.cu` compute every output word from the same tables with the
//! same exact integer arithmetic (lazy Shoup products summed in 128 bits, the 128-bit
//! fixed-point sums of `docs/hps-precision.md`), so they return exactly the CPU's words.
//!
//! - [`GpuBaseConverter`], [`GpuShenoyKumaresan`]: fast, exact and Shenoy-Kumaresan
//!   conversions;
//! - [`GpuBehz`]: BEHZ decryption, `q -> B_sk` (S0 + S1), fast floor (S3), `B_sk -> q` (S4);
//! - [`GpuHps`]: HPS exact extensions, scale-and-round into `P` and into `Z_t`;
//! - [`GpuKeySwitch`]: ModUp (fast or exact, per digit) and ModDown;
//! - [`GpuDecryption`]: decryption's scale-and-round, one trait for both variants.
//!
//! Each type is made from the CPU context (`new`), uploading its tables once, in one
//! allocation; its owner keeps it (the schemes prepare theirs once per context: `rlwe`'s
//! key-switching tables, `bfv`'s multiplication tables), so no call looks tables up.
//!
//! Every type has slice methods (device buffers on the device's stream, the lengths and names
//! of the CPU methods) and, where the CPU has them, polynomial methods on
//! [`DevicePoly<Coeff>`](poly_cuda::DevicePoly) that check the rings. Launch geometry and the
//! data flow of the kernels are described at the top of `kernels/rns.cu`.
//!
//! What the device does not check: that input words are canonical residues (every
//! `DevicePoly` is; a slice caller must ensure it). A non-canonical word gives a wrong output
//! word, never an out-of-bounds access.

mod behz;
mod convert;
mod hps;
mod keyswitch;
mod launch;

pub use behz::GpuBehz;
pub use convert::{GpuBaseConverter, GpuShenoyKumaresan};
pub use hps::GpuHps;
pub use keyswitch::GpuKeySwitch;
use poly::Coeff;
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuError};
use thiserror::Error;

use crate::RnsError;
use launch::RnsKernels;

/// Errors of the GPU RNS operations: those of the CPU layer (bad lengths, mismatched rings,
/// digits out of range) and those of the device.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GpuRnsError {
    /// The same error the CPU operation gives for this input.
    #[error(transparent)]
    Rns(#[from] RnsError),
    /// A device error (another device or stream, out of memory, a failed launch, ...).
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// Result type of the GPU RNS operations.
pub type Result<T> = core::result::Result<T, GpuRnsError>;

/// A conversion batch holds 1 to `CONVERT_BATCH` (4) polynomials ([`RnsError::InvalidParameter`]
/// otherwise).
fn check_batch_size(count: usize) -> Result<()> {
    if count == 0 || count > launch::CONVERT_BATCH {
        return Err(RnsError::InvalidParameter {
            name: "batch size",
            value: count as u64,
            reason: "a conversion batch holds 1 to 4 polynomials",
        }
        .into());
    }
    Ok(())
}

/// The buffers of an extension of `inputs` into one batch (`stride` words a polynomial, the
/// copied input limbs first, `copied` words): the batch's buffer, the address of its start (the
/// first member's copy target) and each member's `(input, output)` pair, its output starting
/// after its copied limbs.
#[allow(clippy::type_complexity)]
fn extension_members(
    kernels: &RnsKernels,
    inputs: &[&DevicePoly<Coeff>],
    stride: usize,
    copied: usize,
) -> Result<(CudaSlice<u64>, u64, Vec<(u64, u64)>)> {
    let mut output = kernels.alloc_for_kernels(inputs.len() * stride)?;
    let copy = kernels.write_address(&mut output)?;
    let mut members = Vec::with_capacity(inputs.len());
    for (z, input) in inputs.iter().enumerate() {
        let start = copy + 8 * (z * stride) as u64;
        members.push((kernels.read_address(input.device_buffer())?, start + 8 * copied as u64));
    }
    Ok((output, copy, members))
}

/// The buffers of a two-step scaling of every polynomial of `input` (`in_stride` words each):
/// an intermediate batch of `middle` words a polynomial, one output of `out_len` words per
/// polynomial, and the members of both steps (input to intermediate, intermediate to output).
#[allow(clippy::type_complexity)]
fn scaling_members(
    kernels: &RnsKernels,
    input: &DevicePolyBatch<Coeff>,
    in_stride: usize,
    middle: usize,
    out_len: usize,
) -> Result<(CudaSlice<u64>, Vec<CudaSlice<u64>>, Vec<(u64, u64)>, Vec<(u64, u64)>)> {
    let count = input.len();
    let mut between = kernels.alloc_for_kernels(count * middle)?;
    let input_address = kernels.read_address(input.device_buffer())?;
    let between_address = kernels.write_address(&mut between)?;
    let mut outputs = Vec::with_capacity(count);
    let (mut first, mut second) = (Vec::with_capacity(count), Vec::with_capacity(count));
    for z in 0..count {
        let mut output = kernels.alloc_for_kernels(out_len)?;
        let at = between_address + 8 * (z * middle) as u64;
        first.push((input_address + 8 * (z * in_stride) as u64, at));
        second.push((at, kernels.write_address(&mut output)?));
        outputs.push(output);
    }
    Ok((between, outputs, first, second))
}

/// Errors unless `context` lives on the kernels' device ([`GpuError::WrongContext`]) and its
/// ring has degree `degree` and exactly the primes `expected`, in order
/// ([`RnsError::ContextMismatch`]).
fn check_poly(
    kernels: &RnsKernels,
    context: &GpuContext,
    expected: &[u64],
    degree: usize,
    what: &'static str,
) -> Result<()> {
    if !kernels.owns(context.device().stream()) {
        return Err(GpuError::WrongContext.into());
    }
    let ring = context.ring();
    let matches = ring.degree() == degree
        && ring.moduli().len() == expected.len()
        && ring.moduli().iter().zip(expected).all(|(m, &e)| m.value() == e);
    if matches {
        return Ok(());
    }
    Err(RnsError::ContextMismatch {
        what,
        expected_degree: degree,
        expected_moduli: expected.to_vec(),
        actual_degree: ring.degree(),
        actual_moduli: ring.moduli().iter().map(|m| m.value()).collect(),
    }
    .into())
}

/// Decryption's scale-and-round kernel of one variant ([`GpuHps`], [`GpuBehz`]): what the
/// shared decryption entry points below need of it.
trait ScaleAndRound {
    /// How errors name the input and the addend.
    const LABELS: [&'static str; 2];
    fn kernels(&self) -> &RnsKernels;
    /// The primes of `q`.
    fn q(&self) -> &[u64];
    fn degree(&self) -> usize;
    /// Queues the kernel: the `N` words of `[input + addend]_q` (`addend` 0: of `input`) into
    /// `output` (device addresses).
    ///
    /// # Safety
    /// `input` (and a nonzero `addend`) must hold `k N` canonical words over `q`, `output` `N`
    /// writable words, all on the kernels' stream.
    unsafe fn decrypt_raw(&self, input: u64, addend: u64, output: u64) -> Result<()>;
}

/// Decryption's scale-and-round on the device, the same for [`GpuHps`] and [`GpuBehz`] (so a
/// caller picks the variant once: `Arc<dyn GpuDecryption>`). Word for word the CPU context's
/// `decrypt_poly` (HPS: fixed point into `Z_t`; BEHZ: with `gamma`).
pub trait GpuDecryption: Send + Sync + core::fmt::Debug {
    /// The `N` plaintext coefficients in `[0, t)` of `input` (over `q`), written by the kernel
    /// straight into mapped host memory ([`poly_cuda::GpuDevice::collect_words`]; waits for the stream).
    /// Errors: [`RnsError::ContextMismatch`] unless `input`'s ring is `q` at this degree,
    /// [`GpuError::WrongContext`] for another device.
    fn decrypt_poly(&self, input: &poly_cuda::DevicePoly<poly::Coeff>) -> Result<Vec<u64>>;

    /// [`decrypt_poly`](Self::decrypt_poly) of `[input + addend]_q`, the sum formed inside the
    /// scale-and-round kernel (decryption's `c_0 + c_1 s` without a separate addition): the same
    /// words as `decrypt_poly` of the sum. Errors as `decrypt_poly`, for either polynomial.
    fn decrypt_sum_poly(
        &self,
        input: &poly_cuda::DevicePoly<poly::Coeff>,
        addend: &poly_cuda::DevicePoly<poly::Coeff>,
    ) -> Result<Vec<u64>>;

    /// [`decrypt_sum_poly`](Self::decrypt_sum_poly)'s words left on the device: a fresh buffer of
    /// `N` words in `[0, t)` on the device's stream (queued; nothing waits). Errors as
    /// [`decrypt_poly`](Self::decrypt_poly).
    fn decrypt_sum_resident(
        &self,
        input: &poly_cuda::DevicePoly<poly::Coeff>,
        addend: &poly_cuda::DevicePoly<poly::Coeff>,
    ) -> Result<poly_cuda::cudarc::driver::CudaSlice<u64>>;
}

/// [`GpuDecryption`] and the crate's [`ScaleAndRound`] for a variant's GPU tables `$ty`, over
/// its inherent `unsafe fn decrypt_kernel(&self, input, addend, output)` and its fields
/// `kernels`, `q`, `degree`.
macro_rules! decryption_methods {
    ($ty:ident, $label:literal) => {
        impl super::GpuDecryption for $ty {
            fn decrypt_poly(&self, input: &DevicePoly<Coeff>) -> Result<Vec<u64>> {
                super::collect_decryption(self, input, None)
            }

            fn decrypt_sum_poly(&self, input: &DevicePoly<Coeff>, addend: &DevicePoly<Coeff>) -> Result<Vec<u64>> {
                super::collect_decryption(self, input, Some(addend))
            }

            fn decrypt_sum_resident(
                &self,
                input: &DevicePoly<Coeff>,
                addend: &DevicePoly<Coeff>,
            ) -> Result<poly_cuda::cudarc::driver::CudaSlice<u64>> {
                super::resident_decryption(self, input, Some(addend))
            }
        }

        impl super::ScaleAndRound for $ty {
            const LABELS: [&'static str; 2] =
                [concat!($label, " decryption input"), concat!($label, " decryption addend")];

            fn kernels(&self) -> &super::launch::RnsKernels {
                &self.kernels
            }

            fn q(&self) -> &[u64] {
                &self.q
            }

            fn degree(&self) -> usize {
                self.degree
            }

            unsafe fn decrypt_raw(&self, input: u64, addend: u64, output: u64) -> Result<()> {
                // SAFETY: the trait's contract is the kernel's (the caller's duty).
                unsafe { self.decrypt_kernel(input, addend, output) }
            }
        }
    };
}
use decryption_methods;

/// The device addresses of decryption's input and addend (0 for none), after checking both
/// rings against `q` on the kernels' device.
fn decryption_inputs<D: ScaleAndRound>(
    decryption: &D,
    input: &poly_cuda::DevicePoly<poly::Coeff>,
    addend: Option<&poly_cuda::DevicePoly<poly::Coeff>>,
) -> Result<(u64, u64)> {
    let (kernels, q, degree) = (decryption.kernels(), decryption.q(), decryption.degree());
    check_poly(kernels, input.context(), q, degree, D::LABELS[0])?;
    if let Some(addend) = addend {
        check_poly(kernels, addend.context(), q, degree, D::LABELS[1])?;
    }
    let input_address = kernels.read_address(input.device_buffer())?;
    let addend_address = addend.map(|a| kernels.read_address(a.device_buffer())).transpose()?.unwrap_or(0);
    Ok((input_address, addend_address))
}

/// Decryption's scale-and-round of `[input + addend]_q` (of `input` without `addend`), the
/// kernel writing its `N` words straight into the device's mapped staging memory
/// ([`poly_cuda::GpuDevice::collect_words`]); waits for the stream.
fn collect_decryption<D: ScaleAndRound>(
    decryption: &D,
    input: &poly_cuda::DevicePoly<poly::Coeff>,
    addend: Option<&poly_cuda::DevicePoly<poly::Coeff>>,
) -> Result<Vec<u64>> {
    let (input_address, addend_address) = decryption_inputs(decryption, input, addend)?;
    input.context().device().collect_words(decryption.degree(), |output| {
        // SAFETY: the kernel writes the N words `collect_words` maps for it and reads k N words
        // of `input` (and of `addend`), whose rings were checked against q.
        unsafe { decryption.decrypt_raw(input_address, addend_address, output) }
    })
}

/// The same words as [`collect_decryption`], left in a fresh device buffer of `N` words on
/// the device's stream (queued; nothing waits).
fn resident_decryption<D: ScaleAndRound>(
    decryption: &D,
    input: &poly_cuda::DevicePoly<poly::Coeff>,
    addend: Option<&poly_cuda::DevicePoly<poly::Coeff>>,
) -> Result<poly_cuda::cudarc::driver::CudaSlice<u64>> {
    let (input_address, addend_address) = decryption_inputs(decryption, input, addend)?;
    let kernels = decryption.kernels();
    let mut output = kernels.alloc_for_kernels(decryption.degree())?;
    let output_address = kernels.write_address(&mut output)?;
    // SAFETY: the kernel writes all N words of `output` and reads k N words of `input` (and
    // of `addend`), whose rings were checked against q.
    unsafe { decryption.decrypt_raw(input_address, addend_address, output_address) }?;
    Ok(output)
}
