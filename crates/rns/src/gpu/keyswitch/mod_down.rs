//! ModDown: `(x - conv_{P->q}(x mod P)) P^-1` in the coefficient representation, and in the
//! evaluation representation (a kernel of its own, or the epilogue of the forward transform).

use bytemuck::{Pod, Zeroable};
use poly::{Coeff, Eval};
use poly_cuda::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig};
use poly_cuda::kernel::THREADS;
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuError};

use super::GpuKeySwitch;
use crate::gpu::launch::{CONVERT_BATCH, ConvertKernel, ConverterLayout};
use crate::gpu::{Result, check_poly};
use crate::{RnsError, check_len};

/// Mirror of `ModDownEvalParams` in `kernels/keyswitch.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct ModDownEvalParams {
    pub(super) sums: u64,
    pub(super) remainder: u64,
    pub(super) addend0: u64,
    pub(super) addend1: u64,
    pub(super) out0: u64,
    pub(super) out1: u64,
    pub(super) moduli: u64,
    pub(super) p_inv: u64,
    pub(super) p_inv_shoup: u64,
    pub(super) error_scale: u64,
    pub(super) log_n: u32,
    pub(super) limbs_q: u32,
    pub(super) limbs_qp: u32,
    pub(super) unused: u32,
}

const _: () = assert!(size_of::<ModDownEvalParams>() == 10 * 8 + 4 * 4);

impl GpuKeySwitch {
    /// ModDown from `input` (`(k + l) N` words) to `output` (`k N` words).
    pub(super) unsafe fn mod_down_raw(&self, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded (a batch of one).
        unsafe { self.mod_down_batch_raw(&[(input, output)]) }
    }

    /// [`mod_down_raw`](Self::mod_down_raw) of up to `CONVERT_BATCH` `(input, output)` pairs
    /// in one launch.
    pub(super) unsafe fn mod_down_batch_raw(&self, pairs: &[(u64, u64)]) -> Result<()> {
        let Some(&(input, output)) = pairs.first() else { return Ok(()) };
        let k = self.q.len();
        let p_offset = 8 * (k * self.row) as u64;
        let mut params = self.p_to_q.params(&self.tables, self.row, k);
        params.input = input + p_offset;
        params.extra = input;
        params.output = output;
        params.epi_a = self.tables.at(self.p_inv_q);
        params.epi_a_shoup = self.tables.at(self.p_inv_q_shoup);
        // Each member reads its P limbs (its input's extra, the q limbs, at the same offset).
        let members: Vec<(u64, u64)> = pairs.iter().map(|&(input, output)| (input + p_offset, output)).collect();
        // SAFETY: tables of this context; buffers as documented by the caller.
        unsafe { self.kernels.convert_batch(ConvertKernel::ModDown, params, &members) }
    }

