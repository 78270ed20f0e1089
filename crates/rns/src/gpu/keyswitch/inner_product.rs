//! The inner product with the key: `sum_j ext_j key_b_j` and `sum_j ext_j key_a_j` over the
//! extended digits, as its own kernel or fused with the forward transform, in chunks of digits.

use bytemuck::{Pod, Zeroable};
use poly::{Coeff, Eval, TransformKind};
use poly_cuda::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use poly_cuda::kernel::{MAX_GRID_Y, linear_config};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuError};

// The grid-stride inner product stops at MAX_STRIDE_BLOCKS (the conversions' geometry).
use super::{GpuKeySwitch, MAX_DIGITS_PER_LAUNCH, is_gaussian, misaligned};
use crate::gpu::launch::MAX_STRIDE_BLOCKS;
use crate::gpu::{GpuRnsError, Result, check_poly};
use crate::{Extension, RnsError, check_len};

/// Mirror of `InnerProductParams` in `kernels/keyswitch.cu`: device addresses as `u64`, the
/// key digits' addresses in the two fixed arrays (unused entries 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(super) struct InnerProductParams {
    pub(super) extended: u64,
    pub(super) output: u64,
    pub(super) moduli: u64,
    pub(super) key_b: [u64; MAX_DIGITS_PER_LAUNCH],
    pub(super) key_a: [u64; MAX_DIGITS_PER_LAUNCH],
    pub(super) n: u64,
    pub(super) log_n: u32,
    pub(super) limbs: u32,
    pub(super) digits: u32,
    pub(super) accumulate: u32,
    pub(super) special: u64,
    pub(super) special_from: u32,
    /// A Galois element whose automorphism the digits take first (NTT rings; 0: none).
    pub(super) galois: u32,
}

const _: () = assert!(size_of::<InnerProductParams>() == (5 + 2 * MAX_DIGITS_PER_LAUNCH) * 8 + 6 * 4);

impl GpuKeySwitch {
    /// The digits whose extensions fit in [`DEFAULT_BATCH_BYTES`](Self::DEFAULT_BATCH_BYTES) (at least 1).
    pub(super) fn default_chunk_digits(&self) -> usize {
        (Self::DEFAULT_BATCH_BYTES / (8 * self.stride()).max(1)).max(1)
    }

