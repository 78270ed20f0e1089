//! The discrete Galois transform (DGT) and its hierarchical form (HDGT) on the GPU:
//! [`GpuDgtPlan`] uploads the tables of the CPU plans ([`poly::dgt::DgtPlan`],
//! [`poly::hdgt::HdgtPlan`]) once and launches the kernels of `kernels/dgt.cu`.
//!
//! Orderings and values are exactly the CPU plans': the forward transform maps canonical
//! coefficients in natural order, limb by limb, to the canonical DGT evaluation vector (`N/2`
//! Gaussian elements in bit-reversed order, interleaved `eval[2j] = re`, `eval[2j+1] = im`);
//! the inverse maps it back. The flat and the hierarchical kernels give the same vector, so
//! a [`TransformKind::Dgt`] plan of a large degree runs the hierarchical kernels (a whole
//! limb of `N > 4096` does not fit in one thread block's shared memory).
//!
//! Data layout: a batch of polynomials is one buffer `[poly][limb][N]` of `u64`, each
//! polynomial with the plan's limbs in order; the batch size is the buffer length divided by
//! `L * N`. Every value must be canonical (below its limb's prime): the kernels do not check
//! (they are memory-safe on any value, but their output is then meaningless).

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig};
use modarith::Modulus;
use poly::dgt::DgtPlan;
use poly::hdgt::HdgtPlan;
use poly::{PolyError, RingContext, TransformKind};

use crate::device::GpuDevice;
use crate::error::{GpuError, Result};
use crate::kernel::{Kernel, LoadedModule, THREADS, address, address_mut};
/// Longest sub-transform (in Gaussian elements) one thread block holds: the tile of
/// `kernels/dgt.cu` (`MAX_TILE`).
pub const MAX_SUB_TRANSFORM: usize = 2048;
/// Largest degree of the flat (one block per limb) kernels: `N/2 <= MAX_SUB_TRANSFORM`.
pub const MAX_FLAT_DEGREE: usize = 2 * MAX_SUB_TRANSFORM;
/// Largest grid z dimension: the number of polynomials of one launch.
const MAX_POLYS_PER_LAUNCH: usize = 65_535;
/// `log2` of the most points a thread keeps in registers (`MAX_LOG_RADIX` in the kernels).
const MAX_LOG_RADIX: u32 = 3;
/// `log2` of the most threads per block (`MAX_LOG_THREADS` in the kernels).
const MAX_LOG_THREADS: u32 = 8;
/// Threads per block of the Gaussian product.
const PRODUCT_THREADS: u32 = THREADS;

/// How the GPU computes the transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DgtSchedule {
    /// The flat DGT: one thread block per limb does every stage (`N <= 4096`).
    Flat,
    /// The hierarchical DGT: `cols` column transforms of length `rows`, step twiddles, then
    /// `rows` row transforms of length `cols` (`rows * cols = N/2`, each at most
    /// [`MAX_SUB_TRANSFORM`]).
    Hierarchical {
        /// `Nr`, the length of the column transforms.
        rows: usize,
        /// `Nc`, the length of the row transforms.
        cols: usize,
    },
}

impl DgtSchedule {
    /// The schedule a [`TransformKind::Dgt`] plan of degree `degree` runs: flat up to
    /// [`MAX_FLAT_DEGREE`], above it hierarchical with [`HdgtPlan::new`]'s default split
    /// (`Nr = 2^floor(e/2)`, `Nc = 2^ceil(e/2)` for `N/2 = 2^e`).
    pub fn for_flat_dgt(degree: usize) -> Self {
        if degree <= MAX_FLAT_DEGREE {
            DgtSchedule::Flat
        } else {
            let log_half = (degree / 2).trailing_zeros();
            let rows = 1usize << (log_half / 2);
            DgtSchedule::Hierarchical { rows, cols: degree / 2 / rows }
        }
    }
}

/// Step twiddles of the hierarchical schedule, `[limb][N/2]` pairs `{w, shoup(w)}`.
#[derive(Debug)]
struct StepTables {
    forward: CudaSlice<u64>,
    inverse: CudaSlice<u64>,
}

