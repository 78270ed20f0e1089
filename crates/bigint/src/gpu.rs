//! Big integers on the GPU (feature `cuda`): the same multiplication, carries, Barrett
//! reduction and modular operations as the CPU reference, in the kernels of
//! `kernels/bigint.cu` (its header comment draws the data flow). Results equal the CPU's word
//! for word: every step computes exact integers or exact field elements.
//!
//! - [`GpuBigInt`]: a device with this crate's kernels and the NTT tables of each length used.
//! - [`GpuNat`]: an unsigned integer of a fixed number of limbs in device memory;
//!   [`GpuNatBatch`]: many of the same length in one buffer, multiplied by one launch sequence
//!   ([`GpuBigInt::mul_batch`]).
//! - [`GpuMultiplier`]: a fixed factor transformed once ([`GpuBigInt::mul_by`]).
//! - [`GpuMulPlan`]: products of a fixed size with every buffer allocated once and the fused
//!   five-launch sequence (`fused.rs`) captured as a CUDA graph: one graph launch per product.
//! - [`GpuModulus`]: a [`BarrettModulus`] on the device (the modulus, and the transforms of `m`
//!   and `mu`); [`GpuResidue`]: a value reduced modulo one of them, tagged with it, so that
//!   operands of another modulus are refused ([`BigIntError::WrongModulus`] names them).
//!
//! All work is queued on the device's one stream; downloads wait for it.

use std::sync::{Arc, Mutex, PoisonError};

use bytemuck::{Pod, Zeroable};
use poly_cuda::cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig};
use poly_cuda::kernel::{MAX_GRID_Y, THREADS, address, linear_config};
use poly_cuda::{GpuDevice, GpuError};

use crate::barrett::BarrettModulus;
use crate::error::{BigIntError, Result};
use crate::mul::MulShape;
use crate::nat::BigNat;
use crate::ntt::NttPlan;

mod fused;
mod modular;

pub use fused::{GpuMulPlan, GpuNatView, ProductOptions};
use fused::{Product, Second};
pub use modular::{GpuModulus, GpuResidue, GpuTable};

poly_cuda::kernel_set! {
    /// The kernels of `kernels/bigint.cu`, loaded once per device.
    pub struct BigintKernels(poly_cuda::hegpu_kernels::BIGINT) {
        bigint_split, bigint_ntt_fwd_group, bigint_ntt_inv_group, bigint_pointwise, bigint_gather,
        bigint_sum, bigint_carry_block, bigint_carry_blocks, bigint_carry_apply, bigint_select, bigint_lincomb,
        bigint_mul_tile, bigint_gather_carry, bigint_carry_finish
    }
}

