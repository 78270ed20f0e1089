//! [`GpuBaseConverter`] and [`GpuShenoyKumaresan`]: the conversions of `crate::convert` on the
//! device, word for word.

use poly_cuda::GpuDevice;
use poly_cuda::cudarc::driver::{DevicePtr, DevicePtrMut};

use super::Result;
use super::launch::{ConvertKernel, ConverterLayout, DeviceTables, HostTables, RnsKernels};
use crate::{BaseConverter, RnsError, ShenoyKumaresan};

/// A [`BaseConverter`] `A -> C` with its tables on one device. The same outputs as the CPU
/// converter, word for word, for inputs of any degree `N` (limb-major, `N` values per limb).
///
/// Buffers are device slices or views on the device's stream (the stream of every
/// `poly_cuda` buffer of that device); others are refused with
/// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext). Inputs must hold canonical
/// residues, which every `DevicePoly` does; the device does not check them (a word that is
/// not canonical gives some output word, never an out-of-bounds access). Launches are queued
/// on the stream; nothing waits for them.
#[derive(Debug)]
pub struct GpuBaseConverter {
    kernels: RnsKernels,
    tables: DeviceTables,
    layout: ConverterLayout,
}

impl GpuBaseConverter {
    /// Uploads the tables of `converter` to `device`.
    pub fn new(device: &GpuDevice, converter: &BaseConverter) -> Result<Self> {
        let mut host = HostTables::default();
        let layout = ConverterLayout::push(&mut host, converter);
        Ok(Self { kernels: RnsKernels::load(device)?, tables: host.upload(device)?, layout })
    }

    /// Number of limbs of the source base `A`.
    pub fn from_len(&self) -> usize {
        self.layout.k
    }

    /// Number of limbs of the target base `C`.
    pub fn to_len(&self) -> usize {
        self.layout.rows
    }

    /// Checks the lengths as [`BaseConverter::fast_convert`] does; returns `N`.
    fn check_io(&self, input: usize, output: usize) -> Result<usize> {
        let k = self.layout.k;
        if input == 0 || !input.is_multiple_of(k) {
            return Err(RnsError::LengthNotMultiple { what: "conversion input", actual: input, limbs: k }.into());
        }
        let degree = input / k;
        crate::check_len("conversion output", self.layout.rows * degree, output)?;
        Ok(degree)
    }

    fn run<I, O>(&self, kernel: ConvertKernel, input: &I, output: &mut O) -> Result<()>
    where
        I: DevicePtr<u64>,
        O: DevicePtrMut<u64>,
    {
        let degree = self.check_io(input.len(), output.len())?;
        let mut params = self.layout.params(&self.tables, degree, self.layout.rows);
        params.input = self.kernels.read_address(input)?;
        params.output = self.kernels.write_address(output)?;
        // SAFETY: the tables are this converter's (k and rows * k words); the input holds
        // k * N words and the output rows * N words (checked), both on this stream.
        unsafe { self.kernels.convert(kernel, params) }
    }

    /// [`BaseConverter::fast_convert`] on the device: `input` over `A`, `output` over `C`
    /// (`(x + u A) mod c_j`, `0 <= u < |A|`, for each coefficient `x`).
    ///
    /// Errors: [`RnsError::LengthNotMultiple`] / [`RnsError::LengthMismatch`] for wrong
    /// lengths, [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of
    /// another device or stream; `output` is untouched then.
    pub fn fast_convert<I, O>(&self, input: &I, output: &mut O) -> Result<()>
    where
        I: DevicePtr<u64>,
        O: DevicePtrMut<u64>,
    {
        self.run(ConvertKernel::Fast, input, output)
    }

    /// [`BaseConverter::exact_convert`] on the device: the centered representative of each
    /// coefficient, modulo each `c_j` (with the CPU's `2^-66` window, identically). Errors as
    /// [`fast_convert`](Self::fast_convert).
    pub fn exact_convert<I, O>(&self, input: &I, output: &mut O) -> Result<()>
    where
        I: DevicePtr<u64>,
        O: DevicePtrMut<u64>,
    {
        self.run(ConvertKernel::Exact, input, output)
    }
}

