//! [`GpuHps`]: the HPS steps of [`HpsContext`] on the device, word for word.

use poly::Coeff;
use poly_cuda::cudarc::driver::{DevicePtr, DevicePtrMut};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice};

use super::launch::{
    ConvertKernel, ConvertParams, ConverterLayout, DeviceTables, HostTables, HpsDecryptParams, RnsKernels,
    plain_modulus_words,
};
use super::{Result, check_poly};
use crate::{HpsContext, check_len};

/// Offsets of the scaling tables.
#[derive(Debug, Clone, Copy)]
struct HpsLayout {
    q_to_p: ConverterLayout,
    p_to_q: ConverterLayout,
    q_moduli: usize,
    p_moduli: usize,
    dec_integer: usize,
    dec_integer_shoup: usize,
    dec_fraction_hi: usize,
    dec_fraction_lo: usize,
    mul_integer: usize,
    mul_fraction_hi: usize,
    mul_fraction_lo: usize,
    mul_own: usize,
    mul_own_shoup: usize,
}

/// An [`HpsContext`] with its tables on one device: the exact extensions `q -> P` and
/// `P -> q`, the scale-and-round into `P` and decryption's into `Z_t`, all in 128-bit fixed
/// point exactly as the CPU does them (`docs/hps-precision.md`): every output equals the
/// CPU's word for word.
///
/// Buffer rules and error behaviour as for [`GpuBehz`](super::GpuBehz).
#[derive(Debug)]
pub struct GpuHps {
    kernels: RnsKernels,
    tables: DeviceTables,
    layout: HpsLayout,
    degree: usize,
    q: Vec<u64>,
    p: Vec<u64>,
    q_p: Vec<u64>,
    t: [u64; 3],
}