    /// [`KeySwitchContext::mod_down`](crate::KeySwitchContext::mod_down) on the device: `input` over `q u P`, `output` over `q`.
    /// Errors: [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) or
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext); `output` is untouched then.
    pub fn mod_down<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("ModDown input", self.stride(), input.len())?;
        check_len("ModDown output", self.q.len() * self.row, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_down_raw(input, output) }
    }

    /// [`KeySwitchContext::mod_down_poly`](crate::KeySwitchContext::mod_down_poly) on the device: `input` over `q u P`, the result
    /// `round(x / P)` over `q`. Errors as [`mod_up_poly`](Self::mod_up_poly) (no digit).
    pub fn mod_down_poly(&self, input: &DevicePoly<Coeff>, q: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "ModDown output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.row)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k limbs of `output`; the rings were checked.
        unsafe { self.mod_down_raw(input_address, output_address) }?;
        Ok(DevicePoly::from_device_buffer(q, output)?)
    }

    /// ModDown of both key-switching sums in the evaluation representation, each added to an
    /// optional addend: `[addend_0 + F(E ModDown(E^-1 s_0)), addend_1 + F(E ModDown(E^-1 s_1))]`
    /// over `q` (`ring_q`), `F` the forward transform and `s_k` the sums of
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (evaluation representation over
    /// `q u P`), `E = error_scale` (1, or the scale of [`with_error_scale`](Self::with_error_scale)).
    /// Only the `P` limbs go back to coefficients: they are copied out, inverse transformed
    /// over `ring_p` (the special primes), converted exactly to `q` (the conversion's scale
    /// times `E^-1`) and forward transformed, and `addend + (s_q - E r) P^-1` is formed (in the
    /// transform's last pass where [`DevicePolyBatch::forward_mod_down_supported`] says so, by a
    /// kernel of its own otherwise): the forward
    /// transform of the coefficient ModDown (linear per prime), word for word. NTT rings only
    /// (the host-side composition serves the DGTs).
    ///
    /// Errors: [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `sums` is over `q u P`, `ring_q` is `q`,
    /// `ring_p` is `P` and the addends are over `q`; [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) unless
    /// `sums` holds two polynomials; [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for an `error_scale` other
    /// than 1 and this context's;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for another device.
    /// Nothing is queued on an input error; the inputs are never changed.
    pub fn mod_down_eval(
        &self,
        sums: &DevicePolyBatch<Eval>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<[DevicePoly<Eval>; 2]> {
        self.check_mod_down(sums, ring_p, ring_q, error_scale, addends)?;
        let (n, k, l) = (self.row, self.q.len(), self.p.len());
        let stride = self.stride();
        // The P limbs of both sums, [2][l][N].
        let stream = self.kernels.stream();
        let mut special = self.kernels.alloc_for_kernels(2 * l * n)?;
        for poly in 0..2 {
            let from = poly * stride + k * n;
            let source = sums.device_buffer().slice(from..from + l * n);
            let mut destination = special.slice_mut(poly * l * n..(poly + 1) * l * n);
            stream
                .memcpy_dtod(&source, &mut destination)
                .map_err(|e| GpuError::Driver { call: "cuMemcpyDtoDAsync", reason: e.to_string() })?;
        }
        self.mod_down_eval_split(sums, special, ring_p, ring_q, error_scale, addends)
    }

    /// The checks of [`mod_down_eval`](Self::mod_down_eval) (rings, sums, addends, error
    /// scale), and the converter `P -> q` of that error scale.
    pub(super) fn check_mod_down(
        &self,
        sums: &DevicePolyBatch<Eval>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<&ConverterLayout> {
        check_poly(&self.kernels, sums.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, ring_q, &self.q, self.degree, "ModDown output")?;
        check_poly(&self.kernels, ring_p, &self.p, self.degree, "ModDown special ring")?;
        check_len("ModDown sums", 2, sums.len())?;
        for addend in addends.iter().flatten() {
            check_poly(&self.kernels, addend.context(), &self.q, self.degree, "ModDown addend")?;
        }
        let converter = match (error_scale, &self.p_to_q_scaled) {
            (1, _) => &self.p_to_q,
            (e, Some((scaled_e, layout))) if e == *scaled_e => layout,
            (e, _) => {
                return Err(RnsError::InvalidParameter {
                    name: "error scale",
                    value: e,
                    reason: "must be 1 or the scale these tables were prepared with",
                }
                .into());
            }
        };
        Ok(converter)
    }

    /// [`mod_down_eval`](Self::mod_down_eval) of sums whose special limbs are in `special`
    /// (`[2][l][N]`, evaluation representation; consumed) rather than in `sums` (whose limbs of
    /// `q` are read). Errors as `mod_down_eval`, and [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) for a
    /// `special` buffer of another length; nothing is queued then.
    pub(super) fn mod_down_eval_split(
        &self,
        sums: &DevicePolyBatch<Eval>,
        special: CudaSlice<u64>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<[DevicePoly<Eval>; 2]> {
        let converter = self.check_mod_down(sums, ring_p, ring_q, error_scale, addends)?;
        check_len("ModDown special sums", 2 * self.p.len() * self.row, special.len())?;
        let (n, k, l) = (self.row, self.q.len(), self.p.len());
        let stride = self.stride();
        let stream = self.kernels.stream();
        let special = DevicePolyBatch::<Eval>::from_device_buffer(ring_p, 2, special)?.inverse()?;
        let special_address = self.kernels.read_address(special.device_buffer())?;
        let mut remainder = self.kernels.alloc_for_kernels(2 * k * n)?;
        let remainder_address = self.kernels.write_address(&mut remainder)?;
        let members: Vec<(u64, u64)> = (0..2)
            .map(|poly| (special_address + 8 * (poly * l * n) as u64, remainder_address + 8 * (poly * k * n) as u64))
            .collect();
        let mut params = converter.params(&self.tables, n, k);
        (params.input, params.output) = members[0];
        // SAFETY: a converter P -> q of this context; member `poly` reads the l limbs of
        // polynomial `poly` of `special` ([2][l][N]) and writes all k limbs of polynomial
        // `poly` of `remainder` ([2][k][N]); both buffers are on this stream.
        unsafe { self.kernels.convert_batch(ConvertKernel::Exact, params, &members) }?;
        let remainder = DevicePolyBatch::<Coeff>::from_device_buffer(ring_q, 2, remainder)?;
        let mut out0 = self.kernels.alloc_for_kernels(k * n)?;
        let mut out1 = self.kernels.alloc_for_kernels(k * n)?;
        let addend_address = |addend: Option<&DevicePoly<Eval>>| -> Result<u64> {
            addend.map_or(Ok(0), |a| self.kernels.read_address(a.device_buffer()))
        };
        if DevicePolyBatch::<Coeff>::forward_mod_down_supported(ring_q, 2) {
            let target = poly_cuda::raw::ModDownTarget {
                sums: self.kernels.read_address(sums.device_buffer())?,
                sums_poly_words: stride,
                addends: [addend_address(addends[0])?, addend_address(addends[1])?],
                outputs: [self.kernels.write_address(&mut out0)?, self.kernels.write_address(&mut out1)?],
                p_inv: [self.tables.at(self.p_inv_q), self.tables.at(self.p_inv_q_shoup)],
                e_p_inv: match error_scale {
                    1 => [self.tables.at(self.p_inv_q), self.tables.at(self.p_inv_q_shoup)],
                    _ => [self.tables.at(self.e_p_inv_q.0), self.tables.at(self.e_p_inv_q.1)],
                },
            };
            // SAFETY: `sums` holds two polynomials over q u P (checked), `stride` words apart,
            // whose first k limbs are q's (the transform's primes); the addends (checked: over
            // q) and the fresh outputs are polynomials over q; `p_inv` and `e_p_inv` hold k
            // words each of this context's tables (E = error_scale, checked above). All live on this device until the work has run
            // (the outputs are returned, the others borrowed for this call and the tables
            // owned by self).
            unsafe { remainder.forward_mod_down(&target) }?;
            return Ok([DevicePoly::from_device_buffer(ring_q, out0)?, DevicePoly::from_device_buffer(ring_q, out1)?]);
        }
        let remainder = remainder.forward()?;
        let params = ModDownEvalParams {
            sums: self.kernels.read_address(sums.device_buffer())?,
            remainder: self.kernels.read_address(remainder.device_buffer())?,
            addend0: addend_address(addends[0])?,
            addend1: addend_address(addends[1])?,
            out0: self.kernels.write_address(&mut out0)?,
            out1: self.kernels.write_address(&mut out1)?,
            moduli: self.tables.at(self.q_p_moduli),
            p_inv: self.tables.at(self.p_inv_q),
            p_inv_shoup: self.tables.at(self.p_inv_q_shoup),
            error_scale,
            log_n: n.trailing_zeros(),
            limbs_q: k as u32,
            limbs_qp: self.q_p.len() as u32,
            unused: 0,
        };
        let blocks = (k * n).div_ceil(THREADS as usize);
        let config = LaunchConfig { grid_dim: (blocks as u32, 2, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut builder = self.batch.keyswitch_mod_down_eval.builder(stream);
        builder.arg_pod(&params);
        // SAFETY: matches `keyswitch_mod_down_eval(ModDownEvalParams)` of kernels/keyswitch.cu
        // (the struct mirrored field by field, size asserted above): `sums` holds [2][k + l][N]
        // words (checked: two polynomials over q u P), `remainder` [2][k][N], each addend (or
        // null) and output k N; the moduli table's first k triples are q's (q u P lists q
        // first), `p_inv`/`p_inv_shoup` k words each. N is a power of two (a ring degree), so
        // log_n is exact; the grid covers the k N words of both outputs. Every buffer is on
        // this stream; the outputs are fresh and written whole before they are returned.
        unsafe { builder.launch(config) }?;
        Ok([DevicePoly::from_device_buffer(ring_q, out0)?, DevicePoly::from_device_buffer(ring_q, out1)?])
    }

    /// [`mod_down_poly`](Self::mod_down_poly) of every polynomial of a batch over `q u P`
    /// (e.g. the two key-switching sums after one inverse transform of both), in order.
    /// Errors as `mod_down_poly`.
    pub fn mod_down_batch(&self, input: &DevicePolyBatch<Coeff>, q: &GpuContext) -> Result<Vec<DevicePoly<Coeff>>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "ModDown output")?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let mut outputs = Vec::with_capacity(input.len());
        let mut pairs = Vec::with_capacity(input.len());
        for index in 0..input.len() {
            let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.row)?;
            let at = input_address + 8 * (index * self.stride()) as u64;
            pairs.push((at, self.kernels.write_address(&mut output)?));
            outputs.push(output);
        }
        for chunk in pairs.chunks(CONVERT_BATCH) {
            // SAFETY: each pair is polynomial `index` of the batch (its ring was checked:
            // q u P) and a fresh output of k limbs, which the kernel writes whole.
            unsafe { self.mod_down_batch_raw(chunk) }?;
        }
        outputs.into_iter().map(|output| Ok(DevicePoly::from_device_buffer(q, output)?)).collect()
    }
}
