//! ModUp: each digit extended to `q u P` (conversion kernels, one launch for the digits of one
//! prime), alone or into the batch buffer of the inner product.

use core::ops::Range;

use bytemuck::{Pod, Zeroable};
use poly::{Coeff, TransformKind};
use poly_cuda::cudarc::driver::{DevicePtr, DevicePtrMut, LaunchConfig};
use poly_cuda::kernel::{MAX_GRID_Y, THREADS};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext};

// ModUp launches aim for TARGET_BLOCKS blocks (splitting the output limbs into groups): the
// conversions' geometry.
use super::{GpuKeySwitch, conversion_kernel};
use crate::gpu::launch::{CONVERT_DIGITS, ConvertParams, TARGET_BLOCKS};
use crate::gpu::{Result, check_poly};
use crate::{Extension, check_len};

/// Mirror of `ModUpParams` in `kernels/keyswitch.cu`: device addresses as `u64`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct ModUpParams {
    pub(super) input: u64,
    pub(super) output: u64,
    pub(super) q_p: u64,
    pub(super) n: u64,
    pub(super) limbs: u32,
    pub(super) first_source: u32,
    pub(super) digits: u32,
    pub(super) centered: u32,
    pub(super) limb_group: u32,
    pub(super) unused: u32,
}

const _: () = assert!(size_of::<ModUpParams>() == 4 * 8 + 6 * 4);

impl GpuKeySwitch {
    /// ModUp of one digit from `input` (`k N` words) to `output` (`(k + l) N` words); with
    /// `copy_own` false the digit's own limbs of `output` are left unwritten (a fused inner
    /// product reads them elsewhere; digits of several primes only).
    pub(super) unsafe fn mod_up_raw(
        &self,
        digit: usize,
        extension: Extension,
        input: u64,
        output: u64,
        copy_own: bool,
    ) -> Result<()> {
        let (range, _) = self.digit(digit)?;
        if range.len() == 1 {
            // SAFETY: forwarded: one digit, one polynomial of output.
            return unsafe { self.mod_up_one_prime_raw(range.start, 1, extension, input, output) };
        }
        let params = self.mod_up_params(digit, input, output, copy_own)?;
        // SAFETY: tables of this context; buffers as documented by the caller. The output
        // limbs are those before the digit and after it (the kernel's skip) plus the digit's
        // own limbs (the copy): all k + l limbs.
        unsafe { self.kernels.convert(conversion_kernel(extension), params) }
    }

    /// The conversion parameters of [`mod_up_raw`](Self::mod_up_raw) for a digit of several
    /// primes (addresses as there).
    pub(super) fn mod_up_params(&self, digit: usize, input: u64, output: u64, copy_own: bool) -> Result<ConvertParams> {
        let (range, converter) = self.digit(digit)?;
        let n = self.row;
        let mut params = converter.params(&self.tables, n, converter.rows);
        let digit_start = 8 * (range.start * n) as u64;
        params.input = input + digit_start;
        params.copy = if copy_own { output + digit_start } else { 0 };
        params.output = output;
        // Target limbs: q's limbs before the digit, those after it, then P.
        params.skip_start = range.start as u32;
        params.skip_len = range.len() as u32;
        Ok(params)
    }

