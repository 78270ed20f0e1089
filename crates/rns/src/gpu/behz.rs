//! [`GpuBehz`]: the BEHZ steps of [`BehzContext`] on the device, word for word.

use poly::Coeff;
use poly_cuda::cudarc::driver::{DevicePtr, DevicePtrMut};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice};

use super::convert::shenoy_kumaresan_batch;
use super::launch::{
    BehzDecryptParams, ConvertKernel, ConverterLayout, DeviceTables, HostTables, MontgomeryParams, RnsKernels,
    modulus_words, plain_modulus_words,
};
use super::{Result, check_poly};
use crate::{BehzContext, check_len};

/// Offsets of the per-limb tables of the epilogues and of decryption.
#[derive(Debug, Clone, Copy)]
struct BehzLayout {
    /// S0 + S1: `q -> B_sk u {m~}` with the `m~ q~_i` scale.
    extend: ConverterLayout,
    /// S3: `q -> B_sk` with the `t q~_i` scale.
    floor: ConverterLayout,
    /// S4: `B -> q u {m_sk}`.
    bsk_to_q: ConverterLayout,
    bsk_moduli: usize,
    q_mod_bsk: usize,
    q_mod_bsk_shoup: usize,
    mtilde_inv_bsk: usize,
    mtilde_inv_bsk_shoup: usize,
    t_q_inv_bsk: usize,
    t_q_inv_bsk_shoup: usize,
    q_inv_bsk: usize,
    q_inv_bsk_shoup: usize,
    q_moduli: usize,
    dec_scale: usize,
    dec_scale_shoup: usize,
    dec_row_t: usize,
    dec_row_t_shoup: usize,
    dec_row_gamma: usize,
    dec_row_gamma_shoup: usize,
}

/// A [`BehzContext`] with its tables on one device: decryption (Algorithm 2 of GPU-FV), the
/// extension `q -> B_sk` (S0 + S1, fused or step by step), the fast floor (S3) and the
/// Shenoy-Kumaresan conversion `B_sk -> q` (S4). Every output equals the CPU's word for word.
///
/// Slice methods take device buffers on the device's stream (limb-major, `N` words per limb,
/// canonical residues, which the device does not check) and have the names and length rules
/// of the [`BehzContext`] methods; polynomial methods take [`DevicePoly`]s and check their
/// rings. Launches are queued; only
/// [`GpuDecryption::decrypt_poly`](super::GpuDecryption::decrypt_poly) waits (it downloads).
#[derive(Debug)]
pub struct GpuBehz {
    kernels: RnsKernels,
    tables: DeviceTables,
    layout: BehzLayout,
    degree: usize,
    q: Vec<u64>,
    q_bsk: Vec<u64>,
    bsk_len: usize,
    m_tilde: u64,
    neg_q_inv_mtilde: (u64, u64),
    sk_inverse: (u64, u64),
    t: [u64; 3],
    gamma: [u64; 3],
    gamma_inv_t: (u64, u64),
}