/// A [`ShenoyKumaresan`] conversion `B u {m_sk} -> C` with its tables on one device: the CPU's
/// outputs word for word. Buffer rules as for [`GpuBaseConverter`].
#[derive(Debug)]
pub struct GpuShenoyKumaresan {
    kernels: RnsKernels,
    tables: DeviceTables,
    layout: ConverterLayout,
    redundant_inverse: (u64, u64),
}

impl GpuShenoyKumaresan {
    /// Uploads the tables of `conversion` to `device`.
    pub fn new(device: &GpuDevice, conversion: &ShenoyKumaresan) -> Result<Self> {
        let mut host = HostTables::default();
        let layout = ConverterLayout::push(&mut host, conversion.converter());
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            tables: host.upload(device)?,
            layout,
            redundant_inverse: conversion.product_inverse_redundant(),
        })
    }

    /// [`ShenoyKumaresan::convert`] on the device: `input` over `B u {m_sk}` (limbs of `B`,
    /// then `m_sk`), `output` over `C`. Errors: [`RnsError::LengthNotMultiple`] /
    /// [`RnsError::LengthMismatch`] for wrong lengths,
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of another
    /// device or stream; `output` is untouched then.
    pub fn convert<I, O>(&self, input: &I, output: &mut O) -> Result<()>
    where
        I: DevicePtr<u64>,
        O: DevicePtrMut<u64>,
    {
        let limbs = self.layout.k + 1;
        let len = input.len();
        if len == 0 || !len.is_multiple_of(limbs) {
            return Err(RnsError::LengthNotMultiple { what: "Shenoy-Kumaresan input", actual: len, limbs }.into());
        }
        let degree = len / limbs;
        let outputs = self.layout.rows - 1;
        crate::check_len("Shenoy-Kumaresan output", outputs * degree, output.len())?;
        let input_address = self.kernels.read_address(input)?;
        // SAFETY: the tables are this conversion's; the input holds (|B| + 1) N words (its
        // m_sk limb at |B| N) and the output |C| N words, both on this stream.
        unsafe {
            shenoy_kumaresan(
                &self.kernels,
                &self.tables,
                &self.layout,
                self.redundant_inverse,
                input_address,
                self.kernels.write_address(output)?,
                degree,
            )
        }
    }
}

/// Queues a Shenoy-Kumaresan conversion with the converter `B -> C u {m_sk}` at `layout`
/// (`rows = |C| + 1`, the `m_sk` row last): `input` over `B u {m_sk}`, `output` over `C`.
///
/// # Safety
/// The addresses must hold `(|B| + 1) N` (input) and `|C| N` (output) words on the kernels'
/// stream, and `layout` must describe tables in `tables`.
pub(crate) unsafe fn shenoy_kumaresan(
    kernels: &RnsKernels,
    tables: &DeviceTables,
    layout: &ConverterLayout,
    inverse: (u64, u64),
    input: u64,
    output: u64,
    degree: usize,
) -> Result<()> {
    // SAFETY: forwarded to the caller (a batch of one).
    unsafe { shenoy_kumaresan_batch(kernels, tables, layout, inverse, &[(input, output)], degree) }
}

/// [`shenoy_kumaresan`] of up to `CONVERT_BATCH` `(input, output)` pairs in one launch.
///
/// # Safety
/// As `shenoy_kumaresan`, for every pair.
pub(crate) unsafe fn shenoy_kumaresan_batch(
    kernels: &RnsKernels,
    tables: &DeviceTables,
    layout: &ConverterLayout,
    (inverse, inverse_shoup): (u64, u64),
    members: &[(u64, u64)],
    degree: usize,
) -> Result<()> {
    let Some(&(input, output)) = members.first() else { return Ok(()) };
    let mut params = layout.params(tables, degree, layout.rows - 1);
    params.input = input;
    params.redundant_input = input + 8 * (layout.k * degree) as u64;
    params.output = output;
    params.redundant_w = inverse;
    params.redundant_w_shoup = inverse_shoup;
    // SAFETY: forwarded to the caller (each member's redundant limb at the same offset).
    unsafe { kernels.convert_batch(ConvertKernel::ShenoyKumaresan, params, members) }
}