/// Grid-stride kernels use at most this many blocks in x.
const MAX_BLOCKS: usize = 4096;
/// Largest group of NTT stages done in shared memory: 2^11 words, 16 KiB per block.
const MAX_GROUP_LOG: u32 = 11;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SplitParams {
    input: u64,
    out: u64,
    bit_offset: u64,
    in_limbs: u32,
    in_stride: u32,
    digit_bits: u32,
    count: u32,
    n: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct GatherParams {
    coeffs: u64,
    minuend: u64,
    lo: u64,
    hi: u64,
    n: u32,
    digit_bits: u32,
    out_limbs: u32,
    minuend_limbs: u32,
    minuend_stride: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CarryParams {
    lo: u64,
    hi: u64,
    out: u64,
    state: u64,
    agg: u64,
    top: u64,
    limbs: u32,
    blocks: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct TileParams {
    a_in: u64,
    b_in: u64,
    data_a: u64,
    data_b: u64,
    tw: u64,
    itw: u64,
    n_inv: u64,
    bit_offset: u64,
    a_limbs: u32,
    a_stride: u32,
    a_digits: u32,
    b_limbs: u32,
    b_stride: u32,
    b_digits: u32,
    digit_bits: u32,
    log_n: u32,
    s0: u32,
    g: u32,
    log_c: u32,
    flags: u32,
    mode: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct GatherCarryParams {
    coeffs: u64,
    minuend: u64,
    out: u64,
    state: u64,
    agg: u64,
    top: u64,
    n: u32,
    digit_bits: u32,
    limbs: u32,
    blocks: u32,
    minuend_limbs: u32,
    minuend_stride: u32,
}

const _: () = assert!(
    size_of::<SplitParams>() == 48
        && size_of::<GatherParams>() == 56
        && size_of::<CarryParams>() == 56
        && size_of::<TileParams>() == 120
        && size_of::<GatherCarryParams>() == 72
);

/// `bigint_mul_tile` flags (`kernels/bigint.cu`).
const TILE_SPLIT: u32 = 1;
const TILE_FORWARD: u32 = 2;
const TILE_PRODUCT: u32 = 4;
const TILE_INVERSE: u32 = 8;

/// NTT tables of one length on the device.
#[derive(Debug)]
struct GpuPlan {
    log_n: u32,
    forward: CudaSlice<u64>,
    inverse: CudaSlice<u64>,
    n_inv: u64,
}

/// An unsigned integer of a fixed number of 64-bit limbs (little-endian) in device memory.
#[derive(Debug)]
pub struct GpuNat {
    limbs: CudaSlice<u64>,
}

impl GpuNat {
    /// Number of limbs.
    pub fn len(&self) -> usize {
        self.limbs.len()
    }

    /// Whether it has no limb.
    pub fn is_empty(&self) -> bool {
        self.limbs.is_empty()
    }

    /// The device buffer.
    pub fn buffer(&self) -> &CudaSlice<u64> {
        &self.limbs
    }
}

/// `count` unsigned integers of `len` limbs each, member `i` at `i * len`.
#[derive(Debug)]
pub struct GpuNatBatch {
    data: CudaSlice<u64>,
    count: usize,
    len: usize,
}

impl GpuNatBatch {
    /// Members.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Limbs per member.
    pub fn limbs(&self) -> usize {
        self.len
    }
}

/// A fixed factor `b` of products `a b` with `a` of a fixed length, transformed once
/// ([`GpuBigInt::multiplier`]): each product by it ([`GpuBigInt::mul_by`]) transforms only `a`.
#[derive(Debug)]
pub struct GpuMultiplier {
    hat: CudaSlice<u64>,
    plan: Arc<GpuPlan>,
    shape: MulShape,
    a_limbs: usize,
    b_limbs: usize,
}

impl GpuMultiplier {
    /// Limbs of the other factor.
    pub fn a_limbs(&self) -> usize {
        self.a_limbs
    }

    /// Limbs of this factor.
    pub fn b_limbs(&self) -> usize {
        self.b_limbs
    }
}

/// A device with the big-integer kernels.
#[derive(Debug)]
pub struct GpuBigInt {
    device: Arc<GpuDevice>,
    kernels: Arc<BigintKernels>,
    plans: Mutex<Vec<Arc<GpuPlan>>>,
    options: ProductOptions,
}

fn u32_of(value: usize, what: &'static str) -> Result<u32> {
    u32::try_from(value).map_err(|_| BigIntError::Batch { reason: format!("{what} = {value} exceeds 2^32") })
}

impl GpuBigInt {
    /// Loads the kernels on `device`.
    pub fn new(device: Arc<GpuDevice>) -> Result<Self> {
        let kernels = device.kernel_set::<BigintKernels>()?;
        Ok(Self { device, kernels, plans: Mutex::new(Vec::new()), options: ProductOptions::default() })
    }

    /// The same, cutting products' transforms as `options` say. Errors:
    /// [`BigIntError::Batch`] for options out of range.
    pub fn with_product_options(mut self, options: ProductOptions) -> Result<Self> {
        options.check()?;
        self.options = options;
        Ok(self)
    }

    /// How products' transforms are cut.
    pub fn product_options(&self) -> ProductOptions {
        self.options
    }

    /// The device.
    pub fn device(&self) -> &Arc<GpuDevice> {
        &self.device
    }

    /// `len` uninitialized device words.
    ///
    /// # Safety
    /// Every word must be written before it is read.
    unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        // SAFETY: forwarded to the caller.
        unsafe { self.device.stream().alloc::<T>(len.max(1)) }
            .map_err(|e| BigIntError::Gpu(GpuError::alloc(len * size_of::<T>(), e)))
    }

    fn upload_words(&self, words: &[u64]) -> Result<CudaSlice<u64>> {
        self.device.stream().clone_htod(words).map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyHtoDAsync", e)))
    }

    fn copy_into(&self, src: &CudaSlice<u64>, dst: &mut CudaSlice<u64>, offset: usize) -> Result<()> {
        let len = src.len();
        let mut view = dst.slice_mut(offset..offset + len);
        self.device
            .stream()
            .memcpy_dtod(src, &mut view)
            .map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyDtoDAsync", e)))
    }

    fn copy_out(&self, src: &CudaSlice<u64>, offset: usize, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: the copy below writes all `len` words.
        let mut out = unsafe { self.alloc::<u64>(len) }?;
        let view = src.slice(offset..offset + len);
        self.device
            .stream()
            .memcpy_dtod(&view, &mut out)
            .map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyDtoDAsync", e)))?;
        Ok(out)
    }

    fn plan(&self, log_n: u32) -> Result<Arc<GpuPlan>> {
        let mut plans = self.plans.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(plan) = plans.iter().find(|p| p.log_n == log_n) {
            return Ok(Arc::clone(plan));
        }
        let host =
            NttPlan::new(log_n).ok_or(BigIntError::TooLarge { bits: 1 << log_n, max: crate::MAX_OPERAND_BITS })?;
        let plan = Arc::new(GpuPlan {
            log_n,
            forward: self.upload_words(host.forward_table())?,
            inverse: self.upload_words(host.inverse_table())?,
            n_inv: host.n_inv(),
        });
        plans.push(Arc::clone(&plan));
        Ok(plan)
    }

    /// `x` as a device integer of `limbs` limbs. Errors: [`BigIntError::LimbCount`] when `x`
    /// needs more.
    pub fn upload(&self, x: &BigNat, limbs: usize) -> Result<GpuNat> {
        if x.limbs().len() > limbs || limbs == 0 {
            return Err(BigIntError::LimbCount { what: "x", found: x.limbs().len(), expected: limbs });
        }
        Ok(GpuNat { limbs: self.upload_words(&x.limbs_padded(limbs))? })
    }

    /// The value of `x`, after all queued work.
    pub fn download(&self, x: &GpuNat) -> Result<BigNat> {
        Ok(BigNat::from_limbs(self.device.download_words(&x.limbs)?))
    }

    /// `xs` as one batch of `limbs` limbs each. Errors: [`BigIntError::LimbCount`] for a member
    /// that needs more, [`BigIntError::Batch`] for an empty list.
    pub fn upload_batch(&self, xs: &[BigNat], limbs: usize) -> Result<GpuNatBatch> {
        if xs.is_empty() || limbs == 0 {
            return Err(BigIntError::Batch { reason: "an empty batch or zero limbs".to_string() });
        }
        let mut words = Vec::with_capacity(xs.len() * limbs);
        for x in xs {
            if x.limbs().len() > limbs {
                return Err(BigIntError::LimbCount { what: "batch member", found: x.limbs().len(), expected: limbs });
            }
            words.extend(x.limbs_padded(limbs));
        }
        Ok(GpuNatBatch { data: self.upload_words(&words)?, count: xs.len(), len: limbs })
    }

    /// The members of `batch`.
    pub fn download_batch(&self, batch: &GpuNatBatch) -> Result<Vec<BigNat>> {
        let words = self.device.download_words(&batch.data)?;
        Ok(words.chunks(batch.len).take(batch.count).map(|c| BigNat::from_limbs(c.to_vec())).collect())
    }

    // ---- launch helpers (every one queues on the device's stream) ----

    fn grid(&self, items: usize, members: usize) -> Result<LaunchConfig> {
        if members == 0 || members > MAX_GRID_Y {
            return Err(BigIntError::Batch { reason: format!("{members} members (1 ..= {MAX_GRID_Y})") });
        }
        let mut config = linear_config(items, MAX_BLOCKS);
        config.grid_dim.1 = members as u32;
        Ok(config)
    }

    /// Digits of `floor(src / 2^bit_offset)` for every member: `members x n` words.
    #[allow(clippy::too_many_arguments)]
    fn split(
        &self,
        src: &CudaSlice<u64>,
        src_limbs: usize,
        src_stride: usize,
        bit_offset: u64,
        shape: MulShape,
        count: u64,
        members: usize,
    ) -> Result<CudaSlice<u64>> {
        let n = shape.len();
        // SAFETY: bigint_split writes all n words of every member.
        let out = unsafe { self.alloc::<u64>(n * members) }?;
        let stream = self.device.stream();
        let params = SplitParams {
            input: address(src, stream),
            out: address(&out, stream),
            bit_offset,
            in_limbs: u32_of(src_limbs, "limbs")?,
            in_stride: u32_of(src_stride, "stride")?,
            digit_bits: shape.digit_bits(),
            count: u32_of(count.min(n as u64) as usize, "digits")?,
            n: u32_of(n, "n")?,
            pad: 0,
        };
        let config = self.grid(n, members)?;
        let mut launch = self.kernels.bigint_split.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: bigint_split(SplitParams) reads words < in_limbs of each member of `src`
        // (members * src_stride words, src_limbs <= src_stride) and writes n words per member of
        // `out` (members * n words); grid y = members.
        unsafe { launch.launch(config) }?;
        Ok(out)
    }

    /// Forward (or inverse) transform of every member of `data` (`members x n` words).
    fn ntt(&self, data: &mut CudaSlice<u64>, plan: &GpuPlan, members: usize, inverse: bool) -> Result<()> {
        let log_n = plan.log_n;
        if log_n == 0 {
            return Ok(());
        }
        if members > MAX_GRID_Y {
            return Err(BigIntError::Batch { reason: format!("{members} members") });
        }
        // Groups of at most MAX_GROUP_LOG stages; the first takes the remainder.
        let groups_count = log_n.div_ceil(MAX_GROUP_LOG);
        let first = log_n - MAX_GROUP_LOG * (groups_count - 1);
        let mut groups = Vec::with_capacity(groups_count as usize);
        let mut s0 = 0;
        for i in 0..groups_count {
            let g = if i == 0 { first } else { MAX_GROUP_LOG };
            groups.push((s0, g));
            s0 += g;
        }
        if inverse {
            groups.reverse();
        }
        let stream = self.device.stream();
        let data_address = address(data, stream);
        let table = address(if inverse { &plan.inverse } else { &plan.forward }, stream);
        let kernel = if inverse { &self.kernels.bigint_ntt_inv_group } else { &self.kernels.bigint_ntt_fwd_group };
        for (s0, g) in groups {
            let lw = log_n - s0 - g;
            let log_c = lw.min(MAX_GROUP_LOG - g);
            let per_block = 1usize << (g + log_c);
            let config = LaunchConfig {
                grid_dim: (u32_of((1usize << log_n) / per_block, "blocks")?, members as u32, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: (per_block * size_of::<u64>()) as u32,
            };
            let mut launch = kernel.builder(stream);
            launch.arg(&data_address).arg(&table).arg(&log_n).arg(&s0).arg(&g).arg(&log_c);
            // SAFETY: the kernel reads and writes the n words of member blockIdx.y of `data`
            // (members * n words): block x covers n / per_block disjoint index sets of
            // per_block words each, staged in per_block words of dynamic shared memory; it reads
            // the table (n words) at indices h + j < n.
            unsafe { launch.launch(config) }?;
        }
        Ok(())
    }

    /// `out[i] = out[i] * other[i] * scale` per member (`other_stride` 0: one vector for all).
    fn pointwise(
        &self,
        data: &mut CudaSlice<u64>,
        other: &CudaSlice<u64>,
        other_stride: usize,
        scale: u64,
        n: usize,
        members: usize,
    ) -> Result<()> {
        let stream = self.device.stream();
        let (out, b) = (address(data, stream), address(other, stream));
        let (n32, a_stride, b_stride) = (u32_of(n, "n")?, u32_of(n, "n")?, u32_of(other_stride, "stride")?);
        let config = self.grid(n, members)?;
        let mut launch = self.kernels.bigint_pointwise.builder(stream);
        launch.arg(&out).arg(&out).arg(&b).arg(&scale).arg(&n32).arg(&a_stride).arg(&b_stride);
        // SAFETY: reads and writes members * n words of `data`, reads n words per member of
        // `other` at member * other_stride (other holds that many: callers pass stride 0 for a
        // single vector of n words, else members * n words).
        unsafe { launch.launch(config) }?;
        Ok(())
    }

    /// Limb sums of the coefficients (`members x n`), optionally subtracted from a minuend.
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &self,
        coeffs: &CudaSlice<u64>,
        n: usize,
        digit_bits: u32,
        out_limbs: usize,
        minuend: Option<(&CudaSlice<u64>, usize, usize)>,
        members: usize,
    ) -> Result<(CudaSlice<u64>, CudaSlice<i64>)> {
        // SAFETY: bigint_gather writes all out_limbs words of each member of both.
        let lo = unsafe { self.alloc::<u64>(out_limbs * members) }?;
        // SAFETY: as above.
        let hi = unsafe { self.alloc::<i64>(out_limbs * members) }?;
        let stream = self.device.stream();
        let (minuend_address, minuend_limbs, minuend_stride) =
            minuend.map_or((0, 0, 0), |(t, limbs, stride)| (address(t, stream), limbs, stride));
        let params = GatherParams {
            coeffs: address(coeffs, stream),
            minuend: minuend_address,
            lo: address(&lo, stream),
            hi: address(&hi, stream),
            n: u32_of(n, "n")?,
            digit_bits,
            out_limbs: u32_of(out_limbs, "limbs")?,
            minuend_limbs: u32_of(minuend_limbs, "limbs")?,
            minuend_stride: u32_of(minuend_stride, "stride")?,
            pad: 0,
        };
        let config = self.grid(out_limbs, members)?;
        let mut launch = self.kernels.bigint_gather.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: reads coefficients k < n of each member (members * n words), minuend words
        // < minuend_limbs at member * minuend_stride (the minuend holds members * stride words),
        // writes out_limbs words per member of lo and hi (members * out_limbs each).
        unsafe { launch.launch(config) }?;
        Ok((lo, hi))
    }

    /// `a + sign * b` as limb sums (`out_limbs` per member).
    #[allow(clippy::too_many_arguments)]
    fn sum(
        &self,
        a: (&CudaSlice<u64>, usize, usize),
        b: (&CudaSlice<u64>, usize, usize),
        out_limbs: usize,
        sign: i32,
        members: usize,
    ) -> Result<(CudaSlice<u64>, CudaSlice<i64>)> {
        // SAFETY: bigint_sum writes all out_limbs words of each member of both.
        let lo = unsafe { self.alloc::<u64>(out_limbs * members) }?;
        // SAFETY: as above.
        let hi = unsafe { self.alloc::<i64>(out_limbs * members) }?;
        let stream = self.device.stream();
        let (lo_address, hi_address) = (address(&lo, stream), address(&hi, stream));
        let (a_address, b_address) = (address(a.0, stream), address(b.0, stream));
        let out32 = u32_of(out_limbs, "limbs")?;
        let (a_limbs, a_stride) = (u32_of(a.1, "limbs")?, u32_of(a.2, "stride")?);
        let (b_limbs, b_stride) = (u32_of(b.1, "limbs")?, u32_of(b.2, "stride")?);
        let config = self.grid(out_limbs, members)?;
        let mut launch = self.kernels.bigint_sum.builder(stream);
        launch
            .arg(&lo_address)
            .arg(&hi_address)
            .arg(&a_address)
            .arg(&b_address)
            .arg(&out32)
            .arg(&a_limbs)
            .arg(&a_stride)
            .arg(&b_limbs)
            .arg(&b_stride)
            .arg(&sign);
        // SAFETY: reads words < a_limbs (b_limbs) at member * a_stride (b_stride) of a (b), which
        // hold that many per member (stride 0: one operand), writes out_limbs words per member.
        unsafe { launch.launch(config) }?;
        Ok((lo, hi))
    }

    /// Canonical limbs of the limb sums, and per member what lies above them.
    fn resolve(
        &self,
        lo: &CudaSlice<u64>,
        hi: &CudaSlice<i64>,
        limbs: usize,
        members: usize,
    ) -> Result<(CudaSlice<u64>, CudaSlice<i64>)> {
        let blocks = limbs.div_ceil(THREADS as usize);
        // SAFETY: bigint_carry_block writes every limb of `out` and `state` and every block map
        // of `agg`; bigint_carry_blocks writes `top` of every member.
        let out = unsafe { self.alloc::<u64>(limbs * members) }?;
        // SAFETY: as above.
        let state = unsafe { self.alloc::<u8>(limbs * members) }?;
        // SAFETY: as above.
        let agg = unsafe { self.alloc::<u32>(blocks * members) }?;
        // SAFETY: as above.
        let top = unsafe { self.alloc::<i64>(members) }?;
        let stream = self.device.stream();
        let params = CarryParams {
            lo: address(lo, stream),
            hi: address(hi, stream),
            out: address(&out, stream),
            state: address(&state, stream),
            agg: address(&agg, stream),
            top: address(&top, stream),
            limbs: u32_of(limbs, "limbs")?,
            blocks: u32_of(blocks, "blocks")?,
        };
        if members == 0 || members > MAX_GRID_Y || limbs == 0 {
            return Err(BigIntError::Batch { reason: format!("{members} members of {limbs} limbs") });
        }
        let per_limb = LaunchConfig {
            grid_dim: (params.blocks, members as u32, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let scan = LaunchConfig { grid_dim: (1, members as u32, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.kernels.bigint_carry_block.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: one thread per limb (j < limbs checked in the kernel), 256 per block, one block
        // map per block: reads lo/hi (members * limbs each), writes out/state (members * limbs)
        // and agg (members * blocks).
        unsafe { launch.launch(per_limb) }?;
        let mut launch = self.kernels.bigint_carry_blocks.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: one block per member reads and rewrites its `blocks` maps of agg, reads its last
        // two limbs of lo/hi (limbs >= 1), writes its top word.
        unsafe { launch.launch(scan) }?;
        let mut launch = self.kernels.bigint_carry_apply.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: the geometry of bigint_carry_block: reads state and agg, rewrites out.
        unsafe { launch.launch(per_limb) }?;
        Ok((out, top))
    }

    /// Per member: `top < 0 ? keep : take`, `out_limbs` of each (`in_stride` per member).
    fn select(
        &self,
        keep: &CudaSlice<u64>,
        take: &CudaSlice<u64>,
        top: &CudaSlice<i64>,
        in_stride: usize,
        out_limbs: usize,
        members: usize,
    ) -> Result<CudaSlice<u64>> {
        // SAFETY: bigint_select writes out_limbs words of every member.
        let out = unsafe { self.alloc::<u64>(out_limbs * members) }?;
        let stream = self.device.stream();
        let addresses = [address(&out, stream), address(keep, stream), address(take, stream), address(top, stream)];
        let (out32, stride32) = (u32_of(out_limbs, "limbs")?, u32_of(in_stride, "stride")?);
        let config = self.grid(out_limbs, members)?;
        let mut launch = self.kernels.bigint_select.builder(stream);
        launch.arg(&addresses[0]).arg(&addresses[1]).arg(&addresses[2]).arg(&addresses[3]).arg(&out32).arg(&stride32);
        // SAFETY: reads out_limbs <= in_stride words per member of keep and take (members *
        // in_stride words each) and one top word per member; writes members * out_limbs words.
        unsafe { launch.launch(config) }?;
        Ok(out)
    }

    // ---- products ----

    /// Products of `members` pairs: `a` members of `a_limbs`, `b` of `b_limbs` (None: squares);
    /// `a_limbs + b_limbs` limbs per product. The fused launch sequence ([`fused`]).
    fn products(
        &self,
        a: &CudaSlice<u64>,
        a_limbs: usize,
        b: Option<(&CudaSlice<u64>, usize)>,
        members: usize,
    ) -> Result<(CudaSlice<u64>, usize)> {
        let b_limbs = b.map_or(a_limbs, |(_, l)| l);
        let (bits_a, bits_b) = (64 * a_limbs as u64, 64 * b_limbs as u64);
        let shape = MulShape::for_bits(bits_a, bits_b)?;
        let plan = self.plan(shape.log_n())?;
        let stream = self.device.stream();
        let second = match b {
            Some((b, b_limbs)) => Second::Digits {
                address: address(b, stream),
                limbs: b_limbs,
                stride: b_limbs,
                digits: shape.digits(bits_b),
            },
            None => Second::Square,
        };
        let out_limbs = a_limbs + b_limbs;
        let product = Product {
            shape,
            a: address(a, stream),
            a_limbs,
            a_stride: a_limbs,
            bit_offset: 0,
            a_digits: shape.digits(bits_a),
            second,
            out_limbs,
            members,
            minuend: None,
        };
        let buffers = self.product_buffers(&product)?;
        self.launch_product(&plan, &product, &buffers)?;
        Ok((buffers.out, out_limbs))
    }

    /// `a * b`, of `a.len() + b.len()` limbs.
    pub fn mul(&self, a: &GpuNat, b: &GpuNat) -> Result<GpuNat> {
        let (out, _) = self.products(&a.limbs, a.len(), Some((&b.limbs, b.len())), 1)?;
        Ok(GpuNat { limbs: out })
    }

    /// `b` (at most `b_limbs` limbs) as a factor of products by integers of `a_limbs` limbs: its
    /// digits transformed once, for the shape of an `a_limbs x b_limbs` product (the same as
    /// [`GpuBigInt::mul`]'s). Errors: [`BigIntError::LimbCount`] when `b` needs more than
    /// `b_limbs` limbs or a length is 0.
    pub fn multiplier(&self, b: &BigNat, b_limbs: usize, a_limbs: usize) -> Result<GpuMultiplier> {
        if b.limbs().len() > b_limbs || b_limbs == 0 {
            return Err(BigIntError::LimbCount { what: "b", found: b.limbs().len(), expected: b_limbs });
        }
        if a_limbs == 0 {
            return Err(BigIntError::LimbCount { what: "a", found: 0, expected: 1 });
        }
        let bits_b = 64 * b_limbs as u64;
        let shape = MulShape::for_bits(64 * a_limbs as u64, bits_b)?;
        let plan = self.plan(shape.log_n())?;
        let words = self.upload_words(&b.limbs_padded(b_limbs))?;
        let mut hat = self.split(&words, b_limbs, b_limbs, 0, shape, shape.digits(bits_b), 1)?;
        self.ntt(&mut hat, &plan, 1, false)?;
        Ok(GpuMultiplier { hat, plan, shape, a_limbs, b_limbs })
    }

    /// `a * b` for a transformed `b` ([`GpuBigInt::multiplier`]): `a.len() + b.b_limbs()` limbs,
    /// equal to [`GpuBigInt::mul`]'s. Errors: [`BigIntError::LimbCount`] unless `a` has
    /// `b.a_limbs()` limbs.
    pub fn mul_by(&self, a: &GpuNat, b: &GpuMultiplier) -> Result<GpuNat> {
        if a.len() != b.a_limbs {
            return Err(BigIntError::LimbCount { what: "a", found: a.len(), expected: b.a_limbs });
        }
        let shape = b.shape;
        let bits_a = 64 * b.a_limbs as u64;
        let stream = self.device.stream();
        let product = Product {
            shape,
            a: address(&a.limbs, stream),
            a_limbs: b.a_limbs,
            a_stride: b.a_limbs,
            bit_offset: 0,
            a_digits: shape.digits(bits_a),
            second: Second::Hat(address(&b.hat, stream)),
            out_limbs: b.a_limbs + b.b_limbs,
            members: 1,
            minuend: None,
        };
        let buffers = self.product_buffers(&product)?;
        self.launch_product(&b.plan, &product, &buffers)?;
        Ok(GpuNat { limbs: buffers.out })
    }

    /// Some limbs of some integers, after all queued work, with one download: for each part
    /// `(x, start, len)` the limbs `start .. start + len` of `x`, in order. Errors:
    /// [`BigIntError::LimbCount`] for a range past the end of its integer.
    pub fn download_limbs(&self, parts: &[(&GpuNat, usize, usize)]) -> Result<Vec<u64>> {
        let total: usize = parts.iter().map(|(_, _, len)| len).sum();
        // SAFETY: every word is copied in below (the parts cover 0 .. total).
        let mut all = unsafe { self.alloc::<u64>(total) }?;
        let mut offset = 0;
        for &(x, start, len) in parts {
            if start.checked_add(len).is_none_or(|end| end > x.len()) {
                return Err(BigIntError::LimbCount {
                    what: "limb range end",
                    found: start.saturating_add(len),
                    expected: x.len(),
                });
            }
            if len == 0 {
                continue;
            }
            let view = x.limbs.slice(start..start + len);
            let mut target = all.slice_mut(offset..offset + len);
            self.device
                .stream()
                .memcpy_dtod(&view, &mut target)
                .map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyDtoDAsync", e)))?;
            offset += len;
        }
        if total == 0 {
            return Ok(Vec::new());
        }
        Ok(self.device.download_words(&all)?)
    }

    /// `a^2`, of `2 a.len()` limbs, with one forward transform.
    pub fn square(&self, a: &GpuNat) -> Result<GpuNat> {
        let (out, _) = self.products(&a.limbs, a.len(), None, 1)?;
        Ok(GpuNat { limbs: out })
    }

    /// Member-wise products of two batches of the same count, in one launch sequence.
    /// Errors: [`BigIntError::Batch`] when the counts differ.
    pub fn mul_batch(&self, a: &GpuNatBatch, b: &GpuNatBatch) -> Result<GpuNatBatch> {
        if a.count != b.count {
            return Err(BigIntError::Batch { reason: format!("{} members times {}", a.count, b.count) });
        }
        let (data, len) = self.products(&a.data, a.len, Some((&b.data, b.len)), a.count)?;
        Ok(GpuNatBatch { data, count: a.count, len })
    }
}
