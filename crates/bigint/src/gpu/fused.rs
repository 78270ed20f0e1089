//! The fused launch sequence of one product (`kernels/bigint.cu`'s header draws it): five
//! launches for transforms of up to two groups of stages, into buffers allocated once, and
//! [`GpuMulPlan`], which keeps those buffers and replays the sequence as a CUDA graph.

use std::sync::Arc;

use poly_cuda::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use poly_cuda::cudarc::driver::{CudaGraph, CudaSlice, CudaStream, LaunchConfig};
use poly_cuda::kernel::{MAX_GRID_Y, THREADS, address};
use poly_cuda::{GpuDevice, GpuError};

use super::{
    BigintKernels, GatherCarryParams, GpuBigInt, GpuNat, GpuPlan, TILE_FORWARD, TILE_INVERSE, TILE_PRODUCT, TILE_SPLIT,
    TileParams, u32_of,
};
use crate::error::{BigIntError, Result};
use crate::mul::MulShape;
use crate::nat::BigNat;

/// How the product kernels cut a transform: groups of at most `tile_log` stages,
/// each block holding `2^tile_log` words of an operand in shared memory, one butterfly per
/// thread and stage (`2^(tile_log - 1)` threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProductOptions {
    /// `log2` of the words of one operand per block, `1 ..= 11`; 0 (the default): the
    /// smallest tile that keeps the transform in two groups, `ceil(log2 n / 2)` within
    /// `9 ..= 11` (on the H100 tiles of 2^9-2^10 words are the fastest cut of a 2^20 x 2^20-bit
    /// product, 2^11 and 2^8 25-40 % slower; a third group costs more than small tiles gain;
    /// `docs/performance.md`).
    pub tile_log: u32,
}

impl ProductOptions {
    pub(super) fn check(&self) -> Result<()> {
        if self.tile_log > 11 {
            return Err(BigIntError::Batch {
                reason: format!("product options: tiles of 2^{} words (2^1 ..= 2^11, or 0)", self.tile_log),
            });
        }
        Ok(())
    }

    /// The tile of a transform of length `2^log_n`.
    fn tile_log_for(&self, log_n: u32) -> u32 {
        if self.tile_log == 0 { log_n.div_ceil(2).clamp(9, 11) } else { self.tile_log }
    }
}

/// The second factor of a fused product.
#[derive(Debug, Clone, Copy)]
pub(super) enum Second {
    /// `a^2`.
    Square,
    /// Limbs of `b`: `limbs` per member at `stride`, its first `digits` digits.
    Digits { address: u64, limbs: usize, stride: usize, digits: u64 },
    /// A transformed factor (`n` words, one for all members).
    Hat(u64),
}

/// One fused product sequence over `members` members: the digits of
/// `floor(a / 2^bit_offset)` (the first `a_digits`) times the second factor, limb sums of the
/// convolution (optionally subtracted from a minuend) brought to `out_limbs` canonical limbs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Product {
    pub shape: MulShape,
    pub a: u64,
    pub a_limbs: usize,
    pub a_stride: usize,
    pub bit_offset: u64,
    pub a_digits: u64,
    pub second: Second,
    pub out_limbs: usize,
    pub members: usize,
    /// `(address, limbs, stride)`: out = minuend - product.
    pub minuend: Option<(u64, usize, usize)>,
}

impl Product {
    fn operands(&self) -> usize {
        if matches!(self.second, Second::Digits { .. }) { 2 } else { 1 }
    }

    fn carry_blocks(&self) -> usize {
        self.out_limbs.div_ceil(THREADS as usize)
    }
}

/// The device buffers of one [`Product`] sequence.
#[derive(Debug)]
pub(super) struct ProductBuffers {
    data: CudaSlice<u64>,
    pub out: CudaSlice<u64>,
    state: CudaSlice<u8>,
    agg: CudaSlice<u32>,
    pub top: CudaSlice<i64>,
}

