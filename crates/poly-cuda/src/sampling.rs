//! Sampling on the device, bit-exact with [`poly::sampling`]: the kernels of
//! `kernels/sampling.cu` compute the same ChaCha20 keystream (`kernels/include/chacha20.cuh`) and
//! the same distributions, so `DevicePoly::sample_*` downloads to exactly what `Poly::sample_*`
//! returns for the same `(seed, poly_index)`. Layout and distributions: `docs/sampling.md`.
//!
//! One GPU thread computes one ChaCha20 block: four uniform coefficients, or eight ternary or
//! binomial coefficients, which it writes into the limbs of its grid row (the limbs are spread
//! over the grid's rows so that small degrees still occupy the GPU).

use cudarc::driver::{CudaSlice, LaunchConfig};
use poly::sampling::{CHACHA_BLOCK_WORDS, Distribution, MIN_SAMPLING_DEGREE};
use poly::{Coeff, PolyError, Representation, Seed};

use crate::context::GpuContext;
use crate::device::GpuDevice;
use crate::device_poly::DevicePoly;
use crate::error::{GpuError, Result};
use crate::kernel::{Kernel, linear_config};

crate::kernel_set! {
    /// The kernels of `kernels/sampling.cu`.
    pub(crate) struct SamplingKernels(hegpu_kernels::SAMPLING) {
        sample_uniform_kernel,
        sample_ternary_kernel,
        sample_cbd_kernel,
        chacha20_keystream_kernel,
    }
}

/// Uniform coefficients per ChaCha20 block (four words each).
const UNIFORM_PER_BLOCK: usize = 4;
/// Ternary or binomial coefficients per ChaCha20 block (two words each).
const SMALL_PER_BLOCK: usize = 8;

fn config(threads: usize) -> LaunchConfig {
    // The kernels loop over the blocks (grid stride), so the grid may be capped.
    linear_config(threads, i32::MAX as usize)
}

/// `(limbs, log N)` as the kernels take them. The ring context guarantees a power-of-two degree
/// of at least 2^10 and at most `poly::context::MAX_LIMBS` limbs; the checks keep the kernels' assumptions explicit.
fn geometry(context: &GpuContext) -> Result<(u32, u32)> {
    let degree = context.degree();
    if !degree.is_power_of_two() || degree < MIN_SAMPLING_DEGREE {
        return Err(PolyError::InvalidDegree { degree, reason: "sampling kernels need a power of two >= 8" }.into());
    }
    let limbs = u32::try_from(context.num_limbs())
        .map_err(|_| PolyError::InvalidModulusCount { count: context.num_limbs(), max: poly::context::MAX_LIMBS })?;
    Ok((limbs, degree.trailing_zeros()))
}

/// Queues `sample_uniform_kernel` writing all `L * N` values of `out`.
fn launch_uniform(
    context: &GpuContext,
    threads: usize,
    out: &mut CudaSlice<u64>,
    seed: &Seed,
    stream_id: u64,
) -> Result<()> {
    let (limbs, log_degree) = geometry(context)?;
    let expected = context.poly_len();
    if out.len() != expected {
        return Err(GpuError::LengthMismatch { expected, actual: out.len() });
    }
    let device = context.device();
    let key = seed.key_words(); // zeroized when dropped, after the launch has copied it
    let mut builder = device.kernels().sampling.sample_uniform_kernel.builder(device.stream());
    builder.arg(out).arg(context.moduli_table()).arg(&limbs).arg(&log_degree).arg(&*key).arg(&stream_id);
    // SAFETY: the arguments match `sample_uniform_kernel(uint64_t* out, const modarith::Modulus*
    // moduli, uint32_t limb_count, uint32_t log_degree, ChaChaKey key, uint64_t stream_id)` in
    // kernels/sampling.cu: `out` holds L * N u64 (checked above) in a fresh allocation, so it is
    // 16-byte aligned for the kernel's paired stores; the moduli table holds L triples
    // `{p, barrett_hi, barrett_lo}` (= modarith::Modulus); `[u32; 8]` is the 32-byte, 4-aligned
    // `ChaChaKey`. The kernel writes only `out[0 .. L * N)`.
    unsafe { builder.launch(config(threads)) }?;
    Ok(())
}