impl GpuHps {
    /// Uploads the tables of `hps` to `device` (one allocation).
    pub fn new(device: &GpuDevice, hps: &HpsContext) -> Result<Self> {
        let tables = hps.tables();
        let mut host = HostTables::default();
        let layout = HpsLayout {
            q_to_p: ConverterLayout::push(&mut host, hps.q_to_p()),
            p_to_q: ConverterLayout::push(&mut host, hps.p_to_q()),
            q_moduli: host.push_moduli(hps.q().moduli()),
            p_moduli: host.push_moduli(hps.p().moduli()),
            dec_integer: host.push(tables.dec_integer),
            dec_integer_shoup: host.push(tables.dec_integer_shoup),
            dec_fraction_hi: host.push(tables.dec_fraction_hi),
            dec_fraction_lo: host.push(tables.dec_fraction_lo),
            mul_integer: host.push(tables.mul_integer),
            mul_fraction_hi: host.push(tables.mul_fraction_hi),
            mul_fraction_lo: host.push(tables.mul_fraction_lo),
            mul_own: host.push(tables.mul_own),
            mul_own_shoup: host.push(tables.mul_own_shoup),
        };
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            tables: host.upload(device)?,
            layout,
            degree: hps.degree(),
            q: hps.q().values(),
            p: hps.p().values(),
            q_p: hps.q_p()?.values(),
            t: plain_modulus_words(hps.plain_modulus()),
        })
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Exact conversion with `converter` from `input` to `output`; with `copy`, the input limbs
    /// are also written there.
    unsafe fn exact_raw(&self, converter: &ConverterLayout, input: u64, copy: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded (a batch of one).
        unsafe { self.exact_batch_raw(converter, &[(input, output)], copy) }
    }

    /// [`exact_raw`](Self::exact_raw) of the `(input, output)` members in one launch; `copy`
    /// (or 0) is the first member's, the others' at the same offset from their outputs.
    unsafe fn exact_batch_raw(&self, converter: &ConverterLayout, members: &[(u64, u64)], copy: u64) -> Result<()> {
        let Some(&(input, output)) = members.first() else { return Ok(()) };
        let mut params = converter.params(&self.tables, self.degree, converter.rows);
        params.input = input;
        params.copy = copy;
        params.output = output;
        // SAFETY: tables of this context; buffers as documented by the caller.
        unsafe { self.kernels.convert_batch(ConvertKernel::Exact, params, members) }
    }

    /// Scale-and-round from `input` (`(k + l) N` words) to `output` (`l N` words).
    unsafe fn scale_raw(&self, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded (a batch of one).
        unsafe { self.scale_batch_raw(&[(input, output)]) }
    }

    /// [`scale_raw`](Self::scale_raw) of the `(input, output)` members in one launch.
    unsafe fn scale_batch_raw(&self, members: &[(u64, u64)]) -> Result<()> {
        let Some(&(input, output)) = members.first() else { return Ok(()) };
        let layout = &self.layout;
        let (k, l) = (self.q.len(), self.p.len());
        // The template's conversion with y_i = x_i (no scale), the table omega'_i mod p_j,
        // the fractions theta'_i and the epilogue x_j lambda_j.
        let params = ConvertParams {
            input,
            extra: input + 8 * (k * self.degree) as u64,
            output,
            from: self.tables.at(layout.q_moduli),
            to: self.tables.at(layout.p_moduli),
            table: self.tables.at(layout.mul_integer),
            fraction_hi: self.tables.at(layout.mul_fraction_hi),
            fraction_lo: self.tables.at(layout.mul_fraction_lo),
            epi_a: self.tables.at(layout.mul_own),
            epi_a_shoup: self.tables.at(layout.mul_own_shoup),
            n: self.degree as u64,
            k: k as u32,
            l: l as u32,
            skip_start: l as u32,
            narrow: super::launch::narrow_sums(
                k,
                self.q.iter().copied().max().unwrap_or(0),
                self.p.iter().copied().max().unwrap_or(0),
            ),
            ..Default::default()
        };
        // SAFETY: as above.
        unsafe { self.kernels.convert_batch(ConvertKernel::HpsScale, params, members) }
    }

    /// [`HpsContext::extend_q_to_p`] on the device: `input` over `q`, `output` over `P`.
    /// Errors on wrong lengths ([`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch))
    /// or a buffer of another device or stream
    /// ([`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext)); `output` is untouched then.
    pub fn extend_q_to_p<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("HPS extension input", self.q.len() * self.degree, input.len())?;
        check_len("HPS extension output", self.p.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.exact_raw(&self.layout.q_to_p, input, 0, output) }
    }

    /// [`HpsContext::extend_p_to_q`] on the device: `input` over `P`, `output` over `q`.
    /// Errors as [`extend_q_to_p`](Self::extend_q_to_p).
    pub fn extend_p_to_q<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("HPS extension input", self.p.len() * self.degree, input.len())?;
        check_len("HPS extension output", self.q.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.exact_raw(&self.layout.p_to_q, input, 0, output) }
    }

    /// [`HpsContext::scale_round_to_p`] on the device: `input` over `q u P`, `output` over
    /// `P`. Errors as [`extend_q_to_p`](Self::extend_q_to_p).
    pub fn scale_round_to_p<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("HPS scaling input", self.q_p.len() * self.degree, input.len())?;
        check_len("HPS scaling output", self.p.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.scale_raw(input, output) }
    }

    /// [`HpsContext::decrypt_scale_round`] on the device: `input` over `q`, `output` `N` words
    /// in `[0, t)`. Errors as [`extend_q_to_p`](Self::extend_q_to_p).
    pub fn decrypt_scale_round<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        output: &mut O,
    ) -> Result<()> {
        check_len("HPS decryption input", self.q.len() * self.degree, input.len())?;
        check_len("HPS decryption output", self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.decrypt_kernel(input, 0, output) }
    }

    /// [`HpsContext::extend_poly`] on the device: `input` over `q`, the result over `q u P`
    /// (the ring of `q_p`), `input`'s limbs copied by the same kernel.
    ///
    /// Errors: [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `input`'s
    /// ring is `q` and `q_p`'s is `q u P` at this degree;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for another device.
    pub fn extend_poly(&self, input: &DevicePoly<Coeff>, q_p: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "HPS extension input")?;
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "HPS extension output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q_p.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let copy = self.kernels.write_address(&mut output)?;
        let p_part = copy + 8 * (self.q.len() * self.degree) as u64;
        // SAFETY: the kernel writes all of `output`: the q limbs by the copy, the P limbs
        // after them; the rings were checked.
        unsafe { self.exact_raw(&self.layout.q_to_p, input_address, copy, p_part) }?;
        Ok(DevicePoly::from_device_buffer(q_p, output)?)
    }

    /// [`HpsContext::scale_down_poly`] on the device:
    /// [`scale_round_to_p`](Self::scale_round_to_p) then [`extend_p_to_q`](Self::extend_p_to_q),
    /// `input` over `q u P`, the result `round(t x / q)` over `q`. Errors as
    /// [`extend_poly`](Self::extend_poly).
    pub fn scale_down_poly(&self, input: &DevicePoly<Coeff>, q: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "HPS scaling input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "HPS scaling output")?;
        let mut scaled = self.kernels.alloc_for_kernels(self.p.len() * self.degree)?;
        let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let scaled_address = self.kernels.write_address(&mut scaled)?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the scaling kernel writes all of `scaled`, the exact conversion all of
        // `output`; lengths follow from the checked rings. `scaled` is freed in stream order.
        unsafe {
            self.scale_raw(input_address, scaled_address)?;
            self.exact_raw(&self.layout.p_to_q, scaled_address, 0, output_address)?;
        }
        Ok(DevicePoly::from_device_buffer(q, output)?)
    }

    /// [`extend_poly`](Self::extend_poly) of 1 to 4 polynomials in one launch, into one batch
    /// over `q u P` (in order), ready for one transform of all of them. Errors as
    /// `extend_poly`, and [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter)
    /// for no input or more than 4.
    pub fn extend_batch(&self, inputs: &[&DevicePoly<Coeff>], q_p: &GpuContext) -> Result<DevicePolyBatch<Coeff>> {
        super::check_batch_size(inputs.len())?;
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "HPS extension output")?;
        for input in inputs {
            check_poly(&self.kernels, input.context(), &self.q, self.degree, "HPS extension input")?;
        }
        let (stride, copied) = (self.q_p.len() * self.degree, self.q.len() * self.degree);
        let (output, copy, members) = super::extension_members(&self.kernels, inputs, stride, copied)?;
        // SAFETY: member z writes all of polynomial z of `output`: its q limbs by the copy (at
        // the same offset before its P limbs as member 0's), its P limbs after them; the rings
        // were checked.
        unsafe { self.exact_batch_raw(&self.layout.q_to_p, &members, copy) }?;
        Ok(DevicePolyBatch::from_device_buffer(q_p, inputs.len(), output)?)
    }

    /// [`scale_down_poly`](Self::scale_down_poly) of every polynomial of a batch over `q u P`
    /// (1 to 4), with one launch per step for all of them. Errors as `scale_down_poly`, and
    /// [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for more than 4.
    pub fn scale_down_batch(&self, input: &DevicePolyBatch<Coeff>, q: &GpuContext) -> Result<Vec<DevicePoly<Coeff>>> {
        super::check_batch_size(input.len())?;
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "HPS scaling input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "HPS scaling output")?;
        let (in_stride, p_len) = (self.q_p.len() * self.degree, self.p.len() * self.degree);
        let (_scaled, outputs, scale_members, exact_members) =
            super::scaling_members(&self.kernels, input, in_stride, p_len, self.q.len() * self.degree)?;
        // SAFETY: member z of the scaling reads polynomial z of the batch (over q u P: checked)
        // and writes all of its `l N` words of `scaled`; member z of the conversion reads those
        // and writes all of output z (`k N` words). `scaled` is freed in stream order.
        unsafe {
            self.scale_batch_raw(&scale_members)?;
            self.exact_batch_raw(&self.layout.p_to_q, &exact_members, 0)?;
        }
        outputs.into_iter().map(|output| Ok(DevicePoly::from_device_buffer(q, output)?)).collect()
    }
}

impl GpuHps {
    /// Queues decryption's scale-and-round of `[input + addend]_q` (`addend` 0: of `input`)
    /// into `output` (device addresses; the contract of `ScaleAndRound::decrypt_raw`).
    unsafe fn decrypt_kernel(&self, input: u64, addend: u64, output: u64) -> Result<()> {
        let layout = &self.layout;
        let params = HpsDecryptParams {
            input,
            addend,
            q: self.tables.at(layout.q_moduli),
            output,
            integer: self.tables.at(layout.dec_integer),
            integer_shoup: self.tables.at(layout.dec_integer_shoup),
            fraction_hi: self.tables.at(layout.dec_fraction_hi),
            fraction_lo: self.tables.at(layout.dec_fraction_lo),
            t: self.t,
            n: self.degree as u64,
            k: self.q.len() as u32,
            lanes: super::launch::decrypt_lanes(self.q.len()),
        };
        // SAFETY: the buffers are as the trait's contract requires (the caller's duty).
        unsafe { self.kernels.hps_decrypt(params) }
    }
}

super::decryption_methods!(GpuHps, "HPS");
