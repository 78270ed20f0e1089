//! [`GpuPrimeFactor`]: the prime-factor (Good-Thomas) DFT of a ring `Z_Q[x]/Phi_m` on the GPU,
//! for the `m` whose factors have a plan ([`poly::prime_factor`]: Rader primes such as 257,
//! prime powers up to 64). [`crate::bluestein::GpuCyclotomic`] takes it instead of Bluestein's
//! convolution of length `M` where it exists: the same words (both are the DFT), a few passes
//! over `m` words per limb instead of two NTTs of length `M >= 2m - 1`.
//!
//! Data flow: `kernels/prime_factor.cu`'s header. Everything is queued on the device's stream.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig};
use poly::bluestein::CyclotomicPlan;
use poly::prime_factor::{AxisTransform, PrimeFactorPlan};

use crate::GpuDevice;
use crate::error::{GpuError, Result};
use crate::kernel::{address, linear_config};

crate::kernel_set! {
    /// The kernels of `kernels/prime_factor.cu`.
    pub struct PrimeFactorKernels(hegpu_kernels::PRIME_FACTOR) {
        pf_gather_input,
        pf_gather,
        pf_scatter,
        pf_direct_axis,
        pf_direct_pair,
        pf_rader_axis,
    }
}

fn driver_error(call: &'static str, error: cudarc::driver::DriverError) -> GpuError {
    GpuError::driver(call, error)
}

/// Blocks of a grid-stride launch over `items` words.
fn config(items: usize) -> LaunchConfig {
    linear_config(items, 1 << 16)
}

/// One axis's tables on the device.
#[derive(Debug)]
enum DeviceAxis {
    /// `[L][phi(m_i)][m_i]` and `[L][m_i][phi(m_i)]`, each with its Shoup quotients.
    Direct(Box<[Shoup; 2]>),
    /// Rader's tables.
    Rader(Box<RaderTables>),
}

/// `r^a`, `r^-b - 1` (`p - 1` each); `[L][(p - 1) / 2]` twiddles and their inverses;
/// `[L][p - 1]` kernels; `[L]` values `p^-1`.
#[derive(Debug)]
struct RaderTables {
    powers: CudaSlice<u32>,
    outputs: CudaSlice<u32>,
    twiddles: Shoup,
    twiddles_inv: Shoup,
    kernel: Shoup,
    kernel_inv: Shoup,
    p_inv: CudaSlice<u64>,
}

/// A table of a Rader axis, from the plan's NTT, kernels and `p^-1`.
type RaderField = dyn Fn(&poly::prime_factor::CyclicNtt, &[u64], &[u64], u64) -> Vec<u64>;

/// Words modulo the limbs' primes on the device with their Shoup quotients
/// (`floor(w 2^64 / p)`), for `mul_shoup`.
#[derive(Debug)]
struct Shoup {
    words: CudaSlice<u64>,
    quotients: CudaSlice<u64>,
}

/// The prime-factor DFT of one ring on one device (module docs).
#[derive(Debug)]
pub struct GpuPrimeFactor {
    m: usize,
    n: usize,
    limbs: usize,
    device: Arc<GpuDevice>,
    kernels: Arc<PrimeFactorKernels>,
    /// `(m_i, phi(m_i))` per axis, slowest first.
    shape: Vec<(usize, usize)>,
    axes: Vec<DeviceAxis>,
    /// Per input tensor position, its coefficient index (`m` words).
    sources: CudaSlice<u32>,
    /// Per evaluation, its output tensor position (`phi(m)` words), and the inverse map.
    positions: CudaSlice<u32>,
    evaluation_of: CudaSlice<u32>,
}

/// Where the first axis reads: a tensor, or the caller's rows through a map.
enum Start<'a> {
    Tensor(CudaSlice<u64>),
    /// Tensor position `t` is word `map[t]` of a row of `stride` words (zero at or past
    /// `limit`).
    Mapped {
        rows: &'a CudaSlice<u64>,
        map: &'a CudaSlice<u32>,
        stride: usize,
        limit: usize,
    },
}