/// The DGT of one degree over a list of primes (the limbs of a ring), on one device.
///
/// Device tables (uploaded once, limb-major, one block of entries per limb; `K = N/2`):
/// - twist and inverse twist: `K` entries `{re, shoup(re), im, shoup(im)}` of `h^n` and of
///   `h^-n K^-1` ([`DgtPlan::twist_re`] and companions);
/// - forward and inverse twiddles: `K` pairs `{w, shoup(w)}` in the [`DgtPlan::twiddles`]
///   layout `[m + t] = g^(t K / (2m))`;
/// - hierarchical schedule only: step twiddles, `K` pairs, row-major
///   `[r Nc + c] = g^(bitrev_{log Nr}(r) c)` and their inverses ([`HdgtPlan::step_twiddles`]);
/// - primes and `modarith::Modulus` triples `{p, floor(2^128/p) high, low}`.
#[derive(Debug)]
pub struct GpuDgtPlan {
    device: Arc<GpuDevice>,
    degree: usize,
    moduli: Vec<Modulus>,
    schedule: DgtSchedule,
    primes: CudaSlice<u64>,
    barrett: CudaSlice<u64>,
    twist: CudaSlice<u64>,
    inverse_twist: CudaSlice<u64>,
    twiddles: CudaSlice<u64>,
    inverse_twiddles: CudaSlice<u64>,
    step: Option<StepTables>,
}

impl GpuDgtPlan {
    /// The plan of a ring context: its DGT plans ([`TransformKind::Dgt`], schedule
    /// [`DgtSchedule::for_flat_dgt`]) or its hierarchical plans
    /// ([`TransformKind::HierarchicalDgt`], their split). Errors with
    /// [`GpuError::Unsupported`] for an NTT context.
    pub fn from_ring(device: &Arc<GpuDevice>, ring: &RingContext) -> Result<Self> {
        let not_a_dgt = |limb: usize| GpuError::Unsupported {
            what: format!("limb {limb} of a {} context has no DGT plan", ring.transform().name()),
        };
        match ring.transform() {
            TransformKind::Dgt => {
                let plans = (0..ring.num_limbs())
                    .map(|limb| ring.plan(limb).and_then(|p| p.as_dgt()).cloned().ok_or_else(|| not_a_dgt(limb)))
                    .collect::<Result<Vec<_>>>()?;
                Self::new(device, &plans)
            }
            TransformKind::HierarchicalDgt => {
                let plans = (0..ring.num_limbs())
                    .map(|limb| {
                        ring.plan(limb).and_then(|p| p.as_hierarchical_dgt()).cloned().ok_or_else(|| not_a_dgt(limb))
                    })
                    .collect::<Result<Vec<_>>>()?;
                Self::hierarchical(device, &plans)
            }
            TransformKind::Ntt | TransformKind::Bluestein => Err(GpuError::Unsupported {
                what: format!("a DGT plan for a {} ring context", ring.transform().name()),
            }),
        }
    }

    /// The flat DGT of `plans` (one per limb, all of one degree), run with
    /// [`DgtSchedule::for_flat_dgt`]: flat kernels up to `N = 4096`, hierarchical ones above
    /// (same output).
    ///
    /// Errors: [`PolyError::InvalidModulusCount`] for no plan, [`PolyError::ContextMismatch`]
    /// when the degrees differ, device errors from the table upload.
    pub fn new(device: &Arc<GpuDevice>, plans: &[DgtPlan]) -> Result<Self> {
        let degree = common_degree(plans.iter().map(DgtPlan::degree))?;
        let schedule = DgtSchedule::for_flat_dgt(degree);
        let step = match schedule {
            DgtSchedule::Flat => None,
            DgtSchedule::Hierarchical { rows, cols } => {
                let mut forward = Vec::with_capacity(degree * plans.len());
                let mut inverse = Vec::with_capacity(degree * plans.len());
                for plan in plans {
                    let modulus = plan.modulus();
                    let g = plan.root_of_unity();
                    push_pairs(&mut forward, &step_twiddles(modulus, g, rows, cols), modulus);
                    push_pairs(
                        &mut inverse,
                        &step_twiddles(modulus, modulus.inv(g).map_err(PolyError::from)?, rows, cols),
                        modulus,
                    );
                }
                Some((forward, inverse))
            }
        };
        Self::upload(device, plans.iter(), degree, schedule, step)
    }