impl<R: Representation> DevicePoly<R> {
    /// A polynomial sampled uniformly modulo each `q_i` on the device: bit-exact with
    /// [`poly::Poly::sample_uniform`] (`poly::sampling::sample_uniform`) for the same seed and
    /// index. Errors: `poly_index >= 2^56` ([`PolyError::InvalidParameter`]), allocation or
    /// launch failures.
    pub fn sample_uniform(context: &GpuContext, seed: &Seed, poly_index: u64) -> Result<Self> {
        let stream_id = Distribution::Uniform.stream_id(poly_index)?;
        let len = context.poly_len();
        // SAFETY: the kernel writes every one of the `len` values before anything reads them.
        let mut data = unsafe { context.device().alloc::<u64>(len) }?;
        launch_uniform(context, len / UNIFORM_PER_BLOCK, &mut data, seed, stream_id)?;
        Self::from_device_buffer(context, without_padding(context, data)?)
    }
}

impl DevicePoly<Coeff> {
    /// A ternary polynomial (the same integer in {-1, 0, 1} in every limb) sampled on the device:
    /// bit-exact with [`poly::Poly::sample_ternary`]. Errors as [`DevicePoly::sample_uniform`].
    pub fn sample_ternary(context: &GpuContext, seed: &Seed, poly_index: u64) -> Result<Self> {
        let stream_id = Distribution::Ternary.stream_id(poly_index)?;
        Self::sample_small(context, |k| &k.sample_ternary_kernel, seed, stream_id)
    }

    /// A centered-binomial (eta = 21) polynomial (the same integer in every limb) sampled on the
    /// device: bit-exact with [`poly::Poly::sample_cbd`]. Errors as [`DevicePoly::sample_uniform`].
    pub fn sample_cbd(context: &GpuContext, seed: &Seed, poly_index: u64) -> Result<Self> {
        let stream_id = Distribution::CenteredBinomial.stream_id(poly_index)?;
        Self::sample_small(context, |k| &k.sample_cbd_kernel, seed, stream_id)
    }