impl GpuBigInt {
    /// Buffers for `product` (from the stream-ordered pool).
    pub(super) fn product_buffers(&self, product: &Product) -> Result<ProductBuffers> {
        let (n, members) = (product.shape.len(), product.members);
        // SAFETY (all five): the launch sequence writes every word before reading it: the
        // first tile launch writes all members * n words of each operand region of `data`,
        // bigint_gather_carry every limb of `out` and `state` and every block map of `agg`, and
        // `top` of every member.
        Ok(ProductBuffers {
            data: unsafe { self.alloc::<u64>(product.operands() * members * n) }?,
            out: unsafe { self.alloc::<u64>(product.out_limbs * members) }?,
            state: unsafe { self.alloc::<u8>(product.out_limbs * members) }?,
            agg: unsafe { self.alloc::<u32>(product.carry_blocks() * members) }?,
            top: unsafe { self.alloc::<i64>(members) }?,
        })
    }

    /// Queues `product` into `buffers` on the device's stream.
    pub(super) fn launch_product(&self, plan: &GpuPlan, product: &Product, buffers: &ProductBuffers) -> Result<()> {
        launch_product(self.device.stream(), &self.kernels, self.options, plan, product, buffers)
    }

    /// A plan for products of `a_limbs` by `b_limbs` limbs ([`GpuMulPlan`]): its operand,
    /// product and work buffers allocated once and its launch sequence captured as a CUDA
    /// graph. Errors: a length of 0, operands over [`crate::MAX_OPERAND_BITS`], driver
    /// failures (allocation, capture).
    pub fn mul_plan(&self, a_limbs: usize, b_limbs: usize) -> Result<GpuMulPlan> {
        self.new_plan(a_limbs, Some(b_limbs))
    }

    /// A plan for squares of `limbs` limbs ([`GpuMulPlan`], one operand).
    pub fn square_plan(&self, limbs: usize) -> Result<GpuMulPlan> {
        self.new_plan(limbs, None)
    }

    fn new_plan(&self, a_limbs: usize, b_limbs: Option<usize>) -> Result<GpuMulPlan> {
        let b_len = b_limbs.unwrap_or(a_limbs);
        if a_limbs == 0 || b_len == 0 {
            return Err(BigIntError::LimbCount { what: "plan operand", found: 0, expected: 1 });
        }
        let (bits_a, bits_b) = (64 * a_limbs as u64, 64 * b_len as u64);
        let shape = MulShape::for_bits(bits_a, bits_b)?;
        let plan = self.plan(shape.log_n())?;
        let stream = self.device.stream();
        // SAFETY: operands are written by `load`/`copy_operands` before a product reads them
        // (until then the product's value is unspecified, never out of bounds).
        let a = GpuNat { limbs: unsafe { self.alloc::<u64>(a_limbs) }? };
        let b = match b_limbs {
            // SAFETY: as above.
            Some(limbs) => Some(GpuNat { limbs: unsafe { self.alloc::<u64>(limbs) }? }),
            None => None,
        };
        let second = match &b {
            Some(b) => Second::Digits {
                address: address(&b.limbs, stream),
                limbs: b_len,
                stride: b_len,
                digits: shape.digits(bits_b),
            },
            None => Second::Square,
        };
        let product = Product {
            shape,
            a: address(&a.limbs, stream),
            a_limbs,
            a_stride: a_limbs,
            bit_offset: 0,
            a_digits: shape.digits(bits_a),
            second,
            out_limbs: a_limbs + b_len,
            members: 1,
            minuend: None,
        };
        let buffers = self.product_buffers(&product)?;
        // The sequence is captured on a private stream (nothing else can be queued into the
        // capture) and replayed on the device's stream.
        let capture = self.device.cuda_context().new_stream().map_err(|e| GpuError::driver("cuStreamCreate", e))?;
        // The buffers were allocated on the device's stream: the capture stream must not run
        // ahead of that (capture queues nothing, but keep the order explicit).
        self.device.synchronize()?;
        capture
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| GpuError::driver("cuStreamBeginCapture", e))?;
        let queued = launch_product(&capture, &self.kernels, self.options, &plan, &product, &buffers);
        let ended = capture.end_capture(CUgraphInstantiate_flags(0));
        queued?;
        let graph = ended
            .map_err(|e| GpuError::driver("cuStreamEndCapture", e))?
            .ok_or_else(|| GpuError::Driver { call: "cuStreamEndCapture", reason: "no graph captured".to_string() })?;
        graph.upload().map_err(|e| GpuError::driver("cuGraphUpload", e))?;
        capture.synchronize().map_err(|e| GpuError::driver("cuStreamSynchronize", e))?;
        Ok(GpuMulPlan {
            device: Arc::clone(&self.device),
            kernels: Arc::clone(&self.kernels),
            options: self.options,
            plan,
            product,
            a,
            b,
            buffers,
            graph,
        })
    }
}