impl GpuBehz {
    /// Uploads the tables of `behz` to `device` (one allocation).
    pub fn new(device: &GpuDevice, behz: &BehzContext) -> Result<Self> {
        let tables = behz.tables();
        let mut host = HostTables::default();
        let extend = ConverterLayout::push(&mut host, behz.q_to_bsk_mtilde()).with_scale(
            &mut host,
            tables.mtilde_scale,
            tables.mtilde_scale_shoup,
        );
        let floor = ConverterLayout::push(&mut host, behz.q_to_bsk()).with_scale(
            &mut host,
            tables.t_scale,
            tables.t_scale_shoup,
        );
        let bsk_to_q = ConverterLayout::push(&mut host, behz.shenoy_kumaresan().converter());
        let layout = BehzLayout {
            extend,
            floor,
            bsk_to_q,
            bsk_moduli: host.push_moduli(behz.bsk().moduli()),
            q_mod_bsk: host.push(tables.q_mod_bsk),
            q_mod_bsk_shoup: host.push(tables.q_mod_bsk_shoup),
            mtilde_inv_bsk: host.push(tables.mtilde_inv_bsk),
            mtilde_inv_bsk_shoup: host.push(tables.mtilde_inv_bsk_shoup),
            t_q_inv_bsk: host.push(tables.t_q_inv_bsk),
            t_q_inv_bsk_shoup: host.push(tables.t_q_inv_bsk_shoup),
            q_inv_bsk: host.push(tables.q_inv_bsk),
            q_inv_bsk_shoup: host.push(tables.q_inv_bsk_shoup),
            q_moduli: host.push_moduli(behz.q().moduli()),
            dec_scale: host.push(tables.dec_scale),
            dec_scale_shoup: host.push(tables.dec_scale_shoup),
            dec_row_t: host.push(tables.dec_row_t),
            dec_row_t_shoup: host.push(tables.dec_row_t_shoup),
            dec_row_gamma: host.push(tables.dec_row_gamma),
            dec_row_gamma_shoup: host.push(tables.dec_row_gamma_shoup),
        };
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            tables: host.upload(device)?,
            layout,
            degree: behz.degree(),
            q: behz.q().values(),
            q_bsk: behz.q_bsk()?.values(),
            bsk_len: behz.bsk().len(),
            m_tilde: behz.m_tilde().value(),
            neg_q_inv_mtilde: tables.neg_q_inv_mtilde,
            sk_inverse: behz.shenoy_kumaresan().product_inverse_redundant(),
            t: plain_modulus_words(behz.plain_modulus()),
            gamma: modulus_words(&behz.gamma()),
            gamma_inv_t: tables.gamma_inv_t,
        })
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    fn k(&self) -> usize {
        self.q.len()
    }

    // Raw launches. Each: the addresses hold the limbs its comment says, on this stream.

    /// S0 + S1 from `input` (`k N` words) to `output` (`|B_sk| N` words); with `copy`, the
    /// input limbs are also written there (`k N` words).
    unsafe fn extend_raw(&self, input: u64, copy: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded (a batch of one).
        unsafe { self.extend_batch_raw(&[(input, output)], copy) }
    }

    /// [`extend_raw`](Self::extend_raw) of up to `CONVERT_BATCH` `(input, output)` pairs in
    /// one launch; `copy` (or 0) is the first pair's, the others' at the same offset from their
    /// outputs.
    unsafe fn extend_batch_raw(&self, members: &[(u64, u64)], copy: u64) -> Result<()> {
        let Some(&(input, output)) = members.first() else { return Ok(()) };
        let layout = &self.layout;
        let mut params = layout.extend.params(&self.tables, self.degree, self.bsk_len);
        params.input = input;
        params.copy = copy;
        params.output = output;
        params.redundant_w = self.neg_q_inv_mtilde.0;
        params.redundant_w_shoup = self.neg_q_inv_mtilde.1;
        params.epi_a = self.tables.at(layout.q_mod_bsk);
        params.epi_a_shoup = self.tables.at(layout.q_mod_bsk_shoup);
        params.epi_b = self.tables.at(layout.mtilde_inv_bsk);
        params.epi_b_shoup = self.tables.at(layout.mtilde_inv_bsk_shoup);
        // SAFETY: tables of this context; buffers as documented by the caller.
        unsafe { self.kernels.convert_batch(ConvertKernel::BehzExtend, params, members) }
    }

    /// S3 from `input` (`(k + |B_sk|) N` words) to `output` (`|B_sk| N` words), for up to
    /// `CONVERT_BATCH` `(input, output)` pairs in one launch.
    unsafe fn floor_batch_raw(&self, members: &[(u64, u64)]) -> Result<()> {
        let Some(&(input, output)) = members.first() else { return Ok(()) };
        let layout = &self.layout;
        let mut params = layout.floor.params(&self.tables, self.degree, self.bsk_len);
        params.input = input;
        params.extra = input + 8 * (self.k() * self.degree) as u64;
        params.output = output;
        params.epi_a = self.tables.at(layout.t_q_inv_bsk);
        params.epi_a_shoup = self.tables.at(layout.t_q_inv_bsk_shoup);
        params.epi_b = self.tables.at(layout.q_inv_bsk);
        params.epi_b_shoup = self.tables.at(layout.q_inv_bsk_shoup);
        // SAFETY: as above (each member's B_sk limbs at the same offset from its input).
        unsafe { self.kernels.convert_batch(ConvertKernel::BehzFloor, params, members) }
    }

    /// S4 from `input` (`|B_sk| N` words) to `output` (`k N` words), for up to
    /// `CONVERT_BATCH` `(input, output)` pairs in one launch.
    unsafe fn bsk_to_q_batch_raw(&self, members: &[(u64, u64)]) -> Result<()> {
        // SAFETY: as above.
        unsafe {
            shenoy_kumaresan_batch(
                &self.kernels,
                &self.tables,
                &self.layout.bsk_to_q,
                self.sk_inverse,
                members,
                self.degree,
            )
        }
    }

    /// [`BehzContext::decrypt_scale_round`] on the device: `input` over `q` (`k N` words),
    /// `output` `N` words in `[0, t)`. Errors on wrong lengths
    /// ([`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch)) or a buffer of another device or stream
    /// ([`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext)); `output` is untouched then.
    pub fn decrypt_scale_round<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        output: &mut O,
    ) -> Result<()> {
        check_len("BEHZ decryption input", self.k() * self.degree, input.len())?;
        check_len("BEHZ decryption output", self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.decrypt_kernel(input, 0, output) }
    }

    /// [`BehzContext::extend_to_bsk`] on the device (S0 and S1 fused): `input` over `q`,
    /// `output` over `B_sk` (`|B_sk| N` words). Errors as
    /// [`decrypt_scale_round`](Self::decrypt_scale_round).
    pub fn extend_to_bsk<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("BEHZ extension input", self.k() * self.degree, input.len())?;
        check_len("BEHZ extension output", self.bsk_len * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream; no copy.
        unsafe { self.extend_raw(input, 0, output) }
    }

    /// [`BehzContext::fast_convert_to_bsk_mtilde`] (S0 alone): `input` over `q`, `output`
    /// over `B_sk u {m~}`. Errors as [`decrypt_scale_round`](Self::decrypt_scale_round).
    pub fn fast_convert_to_bsk_mtilde<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        output: &mut O,
    ) -> Result<()> {
        check_len("BEHZ S0 input", self.k() * self.degree, input.len())?;
        check_len("BEHZ S0 output", (self.bsk_len + 1) * self.degree, output.len())?;
        let mut params = self.layout.extend.params(&self.tables, self.degree, self.bsk_len + 1);
        params.input = self.kernels.read_address(input)?;
        params.output = self.kernels.write_address(output)?;
        // SAFETY: lengths checked above; the converter has |B_sk| + 1 rows.
        unsafe { self.kernels.convert(ConvertKernel::Fast, params) }
    }

    /// [`BehzContext::small_montgomery_reduce`] (S1 alone): `input` over `B_sk u {m~}`,
    /// `output` over `B_sk`. Errors as [`decrypt_scale_round`](Self::decrypt_scale_round).
    pub fn small_montgomery_reduce<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        output: &mut O,
    ) -> Result<()> {
        check_len("BEHZ S1 input", (self.bsk_len + 1) * self.degree, input.len())?;
        check_len("BEHZ S1 output", self.bsk_len * self.degree, output.len())?;
        let layout = &self.layout;
        let params = MontgomeryParams {
            input: self.kernels.read_address(input)?,
            output: self.kernels.write_address(output)?,
            moduli: self.tables.at(layout.bsk_moduli),
            q_mod: self.tables.at(layout.q_mod_bsk),
            q_mod_shoup: self.tables.at(layout.q_mod_bsk_shoup),
            m_tilde_inv: self.tables.at(layout.mtilde_inv_bsk),
            m_tilde_inv_shoup: self.tables.at(layout.mtilde_inv_bsk_shoup),
            m_tilde: self.m_tilde,
            neg_q_inv: self.neg_q_inv_mtilde.0,
            neg_q_inv_shoup: self.neg_q_inv_mtilde.1,
            n: self.degree as u64,
            l: self.bsk_len as u32,
            unused: 0,
        };
        // SAFETY: lengths checked above; tables of this context.
        unsafe { self.kernels.montgomery(params) }
    }

    /// [`BehzContext::fast_floor`] (S3): `input` over `q u B_sk`, `output` over `B_sk`.
    /// Errors as [`decrypt_scale_round`](Self::decrypt_scale_round).
    pub fn fast_floor<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("BEHZ floor input", (self.k() + self.bsk_len) * self.degree, input.len())?;
        check_len("BEHZ floor output", self.bsk_len * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.floor_batch_raw(&[(input, output)]) }
    }

    /// [`BehzContext::bsk_to_q`] (S4): `input` over `B_sk`, `output` over `q`. Errors as
    /// [`decrypt_scale_round`](Self::decrypt_scale_round).
    pub fn bsk_to_q<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("BEHZ Shenoy-Kumaresan input", self.bsk_len * self.degree, input.len())?;
        check_len("BEHZ Shenoy-Kumaresan output", self.k() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.bsk_to_q_batch_raw(&[(input, output)]) }
    }

    /// [`BehzContext::extend_poly`] on the device: `input` over `q`, the result over `q u B_sk`
    /// (the ring of `q_bsk`), `input`'s limbs copied by the same kernel.
    ///
    /// Errors: [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `input`'s ring is `q` and `q_bsk`'s is
    /// `q u B_sk` at this degree; [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext)
    /// for another device.
    pub fn extend_poly(&self, input: &DevicePoly<Coeff>, q_bsk: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "BEHZ extension input")?;
        check_poly(&self.kernels, q_bsk, &self.q_bsk, self.degree, "BEHZ extension output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q_bsk.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let copy = self.kernels.write_address(&mut output)?;
        let bsk_part = copy + 8 * (self.k() * self.degree) as u64;
        // SAFETY: the kernel writes all of `output`: the q limbs by the copy, the B_sk limbs
        // after them; the rings were checked, so the lengths are those of the tables.
        unsafe { self.extend_raw(input_address, copy, bsk_part) }?;
        Ok(DevicePoly::from_device_buffer(q_bsk, output)?)
    }

    /// [`BehzContext::scale_down_poly`] on the device: [`fast_floor`](Self::fast_floor) then
    /// [`bsk_to_q`](Self::bsk_to_q), `input` over `q u B_sk`, the result over `q`. Errors as
    /// [`extend_poly`](Self::extend_poly).
    pub fn scale_down_poly(&self, input: &DevicePoly<Coeff>, q: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q_bsk, self.degree, "BEHZ scaling input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "BEHZ scaling output")?;
        let mut floored = self.kernels.alloc_for_kernels(self.bsk_len * self.degree)?;
        let mut output = self.kernels.alloc_for_kernels(self.k() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let floored_address = self.kernels.write_address(&mut floored)?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the floor kernel writes all of `floored`, the Shenoy-Kumaresan kernel all of
        // `output`; lengths follow from the checked rings. `floored` is freed in stream order.
        unsafe {
            self.floor_batch_raw(&[(input_address, floored_address)])?;
            self.bsk_to_q_batch_raw(&[(floored_address, output_address)])?;
        }
        Ok(DevicePoly::from_device_buffer(q, output)?)
    }

    /// [`extend_poly`](Self::extend_poly) of 1 to 4 polynomials in one launch, into one batch
    /// over `q u B_sk` (in order). Errors as `extend_poly`, and
    /// [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for no input or more
    /// than 4.
    pub fn extend_batch(&self, inputs: &[&DevicePoly<Coeff>], q_bsk: &GpuContext) -> Result<DevicePolyBatch<Coeff>> {
        super::check_batch_size(inputs.len())?;
        check_poly(&self.kernels, q_bsk, &self.q_bsk, self.degree, "BEHZ extension output")?;
        for input in inputs {
            check_poly(&self.kernels, input.context(), &self.q, self.degree, "BEHZ extension input")?;
        }
        let (stride, copied) = (self.q_bsk.len() * self.degree, self.k() * self.degree);
        let (output, copy, members) = super::extension_members(&self.kernels, inputs, stride, copied)?;
        // SAFETY: member z writes all of polynomial z of `output`: its q limbs by the copy (at
        // the same offset before its B_sk limbs as member 0's), its B_sk limbs after them.
        unsafe { self.extend_batch_raw(&members, copy) }?;
        Ok(DevicePolyBatch::from_device_buffer(q_bsk, inputs.len(), output)?)
    }

    /// [`scale_down_poly`](Self::scale_down_poly) of every polynomial of a batch over
    /// `q u B_sk` (1 to 4), one launch per step for all of them. Errors as `scale_down_poly`,
    /// and [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for more than 4.
    pub fn scale_down_batch(&self, input: &DevicePolyBatch<Coeff>, q: &GpuContext) -> Result<Vec<DevicePoly<Coeff>>> {
        super::check_batch_size(input.len())?;
        check_poly(&self.kernels, input.context(), &self.q_bsk, self.degree, "BEHZ scaling input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "BEHZ scaling output")?;
        let (in_stride, bsk_len) = (self.q_bsk.len() * self.degree, self.bsk_len * self.degree);
        let (_floored, outputs, floor_members, sk_members) =
            super::scaling_members(&self.kernels, input, in_stride, bsk_len, self.k() * self.degree)?;
        // SAFETY: floor member z reads polynomial z of the batch (over q u B_sk: checked) and
        // writes all of its |B_sk| N words of `floored`; Shenoy-Kumaresan member z reads those
        // and writes all of output z. `floored` is freed in stream order.
        unsafe {
            self.floor_batch_raw(&floor_members)?;
            self.bsk_to_q_batch_raw(&sk_members)?;
        }
        outputs.into_iter().map(|output| Ok(DevicePoly::from_device_buffer(q, output)?)).collect()
    }
}

impl GpuBehz {
    /// Queues decryption's scale-and-round of `[input + addend]_q` (`addend` 0: of `input`)
    /// into `output` (device addresses; the contract of `ScaleAndRound::decrypt_raw`).
    unsafe fn decrypt_kernel(&self, input: u64, addend: u64, output: u64) -> Result<()> {
        let layout = &self.layout;
        let params = BehzDecryptParams {
            input,
            addend,
            output,
            q: self.tables.at(layout.q_moduli),
            scale: self.tables.at(layout.dec_scale),
            scale_shoup: self.tables.at(layout.dec_scale_shoup),
            row_t: self.tables.at(layout.dec_row_t),
            row_t_shoup: self.tables.at(layout.dec_row_t_shoup),
            row_gamma: self.tables.at(layout.dec_row_gamma),
            row_gamma_shoup: self.tables.at(layout.dec_row_gamma_shoup),
            t: self.t,
            gamma: self.gamma,
            gamma_inv_t: self.gamma_inv_t.0,
            gamma_inv_t_shoup: self.gamma_inv_t.1,
            n: self.degree as u64,
            k: self.k() as u32,
            lanes: super::launch::decrypt_lanes(self.q.len()),
        };
        // SAFETY: the buffers are as the trait's contract requires (the caller's duty).
        unsafe { self.kernels.behz_decrypt(params) }
    }
}

super::decryption_methods!(GpuBehz, "BEHZ");