    /// The hierarchical DGT of `plans` (one per limb, all of one degree and one split), with
    /// their `Nr x Nc` split. Output equals the flat DGT's.
    ///
    /// Errors: as [`GpuDgtPlan::new`]; [`PolyError::InvalidSplit`] when the splits differ;
    /// [`GpuError::Unsupported`] when `Nr` or `Nc` exceeds [`MAX_SUB_TRANSFORM`].
    pub fn hierarchical(device: &Arc<GpuDevice>, plans: &[HdgtPlan]) -> Result<Self> {
        let degree = common_degree(plans.iter().map(HdgtPlan::degree))?;
        let (rows, cols) = plans.first().map(|p| (p.rows(), p.cols())).unwrap_or((0, 0));
        if let Some(other) = plans.iter().find(|p| (p.rows(), p.cols()) != (rows, cols)) {
            return Err(PolyError::InvalidSplit {
                rows: other.rows(),
                cols: other.cols(),
                degree,
                reason: "every limb of one GPU plan must use the same split",
            }
            .into());
        }
        if rows > MAX_SUB_TRANSFORM || cols > MAX_SUB_TRANSFORM {
            return Err(GpuError::Unsupported {
                what: format!(
                    "hierarchical DGT split {rows} x {cols}: each side must be at most {MAX_SUB_TRANSFORM} on the GPU"
                ),
            });
        }
        let mut forward = Vec::with_capacity(degree * plans.len());
        let mut inverse = Vec::with_capacity(degree * plans.len());
        for plan in plans {
            interleave_pairs(&mut forward, plan.step_twiddles(), plan.step_twiddles_shoup())?;
            interleave_pairs(&mut inverse, plan.inverse_step_twiddles(), plan.inverse_step_twiddles_shoup())?;
        }
        let schedule = DgtSchedule::Hierarchical { rows, cols };
        Self::upload(device, plans.iter().map(HdgtPlan::dgt), degree, schedule, Some((forward, inverse)))
    }