/// The launch geometry of transform stages `s0 .. s0 + g` at tiles of `2^tile_log` words:
/// `(log_c, blocks, words per block)`.
fn geometry(log_n: u32, s0: u32, g: u32, tile_log: u32) -> (u32, u32, usize) {
    let lw = log_n - s0 - g;
    let log_c = lw.min(tile_log.saturating_sub(g));
    let per_block = 1usize << (g + log_c);
    (log_c, ((1usize << log_n) / per_block) as u32, per_block)
}

/// Groups of at most `tile_log` stages, the first taking the remainder (one empty group for
/// a transform of length 1).
fn groups(log_n: u32, tile_log: u32) -> Vec<(u32, u32)> {
    let count = log_n.div_ceil(tile_log).max(1);
    let first = log_n - tile_log * (count - 1);
    let mut out = Vec::with_capacity(count as usize);
    let mut s0 = 0;
    for i in 0..count {
        let g = if i == 0 { first } else { tile_log };
        out.push((s0, g));
        s0 += g;
    }
    out
}

fn launch_product(
    stream: &CudaStream,
    kernels: &BigintKernels,
    options: ProductOptions,
    plan: &GpuPlan,
    product: &Product,
    buffers: &ProductBuffers,
) -> Result<()> {
    options.check()?;
    let members = product.members;
    if members == 0 || members > MAX_GRID_Y || product.out_limbs == 0 {
        return Err(BigIntError::Batch { reason: format!("{members} members of {} limbs", product.out_limbs) });
    }
    let (log_n, n) = (product.shape.log_n(), product.shape.len());
    let two = product.operands() == 2;
    let data = address(&buffers.data, stream);
    let data_b = if two { data + (members * n * size_of::<u64>()) as u64 } else { 0 };
    let (mode, b_in, b_limbs, b_stride, b_digits) = match product.second {
        Second::Square => (0, 0, 0, 0, 0),
        Second::Digits { address, limbs, stride, digits } => (1, address, limbs, stride, digits),
        Second::Hat(address) => (2, address, 0, 0, 0),
    };
    let base = TileParams {
        a_in: product.a,
        b_in,
        data_a: data,
        data_b,
        tw: address(&plan.forward, stream),
        itw: address(&plan.inverse, stream),
        n_inv: plan.n_inv,
        bit_offset: product.bit_offset,
        a_limbs: u32_of(product.a_limbs, "limbs")?,
        a_stride: u32_of(product.a_stride, "stride")?,
        a_digits: u32_of(product.a_digits.min(n as u64) as usize, "digits")?,
        b_limbs: u32_of(b_limbs, "limbs")?,
        b_stride: u32_of(b_stride, "stride")?,
        b_digits: u32_of((b_digits as usize).min(n), "digits")?,
        digit_bits: product.shape.digit_bits(),
        log_n,
        s0: 0,
        g: 0,
        log_c: 0,
        flags: 0,
        mode,
        pad: 0,
    };
    let tile_log = options.tile_log_for(log_n);
    let groups = groups(log_n, tile_log);
    let operand_members = members * product.operands();
    if operand_members > MAX_GRID_Y {
        return Err(BigIntError::Batch { reason: format!("{members} members") });
    }
    // `mode`: that of the product for the launches on both operands; 0 (tile a only) for the
    // inverse groups.
    let tile = |s0: u32, g: u32, flags: u32, mode: u32| -> Result<()> {
        let (log_c, blocks, per_block) = geometry(log_n, s0, g, tile_log);
        let tiles = if mode == 1 { 2 } else { 1 };
        let params = TileParams { s0, g, log_c, flags, mode, ..base };
        let config = LaunchConfig {
            grid_dim: (blocks, members as u32, 1),
            block_dim: ((per_block as u32 / 2).max(32), 1, 1),
            shared_mem_bytes: (tiles * per_block * size_of::<u64>()) as u32,
        };
        let mut launch = kernels.bigint_mul_tile.builder(stream);
        launch.arg_pod(&params);
        // SAFETY: bigint_mul_tile(TileParams): block (x, y) reads and writes the per_block
        // words of index set x of member y in data_a (members * n words) and, in mode 1,
        // data_b (the next members * n words of the same buffer), staged in
        // tiles * per_block words of dynamic shared memory (at most 32 KiB), with at least
        // per_block / 2 threads (one butterfly each per stage); with TILE_SPLIT it reads limbs
        // < a_limbs at y * a_stride of `a` (and < b_limbs at y * b_stride of b), which hold
        // that many per member; in mode 2 it reads hat words < n; table reads are at
        // h + j < n of the plan's tables (n words each).
        Ok(unsafe { launch.launch(config) }?)
    };
    match groups.as_slice() {
        [(s0, g)] => tile(*s0, *g, TILE_SPLIT | TILE_FORWARD | TILE_PRODUCT | TILE_INVERSE, mode)?,
        [(s0, g), middle @ .., (last_s0, last_g)] => {
            tile(*s0, *g, TILE_SPLIT | TILE_FORWARD, mode)?;
            for &(m0, mg) in middle {
                tile(m0, mg, TILE_FORWARD, mode)?;
            }
            tile(*last_s0, *last_g, TILE_FORWARD | TILE_PRODUCT | TILE_INVERSE, mode)?;
            for &(m0, mg) in middle.iter().rev() {
                tile(m0, mg, TILE_INVERSE, 0)?;
            }
            tile(*s0, *g, TILE_INVERSE, 0)?;
        }
        [] => return Err(BigIntError::Batch { reason: "no transform stages".to_string() }),
    }
    let blocks = product.carry_blocks();
    let (minuend, minuend_limbs, minuend_stride) = product.minuend.unwrap_or((0, 0, 0));
    let params = GatherCarryParams {
        coeffs: data,
        minuend,
        out: address(&buffers.out, stream),
        state: address(&buffers.state, stream),
        agg: address(&buffers.agg, stream),
        top: address(&buffers.top, stream),
        n: u32_of(n, "n")?,
        digit_bits: product.shape.digit_bits(),
        limbs: u32_of(product.out_limbs, "limbs")?,
        blocks: u32_of(blocks, "blocks")?,
        minuend_limbs: u32_of(minuend_limbs, "limbs")?,
        minuend_stride: u32_of(minuend_stride, "stride")?,
    };
    let config =
        LaunchConfig { grid_dim: (params.blocks, members as u32, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let mut launch = kernels.bigint_gather_carry.builder(stream);
    launch.arg_pod(&params);
    // SAFETY: one thread per limb (j < limbs checked), 256 per block: reads coefficients
    // k < n of each member (members * n words of `data`), minuend words < minuend_limbs at
    // member * minuend_stride (the minuend holds members * stride words); writes out and
    // state (members * limbs each), agg (members * blocks) and top (members).
    unsafe { launch.launch(config) }?;
    let mut launch = kernels.bigint_carry_finish.builder(stream);
    launch.arg_pod(&params);
    // SAFETY: the geometry above: block x reads agg words < x + 1 of its member, state and out
    // of its limbs (j < limbs checked), rewrites out; the last block updates top.
    unsafe { launch.launch(config) }?;
    Ok(())
}

/// Products of a fixed size with everything allocated once: operand buffers (filled by
/// [`GpuMulPlan::load`] or [`GpuMulPlan::copy_operands`]), the transform and carry
/// workspaces and the product, and the fixed launch sequence captured once as a CUDA graph,
/// so that [`GpuMulPlan::execute`] is one graph launch: no allocation, no host computation,
/// no synchronization. Built by [`GpuBigInt::mul_plan`] or [`GpuBigInt::square_plan`]. Not
/// `Send` (a CUDA graph is not thread-safe).
pub struct GpuMulPlan {
    device: Arc<GpuDevice>,
    kernels: Arc<BigintKernels>,
    options: ProductOptions,
    plan: Arc<GpuPlan>,
    product: Product,
    a: GpuNat,
    b: Option<GpuNat>,
    buffers: ProductBuffers,
    graph: CudaGraph,
}

impl std::fmt::Debug for GpuMulPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuMulPlan")
            .field("a_limbs", &self.a_limbs())
            .field("b_limbs", &self.b_limbs())
            .field("shape", &self.product.shape)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl GpuMulPlan {
    /// Limbs of the first operand.
    pub fn a_limbs(&self) -> usize {
        self.a.len()
    }

    /// Limbs of the second operand (of the first for a square plan).
    pub fn b_limbs(&self) -> usize {
        self.b.as_ref().map_or(self.a.len(), GpuNat::len)
    }

    /// Limbs of the product.
    pub fn product_limbs(&self) -> usize {
        self.product.out_limbs
    }

    fn check(&self, what: &'static str, found: usize, expected: usize) -> Result<()> {
        if found > expected {
            return Err(BigIntError::LimbCount { what, found, expected });
        }
        Ok(())
    }

    /// Uploads the operands (`b` ignored by a square plan). Errors:
    /// [`BigIntError::LimbCount`] for an operand longer than the plan's.
    pub fn load(&mut self, a: &BigNat, b: &BigNat) -> Result<()> {
        self.check("a", a.limbs().len(), self.a_limbs())?;
        let stream = self.device.stream();
        let copy = |words: Vec<u64>, target: &mut CudaSlice<u64>| {
            stream.memcpy_htod(&words, target).map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyHtoDAsync", e)))
        };
        copy(a.limbs_padded(self.a.len()), &mut self.a.limbs)?;
        if let Some(target) = self.b.as_mut() {
            if b.limbs().len() > target.len() {
                return Err(BigIntError::LimbCount { what: "b", found: b.limbs().len(), expected: target.len() });
            }
            copy(b.limbs_padded(target.len()), &mut target.limbs)?;
        }
        // The host vectors must outlive the asynchronous copies.
        stream.synchronize().map_err(|e| BigIntError::Gpu(GpuError::driver("cuStreamSynchronize", e)))
    }

    /// Copies device operands of exactly the plan's lengths into its operand buffers
    /// (device-to-device, queued). Errors: [`BigIntError::LimbCount`] for other lengths.
    pub fn copy_operands(&mut self, a: &GpuNat, b: &GpuNat) -> Result<()> {
        if a.len() != self.a.len() {
            return Err(BigIntError::LimbCount { what: "a", found: a.len(), expected: self.a.len() });
        }
        let stream = self.device.stream();
        let copy = |src: &CudaSlice<u64>, dst: &mut CudaSlice<u64>| {
            stream.memcpy_dtod(src, dst).map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyDtoDAsync", e)))
        };
        copy(&a.limbs, &mut self.a.limbs)?;
        if let Some(target) = self.b.as_mut() {
            if b.len() != target.len() {
                return Err(BigIntError::LimbCount { what: "b", found: b.len(), expected: target.len() });
            }
            copy(&b.limbs, &mut target.limbs)?;
        }
        Ok(())
    }

    /// Queues the product of the loaded operands into [`GpuMulPlan::product`]: one launch of
    /// the captured graph on the device's stream.
    pub fn execute(&self) -> Result<()> {
        let stream = self.device.stream();
        // SAFETY: the graph's kernels use only this plan's buffers and tables (owned by it,
        // alive as long as the graph); it is launched on the stream all other work of the
        // device is queued on, so it is ordered with the operand copies and the readers of the
        // product.
        unsafe { poly_cuda::cudarc::driver::result::graph::launch(self.graph.cu_graph_exec(), stream.cu_stream()) }
            .map_err(|e| BigIntError::Gpu(GpuError::driver("cuGraphLaunch", e)))
    }

    /// The same launches as [`GpuMulPlan::execute`], queued one by one (no graph): for
    /// measuring what the graph saves.
    pub fn execute_launches(&self) -> Result<()> {
        launch_product(self.device.stream(), &self.kernels, self.options, &self.plan, &self.product, &self.buffers)
    }

    /// The product (valid once the queued work has run; downloads wait for it).
    pub fn product(&self) -> GpuNatView<'_> {
        GpuNatView { limbs: &self.buffers.out }
    }
}

/// A borrowed device integer: the product of a [`GpuMulPlan`].
#[derive(Debug, Clone, Copy)]
pub struct GpuNatView<'a> {
    limbs: &'a CudaSlice<u64>,
}

impl GpuNatView<'_> {
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
        self.limbs
    }
}

impl GpuBigInt {
    /// The value of a plan's product, after all queued work.
    pub fn download_view(&self, x: GpuNatView<'_>) -> Result<BigNat> {
        Ok(BigNat::from_limbs(self.device.download_words(x.limbs)?))
    }
}