    fn sample_small(
        context: &GpuContext,
        kernel: fn(&SamplingKernels) -> &Kernel,
        seed: &Seed,
        stream_id: u64,
    ) -> Result<Self> {
        let (limbs, log_degree) = geometry(context)?;
        let len = context.poly_len();
        let chacha_blocks = context.degree() / SMALL_PER_BLOCK;
        let limbs_per_group = small_limbs_per_group(chacha_blocks, limbs as usize);
        let groups = (limbs as usize).div_ceil(limbs_per_group);
        let config = LaunchConfig {
            grid_dim: (chacha_blocks.div_ceil(SMALL_THREADS) as u32, groups as u32, 1),
            block_dim: (SMALL_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: every one of the `len` values is written by the kernel below before anything
        // reads it (the grid covers the N / 8 ChaCha blocks and, in its rows, all L limbs).
        let mut data = unsafe { context.device().alloc::<u64>(len) }?;
        let device = context.device();
        let key = seed.key_words(); // zeroized when dropped, after the launch has copied it
        let limbs_per_group = limbs_per_group as u32;
        let mut builder = kernel(&device.kernels().sampling).builder(device.stream());
        builder
            .arg(&mut data)
            .arg(context.moduli_table())
            .arg(&limbs)
            .arg(&log_degree)
            .arg(&*key)
            .arg(&stream_id)
            .arg(&limbs_per_group);
        // SAFETY: the arguments match `kernel(uint64_t* out, const modarith::Modulus* moduli,
        // uint32_t limb_count, uint32_t log_degree, ChaChaKey key, uint64_t stream_id, uint32_t
        // limbs_per_group)` of kernels/sampling.cu: `out` holds L * N u64 in a fresh (16-byte
        // aligned) allocation; the moduli table holds L `modarith::Modulus` triples; `[u32; 8]`
        // is the `ChaChaKey`. The block size is the kernel's SMALL_SAMPLING_THREADS; the grid's x
        // covers N / 8 ChaCha blocks (N >= 8 is a power of two) and its y rows the limbs in
        // groups of `limbs_per_group` (at least 1). The kernel writes only `out[0 .. L * N)`.
        unsafe { builder.launch(config) }?;
        Self::from_device_buffer(context, without_padding(context, data)?)
    }
}

/// `data` sampled at the context's row length, with the words past `phi(m)` of a ring
/// `Z_q[x]/Phi_m` cleared (`crate::bluestein`'s layout: the first `phi(m)` words of each row are
/// the ring's sample, as `poly` cuts them); unchanged for the power-of-two ring.
fn without_padding(context: &GpuContext, data: CudaSlice<u64>) -> Result<CudaSlice<u64>> {
    match context.bluestein() {
        Some(bluestein) => bluestein.truncate_rows(&data, context.degree(), context.degree(), 1),
        None => Ok(data),
    }
}

/// Threads per block of the ternary and binomial kernels (`SMALL_SAMPLING_THREADS` there).
const SMALL_THREADS: usize = 128;
/// Threads a ternary or binomial launch aims for: enough to occupy every SM of a large GPU.
const SMALL_TARGET_THREADS: usize = 1 << 16;

/// Limbs written per grid row: few enough rows that the `chacha_blocks` threads of each row,
/// times the rows, reach [`SMALL_TARGET_THREADS`] (each row recomputes its ChaCha blocks).
fn small_limbs_per_group(chacha_blocks: usize, limbs: usize) -> usize {
    let groups = SMALL_TARGET_THREADS.div_ceil(chacha_blocks.max(1)).clamp(1, limbs.max(1));
    limbs.max(1).div_ceil(groups)
}

/// ChaCha20 keystream blocks `first_block .. first_block + block_count` of stream `stream_id`,
/// computed on the device, 16 words per block (block `b` at `16 * (b - first_block)`); block
/// counters wrap modulo 2^64. Equal to [`poly::sampling::chacha20_block`] block by block: a
/// check of the device block function, for tests and diagnostics.
pub fn chacha20_keystream(
    device: &GpuDevice,
    seed: &Seed,
    stream_id: u64,
    first_block: u64,
    block_count: usize,
) -> Result<Vec<u32>> {
    if block_count == 0 {
        return Ok(Vec::new());
    }
    let words = block_count.checked_mul(CHACHA_BLOCK_WORDS).ok_or(PolyError::InvalidParameter {
        name: "block_count",
        value: block_count as u64,
        reason: "too many blocks",
    })?;
    // SAFETY: the kernel writes all `words` values before the download reads them.
    let mut out = unsafe { device.alloc::<u32>(words) }?;
    let key = seed.key_words();
    let count = block_count as u64;
    let mut builder = device.kernels().sampling.chacha20_keystream_kernel.builder(device.stream());
    builder.arg(&mut out).arg(&*key).arg(&stream_id).arg(&first_block).arg(&count);
    // SAFETY: matches `chacha20_keystream_kernel(uint32_t* out, ChaChaKey key, uint64_t stream_id,
    // uint64_t first_block, uint64_t block_count)`; `out` holds 16 * block_count words, the most
    // the kernel writes.
    unsafe { builder.launch(config(block_count)) }?;
    device.download(&out)
}

#[cfg(test)]
mod tests {
    use super::small_limbs_per_group;

    #[test]
    fn limb_groups_cover_every_limb_once() {
        for log_n in 3..=17 {
            let blocks = (1usize << log_n) / 8;
            for limbs in 1..=70 {
                let per_group = small_limbs_per_group(blocks, limbs);
                let groups = limbs.div_ceil(per_group);
                assert!(per_group >= 1 && (groups - 1) * per_group < limbs && groups * per_group >= limbs);
                // Limbs share a row only when one row per limb would pass the target.
                assert!(per_group == 1 || blocks * limbs > super::SMALL_TARGET_THREADS);
            }
        }
        assert_eq!(small_limbs_per_group(8192, 48), 6);
        assert_eq!(small_limbs_per_group(512, 3), 1);
    }
}