    fn upload<'a>(
        device: &Arc<GpuDevice>,
        plans: impl Iterator<Item = &'a DgtPlan> + Clone,
        degree: usize,
        schedule: DgtSchedule,
        step: Option<(Vec<u64>, Vec<u64>)>,
    ) -> Result<Self> {
        let limbs = plans.clone().count();
        let half = degree / 2;
        let mut moduli = Vec::with_capacity(limbs);
        let mut primes = Vec::with_capacity(limbs);
        let mut barrett = Vec::with_capacity(3 * limbs);
        let mut twist = Vec::with_capacity(4 * half * limbs);
        let mut inverse_twist = Vec::with_capacity(4 * half * limbs);
        let mut twiddles = Vec::with_capacity(2 * half * limbs);
        let mut inverse_twiddles = Vec::with_capacity(2 * half * limbs);
        for plan in plans {
            let modulus = *plan.modulus();
            let (hi, lo) = modulus.barrett_constant();
            moduli.push(modulus);
            primes.push(modulus.value());
            barrett.extend_from_slice(&[modulus.value(), hi, lo]);
            interleave_gaussian(
                &mut twist,
                [plan.twist_re(), plan.twist_re_shoup(), plan.twist_im(), plan.twist_im_shoup()],
                half,
            )?;
            interleave_gaussian(
                &mut inverse_twist,
                [
                    plan.inverse_twist_re(),
                    plan.inverse_twist_re_shoup(),
                    plan.inverse_twist_im(),
                    plan.inverse_twist_im_shoup(),
                ],
                half,
            )?;
            interleave_pairs(&mut twiddles, plan.twiddles(), plan.twiddles_shoup())?;
            interleave_pairs(&mut inverse_twiddles, plan.inverse_twiddles(), plan.inverse_twiddles_shoup())?;
        }
        let step = match step {
            Some((forward, inverse)) => {
                Some(StepTables { forward: device.upload(&forward)?, inverse: device.upload(&inverse)? })
            }
            None => None,
        };
        Ok(Self {
            device: Arc::clone(device),
            degree,
            moduli,
            schedule,
            primes: device.upload(&primes)?,
            barrett: device.upload(&barrett)?,
            twist: device.upload(&twist)?,
            inverse_twist: device.upload(&inverse_twist)?,
            twiddles: device.upload(&twiddles)?,
            inverse_twiddles: device.upload(&inverse_twiddles)?,
            step,
        })
    }

    /// The device.
    pub fn device(&self) -> &Arc<GpuDevice> {
        &self.device
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The number of limbs `L` (primes) of every polynomial.
    pub fn num_limbs(&self) -> usize {
        self.moduli.len()
    }

    /// The primes, limb by limb.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// How the transform is computed.
    pub fn schedule(&self) -> DgtSchedule {
        self.schedule
    }

    /// Forward DGT in place of every polynomial of `data` (`[poly][limb][N]`, canonical
    /// coefficients in natural order): each limb becomes its canonical DGT evaluation vector,
    /// exactly [`DgtPlan::forward_inplace`]'s output.
    ///
    /// Errors (nothing queued, `data` untouched): [`GpuError::WrongContext`] when `data`
    /// lives in another CUDA context, [`GpuError::LengthMismatch`] unless its length is a
    /// positive multiple of `L * N`, [`GpuError::Unsupported`] for more than 65535
    /// polynomials.
    pub fn forward(&self, data: &mut CudaSlice<u64>) -> Result<()> {
        let polys = self.check_batch(data)?;
        match self.schedule {
            DgtSchedule::Flat => {
                let log_k = (self.degree / 2).trailing_zeros();
                let ptr = self.pointer_mut(data);
                self.launch_pass(|k| &k.forward_single, log_k, ptr, ptr, &self.twist, &self.twiddles, None, polys)
            }
            DgtSchedule::Hierarchical { rows, cols } => {
                let step = self.step_tables()?;
                let mut scratch = self.scratch(data.len())?;
                let (data_ptr, scratch_ptr) = (self.pointer_mut(data), self.pointer_mut(&mut scratch));
                let (log_rows, log_cols) = (rows.trailing_zeros(), cols.trailing_zeros());
                // The fold moves values between tiles, so the first pass cannot run in place.
                self.launch_pass(
                    |k| &k.forward_columns,
                    log_rows,
                    data_ptr,
                    scratch_ptr,
                    &self.twist,
                    &self.twiddles,
                    Some(&step.forward),
                    polys,
                )?;
                self.launch_pass(
                    |k| &k.forward_rows,
                    log_cols,
                    scratch_ptr,
                    data_ptr,
                    &self.twist,
                    &self.twiddles,
                    None,
                    polys,
                )
                // `scratch` is freed in stream order, after the second pass.
            }
        }
    }

    /// Inverse DGT in place: every limb of `data`, a canonical DGT evaluation vector, becomes
    /// canonical coefficients, exactly [`DgtPlan::inverse_inplace`]'s output.
    ///
    /// Errors as [`GpuDgtPlan::forward`].
    pub fn inverse(&self, data: &mut CudaSlice<u64>) -> Result<()> {
        let polys = self.check_batch(data)?;
        match self.schedule {
            DgtSchedule::Flat => {
                let log_k = (self.degree / 2).trailing_zeros();
                let ptr = self.pointer_mut(data);
                self.launch_pass(
                    |k| &k.inverse_single,
                    log_k,
                    ptr,
                    ptr,
                    &self.inverse_twist,
                    &self.inverse_twiddles,
                    None,
                    polys,
                )
            }
            DgtSchedule::Hierarchical { rows, cols } => {
                let step = self.step_tables()?;
                let mut scratch = self.scratch(data.len())?;
                let (data_ptr, scratch_ptr) = (self.pointer_mut(data), self.pointer_mut(&mut scratch));
                let (log_rows, log_cols) = (rows.trailing_zeros(), cols.trailing_zeros());
                self.launch_pass(
                    |k| &k.inverse_rows,
                    log_cols,
                    data_ptr,
                    scratch_ptr,
                    &self.inverse_twist,
                    &self.inverse_twiddles,
                    Some(&step.inverse),
                    polys,
                )?;
                // The unfold moves values between tiles: out of place again, back into `data`.
                self.launch_pass(
                    |k| &k.inverse_columns,
                    log_rows,
                    scratch_ptr,
                    data_ptr,
                    &self.inverse_twist,
                    &self.inverse_twiddles,
                    None,
                    polys,
                )
            }
        }
    }

    /// `out <- a * b`, the evaluation-domain product of a DGT context: each pair
    /// `(re, im)` multiplied as a Gaussian integer modulo its limb's prime, as
    /// [`poly::dgt::gaussian_pointwise_mul`]. Canonical in and out.
    ///
    /// Errors (nothing queued): [`GpuError::WrongContext`], [`GpuError::LengthMismatch`]
    /// (the three lengths must be equal and a positive multiple of `L * N`).
    pub fn pointwise_mul(&self, a: &CudaSlice<u64>, b: &CudaSlice<u64>, out: &mut CudaSlice<u64>) -> Result<()> {
        let polys = self.check_batch(out)?;
        self.check_same_shape(a, out.len())?;
        self.check_same_shape(b, out.len())?;
        let out_ptr = self.pointer_mut(out);
        let (a_ptr, b_ptr) = (self.pointer(a), self.pointer(b));
        self.launch_product(out_ptr, a_ptr, b_ptr, polys)
    }

    /// `acc <- acc * b` (Gaussian, pair by pair), in place; see [`GpuDgtPlan::pointwise_mul`].
    pub fn pointwise_mul_assign(&self, acc: &mut CudaSlice<u64>, b: &CudaSlice<u64>) -> Result<()> {
        let polys = self.check_batch(acc)?;
        self.check_same_shape(b, acc.len())?;
        let acc_ptr = self.pointer_mut(acc);
        let b_ptr = self.pointer(b);
        self.launch_product(acc_ptr, acc_ptr, b_ptr, polys)
    }

    fn step_tables(&self) -> Result<&StepTables> {
        self.step
            .as_ref()
            .ok_or_else(|| GpuError::Unsupported { what: "a hierarchical DGT plan without step twiddles".to_string() })
    }

    /// Errors unless `buffer` belongs to this plan's CUDA context.
    fn check_context(&self, buffer: &CudaSlice<u64>) -> Result<()> {
        if Arc::ptr_eq(buffer.stream().context(), self.device.cuda_context()) {
            Ok(())
        } else {
            Err(GpuError::WrongContext)
        }
    }

    /// The number of polynomials in `data`, after checking its context and length.
    fn check_batch(&self, data: &CudaSlice<u64>) -> Result<usize> {
        self.check_context(data)?;
        let poly_len = self.num_limbs() * self.degree;
        let len = data.len();
        if len == 0 || !len.is_multiple_of(poly_len) {
            let expected = (len / poly_len).max(1) * poly_len;
            return Err(GpuError::LengthMismatch { expected, actual: len });
        }
        let polys = len / poly_len;
        if polys > MAX_POLYS_PER_LAUNCH {
            return Err(GpuError::Unsupported {
                what: format!("a DGT batch of {polys} polynomials (at most {MAX_POLYS_PER_LAUNCH})"),
            });
        }
        Ok(polys)
    }

    fn check_same_shape(&self, buffer: &CudaSlice<u64>, len: usize) -> Result<()> {
        self.check_context(buffer)?;
        if buffer.len() != len {
            return Err(GpuError::LengthMismatch { expected: len, actual: buffer.len() });
        }
        Ok(())
    }

    fn scratch(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: the first pass of either direction writes every value of the scratch
        // buffer before the second pass reads it.
        unsafe { self.device.alloc::<u64>(len) }
    }

    /// The device address of `buffer` (the kernels take addresses: in and out may be equal).
    fn pointer_mut(&self, buffer: &mut CudaSlice<u64>) -> u64 {
        address_mut(buffer, self.device.stream())
    }

    fn pointer(&self, buffer: &CudaSlice<u64>) -> u64 {
        address(buffer, self.device.stream())
    }

    /// Launches one pass of `kernels/dgt.cu` over `polys` polynomials: the kernel of
    /// `family(kernels)` for `log_len`, whose sub-transforms have length `2^log_len` (the kernel
    /// knows whether they are rows or columns).
    #[allow(clippy::too_many_arguments)]
    fn launch_pass(
        &self,
        family: fn(&DgtKernels) -> &KernelFamily,
        log_len: u32,
        input: u64,
        output: u64,
        twist: &CudaSlice<u64>,
        twiddles: &CudaSlice<u64>,
        step: Option<&CudaSlice<u64>>,
        polys: usize,
    ) -> Result<()> {
        let kernel = family(&self.device.kernels().dgt).get(log_len).ok_or_else(|| GpuError::Unsupported {
            what: format!("a DGT sub-transform of length 2^{log_len} (at most {MAX_SUB_TRANSFORM})"),
        })?;
        let log_k = (self.degree / 2).trailing_zeros();
        let geometry = PassGeometry::new(log_k, log_len);
        let step_ptr = step.map_or(0, |s| self.pointer(s));
        let (log_n, limbs, log_s) = (log_k as i32 + 1, self.num_limbs() as i32, geometry.log_subs_per_block as i32);
        let config = LaunchConfig {
            grid_dim: (geometry.blocks_per_limb, self.num_limbs() as u32, polys as u32),
            block_dim: (geometry.threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut builder = kernel.builder(self.device.stream());
        builder
            .arg(&input)
            .arg(&output)
            .arg(twist)
            .arg(twiddles)
            .arg(&step_ptr)
            .arg(&self.primes)
            .arg(&log_n)
            .arg(&limbs)
            .arg(&log_s);
        // SAFETY: the arguments match `DGT_KERNEL` in kernels/dgt.cu (in, out, twist, twiddles,
        // step, primes, log_n, limbs_per_poly, log_s). `input` and `output` address
        // `polys * L * N` values (checked by `check_batch`; the scratch buffer has the same
        // length); they are equal only for the single-block kernels, which read a whole limb
        // before writing it. The tables hold `L` limbs of `N/2` entries (4 words per twist
        // entry, 2 per twiddle and step entry); `step` is null only for kernels that do not
        // read it. The grid covers `N/2 / (2^log_len * 2^log_s)` tiles by `L` limbs by
        // `polys`, with the block size the kernel's geometry expects (`PassGeometry`).
        unsafe { builder.launch(config) }?;
        Ok(())
    }

    fn launch_product(&self, out: u64, a: u64, b: u64, polys: usize) -> Result<()> {
        let pairs = (self.degree / 2) as u32;
        let config = LaunchConfig {
            grid_dim: (pairs.div_ceil(PRODUCT_THREADS), self.num_limbs() as u32, polys as u32),
            block_dim: (PRODUCT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (log_n, limbs) = (self.degree.trailing_zeros() as i32, self.num_limbs() as i32);
        let mut builder = self.device.kernels().dgt.dgt_gauss_mul.builder(self.device.stream());
        builder.arg(&out).arg(&a).arg(&b).arg(&self.barrett).arg(&log_n).arg(&limbs);
        // SAFETY: matches `dgt_gauss_mul(out, a, b, moduli, log_n, limbs_per_poly)`; the three
        // buffers hold `polys * L * N` values (checked by the callers), `barrett` one
        // `modarith::Modulus` per limb; each thread reads a pair before writing the same pair,
        // so `out` may alias `a`.
        unsafe { builder.launch(config) }?;
        Ok(())
    }
}

/// The tiling of one pass, mirrored from `kernels/dgt.cu`: a block holds `2^log_subs_per_block`
/// sub-transforms of length `2^log_len`, `2^min(log_len, 3)` points per thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PassGeometry {
    log_subs_per_block: u32,
    blocks_per_limb: u32,
    threads: u32,
}

impl PassGeometry {
    fn new(log_k: u32, log_len: u32) -> Self {
        let log_radix = log_len.min(MAX_LOG_RADIX);
        let log_subs = log_k - log_len;
        let log_subs_per_block = log_subs.min(MAX_LOG_THREADS + log_radix - log_len);
        Self {
            log_subs_per_block,
            blocks_per_limb: 1 << (log_subs - log_subs_per_block),
            threads: 1 << (log_subs_per_block + log_len - log_radix),
        }
    }
}

/// The common degree of the plans, or why there is none.
fn common_degree(mut degrees: impl Iterator<Item = usize>) -> Result<usize> {
    let first = degrees.next().ok_or(PolyError::InvalidModulusCount { count: 0, max: poly::context::MAX_LIMBS })?;
    if degrees.any(|d| d != first) {
        return Err(PolyError::ContextMismatch.into());
    }
    Ok(first)
}

/// `[r * cols + c] = root^(bitrev_{log rows}(r) * c)`, as [`HdgtPlan::step_twiddles`].
fn step_twiddles(modulus: &Modulus, root: u64, rows: usize, cols: usize) -> Vec<u64> {
    let log_rows = rows.trailing_zeros();
    let mut values = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let reversed = if log_rows == 0 { 0 } else { r.reverse_bits() >> (usize::BITS - log_rows) };
        let row_root = modulus.pow(root, reversed as u64);
        let mut acc = 1u64;
        for _ in 0..cols {
            values.push(acc);
            acc = modulus.mul(acc, row_root);
        }
    }
    values
}

fn push_pairs(out: &mut Vec<u64>, values: &[u64], modulus: &Modulus) {
    for &w in values {
        out.extend_from_slice(&[w, modulus.shoup(w)]);
    }
}

fn interleave_pairs(out: &mut Vec<u64>, values: &[u64], shoup: &[u64]) -> Result<()> {
    if values.len() != shoup.len() {
        return Err(GpuError::LengthMismatch { expected: values.len(), actual: shoup.len() });
    }
    for (&w, &ws) in values.iter().zip(shoup) {
        out.extend_from_slice(&[w, ws]);
    }
    Ok(())
}

/// Appends `len` entries `{re, shoup(re), im, shoup(im)}` from the four parallel tables.
fn interleave_gaussian(out: &mut Vec<u64>, tables: [&[u64]; 4], len: usize) -> Result<()> {
    if let Some(bad) = tables.iter().find(|t| t.len() != len) {
        return Err(GpuError::LengthMismatch { expected: len, actual: bad.len() });
    }
    let [re, re_shoup, im, im_shoup] = tables;
    for (((&a, &b), &c), &d) in re.iter().zip(re_shoup).zip(im).zip(im_shoup) {
        out.extend_from_slice(&[a, b, c, d]);
    }
    Ok(())
}

/// `[prefix0, prefix1, ..., prefix11]`: kernel names by `log2` of the sub-transform length.
macro_rules! kernel_names {
    ($prefix:literal) => {
        [
            concat!($prefix, "0"),
            concat!($prefix, "1"),
            concat!($prefix, "2"),
            concat!($prefix, "3"),
            concat!($prefix, "4"),
            concat!($prefix, "5"),
            concat!($prefix, "6"),
            concat!($prefix, "7"),
            concat!($prefix, "8"),
            concat!($prefix, "9"),
            concat!($prefix, "10"),
            concat!($prefix, "11"),
        ]
    };
}

const FORWARD_COLUMNS: [&str; 12] = kernel_names!("dgt_fwd_col_");
const FORWARD_ROWS: [&str; 12] = kernel_names!("dgt_fwd_row_");
const INVERSE_ROWS: [&str; 12] = kernel_names!("dgt_inv_row_");
const INVERSE_COLUMNS: [&str; 12] = kernel_names!("dgt_inv_col_");
// The single-block kernels exist for lengths 2^1..2^11; index 0 (N = 2) is never asked for
// (a DGT needs N >= 4), and its name does not exist in the module.
const FORWARD_SINGLE: [&str; 12] = kernel_names!("dgt_fwd_single_");
const INVERSE_SINGLE: [&str; 12] = kernel_names!("dgt_inv_single_");
/// The first length (`log2`) that has a single-block kernel.
const SINGLE_MIN_LOG_LEN: usize = 1;

/// The kernels of one pass kind by `log2` of the sub-transform length, from `first` on.
#[derive(Debug)]
pub(crate) struct KernelFamily {
    first: usize,
    kernels: Vec<Kernel>,
}

impl KernelFamily {
    fn load(module: &LoadedModule, names: &[&'static str; 12], first: usize) -> Result<Self> {
        let kernels = names.iter().skip(first).map(|&name| module.kernel(name)).collect::<Result<_>>()?;
        Ok(Self { first, kernels })
    }

    /// The kernel for sub-transforms of length `2^log_len`, if there is one.
    fn get(&self, log_len: u32) -> Option<&Kernel> {
        self.kernels.get((log_len as usize).checked_sub(self.first)?)
    }
}

/// Every kernel of `kernels/dgt.cu`.
#[derive(Debug)]
pub(crate) struct DgtKernels {
    forward_columns: KernelFamily,
    forward_rows: KernelFamily,
    inverse_rows: KernelFamily,
    inverse_columns: KernelFamily,
    forward_single: KernelFamily,
    inverse_single: KernelFamily,
    dgt_gauss_mul: Kernel,
}

impl DgtKernels {
    pub(crate) fn load(context: &Arc<CudaContext>, programmatic_launches: bool) -> Result<Self> {
        let module = LoadedModule::load(context, hegpu_kernels::DGT, programmatic_launches)?;
        Ok(Self {
            forward_columns: KernelFamily::load(&module, &FORWARD_COLUMNS, 0)?,
            forward_rows: KernelFamily::load(&module, &FORWARD_ROWS, 0)?,
            inverse_rows: KernelFamily::load(&module, &INVERSE_ROWS, 0)?,
            inverse_columns: KernelFamily::load(&module, &INVERSE_COLUMNS, 0)?,
            forward_single: KernelFamily::load(&module, &FORWARD_SINGLE, SINGLE_MIN_LOG_LEN)?,
            inverse_single: KernelFamily::load(&module, &INVERSE_SINGLE, SINGLE_MIN_LOG_LEN)?,
            dgt_gauss_mul: module.kernel("dgt_gauss_mul")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_fills_blocks_up_to_the_tile() {
        // N = 2^17, default split 256 x 256: 8 sub-transforms of 256 per block, 32 blocks.
        let g = PassGeometry::new(16, 8);
        assert_eq!((g.log_subs_per_block, g.blocks_per_limb, g.threads), (3, 32, 256));
        // A sub-transform of 2048: one per block.
        let g = PassGeometry::new(16, 11);
        assert_eq!((g.log_subs_per_block, g.blocks_per_limb, g.threads), (0, 32, 256));
        // Flat DGT of N = 1024: one block of 512 / 8 threads.
        let g = PassGeometry::new(9, 9);
        assert_eq!((g.log_subs_per_block, g.blocks_per_limb, g.threads), (0, 1, 64));
        // Length-1 columns: 256 per block.
        let g = PassGeometry::new(12, 0);
        assert_eq!((g.log_subs_per_block, g.blocks_per_limb, g.threads), (8, 16, 256));
        // Fewer sub-transforms than a tile holds.
        let g = PassGeometry::new(4, 2);
        assert_eq!((g.log_subs_per_block, g.blocks_per_limb, g.threads), (2, 1, 4));
        for log_k in 1..=16 {
            for log_len in 0..=log_k.min(11) {
                let g = PassGeometry::new(log_k, log_len);
                let tile = 1u64 << (g.log_subs_per_block + log_len);
                assert!(tile <= MAX_SUB_TRANSFORM as u64);
                assert!(g.threads <= 1 << MAX_LOG_THREADS);
                assert_eq!(u64::from(g.blocks_per_limb) * tile, 1 << log_k);
            }
        }
    }

    #[test]
    fn default_schedule_matches_hdgt_default_split() {
        assert_eq!(DgtSchedule::for_flat_dgt(4096), DgtSchedule::Flat);
        for log_n in 13..=17 {
            let n = 1usize << log_n;
            let p = modarith::generate_ntt_primes(50, 2 * n as u64, 1, &[]).unwrap()[0];
            let plan = HdgtPlan::new(Modulus::new(p).unwrap(), n).unwrap();
            assert_eq!(
                DgtSchedule::for_flat_dgt(n),
                DgtSchedule::Hierarchical { rows: plan.rows(), cols: plan.cols() }
            );
        }
    }

    #[test]
    fn step_twiddles_match_the_cpu_plan() {
        let n = 1 << 12;
        let p = modarith::generate_ntt_primes(55, 2 * n as u64, 1, &[]).unwrap()[0];
        let modulus = Modulus::new(p).unwrap();
        for (rows, cols) in [(32, 64), (1, 2048), (2048, 1), (8, 256)] {
            let plan = HdgtPlan::with_split(modulus, n, rows, cols).unwrap();
            let g = plan.dgt().root_of_unity();
            assert_eq!(step_twiddles(&modulus, g, rows, cols), plan.step_twiddles());
            let g_inv = modulus.inv(g).unwrap();
            assert_eq!(step_twiddles(&modulus, g_inv, rows, cols), plan.inverse_step_twiddles());
        }
    }
}