    /// ModUp of `count` consecutive digits of one prime each, digit `t` being limb
    /// `first_source + t` of `input` (`k N` words), into `count` polynomials over `q u P` at
    /// `output`. Caller: `first_source + count <= k`, `output` holds `count (k + l) N` words.
    pub(super) unsafe fn mod_up_one_prime_raw(
        &self,
        first_source: usize,
        count: usize,
        extension: Extension,
        input: u64,
        output: u64,
    ) -> Result<()> {
        let (n, limbs) = (self.row, self.q_p.len());
        if n == 0 || count == 0 {
            return Ok(());
        }
        let tiles = n.div_ceil(THREADS as usize);
        let mut done = 0;
        while done < count {
            let digits = (count - done).min(MAX_GRID_Y);
            // Enough blocks to fill the device: split the output limbs when coefficient tiles
            // and digits alone are too few (each thread reads its source word once per group).
            let wanted_groups = TARGET_BLOCKS.div_ceil(tiles * digits).clamp(1, limbs);
            let group = limbs.div_ceil(wanted_groups);
            let groups = limbs.div_ceil(group);
            let params = ModUpParams {
                input,
                output: output + 8 * (done * limbs * n) as u64,
                q_p: self.tables.at(self.q_p_moduli),
                n: n as u64,
                limbs: limbs as u32,
                first_source: (first_source + done) as u32,
                digits: digits as u32,
                centered: u32::from(extension == Extension::Exact),
                limb_group: group as u32,
                unused: 0,
            };
            let config = LaunchConfig {
                grid_dim: (tiles as u32, digits as u32, groups as u32),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut builder = self.batch.keyswitch_mod_up_one_prime.builder(self.kernels.stream());
            builder.arg_pod(&params);
            // SAFETY: matches `keyswitch_mod_up_one_prime(ModUpParams)`: `q_p` is this context's
            // table of k + l moduli; the caller vouches that `input` holds the k limbs of q (it
            // reads limbs first_source + done .. + digits < k) and `output` the `digits`
            // polynomials of (k + l) N words that the grid (every coefficient, digit and limb
            // group) writes completely.
            unsafe { builder.launch(config) }?;
            done += digits;
        }
        Ok(())
    }

    /// ModUp of the digits `digits` into consecutive polynomials over `q u P` at `output`
    /// (the first of them at `output`): runs of one-prime digits in one launch, every other
    /// digit by its conversion launch (`copy_own`: see [`mod_up_raw`](Self::mod_up_raw)).
    /// Caller: `output` holds `digits.len() (k + l) N` words.
    pub(super) unsafe fn mod_up_digits_raw(
        &self,
        digits: Range<usize>,
        extension: Extension,
        input: u64,
        output: u64,
        copy_own: bool,
    ) -> Result<()> {
        let stride = 8 * self.stride() as u64;
        let mut digit = digits.start;
        while digit < digits.end {
            let at = output + (digit - digits.start) as u64 * stride;
            let (range, _) = self.digit(digit)?;
            let mut run = 1;
            if range.len() == 1 {
                while digit + run < digits.end && self.digit(digit + run)?.0.len() == 1 {
                    run += 1;
                }
                // Consecutive one-prime digits read consecutive limbs.
                // SAFETY: `run` polynomials from `at`, inside the caller's buffer.
                unsafe { self.mod_up_one_prime_raw(range.start, run, extension, input, at) }?;
            } else {
                // Consecutive digits of several primes: one conversion launch for up to
                // CONVERT_DIGITS of them.
                while run < CONVERT_DIGITS && digit + run < digits.end && self.digit(digit + run)?.0.len() > 1 {
                    run += 1;
                }
                let params = (0..run)
                    .map(|d| self.mod_up_params(digit + d, input, at + d as u64 * stride, copy_own))
                    .collect::<Result<Vec<_>>>()?;
                // SAFETY: `run` polynomials from `at`, inside the caller's buffer; each digit's
                // conversion writes the limbs `mod_up_raw` documents.
                unsafe { self.kernels.convert_digits(conversion_kernel(extension), &params) }?;
            }
            digit += run;
        }
        Ok(())
    }

    /// [`KeySwitchContext::mod_up`](crate::KeySwitchContext::mod_up) on the device: digit `digit` of `input` (over `q`) into
    /// `output` (over `q u P`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`](crate::RnsError::DigitOutOfRange), [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch), or
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
        check_len("ModUp input", self.q.len() * self.row, input.len())?;
        check_len("ModUp output", self.stride(), output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_up_raw(digit, extension, input, output, true) }
    }

    /// [`KeySwitchContext::mod_up_all`](crate::KeySwitchContext::mod_up_all) on the device: every digit, `output` holding
    /// `num_digits` polynomials over `q u P` one after the other (one launch for all digits
    /// of one prime). Errors as [`mod_up`](Self::mod_up).
    pub fn mod_up_all<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        extension: Extension,
        output: &mut O,
    ) -> Result<()> {
        check_len("ModUp output (all digits)", self.stride() * self.digits.len(), output.len())?;
        check_len("ModUp input", self.q.len() * self.row, input.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above: digit j writes the j-th of the polynomials.
        unsafe { self.mod_up_digits_raw(0..self.digits.len(), extension, input, output, true) }
    }

    /// The first limb of the digits `start .. start + count` when the transform's first pass
    /// can extend them (consecutive one-prime digits over an NTT ring); `None` otherwise.
    pub(super) fn first_pass_extension(&self, start: usize, count: usize, q_p: &GpuContext) -> Result<Option<usize>> {
        let (first, _) = self.digit(start)?;
        let mut one_prime_run = true;
        for (offset, digit) in (start..start + count).enumerate() {
            let (range, _) = self.digit(digit)?;
            one_prime_run &= range.len() == 1 && range.start == first.start + offset;
        }
        let fused = one_prime_run && q_p.ring().transform() == TransformKind::Ntt;
        Ok(fused.then_some(first.start))
    }

    /// The digits `start .. start + count` of `input` (at `input_address`) extended to `q u P`
    /// by the ModUp kernels, in coefficient form (the digits' own limbs left unwritten unless
    /// `copy_own`).
    pub(super) fn mod_up_batch(
        &self,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
        copy_own: bool,
    ) -> Result<DevicePolyBatch<Coeff>> {
        let mut extended = self.kernels.alloc_for_kernels(count * self.stride())?;
        let extended_address = self.kernels.write_address(&mut extended)?;
        // SAFETY: `extended` holds `count` polynomials over q u P; `input` is over q (the
        // caller checked its ring) at `input_address`.
        unsafe { self.mod_up_digits_raw(start..start + count, extension, input_address, extended_address, copy_own) }?;
        Ok(DevicePolyBatch::<Coeff>::from_device_buffer(q_p, count, extended)?)
    }

    /// [`KeySwitchContext::mod_up_poly`](crate::KeySwitchContext::mod_up_poly) on the device: `input` over `q`, the result over
    /// `q u P` (the ring of `q_p`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`](crate::RnsError::DigitOutOfRange); [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `input`'s ring
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
        let mut output = self.kernels.alloc_for_kernels(self.stride())?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k + l limbs of `output` (see mod_up_raw); the rings
        // were checked.
        unsafe { self.mod_up_raw(digit, extension, input_address, output_address, true) }?;
        Ok(DevicePoly::from_device_buffer(q_p, output)?)
    }
}