    /// `output[0] (+)= sum_t extended_t key_t.0`, `output[1] (+)= sum_t extended_t key_t.1`
    /// over `q u P` (products Gaussian when `gaussian`), in launches of at most
    /// [`Self::MAX_DIGITS_PER_LAUNCH`] digits; with `galois = g != 0`, `sigma_g(extended_t)`
    /// (NTT evaluations, read permuted) for `extended_t`. Caller: `extended` holds
    /// `keys.len()` polynomials, each key address one, `output` two; all 16-byte aligned, `N`
    /// even; `galois` 0, or odd and below `2N` with `gaussian` false.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn inner_product_raw(
        &self,
        gaussian: bool,
        extended: u64,
        keys: &[(u64, u64)],
        accumulate: bool,
        output: u64,
        special: Option<(u64, usize)>,
        galois: u32,
    ) -> Result<()> {
        let (n, limbs) = (self.row, self.q_p.len());
        let stride = self.stride();
        let pairs = stride / 2;
        let config = linear_config(pairs, MAX_STRIDE_BLOCKS);
        let kernel =
            if gaussian { &self.batch.keyswitch_inner_product_gaussian } else { &self.batch.keyswitch_inner_product };
        for (chunk_index, chunk) in keys.chunks(MAX_DIGITS_PER_LAUNCH).enumerate() {
            let first = chunk_index * MAX_DIGITS_PER_LAUNCH;
            let mut params = InnerProductParams {
                extended: extended + 8 * (first * stride) as u64,
                output,
                moduli: self.tables.at(self.q_p_moduli),
                key_b: [0; MAX_DIGITS_PER_LAUNCH],
                key_a: [0; MAX_DIGITS_PER_LAUNCH],
                n: n as u64,
                log_n: n.trailing_zeros(),
                limbs: limbs as u32,
                digits: chunk.len() as u32,
                accumulate: u32::from(accumulate || chunk_index > 0),
                special: special.map_or(0, |(address, _)| address),
                special_from: special.map_or(0, |(_, first)| first as u32),
                galois,
            };
            for (slot, &(b, a)) in chunk.iter().enumerate() {
                params.key_b[slot] = b;
                params.key_a[slot] = a;
            }
            let mut builder = kernel.builder(self.kernels.stream());
            builder.arg_pod(&params);
            // SAFETY: matches `keyswitch_inner_product[_gaussian](InnerProductParams)`: `moduli` is
            // this context's table of k + l moduli (limb = word >> log_n, N = 2^log_n even);
            // the caller vouches for `chunk.len()` extended polynomials from `params.extended`,
            // one polynomial per key address and two at `output`, 16-byte aligned, all on this
            // stream. The grid-stride loop covers all (k + l) N / 2 pairs.
            unsafe { builder.launch(config) }?;
        }
        Ok(())
    }

    /// The inner product of key switching on device slices: with `D = key.len() >= 1`,
    /// `extended` holding `D` polynomials over `q u P` in the evaluation representation of
    /// `transform` (one after the other) and each key digit `(b_t, a_t)` one polynomial over
    /// `q u P`, writes `sum_t extended_t b_t` and then `sum_t extended_t a_t` to `output` (two
    /// polynomials), or adds them to its values when `accumulate`. Products are
    /// coordinate-wise for [`TransformKind::Ntt`] and Gaussian on `(re, im)` pairs for the
    /// DGTs, as `poly::Poly::mul_add_assign` forms them; the words equal the CPU's.
    ///
    /// Errors: [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) (extended digits, key digit or output length),
    /// [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for an empty key or an odd degree,
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of another
    /// device or stream, [`GpuError::Unsupported`](poly_cuda::GpuError::Unsupported) for a
    /// buffer that is not 16-byte aligned (a view at an odd offset); `output` is untouched then.
    pub fn inner_product<E: DevicePtr<u64>, K: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        transform: TransformKind,
        extended: &E,
        key: &[(&K, &K)],
        accumulate: bool,
        output: &mut O,
    ) -> Result<()> {
        let stride = self.stride();
        if key.is_empty() {
            return Err(RnsError::InvalidParameter {
                name: "key-switching key digits",
                value: 0,
                reason: "the inner product needs at least one digit",
            }
            .into());
        }
        if !self.row.is_multiple_of(2) {
            return Err(RnsError::InvalidParameter {
                name: "degree",
                value: self.row as u64,
                reason: "the batched inner product needs an even degree",
            }
            .into());
        }
        check_len("key-switching extended digits", key.len() * stride, extended.len())?;
        for (b, a) in key {
            check_len("key-switching key digit", stride, b.len())?;
            check_len("key-switching key digit", stride, a.len())?;
        }
        check_len("key-switching accumulators", 2 * stride, output.len())?;
        let extended = self.kernels.read_address(extended)?;
        let mut keys = Vec::with_capacity(key.len());
        for (b, a) in key {
            keys.push((self.kernels.read_address(*b)?, self.kernels.read_address(*a)?));
        }
        let output = self.kernels.write_address(output)?;
        for (what, address) in [("extended digits", extended), ("accumulators", output)]
            .into_iter()
            .chain(keys.iter().flat_map(|&(b, a)| [("key digit", b), ("key digit", a)]))
        {
            if address % 16 != 0 {
                return Err(misaligned(what, address));
            }
        }
        // SAFETY: lengths, streams and alignment checked above; N even.
        unsafe { self.inner_product_raw(is_gaussian(transform), extended, &keys, accumulate, output, None, 0) }
    }

    /// Key switching's accumulation, batched: with `key` one pair `(b_j, a_j)` per digit over
    /// `q u P` (evaluation representation of `q_p`'s transform), returns the two polynomials
    /// `sum_j ModUp_j(input) b_j` and `sum_j ModUp_j(input) a_j` over `q u P` (evaluation
    /// representation), in one batch `[b sum, a sum]`: exactly what the CPU's loop of
    /// [`KeySwitchContext::mod_up`](crate::KeySwitchContext::mod_up), forward transform and `mul_add_assign` gives.
    ///
    /// The extended digits of `input` go into one buffer `[digits][q u P][N]` and get one
    /// forward transform (over NTT rings, one-prime digits are extended by that transform's
    /// first pass; other digits by their ModUp launches first), and one kernel forms both
    /// sums. At most [`DEFAULT_BATCH_BYTES`](Self::DEFAULT_BATCH_BYTES) of extended digits are held at once: beyond that
    /// (or when the allocation runs out of memory) the digits are processed in chunks whose
    /// sums accumulate.
    ///
    /// Errors: [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `input`'s ring is `q` and `q_p`'s is `q u P`
    /// at this degree; [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) unless `key` has one pair per digit;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) or a
    /// [`poly::PolyError::ContextMismatch`] (as a [`GpuError`]) for a key polynomial of another
    /// device or ring; device errors. Nothing is queued on an input error.
    pub fn key_switch_accumulate(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
    ) -> Result<DevicePolyBatch<Eval>> {
        let chunk = self.default_chunk_digits();
        self.key_switch_accumulate_in_chunks(input, key, extension, q_p, chunk)
    }

    /// [`key_switch_accumulate`](Self::key_switch_accumulate) holding the extended digits of
    /// at most `max_chunk_digits` digits at once (at least 1; fewer where the transform's grid
    /// limit of 65535 limbs per launch or an out-of-memory allocation asks for it). Same
    /// values for every chunk size; errors as `key_switch_accumulate`, and
    /// [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for `max_chunk_digits == 0`.
    pub fn key_switch_accumulate_in_chunks(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
        max_chunk_digits: usize,
    ) -> Result<DevicePolyBatch<Eval>> {
        self.accumulate_in_chunks(input, None, key, extension, q_p, max_chunk_digits, None)
    }

    /// The device addresses of the key's digits `(b_j, a_j)`, each checked to be over `q_p`'s
    /// ring on this device and 16-byte aligned (the inner product's loads).
    pub(super) fn key_addresses(
        &self,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        q_p: &GpuContext,
    ) -> Result<Vec<(u64, u64)>> {
        let mut keys = Vec::with_capacity(key.len());
        for (b, a) in key {
            q_p.check_compatible(b.context())?;
            q_p.check_compatible(a.context())?;
            let pair = (self.kernels.read_address(b.device_buffer())?, self.kernels.read_address(a.device_buffer())?);
            if let Some(&address) = [pair.0, pair.1].iter().find(|&&address| address % 16 != 0) {
                return Err(misaligned("key digit", address));
            }
            keys.push(pair);
        }
        Ok(keys)
    }

    /// The digits' own limbs as the fused inner product reads them from `input_eval` (the
    /// input in the evaluation representation): its device address and the digits' size `a`,
    /// where every digit `d` is the limbs `d a .. min((d + 1) a, k)` of `q` with `a >= 2`
    /// (one-prime digits are extended inside the transform instead). `None` otherwise.
    pub(super) fn own_limbs(&self, input_eval: Option<&DevicePoly<Eval>>) -> Result<Option<(u64, usize)>> {
        let Some(input_eval) = input_eval else { return Ok(None) };
        check_poly(&self.kernels, input_eval.context(), &self.q, self.degree, "key-switching input (evaluations)")?;
        let k = self.q.len();
        let size = self.digits.first().map_or(0, |(range, _)| range.len());
        let uniform = size >= 2
            && self
                .digits
                .iter()
                .enumerate()
                .all(|(d, (range, _))| range.start == d * size && range.end == k.min((d + 1) * size));
        if !uniform {
            return Ok(None);
        }
        Ok(Some((self.kernels.read_address(input_eval.device_buffer())?, size)))
    }

    /// [`key_switch_accumulate_in_chunks`](Self::key_switch_accumulate_in_chunks), with the
    /// input's evaluations where the caller has them ([`own_limbs`](Self::own_limbs)): the
    /// fused inner product then reads the digits' own limbs there (same words). With `special`
    /// (a buffer of `[2][l][N]` words), the sums' special limbs go there instead of into the
    /// returned batch, whose rows of them are then unwritten.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn accumulate_in_chunks(
        &self,
        input: &DevicePoly<Coeff>,
        input_eval: Option<&DevicePoly<Eval>>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
        max_chunk_digits: usize,
        special: Option<&mut CudaSlice<u64>>,
    ) -> Result<DevicePolyBatch<Eval>> {
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "key-switching input")?;
        let own = self.own_limbs(input_eval)?;
        let special = match special {
            Some(buffer) => {
                check_len("key-switching special sums", 2 * self.p.len() * self.row, buffer.len())?;
                Some((self.kernels.write_address(buffer)?, self.q.len()))
            }
            None => None,
        };
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "key-switching ring q u P")?;
        let digits = self.digits.len();
        check_len("key-switching key digits", digits, key.len())?;
        if max_chunk_digits == 0 {
            return Err(RnsError::InvalidParameter {
                name: "digits per chunk",
                value: 0,
                reason: "must be at least 1",
            }
            .into());
        }
        let keys = self.key_addresses(key, q_p)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let gaussian = is_gaussian(q_p.ring().transform());
        let stride = self.stride();
        let limbs = self.q_p.len();
        let mut chunk = max_chunk_digits.min(digits).min((MAX_GRID_Y / limbs).max(1));
        let mut accumulators = self.kernels.alloc_for_kernels(2 * stride)?;
        let accumulators_address = self.kernels.write_address(&mut accumulators)?;
        let mut start = 0;
        while start < digits {
            let count = chunk.min(digits - start);
            if !gaussian && DevicePolyBatch::forward_inner_product_supported(q_p, count) {
                let target = poly_cuda::raw::InnerProductKeys {
                    keys: &keys[start..start + count],
                    output: accumulators_address,
                    accumulate: start > 0,
                    own: own.map(|(source, digit_limbs)| poly_cuda::raw::OwnLimbs {
                        source,
                        first_digit: start,
                        digit_limbs,
                        limbs_q: self.q.len(),
                    }),
                    special,
                };
                // SAFETY: one key pair per digit of the chunk (rings checked: q u P at this
                // degree, 16-byte aligned), two accumulator polynomials over q u P apart from
                // the keys and the input; all on this device, alive until the work has run
                // (the keys are borrowed for this call, the accumulators returned); the own
                // limbs' source, when given, is the input's evaluations over q (checked by
                // own_limbs), borrowed for this call.
                match unsafe {
                    self.extended_digits_inner_product(input, start, count, extension, q_p, input_address, target)
                } {
                    Ok(()) => {
                        start += count;
                        continue;
                    }
                    Err(GpuRnsError::Gpu(GpuError::OutOfMemory { .. })) if count > 1 => {
                        chunk = count / 2;
                        continue;
                    }
                    Err(error) => return Err(error),
                }
            }
            let transformed = match self.extended_digits(input, start, count, extension, q_p, input_address) {
                Ok(batch) => batch,
                Err(GpuRnsError::Gpu(GpuError::OutOfMemory { .. })) if count > 1 => {
                    chunk = count / 2;
                    continue;
                }
                Err(error) => return Err(error),
            };
            let extended_address = self.kernels.read_address(transformed.device_buffer())?;
            // SAFETY: `count` transformed polynomials, one key polynomial per address (rings
            // checked: q u P at this degree), two accumulator polynomials; device allocations
            // are 256-byte aligned and every polynomial has an even number of words (N >= 2^10
            // for a ring context; the special buffer, when given, holds 2 l N words, checked). The
            // first chunk writes the accumulators, the others add.
            unsafe {
                self.inner_product_raw(
                    gaussian,
                    extended_address,
                    &keys[start..start + count],
                    start > 0,
                    accumulators_address,
                    special,
                    0,
                )
            }?;
            start += count;
        }
        Ok(DevicePolyBatch::from_device_buffer(q_p, 2, accumulators)?)
    }

    /// The digits `start .. start + count` of `input` extended to `q u P` (ModUp) and forward
    /// transformed, as one batch. Over an NTT ring a run of consecutive one-prime digits is
    /// extended by the transform's first pass (`DevicePolyBatch::forward_extending_limbs`: no
    /// ModUp kernel and no coefficient-form copy); otherwise ModUp kernels, then the transform.
    pub(super) fn extended_digits(
        &self,
        input: &DevicePoly<Coeff>,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
    ) -> Result<DevicePolyBatch<Eval>> {
        if let Some(first_limb) = self.first_pass_extension(start, count, q_p)? {
            let centered = extension == Extension::Exact;
            return Ok(DevicePolyBatch::<Eval>::forward_extending_limbs(q_p, input, first_limb, count, centered)?);
        }
        Ok(self.mod_up_batch(start, count, extension, q_p, input_address, true)?.forward()?)
    }

    /// [`extended_digits`](Self::extended_digits) with the inner product in the transform's
    /// last pass: the extended, transformed digits are never stored, their products with the
    /// key digits are summed into `target.output`.
    ///
    /// # Safety
    /// As [`DevicePolyBatch::forward_extending_limbs_inner_product`] for `target`.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn extended_digits_inner_product(
        &self,
        input: &DevicePoly<Coeff>,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
        target: poly_cuda::raw::InnerProductKeys<'_>,
    ) -> Result<()> {
        if let Some(first_limb) = self.first_pass_extension(start, count, q_p)? {
            let centered = extension == Extension::Exact;
            // SAFETY: forwarded from the caller.
            return Ok(unsafe {
                DevicePolyBatch::<Eval>::forward_extending_limbs_inner_product(
                    q_p, input, first_limb, count, centered, target,
                )
            }?);
        }
        let extended = self.mod_up_batch(start, count, extension, q_p, input_address, target.own.is_none())?;
        // SAFETY: forwarded from the caller.
        Ok(unsafe { extended.forward_inner_product(target) }?)
    }
}