/// Where the last axis writes, when it is a Rader axis: output tensor position `t` to word
/// `map[t]` of rows of `stride` words (a buffer zeroed first when the map leaves words out).
struct LastOutput<'a> {
    map: &'a CudaSlice<u32>,
    stride: usize,
    zeroed: bool,
}

/// The rows of a forward transform's input: `rows` rows of `stride` words, the first `phi(m)`
/// the coefficients, each replaced by `scale x_j + lift(msg_j)` (a message of `phi(m)` words
/// below `t`, when given).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrimeFactorInput<'a> {
    pub(crate) x: &'a CudaSlice<u64>,
    pub(crate) stride: usize,
    pub(crate) scale: u64,
    pub(crate) msg: Option<(&'a CudaSlice<u64>, u64)>,
}

impl GpuPrimeFactor {
    /// The tables of the CPU plans (one per prime, all of one `m`), uploaded; `None` when `m`
    /// has no prime-factor plan.
    pub fn new(device: &Arc<GpuDevice>, rings: &[CyclotomicPlan]) -> Result<Option<Self>> {
        let Some(plans) = rings.iter().map(CyclotomicPlan::prime_factor).collect::<Option<Vec<&PrimeFactorPlan>>>()
        else {
            return Ok(None);
        };
        let Some(first) = plans.first() else { return Ok(None) };
        let stream = device.stream();
        let upload = |words: Vec<u64>| stream.clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        // Words of every limb, `per_limb` each, with their quotients by each limb's prime.
        let with_shoup = |words: Vec<u64>| -> Result<Shoup> {
            let per_limb = words.len() / plans.len().max(1);
            let quotients = words
                .iter()
                .enumerate()
                .map(|(i, &w)| plans[(i / per_limb.max(1)).min(plans.len() - 1)].modulus().shoup(w))
                .collect();
            Ok(Shoup { words: upload(words)?, quotients: upload(quotients)? })
        };
        let upload32 = |words: &[u32]| stream.clone_htod(words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        let mut axes = Vec::with_capacity(first.axes().len());
        for (i, axis) in first.axes().iter().enumerate() {
            // The same axis of every prime's plan, concatenated limb after limb.
            let of_limbs = |f: &dyn Fn(&AxisTransform) -> Vec<u64>| -> Vec<u64> {
                plans.iter().flat_map(|plan| f(&plan.axes()[i].transform)).collect()
            };
            let device_axis = match &axis.transform {
                AxisTransform::Direct { .. } => DeviceAxis::Direct(Box::new([
                    with_shoup(of_limbs(&|t| match t {
                        AxisTransform::Direct { forward, .. } => forward.clone(),
                        AxisTransform::Rader(_) => Vec::new(),
                    }))?,
                    with_shoup(of_limbs(&|t| match t {
                        AxisTransform::Direct { inverse, .. } => inverse.clone(),
                        AxisTransform::Rader(_) => Vec::new(),
                    }))?,
                ])),
                AxisTransform::Rader(axis) => {
                    let (generator_powers, outputs) = (&axis.generator_powers, &axis.outputs);
                    let rader = |f: &RaderField| {
                        of_limbs(&|t| match t {
                            AxisTransform::Rader(r) => {
                                let (ntt, kernel, kernel_inv, p_inv) = (&r.ntt, &r.kernel, &r.kernel_inv, &r.p_inv);
                                f(ntt, kernel, kernel_inv, *p_inv)
                            }
                            AxisTransform::Direct { .. } => Vec::new(),
                        })
                    };
                    DeviceAxis::Rader(Box::new(RaderTables {
                        powers: upload32(generator_powers)?,
                        outputs: upload32(outputs)?,
                        twiddles: with_shoup(rader(&|ntt, _, _, _| ntt.twiddles().to_vec()))?,
                        twiddles_inv: with_shoup(rader(&|ntt, _, _, _| ntt.twiddles_inv().to_vec()))?,
                        kernel: with_shoup(rader(&|_, k, _, _| k.to_vec()))?,
                        kernel_inv: with_shoup(rader(&|_, _, k, _| k.to_vec()))?,
                        p_inv: upload(rader(&|_, _, _, p_inv| vec![p_inv]))?,
                    }))
                }
            };
            axes.push(device_axis);
        }
        // Every plan of one m has the same axes and tables of positions (the primes differ
        // only in the words).
        if plans.iter().any(|plan| plan.sources() != first.sources() || plan.axes().len() != first.axes().len()) {
            return Err(GpuError::LengthMismatch { expected: first.axes().len(), actual: 0 });
        }
        Ok(Some(Self {
            m: first.m(),
            n: first.evaluation_positions().len(),
            limbs: plans.len(),
            device: Arc::clone(device),
            kernels: device.kernel_set::<PrimeFactorKernels>()?,
            shape: first.axes().iter().map(|axis| (axis.size, axis.units)).collect(),
            axes,
            sources: upload32(first.sources())?,
            positions: upload32(first.evaluation_positions())?,
            evaluation_of: upload32(&{
                let mut inverse = vec![0u32; first.evaluation_positions().len()];
                for (s, &t) in first.evaluation_positions().iter().enumerate() {
                    inverse[t as usize] = s as u32;
                }
                inverse
            })?,
        }))
    }

    fn alloc_written(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: every caller queues a kernel that writes all `len` words before anything
        // reads them (each call site says which).
        unsafe { self.device.stream().alloc::<u64>(len) }.map_err(|e| GpuError::alloc(8 * len, e))
    }

    /// The evaluations of one polynomial per input, `count` rows of `L` limbs each (`inputs[i]`
    /// holds `counts[i]` polynomials), in rows of `out_stride >= phi(m)` words (zeros past
    /// `phi(m)`). The inputs are checked by the caller.
    pub(crate) fn forward(
        &self,
        inputs: &[(PrimeFactorInput<'_>, usize)],
        moduli: &CudaSlice<u64>,
        out_stride: usize,
    ) -> Result<CudaSlice<u64>> {
        let (n, limbs) = (self.n, self.limbs);
        let count: usize = inputs.iter().map(|(_, c)| c).sum();
        let rows = count * limbs;
        let stream = self.device.stream();
        let plain = match inputs {
            [(input, _)] if input.scale == 1 && input.msg.is_none() => Some(input),
            _ => None,
        };
        let start = match plain {
            Some(input) if self.first_is_direct() => {
                Start::Mapped { rows: input.x, map: &self.sources, stride: input.stride, limit: n }
            }
            _ => Start::Tensor(self.gather_inputs(inputs, moduli, rows)?),
        };
        let last = self.last_is_rader().then_some(LastOutput {
            map: &self.evaluation_of,
            stride: out_stride,
            zeroed: out_stride > n,
        });
        let fused_last = last.is_some();
        let tensor = self.axes_pass(start, rows, moduli, false, last)?;
        if fused_last {
            return Ok(tensor);
        }
        // Written in full by pf_gather (n evaluations, zeros to out_stride).
        let mut out = self.alloc_written(rows * out_stride)?;
        let geometry = [n as u64, n as u64, out_stride as u64, rows as u64];
        let mut launch = self.kernels.pf_gather.builder(stream);
        launch.arg(&mut out).arg(&tensor).arg(&self.positions);
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `pf_gather(u64* out, const u64* in, const unsigned* table, u64 used,
        // u64 in_len, u64 out_stride, u64 rows)`: `tensor` holds rows x n words (the output
        // tensor), `positions` n indices below n, `out` rows x out_stride with n <= out_stride.
        unsafe { launch.launch(config(rows * out_stride)) }?;
        Ok(out)
    }

    fn first_is_direct(&self) -> bool {
        matches!(self.axes.first(), Some(DeviceAxis::Direct(_)))
    }

    fn last_is_rader(&self) -> bool {
        matches!(self.axes.last(), Some(DeviceAxis::Rader(_)))
    }

    /// The input tensors (`rows` x `m` words) of the inputs, scaled and with their messages.
    fn gather_inputs(
        &self,
        inputs: &[(PrimeFactorInput<'_>, usize)],
        moduli: &CudaSlice<u64>,
        rows: usize,
    ) -> Result<CudaSlice<u64>> {
        let (m, limbs) = (self.m, self.limbs);
        let stream = self.device.stream();
        // Written in full by pf_gather_input, input after input.
        let tensor = self.alloc_written(rows * m)?;
        let base = address(&tensor, stream);
        let mut row = 0usize;
        for (input, polys) in inputs {
            let input_rows = polys * limbs;
            let (msg_address, t) = match input.msg {
                Some((words, t)) => (address(words, stream), t),
                None => (0, 1),
            };
            let out_address = base + (row * m * size_of::<u64>()) as u64;
            let geometry =
                [input.scale, t, self.n as u64, input.stride as u64, m as u64, limbs as u64, input_rows as u64];
            let mut launch = self.kernels.pf_gather_input.builder(stream);
            launch.arg(&out_address).arg(input.x).arg(&msg_address).arg(&self.sources).arg(moduli);
            for value in &geometry {
                launch.arg(value);
            }
            // SAFETY: matches `pf_gather_input(u64* out, const u64* x, const u64* msg, const
            // unsigned* sources, const Modulus* moduli, u64 scale, u64 t_plain, u64 n, u64
            // in_stride, u64 m, u64 limbs, u64 rows)`: `out` addresses input_rows x m words
            // inside `tensor` (rows x m), `x` holds input_rows x in_stride words with n <=
            // in_stride, `msg` null or n words, `sources` m indices below m (reads only those
            // below n), the moduli table L triples (the callers check all of it).
            unsafe { launch.launch(config(input_rows * m)) }?;
            row += input_rows;
        }
        Ok(tensor)
    }

    /// The interpolants of degree `< m` (`[count][L][m]`) of `count` polynomials' evaluations
    /// in rows of `stride >= phi(m)` words, zero at the non-primitive roots: the input of the
    /// reduction modulo `Phi_m`.
    pub(crate) fn inverse(
        &self,
        evaluations: &CudaSlice<u64>,
        stride: usize,
        count: usize,
        moduli: &CudaSlice<u64>,
    ) -> Result<CudaSlice<u64>> {
        let (m, n, rows) = (self.m, self.n, count * self.limbs);
        let start = if self.first_is_direct() {
            Start::Mapped { rows: evaluations, map: &self.evaluation_of, stride, limit: n }
        } else {
            // Written in full: `positions` is a bijection onto the n words of each row.
            let mut tensor = self.alloc_written(rows * n)?;
            self.scatter(&mut tensor, evaluations, &self.positions, n, stride, n, rows)?;
            Start::Tensor(tensor)
        };
        // `sources` is a bijection onto the m words of each row.
        let last = self.last_is_rader().then_some(LastOutput { map: &self.sources, stride: m, zeroed: false });
        let fused_last = last.is_some();
        let tensor = self.axes_pass(start, rows, moduli, true, last)?;
        if fused_last {
            return Ok(tensor);
        }
        // Written in full: `sources` is a bijection onto the m words of each row.
        let mut out = self.alloc_written(rows * m)?;
        self.scatter(&mut out, &tensor, &self.sources, m, m, m, rows)?;
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &self,
        out: &mut CudaSlice<u64>,
        input: &CudaSlice<u64>,
        table: &CudaSlice<u32>,
        used: usize,
        in_stride: usize,
        out_len: usize,
        rows: usize,
    ) -> Result<()> {
        let geometry = [used as u64, in_stride as u64, out_len as u64, rows as u64];
        let mut launch = self.kernels.pf_scatter.builder(self.device.stream());
        launch.arg(out).arg(input).arg(table);
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `pf_scatter(u64* out, const u64* in, const unsigned* table, u64 used,
        // u64 in_stride, u64 out_len, u64 rows)`: callers pass `input` of rows x in_stride
        // words with used <= in_stride, `out` of rows x out_len words, and `table` of `used`
        // distinct indices below out_len.
        unsafe { launch.launch(config(rows * used)) }
    }

    /// Every axis transformed, from `start` (`rows` limbs): forward from the input tensor (`m`
    /// words a row) to the output tensor (`phi(m)`), inverse back; the last axis into `last`'s
    /// layout when given.
    fn axes_pass(
        &self,
        start: Start<'_>,
        rows: usize,
        moduli: &CudaSlice<u64>,
        inverse: bool,
        last: Option<LastOutput<'_>>,
    ) -> Result<CudaSlice<u64>> {
        let stream = self.device.stream();
        // The axis kernels index a pass in 32 bits.
        if rows.saturating_mul(self.m) > u32::MAX as usize {
            return Err(GpuError::LengthMismatch { expected: u32::MAX as usize / self.m, actual: rows });
        }
        let mut dims: Vec<usize> = self.shape.iter().map(|&(size, units)| if inverse { units } else { size }).collect();
        let (mut tensor, mut mapped) = match start {
            Start::Tensor(tensor) => (Some(tensor), None),
            Start::Mapped { rows, map, stride, limit } => (None, Some((rows, map, stride, limit))),
        };
        let axes = self.axes.len();
        let mut i = 0;
        while i < axes {
            let axis = &self.axes[i];
            // Two direct axes in a row (not the fused last one) go as one pass.
            if let (DeviceAxis::Direct(first), Some(DeviceAxis::Direct(second))) = (axis, self.axes.get(i + 1))
                && (i + 2 < axes || last.is_none())
                && self.device.tuning().cyclotomic.pair_direct_axes
                && self.pair_fits(i)
            {
                let input = match (mapped.take(), tensor.take()) {
                    (Some((rows, map, stride, limit)), _) => Start::Mapped { rows, map, stride, limit },
                    (None, Some(tensor)) => Start::Tensor(tensor),
                    (None, None) => return Err(GpuError::LengthMismatch { expected: 1, actual: 0 }),
                };
                let matrices = [&first[usize::from(inverse)], &second[usize::from(inverse)]];
                tensor = Some(self.direct_pair(input, matrices, i, &dims, rows, moduli, inverse)?);
                for axis in [i, i + 1] {
                    let (size, units) = self.shape[axis];
                    dims[axis] = if inverse { size } else { units };
                }
                i += 2;
                continue;
            }
            let (size, units) = self.shape[i];
            let (len_in, len_out) = if inverse { (units, size) } else { (size, units) };
            let before: usize = dims[..i].iter().product();
            let after: usize = dims[i + 1..].iter().product();
            let fused_out = if i + 1 == axes { last.as_ref() } else { None };
            let mut out = match fused_out {
                Some(LastOutput { stride, zeroed: true, .. }) => {
                    stream.alloc_zeros::<u64>(rows * stride).map_err(|e| driver_error("cuMemsetD8Async", e))?
                }
                // Written in full: the map is a bijection onto the rows' words.
                Some(LastOutput { stride, .. }) => self.alloc_written(rows * stride)?,
                // Written in full by the axis kernel (every output of every column).
                None => self.alloc_written(rows * before * len_out * after)?,
            };
            let (input, in_map, in_stride, in_limit) = match (mapped.take(), tensor.as_ref()) {
                (Some((rows, map, stride, limit)), _) => (rows, Some(map), stride, limit),
                (None, Some(tensor)) => (tensor, None, 0, 0),
                (None, None) => return Err(GpuError::LengthMismatch { expected: 1, actual: 0 }),
            };
            match axis {
                DeviceAxis::Direct(matrices) => {
                    let matrix = &matrices[usize::from(inverse)];
                    let map_address = in_map.map_or(0, |map| address(map, stream));
                    let geometry =
                        [before, len_in, len_out, after, self.limbs, rows, in_stride, in_limit].map(|v| v as u32);
                    let mut launch = self.kernels.pf_direct_axis.builder(stream);
                    launch
                        .arg(&mut out)
                        .arg(input)
                        .arg(&map_address)
                        .arg(&matrix.words)
                        .arg(&matrix.quotients)
                        .arg(moduli);
                    for value in &geometry {
                        launch.arg(value);
                    }
                    // SAFETY: matches `pf_direct_axis(u64* out, const u64* in, const unsigned*
                    // in_map, const u64* matrix, const u64* matrix_shoup, const Modulus* moduli,
                    // unsigned before, unsigned len_in, unsigned len_out, unsigned after, unsigned
                    // limbs, unsigned rows, unsigned in_stride, unsigned in_limit)`: `out` holds
                    // rows x before x len_out x after words (below 2^32: checked above); the
                    // input is the tensor of rows x before x len_in x after words, or (in_map,
                    // the first axis) the caller's rows x in_stride words read at map entries
                    // below in_limit <= in_stride, the map holding one index per input tensor
                    // position; `matrix` and its quotients L blocks of len_out x len_in, the
                    // moduli table L triples. This axis is never the fused last one (a Rader
                    // axis), so `out` is the tensor.
                    unsafe { launch.launch(config(rows * before * len_out * after)) }?;
                }
                DeviceAxis::Rader(tables) => {
                    let RaderTables { powers, outputs, twiddles, twiddles_inv, kernel, kernel_inv, p_inv } = &**tables;
                    if in_map.is_some() {
                        // A Rader axis never reads through a map (first_is_direct).
                        return Err(GpuError::LengthMismatch { expected: 0, actual: 1 });
                    }
                    let len = size - 1;
                    let kernel = if inverse { kernel_inv } else { kernel };
                    let (map_address, out_stride) =
                        fused_out.map_or((0, 0), |last| (address(last.map, stream), last.stride));
                    let geometry = [
                        before as u32,
                        len.trailing_zeros(),
                        after as u32,
                        self.limbs as u32,
                        u32::from(inverse),
                        out_stride as u32,
                    ];
                    let mut launch = self.kernels.pf_rader_axis.builder(stream);
                    launch
                        .arg(&mut out)
                        .arg(input)
                        .arg(powers)
                        .arg(outputs)
                        .arg(&twiddles.words)
                        .arg(&twiddles.quotients)
                        .arg(&twiddles_inv.words)
                        .arg(&twiddles_inv.quotients)
                        .arg(&kernel.words)
                        .arg(&kernel.quotients)
                        .arg(p_inv)
                        .arg(moduli)
                        .arg(&map_address);
                    for value in &geometry {
                        launch.arg(value);
                    }
                    let columns = u32::try_from(rows * before * after)
                        .map_err(|_| GpuError::LengthMismatch { expected: u32::MAX as usize, actual: rows })?;
                    let launch_config = LaunchConfig {
                        grid_dim: (columns, 1, 1),
                        block_dim: ((len / 2).max(1) as u32, 1, 1),
                        shared_mem_bytes: (3 * len * size_of::<u64>()) as u32,
                    };
                    // SAFETY: matches `pf_rader_axis(u64* out, const u64* in, const unsigned*
                    // powers, const unsigned* outputs, const u64* twiddles, const u64*
                    // twiddles_shoup, const u64* twiddles_inv, const u64* twiddles_inv_shoup,
                    // const u64* kernel, const u64* kernel_shoup, const u64* p_inv, const
                    // Modulus* moduli, const unsigned* out_map, unsigned before, unsigned
                    // log_len, unsigned after, unsigned limbs, unsigned inverse, unsigned
                    // out_stride)`: one block per column (rows x before x after); the input
                    // tensor holds rows x before x (len + 1 or len) x after words; `out` the
                    // output tensor (rows x before x (len or len + 1) x after) or, with the map
                    // (the last axis), rows x out_stride words, the map sending each output
                    // tensor position below out_stride; the tables len indices below len + 1
                    // and L blocks of len / 2 and len words, len = p - 1 <= 1024 a power of two
                    // (the plan's); shared memory len words and 4 x len / 2 for the twiddles.
                    unsafe { launch.launch(launch_config) }?;
                }
            }
            dims[i] = len_out;
            tensor = Some(out);
            i += 1;
        }
        tensor.ok_or(GpuError::LengthMismatch { expected: 1, actual: 0 })
    }

    /// Whether axes `i` and `i + 1` fit one `pf_direct_pair` block's shared memory without
    /// opting in (48 KiB), in either direction: the tile's words at every stage and both
    /// matrices with their quotients, bounded by the axes' sizes.
    fn pair_fits(&self, i: usize) -> bool {
        let (s0, s1) = (self.shape[i].0, self.shape[i + 1].0);
        let words = 2 * s0 * s1 * PAIR_TILE + 2 * (s0 * s0 + s1 * s1);
        words * size_of::<u64>() <= 48 << 10
    }

    /// Axes `i` and `i + 1` (both direct) as one `pf_direct_pair` pass over `rows` limbs whose
    /// tensor has the extents `dims` (the input's): the output tensor.
    #[allow(clippy::too_many_arguments)]
    fn direct_pair(
        &self,
        input: Start<'_>,
        matrices: [&Shoup; 2],
        i: usize,
        dims: &[usize],
        rows: usize,
        moduli: &CudaSlice<u64>,
        inverse: bool,
    ) -> Result<CudaSlice<u64>> {
        let stream = self.device.stream();
        let lens = |axis: usize| {
            let (size, units) = self.shape[axis];
            if inverse { (units, size) } else { (size, units) }
        };
        let ((len_in0, len_out0), (len_in1, len_out1)) = (lens(i), lens(i + 1));
        let before: usize = dims[..i].iter().product();
        let after: usize = dims[i + 2..].iter().product();
        let tile = PAIR_TILE.min(after);
        let tiles = after.div_ceil(tile);
        let blocks = u32::try_from(rows * before * tiles)
            .map_err(|_| GpuError::LengthMismatch { expected: u32::MAX as usize, actual: rows })?;
        // Written in full: every output of every column (each block its tile's).
        let mut out = self.alloc_written(rows * before * len_out0 * len_out1 * after)?;
        let shared_words =
            (len_in0 * len_in1 + len_out0 * len_in1) * tile + 2 * (len_out0 * len_in0 + len_out1 * len_in1);
        let (input_words, map_address, in_stride, in_limit) = match &input {
            Start::Tensor(tensor) => (address(tensor, stream), 0, 0, 0),
            Start::Mapped { rows, map, stride, limit } => {
                (address(*rows, stream), address(*map, stream), *stride, *limit)
            }
        };
        let geometry = [before, len_in0, len_out0, len_in1, len_out1, after, tile, self.limbs, in_stride, in_limit]
            .map(|v| v as u32);
        let mut launch = self.kernels.pf_direct_pair.builder(stream);
        launch
            .arg(&mut out)
            .arg(&input_words)
            .arg(&map_address)
            .arg(&matrices[0].words)
            .arg(&matrices[0].quotients)
            .arg(&matrices[1].words)
            .arg(&matrices[1].quotients)
            .arg(moduli);
        for value in &geometry {
            launch.arg(value);
        }
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (PAIR_THREADS, 1, 1),
            shared_mem_bytes: (shared_words * size_of::<u64>()) as u32,
        };
        // SAFETY: matches `pf_direct_pair(u64* out, const u64* in, const unsigned* in_map, const
        // u64* matrix0, const u64* matrix0_shoup, const u64* matrix1, const u64* matrix1_shoup,
        // const Modulus* moduli, unsigned before, unsigned len_in0, unsigned len_out0, unsigned
        // len_in1, unsigned len_out1, unsigned after, unsigned tile, unsigned limbs, unsigned
        // in_stride, unsigned in_limit)`: one block per (row, a, tile); the input is the tensor
        // of rows x before x len_in0 x len_in1 x after words (below 2^32, checked by axes_pass),
        // or the caller's rows x in_stride words read at map entries below in_limit <= in_stride
        // (the map one index per input tensor position); `out` holds rows x before x len_out0 x
        // len_out1 x after words, each block writing the columns of its tile; the matrices L
        // blocks of len_out x len_in words; shared memory as the kernel's header (at most a few
        // tens of KiB for prime powers up to 64 and PAIR_TILE columns). `input` (a tensor the
        // pass consumes) lives until the launch is queued; the stream orders its release.
        unsafe { launch.launch(config) }?;
        drop(input);
        Ok(out)
    }
}

/// Columns of a `pf_direct_pair` block: four give 65 blocks per limb at `m = 21845` (of 257
/// columns) and about one output per thread at the second axis (eight columns and 128 threads
/// were slower than the two passes at two limbs, H200).
const PAIR_TILE: usize = 4;
/// Threads of a `pf_direct_pair` block.
const PAIR_THREADS: u32 = 256;
