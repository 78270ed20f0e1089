//! [`GpuKeySwitch`]: ModUp and ModDown of [`KeySwitchContext`] on the device, word for word.

use core::ops::Range;

use poly::Coeff;
use poly_cuda::cudarc::driver::{DevicePtr, DevicePtrMut};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};

use super::launch::{ConvertKernel, ConverterLayout, DeviceTables, HostTables, RnsKernels};
use super::{Result, check_poly};
use crate::{Extension, KeySwitchContext, RnsError, check_len};

/// A [`KeySwitchContext`] with its tables on one device: ModUp of each digit (fast or exact
/// extension; the digit's own limbs are copied by the same kernel) and ModDown (the exact
/// conversion `P -> q` fused with the subtraction and the multiplication by `P^-1`). Every
/// output equals the CPU's word for word.
///
/// Buffer rules and error behaviour as for [`GpuBehz`](super::GpuBehz).
#[derive(Debug)]
pub struct GpuKeySwitch {
    kernels: RnsKernels,
    tables: DeviceTables,
    /// Per digit: its limbs of `q` and the converter `D_j -> (q \ D_j) u P`.
    digits: Vec<(Range<usize>, ConverterLayout)>,
    p_to_q: ConverterLayout,
    p_inv_q: usize,
    p_inv_q_shoup: usize,
    degree: usize,
    q: Vec<u64>,
    q_p: Vec<u64>,
}

impl GpuKeySwitch {
    /// Uploads the tables of `key_switch` to `device` (one allocation).
    pub fn new(device: &GpuDevice, key_switch: &KeySwitchContext) -> Result<Self> {
        let mut host = HostTables::default();
        let mut digits = Vec::with_capacity(key_switch.num_digits());
        for digit in 0..key_switch.num_digits() {
            let range = key_switch.digit_range(digit)?;
            digits.push((range, ConverterLayout::push(&mut host, key_switch.mod_up_converter(digit)?)));
        }
        let (p_to_q, p_inv_q, p_inv_q_shoup) = key_switch.mod_down_tables();
        let p_to_q = ConverterLayout::push(&mut host, p_to_q);
        let p_inv_q = host.push(p_inv_q);
        let p_inv_q_shoup = host.push(p_inv_q_shoup);
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            tables: host.upload(device)?,
            digits,
            p_to_q,
            p_inv_q,
            p_inv_q_shoup,
            degree: key_switch.degree(),
            q: key_switch.q().values(),
            q_p: key_switch.q_p()?.values(),
        })
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Number of digits.
    pub fn num_digits(&self) -> usize {
        self.digits.len()
    }

    fn digit(&self, digit: usize) -> Result<&(Range<usize>, ConverterLayout)> {
        self.digits.get(digit).ok_or_else(|| RnsError::DigitOutOfRange { digit, count: self.digits.len() }.into())
    }

    /// ModUp of one digit from `input` (`k N` words) to `output` (`(k + l) N` words).
    unsafe fn mod_up_raw(&self, digit: usize, extension: Extension, input: u64, output: u64) -> Result<()> {
        let (range, converter) = self.digit(digit)?;
        let n = self.degree;
        let mut params = converter.params(&self.tables, n, converter.rows);
        let digit_start = 8 * (range.start * n) as u64;
        params.input = input + digit_start;
        params.copy = output + digit_start;
        params.output = output;
        // Target limbs: q's limbs before the digit, those after it, then P.
        params.skip_start = range.start as u32;
        params.skip_len = range.len() as u32;
        let kernel = match extension {
            Extension::Fast => ConvertKernel::Fast,
            Extension::Exact => ConvertKernel::Exact,
        };
        // SAFETY: tables of this context; buffers as documented by the caller. The output
        // limbs are those before the digit and after it (the kernel's skip) plus the digit's
        // own limbs (the copy): all k + l limbs.
        unsafe { self.kernels.convert(kernel, params) }
    }

    /// ModDown from `input` (`(k + l) N` words) to `output` (`k N` words).
    unsafe fn mod_down_raw(&self, input: u64, output: u64) -> Result<()> {
        let k = self.q.len();
        let mut params = self.p_to_q.params(&self.tables, self.degree, k);
        params.input = input + 8 * (k * self.degree) as u64;
        params.extra = input;
        params.output = output;
        params.epi_a = self.tables.at(self.p_inv_q);
        params.epi_a_shoup = self.tables.at(self.p_inv_q_shoup);
        // SAFETY: tables of this context; buffers as documented by the caller.
        unsafe { self.kernels.convert(ConvertKernel::ModDown, params) }
    }

    /// [`KeySwitchContext::mod_up`] on the device: digit `digit` of `input` (over `q`) into
    /// `output` (over `q u P`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`], [`RnsError::LengthMismatch`], or
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of another
    /// device or stream; `output` is untouched then.
    pub fn mod_up<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        digit: usize,
        extension: Extension,
        output: &mut O,
    ) -> Result<()> {
        self.digit(digit)?;
        check_len("ModUp input", self.q.len() * self.degree, input.len())?;
        check_len("ModUp output", self.q_p.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_up_raw(digit, extension, input, output) }
    }

    /// [`KeySwitchContext::mod_up_all`] on the device: every digit, `output` holding
    /// `num_digits` polynomials over `q u P` one after the other. Errors as
    /// [`mod_up`](Self::mod_up).
    pub fn mod_up_all<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        extension: Extension,
        output: &mut O,
    ) -> Result<()> {
        let stride = self.q_p.len() * self.degree;
        check_len("ModUp output (all digits)", stride * self.digits.len(), output.len())?;
        check_len("ModUp input", self.q.len() * self.degree, input.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        for digit in 0..self.digits.len() {
            // SAFETY: lengths checked above: digit j writes the j-th of the polynomials.
            unsafe { self.mod_up_raw(digit, extension, input, output + 8 * (digit * stride) as u64) }?;
        }
        Ok(())
    }

    /// [`KeySwitchContext::mod_down`] on the device: `input` over `q u P`, `output` over `q`.
    /// Errors: [`RnsError::LengthMismatch`] or
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext); `output` is untouched then.
    pub fn mod_down<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("ModDown input", self.q_p.len() * self.degree, input.len())?;
        check_len("ModDown output", self.q.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_down_raw(input, output) }
    }

    /// [`KeySwitchContext::mod_up_poly`] on the device: `input` over `q`, the result over
    /// `q u P` (the ring of `q_p`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`]; [`RnsError::ContextMismatch`] unless `input`'s ring
    /// is `q` and `q_p`'s is `q u P` at this degree;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for another device.
    pub fn mod_up_poly(
        &self,
        input: &DevicePoly<Coeff>,
        digit: usize,
        extension: Extension,
        q_p: &GpuContext,
    ) -> Result<DevicePoly<Coeff>> {
        self.digit(digit)?;
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "ModUp input")?;
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "ModUp output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q_p.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k + l limbs of `output` (see mod_up_raw); the rings
        // were checked.
        unsafe { self.mod_up_raw(digit, extension, input_address, output_address) }?;
        Ok(DevicePoly::from_device_buffer(q_p, output)?)
    }

    /// [`KeySwitchContext::mod_down_poly`] on the device: `input` over `q u P`, the result
    /// `round(x / P)` over `q`. Errors as [`mod_up_poly`](Self::mod_up_poly) (no digit).
    pub fn mod_down_poly(&self, input: &DevicePoly<Coeff>, q: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "ModDown output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k limbs of `output`; the rings were checked.
        unsafe { self.mod_down_raw(input_address, output_address) }?;
        Ok(DevicePoly::from_device_buffer(q, output)?)
    }
}
