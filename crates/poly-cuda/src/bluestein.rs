//! [`GpuCyclotomic`]: Bluestein's transform of the rings `Z_Q[x]/Phi_m(x)` (several primes) on
//! the GPU, staying on the device: coefficients to evaluations at the primitive `m`-th roots and
//! back, the reduction modulo `Phi_m` of polynomials of any degree, and the permutation of
//! evaluations that an automorphism is; the words of [`CyclotomicPlan`] per prime. A
//! [`GpuContext`] of a ring `poly::RingKind::Cyclotomic` runs its transforms through it (moved
//! here from the `cyclotomic` crate, which keeps BGV over these rings).
//!
//! Layout of such a context's polynomials on the device: limb rows of
//! [`GpuContext::degree`] words (`phi(m)` rounded up to a power of two, the sampling degree of
//! `poly`), the words past `phi(m)` zero, so that poly-cuda's element-wise kernels (one limb per
//! power-of-two row) serve unchanged; upload and download add and drop the padding.
//!
//! Data flow: `kernels/bluestein.cu`'s header. Every step is a kernel of that module or one of
//! poly-cuda's negacyclic NTTs of length `M` (a batch of polynomials per launch sequence); all
//! of it is queued on the device's stream, nothing waits until a download.
//!
//! Reduction modulo `Phi_m` (the choice, see `docs/cyclotomic.md`), two methods with the same
//! words ([`ReductionMethod`]): the CPU's binomial steps (`poly::phi_reduction`, additions only)
//! as one kernel, a block per row with the row in shared memory, where the row fits a block's
//! shared memory; else two products, `rev(g) Phi_m^-1 mod x^D` for the quotient and
//! `Q Phi_m mod (x^N + 1)` for the remainder (four NTTs of length `N`, the tables' NTTs
//! precomputed; [`GpuCyclotomic::reduce_device_with`]).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig};
use modarith::Modulus;
use poly::bluestein::{CyclotomicPlan, bluestein_length};
use poly::{Coeff, Eval, Poly, PolyError, RingContext, TransformKind};

use crate::error::{GpuError, Result};
use crate::kernel::{address, linear_config};
use crate::prime_factor::{GpuPrimeFactor, PrimeFactorInput};
use crate::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice};

fn driver_error(call: &'static str, error: cudarc::driver::DriverError) -> GpuError {
    GpuError::driver(call, error)
}

crate::kernel_set! {
    /// The kernels of `kernels/bluestein.cu`.
    pub struct BluesteinKernels(hegpu_kernels::BLUESTEIN) {
        cyc_pad_chirp,
        cyc_scatter_chirp,
        cyc_mul_broadcast,
        cyc_gather_chirp,
        cyc_fold_window,
        cyc_reverse_window,
        cyc_remainder,
        cyc_permute,
        cyc_reduce_binomial,
    }
}

/// How [`GpuCyclotomic::reduce_device_with`] reduces modulo `Phi_m` (the same words either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReductionMethod {
    /// The binomial steps, a block per row (`cyc_reduce_binomial`): where `max(phi(m), m -
    /// phi(m))` words fit a block's shared memory.
    BinomialSteps,
    /// Two products, by `Phi_m^-1 mod x^D` and by `Phi_m mod (x^N + 1)` (four NTTs of length `N` a row).
    Products,
}

/// Threads of a `cyc_reduce_binomial` block (`RB_THREADS` in `kernels/bluestein.cu`).
const BINOMIAL_THREADS: u32 = 1024;

/// The binomial steps of `Phi_m` on the device: the step codes (`d | divide << 31`, the
/// quotient's then the remainder's), their counts, the signs and the shared memory a block takes.
#[derive(Debug)]
struct BinomialReduction {
    steps: CudaSlice<u32>,
    quotient_steps: u64,
    remainder_steps: u64,
    flags: u64,
    shared_bytes: u32,
}

impl BinomialReduction {
    /// The steps of `m` (`n = phi(m)`) where a block's shared memory holds `max(n, m - n) + 32`
    /// words (the opt-in limit of the device, the kernel's attribute raised to it); `None` where
    /// it does not.
    fn new(device: &Arc<GpuDevice>, kernel: &crate::kernel::Kernel, m: usize, n: usize) -> Result<Option<Self>> {
        use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
        let plan = poly::phi_reduction::PhiReduction::new(m as u64)?;
        let shared = (n.max(m - n) + 32) * core::mem::size_of::<u64>();
        let context = device.cuda_context();
        let optin = context
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(|e| driver_error("cuDeviceGetAttribute", e))?;
        let function = kernel.function();
        let static_bytes = function
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            .map_err(|e| driver_error("cuFuncGetAttribute", e))?;
        let allowed = usize::try_from(optin.saturating_sub(static_bytes)).unwrap_or(0);
        if shared > allowed {
            return Ok(None);
        }
        // The largest the device allows (every ring's tables share the kernel; the attribute is
        // a ceiling, each launch asks for its own size).
        function
            .set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, allowed as i32)
            .map_err(|e| driver_error("cuFuncSetAttribute", e))?;
        let code = |step: &poly::phi_reduction::BinomialStep| step.degree as u32 | (u32::from(step.divide) << 31);
        let (quotient, remainder) = (plan.quotient_steps(), plan.remainder_steps());
        let codes: Vec<u32> = quotient.steps().iter().chain(remainder.steps()).map(code).collect();
        // An empty table still needs a buffer to pass: one unused word.
        let words = if codes.is_empty() { vec![0] } else { codes };
        let steps = device.stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
        Ok(Some(Self {
            steps,
            quotient_steps: quotient.steps().len() as u64,
            remainder_steps: remainder.steps().len() as u64,
            flags: u64::from(quotient.negate()) | (u64::from(remainder.negate()) << 1),
            shared_bytes: shared as u32,
        }))
    }
}

/// The prime-factor transform's view of a forward input.
fn prime_factor_input<'a>(input: &ForwardInput<'a>) -> PrimeFactorInput<'a> {
    PrimeFactorInput { x: input.x, stride: input.stride, scale: input.scale, msg: input.msg }
}

/// Blocks of a grid-stride launch over `items` words.
fn config(items: usize) -> LaunchConfig {
    linear_config(items, 1 << 16)
}

/// One input of the forward transform: rows of `stride` words (the first `n` used), each
/// coefficient replaced by `scale x_j + lift(msg_j)` (`msg`: `n` values below `t`, lifted to
/// the centered residue), or `scale x_j` without a message.
#[derive(Debug, Clone, Copy)]
pub struct ForwardInput<'a> {
    /// The rows, `[count][L][stride]`.
    pub x: &'a CudaSlice<u64>,
    /// The row length (at least `phi(m)`).
    pub stride: usize,
    /// The factor on every coefficient (below every prime; 1 for none).
    pub scale: u64,
    /// A message of `phi(m)` words below `t`, and `t`, added after the scaling.
    pub msg: Option<(&'a CudaSlice<u64>, u64)>,
}

/// The tables of one ring `Z_Q[x]/Phi_m` (primes `q_0 .. q_{L-1}`) on one device (module docs).
#[derive(Debug)]
pub struct GpuCyclotomic {
    m: usize,
    n: usize,
    big_m: usize,
    rings: Vec<CyclotomicPlan>,
    context: GpuContext,
    kernels: Arc<BluesteinKernels>,
    /// The `n` primitive indices `k_s` (u32), and `0 .. m`.
    primitive: CudaSlice<u32>,
    all: CudaSlice<u32>,
    /// `[L][m]`: the forward chirp `c`, the inverse's input chirp `c^-1`, and its output chirp
    /// `c^-1 m^-1`.
    chirp: CudaSlice<u64>,
    chirp_inv: CudaSlice<u64>,
    chirp_inv_out: CudaSlice<u64>,
    /// `[L][M]` NTTs: the forward and inverse Bluestein kernels.
    kernel: DevicePoly<Eval>,
    kernel_inv: DevicePoly<Eval>,
    /// The reduction modulo `Phi_m`'s products.
    reduction: ReductionProducts,
    /// Its binomial steps, where a row fits a block's shared memory.
    binomial: Option<BinomialReduction>,
    /// The prime-factor DFT where `m` has one: the forward and inverse transforms take it
    /// instead of the convolution (the same words).
    prime_factor: Option<GpuPrimeFactor>,
    /// The automorphisms' source tables on the device, by `g mod m`, made on first use (at
    /// most [`MAX_CACHED_AUTOMORPHISMS`]): a table is `phi(m)` indices the host would
    /// otherwise compute and upload at every automorphism.
    automorphisms: std::sync::Mutex<std::collections::HashMap<u64, Arc<CudaSlice<u32>>>>,
}

/// How many automorphisms' source tables a [`GpuCyclotomic`] keeps (`4 phi(m)` bytes each).
const MAX_CACHED_AUTOMORPHISMS: usize = 512;

/// The smallest NTT poly-cuda runs (2^10).
const MIN_NTT_LENGTH: usize = 1 << 10;

/// The reduction modulo `Phi_m`'s two products (module docs) on a negacyclic NTT ring of their
/// own, of length `N`, the power of two (at least 2^10) with `N >= 2D - 1`, `N >= phi(m)` and
/// `2N >= m` (`D = m - phi(m)`): the NTTs of `Phi_m^-1 mod x^D` and of `Phi_m mod (x^N + 1)`
/// modulo each prime.
#[derive(Debug)]
struct ReductionProducts {
    context: GpuContext,
    quotient_inv: DevicePoly<Eval>,
    phi_wrapped: DevicePoly<Eval>,
}

impl ReductionProducts {
    /// `N` for `m` with `phi(m) = n`.
    fn length(m: usize, n: usize) -> usize {
        let d = m - n;
        (2 * d - 1).max(n).max(m.div_ceil(2)).next_power_of_two().max(MIN_NTT_LENGTH)
    }

    fn new(device: &Arc<GpuDevice>, m: usize, n: usize, primes: &[u64]) -> Result<Self> {
        let len = Self::length(m, n);
        let ring = RingContext::new(len, primes, TransformKind::Ntt)?;
        let context = GpuContext::new(device, &ring)?;
        let plan = poly::phi_reduction::PhiReduction::new(m as u64)?;
        let phi_int = poly::cyclotomic::cyclotomic_polynomial(m as u64)?;
        let table = |limb: &dyn Fn(&Modulus) -> Vec<u64>| -> Result<DevicePoly<Eval>> {
            let words = ring
                .moduli()
                .iter()
                .flat_map(|q| {
                    let mut words = limb(q);
                    words.resize(len, 0);
                    words
                })
                .collect();
            let poly = Poly::<Coeff>::from_limbs(&ring, words)?.forward()?;
            DevicePoly::upload(&context, &poly)
        };
        // Phi_m^-1 mod x^D: the quotient's binomial steps applied to 1.
        let quotient_inv = table(&|q| {
            let mut words = vec![0u64; m - n];
            words[0] = 1;
            plan.quotient_steps().apply(q.value(), &mut words);
            words
        })?;
        // Phi_m mod (x^N + 1): a coefficient at x^(N + k) is -1 times it at x^k (deg Phi_m = n <= N).
        let phi_wrapped = table(&|q| {
            let mut words = vec![0u64; len];
            for (k, &c) in phi_int.iter().enumerate() {
                let (at, c) = if k < len { (k, c) } else { (k - len, -c) };
                words[at] = q.add(words[at], q.from_i64(c));
            }
            words
        })?;
        Ok(Self { context, quotient_inv, phi_wrapped })
    }
}

impl GpuCyclotomic {
    /// The ring of odd `m` modulo `primes` ([`poly::bluestein::bluestein_primes`]: `= 1 mod m`
    /// and `= 1 mod 2M`), its tables uploaded to `device`. `M` must be at least 2^10
    /// (`m >= 257`), the smallest ring poly-cuda transforms.
    pub fn new(device: &Arc<GpuDevice>, m: usize, primes: &[u64]) -> Result<Self> {
        let rings = primes
            .iter()
            .map(|&p| Ok(CyclotomicPlan::new(Modulus::new(p).map_err(PolyError::from)?, m)?))
            .collect::<Result<Vec<_>>>()?;
        Self::from_rings(device, m, rings)
    }

    /// The transform of the host context `ring` (a ring `Z_q[x]/Phi_m`; its plans' tables).
    /// Errors with [`PolyError::InvalidTransform`] for another ring kind.
    pub fn from_ring(device: &Arc<GpuDevice>, ring: &RingContext) -> Result<Self> {
        let poly::RingKind::Cyclotomic { m } = ring.ring_kind() else {
            return Err(PolyError::InvalidTransform { transform: ring.transform(), ring: ring.ring_kind() }.into());
        };
        let plans = ring
            .plans()
            .iter()
            .map(|plan| plan.as_bluestein().cloned().ok_or(PolyError::ContextMismatch))
            .collect::<core::result::Result<Vec<_>, _>>()?;
        Self::from_rings(device, m, plans)
    }

    /// The ring of the CPU plans `rings` (all of the same odd `m`), their tables uploaded.
    pub fn from_rings(device: &Arc<GpuDevice>, m: usize, rings: Vec<CyclotomicPlan>) -> Result<Self> {
        if let Some(other) = rings.iter().find(|r| r.m() != m) {
            return Err(PolyError::InvalidParameter {
                name: "m",
                value: other.m() as u64,
                reason: "every plan must be of one m",
            }
            .into());
        }
        let primes: Vec<u64> = rings.iter().map(|r| r.modulus().value()).collect();
        let primes = primes.as_slice();
        let big_m = bluestein_length(m);
        let n = poly::cyclotomic::euler_phi(m as u64) as usize;
        let ring = RingContext::new(big_m, primes, TransformKind::Ntt)?;
        let context = GpuContext::new(device, &ring)?;
        let kernels = device.kernel_set::<BluesteinKernels>()?;
        let stream = device.stream();
        let upload_words = |words: &[u64]| stream.clone_htod(words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        let upload_eval = |words: Vec<u64>| -> Result<DevicePoly<Eval>> {
            DevicePoly::upload(&context, &Poly::<Eval>::from_limbs(&ring, words)?)
        };
        let concat = |f: &dyn Fn(&CyclotomicPlan) -> Vec<u64>| rings.iter().flat_map(f).collect::<Vec<u64>>();
        let positions = |indices: &[usize]| -> Result<CudaSlice<u32>> {
            let words: Vec<u32> = indices.iter().map(|&k| k as u32).collect();
            stream.clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
        };
        let first = rings.first().ok_or(PolyError::InvalidModulusCount { count: 0, max: poly::context::MAX_LIMBS })?;
        let primitive = positions(first.primitive_indices())?;
        let all = positions(&(0..m).collect::<Vec<_>>())?;
        let chirp = upload_words(&concat(&|r| r.plan().chirp().to_vec()))?;
        let chirp_inv = upload_words(&concat(&|r| r.plan().chirp_inv().to_vec()))?;
        let chirp_inv_out = upload_words(&concat(&|r| {
            let (plan, q) = (r.plan(), r.modulus());
            plan.chirp_inv().iter().map(|&c| q.mul(c, plan.m_inv())).collect()
        }))?;
        let kernel = upload_eval(concat(&|r| r.plan().kernel().to_vec()))?;
        let kernel_inv = upload_eval(concat(&|r| r.plan().kernel_inv().to_vec()))?;
        let reduction = ReductionProducts::new(device, m, n, primes)?;
        let prime_factor = GpuPrimeFactor::new(device, &rings)?;
        let binomial = BinomialReduction::new(device, &kernels.cyc_reduce_binomial, m, n)?;
        Ok(Self {
            m,
            n,
            big_m,
            rings,
            context,
            kernels,
            primitive,
            all,
            chirp,
            chirp_inv,
            chirp_inv_out,
            kernel,
            kernel_inv,
            reduction,
            binomial,
            prime_factor,
            automorphisms: std::sync::Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// `phi(m)`, the ring's dimension.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// The number of primes `L`.
    pub fn limbs(&self) -> usize {
        self.rings.len()
    }

    /// The CPU plans, one per prime.
    pub fn rings(&self) -> &[CyclotomicPlan] {
        &self.rings
    }

    /// The device.
    pub fn device(&self) -> &Arc<GpuDevice> {
        self.context.device()
    }

    /// poly-cuda's context of the ring `(M, primes)` the transforms run on (its moduli table
    /// is this ring's).
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// `M`, the length of the convolution.
    pub fn convolution_length(&self) -> usize {
        self.big_m
    }

    /// A fresh device buffer of `len` words that the caller's next kernel writes in full
    /// (callers of other crates: `cyclotomic`'s BGV).
    ///
    /// # Safety
    /// The caller queues a kernel that writes all `len` words before anything reads them.
    pub unsafe fn alloc(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: the caller's contract.
        unsafe { self.device().stream().alloc::<u64>(len) }.map_err(|e| GpuError::alloc(8 * len, e))
    }

    /// [`alloc`](Self::alloc) for this module's callers, each of which queues a kernel writing
    /// every word (each call site says which).
    fn alloc_written(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: every caller in this module writes all `len` words before anything reads them.
        unsafe { self.alloc(len) }
    }

    fn check_len(&self, buffer: &CudaSlice<u64>, expected: usize) -> Result<()> {
        if buffer.len() != expected {
            return Err(GpuError::LengthMismatch { expected, actual: buffer.len() });
        }
        Ok(())
    }

    /// `count` polynomials `[count][L][M]` -> NTT -> times `table` (`[L][M]`, every polynomial)
    /// -> inverse NTT: the negacyclic products, in a batch.
    fn convolve(
        &self,
        buffer: CudaSlice<u64>,
        count: usize,
        table: &DevicePoly<Eval>,
    ) -> Result<DevicePolyBatch<Coeff>> {
        self.convolve_in(&self.context, buffer, count, table)
    }

    /// [`convolve`](Self::convolve) in the NTT ring `context` (degree `len`: M, or the
    /// reduction's).
    fn convolve_in(
        &self,
        context: &GpuContext,
        buffer: CudaSlice<u64>,
        count: usize,
        table: &DevicePoly<Eval>,
    ) -> Result<DevicePolyBatch<Coeff>> {
        let len = context.degree();
        let batch = DevicePolyBatch::<Coeff>::from_device_buffer(context, count, buffer)?;
        let batch = batch.forward()?;
        let stream = self.device().stream();
        let (len64, limbs, count64) = (len as u64, self.limbs() as u64, count as u64);
        let data = address(batch.device_buffer(), stream);
        let mut launch = self.kernels.cyc_mul_broadcast.builder(stream);
        launch.arg(&data).arg(table.device_buffer()).arg(context.moduli_table()).arg(&len64).arg(&limbs).arg(&count64);
        // SAFETY: matches `cyc_mul_broadcast(u64* data, const u64* factor, const Modulus* moduli,
        // u64 big_m, u64 limbs, u64 count)`: `data` is the batch's live buffer of count * L * len
        // words (checked by from_device_buffer), `factor` L * len words (a table of this
        // context), the moduli table L triples; the kernel touches `data[0 .. count L len)` and
        // `factor[0 .. L len)` only.
        unsafe { launch.launch(config(count * self.limbs() * len)) }?;
        batch.inverse()
    }

    /// Checks the inputs of [`pad_into`](Self::pad_into).
    fn check_forward_input(&self, input: &ForwardInput<'_>, count: usize) -> Result<()> {
        let n = self.n;
        if input.stride < n {
            return Err(GpuError::LengthMismatch { expected: n, actual: input.stride });
        }
        self.check_len(input.x, count * self.limbs() * input.stride)?;
        if let Some((words, _)) = input.msg {
            self.check_len(words, n)?;
        }
        if let Some((limb, ring)) = self.rings.iter().enumerate().find(|(_, r)| input.scale >= r.modulus().value()) {
            let modulus = ring.modulus().value();
            return Err(PolyError::CoefficientOutOfRange { limb, index: 0, value: input.scale, modulus }.into());
        }
        Ok(())
    }

    /// Queues `cyc_pad_chirp` writing `count` padded, chirped polynomials (`count L M` words) at
    /// device address `out` (inside a buffer of the caller's that holds them), from a checked
    /// input.
    fn pad_into(&self, out: u64, input: &ForwardInput<'_>, count: usize) -> Result<()> {
        self.pad_with(out, input, count, self.n, &self.chirp)
    }

    /// [`pad_into`](Self::pad_into) of the first `n <= m` words of each row, times `chirp`
    /// (`[L][m]`).
    fn pad_with(
        &self,
        out: u64,
        input: &ForwardInput<'_>,
        count: usize,
        n: usize,
        chirp: &CudaSlice<u64>,
    ) -> Result<()> {
        let (m, big_m, limbs) = (self.m, self.big_m, self.limbs());
        let stream = self.device().stream();
        let (msg_address, t) = match input.msg {
            Some((words, t)) => (address(words, stream), t),
            None => (0, 1),
        };
        let geometry =
            [input.scale, t, n as u64, input.stride as u64, m as u64, big_m as u64, limbs as u64, count as u64];
        let mut launch = self.kernels.cyc_pad_chirp.builder(stream);
        launch.arg(&out).arg(input.x).arg(&msg_address).arg(chirp).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_pad_chirp(u64* out, const u64* x, const u64* msg, const u64* chirp,
        // const Modulus* moduli, u64 scale, u64 t, u64 n, u64 in_stride, u64 m, u64 big_m, u64
        // limbs, u64 count)`: `out` addresses count L M words of a live buffer (the callers'
        // contract), `x` holds count L in_stride words, `msg` is null or n words
        // (check_forward_input), `chirp` L m words, the moduli table L triples; reads stay below
        // those lengths since j < n <= in_stride and n <= m (n = m only for the DFT, whose
        // input rows are m long and carry no message).
        unsafe { launch.launch(config(count * limbs * big_m)) }
    }

    /// The length-`m` DFT `X_k = sum_j x_j w^(jk)` (every `k < m`; `inverse`: its inverse,
    /// `m^-1 sum_k X_k w^(-jk)`) of `count` vectors `[count][L][m]` on the device, in that
    /// layout: [`poly::bluestein::BluesteinPlan::forward`] (`inverse`) per prime.
    pub fn dft_device(&self, x: &CudaSlice<u64>, count: usize, inverse: bool) -> Result<CudaSlice<u64>> {
        let (m, big_m, limbs) = (self.m, self.big_m, self.limbs());
        self.check_len(x, count * limbs * m)?;
        // The inverse's output chirp carries m^-1 (BluesteinPlan::inverse's last product).
        let (chirp_in, kernel, chirp_out) = if inverse {
            (&self.chirp_inv, &self.kernel_inv, &self.chirp_inv_out)
        } else {
            (&self.chirp, &self.kernel, &self.chirp)
        };
        // Written in full by pad_with.
        let padded = self.alloc_written(count * limbs * big_m)?;
        let input = ForwardInput { x, stride: m, scale: 1, msg: None };
        self.pad_with(address(&padded, self.device().stream()), &input, count, m, chirp_in)?;
        let product = self.convolve(padded, count, kernel)?;
        // Written in full by the gather (m of m words per row).
        let mut out = self.alloc_written(count * limbs * m)?;
        self.gather(&mut out, &product, &self.all, chirp_out, m, m, count)?;
        Ok(out)
    }

    /// [`dft_device`](Self::dft_device) of host vectors (`[count][L][m]`, canonical, checked).
    pub fn dft(&self, x: &[u64], inverse: bool) -> Result<Vec<u64>> {
        let data = self.upload_checked(x, self.m)?;
        let count = x.len() / (self.m * self.limbs());
        self.download(&self.dft_device(&data, count, inverse)?)
    }

    /// The evaluations (`[count][L][n]`, at the primitive roots) of `count` polynomials whose
    /// coefficients are the first `n` words of each row of `input.x` (`[count][L][stride]`,
    /// `stride >= n`), each coefficient first replaced by `scale x_j + lift(msg_j)` when a
    /// message is given.
    pub fn forward_device(&self, input: &ForwardInput<'_>, count: usize) -> Result<CudaSlice<u64>> {
        self.check_forward_input(input, count)?;
        if let Some(pfa) = &self.prime_factor {
            return pfa.forward(&[(prime_factor_input(input), count)], self.context.moduli_table(), self.n);
        }
        let padded = self.alloc_written(count * self.limbs() * self.big_m)?;
        self.pad_into(address(&padded, self.device().stream()), input, count)?;
        self.finish_forward(padded, count, self.n)
    }

    /// The evaluations of one polynomial per input, in one batch `[inputs][L][n]` (one
    /// convolution for all of them).
    pub fn forward_batch(&self, inputs: &[ForwardInput<'_>]) -> Result<CudaSlice<u64>> {
        for input in inputs {
            self.check_forward_input(input, 1)?;
        }
        if let Some(pfa) = &self.prime_factor {
            let inputs: Vec<_> = inputs.iter().map(|input| (prime_factor_input(input), 1)).collect();
            return pfa.forward(&inputs, self.context.moduli_table(), self.n);
        }
        let per_poly = self.limbs() * self.big_m;
        let padded = self.alloc_written(inputs.len() * per_poly)?;
        let base = address(&padded, self.device().stream());
        for (i, input) in inputs.iter().enumerate() {
            // Polynomial i of the batch: `per_poly` words from word i * per_poly of `padded`.
            self.pad_into(base + (i * per_poly * size_of::<u64>()) as u64, input, 1)?;
        }
        self.finish_forward(padded, inputs.len(), self.n)
    }

    /// The convolution and the gather of a forward transform, into rows of `out_stride` words
    /// (the `n` evaluations, then zeros).
    fn finish_forward(&self, padded: CudaSlice<u64>, count: usize, out_stride: usize) -> Result<CudaSlice<u64>> {
        let n = self.n;
        let product = self.convolve(padded, count, &self.kernel)?;
        // Written in full by the gather (zeros past n).
        let mut out = self.alloc_written(count * self.limbs() * out_stride)?;
        self.gather(&mut out, &product, &self.primitive, &self.chirp, n, out_stride, count)?;
        Ok(out)
    }

    /// The evaluations of `count` polynomials in rows of `stride >= phi(m)` words (`[count][L]
    /// [stride]`, the first `phi(m)` words of each row the coefficients, the rest ignored), in
    /// the same layout with zeros past `phi(m)`: a [`GpuContext`]'s forward transform.
    pub fn forward_rows(&self, rows: &CudaSlice<u64>, stride: usize, count: usize) -> Result<CudaSlice<u64>> {
        let input = ForwardInput { x: rows, stride, scale: 1, msg: None };
        self.check_forward_input(&input, count)?;
        if let Some(pfa) = &self.prime_factor {
            return pfa.forward(&[(prime_factor_input(&input), count)], self.context.moduli_table(), stride);
        }
        // Written in full by pad_into.
        let padded = self.alloc_written(count * self.limbs() * self.big_m)?;
        self.pad_into(address(&padded, self.device().stream()), &input, count)?;
        self.finish_forward(padded, count, stride)
    }

    /// The coefficients modulo `Phi_m` of `count` polynomials given by their evaluations in rows
    /// of `stride >= phi(m)` words (the rest ignored), in the same layout with zeros past
    /// `phi(m)`: a [`GpuContext`]'s inverse transform.
    pub fn inverse_rows(&self, rows: &CudaSlice<u64>, stride: usize, count: usize) -> Result<CudaSlice<u64>> {
        let n = self.n;
        if let Some(pfa) = &self.prime_factor {
            if stride < n {
                return Err(GpuError::LengthMismatch { expected: n, actual: stride });
            }
            self.check_len(rows, count * self.limbs() * stride)?;
            let interpolants = pfa.inverse(rows, stride, count, self.context.moduli_table())?;
            return self.reduce_device_with(self.reduction_method(), &interpolants, self.m, self.m, count, stride);
        }
        if stride == n {
            return self.inverse_device(rows, count);
        }
        let compact = self.truncate_rows(rows, stride, n, count)?;
        let coefficients = self.inverse_device(&compact, count)?;
        self.truncate_rows(&coefficients, n, stride, count)
    }

    /// The first `phi(m)` words of every row of `stride` words (`[count][L][stride]`), in rows
    /// of `out_stride >= phi(m)` words with zeros past `phi(m)` (the copy that adds or drops a
    /// [`GpuContext`]'s padding, or clears it).
    pub fn truncate_rows(
        &self,
        rows: &CudaSlice<u64>,
        stride: usize,
        out_stride: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        let n = self.n;
        if stride < n || out_stride < n {
            return Err(GpuError::LengthMismatch { expected: n, actual: stride.min(out_stride) });
        }
        self.check_len(rows, count * self.limbs() * stride)?;
        // Written in full by cyc_fold_window (width n, one term per word: a copy).
        let mut out = self.alloc_written(count * self.limbs() * out_stride)?;
        self.fold_window(&mut out, rows, stride, 0, n, n, out_stride, count)?;
        Ok(out)
    }

    /// The automorphism `x -> x^g` of `count` polynomials' evaluations in rows of `stride`
    /// words: evaluation `s` of the result is evaluation `sources[s]` of the input
    /// ([`RingContext::bluestein_automorphism_sources`]), zeros past `phi(m)`. Errors with
    /// [`GpuError::LengthMismatch`] unless there are `phi(m)` sources, and
    /// [`PolyError::InvalidParameter`] for a source not below `phi(m)`.
    pub fn permute_rows(
        &self,
        rows: &CudaSlice<u64>,
        sources: &[usize],
        stride: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        let table = self.upload_sources(sources)?;
        self.permute_rows_with(rows, &table, stride, count)
    }

    /// [`permute_rows`](Self::permute_rows) for the automorphism `x -> x^g`, its source table
    /// (`sources()`, called only the first time `g mod m` is seen) kept on the device.
    pub fn permute_rows_for(
        &self,
        rows: &CudaSlice<u64>,
        g: u64,
        sources: impl FnOnce() -> std::result::Result<Vec<usize>, PolyError>,
        stride: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        let key = g % self.m as u64;
        let cached = self.automorphisms.lock().ok().and_then(|tables| tables.get(&key).cloned());
        let table = match cached {
            Some(table) => table,
            None => {
                let table = Arc::new(self.upload_sources(&sources()?)?);
                if let Ok(mut tables) = self.automorphisms.lock()
                    && tables.len() < MAX_CACHED_AUTOMORPHISMS
                {
                    tables.insert(key, table.clone());
                }
                table
            }
        };
        self.permute_rows_with(rows, &table, stride, count)
    }

    /// `sources` checked (`phi(m)` indices below `phi(m)`) and uploaded as u32.
    fn upload_sources(&self, sources: &[usize]) -> Result<CudaSlice<u32>> {
        let n = self.n;
        if sources.len() != n {
            return Err(GpuError::LengthMismatch { expected: n, actual: sources.len() });
        }
        if let Some(&bad) = sources.iter().find(|&&k| k >= n) {
            return Err(PolyError::InvalidParameter {
                name: "automorphism source",
                value: bad as u64,
                reason: "must be below phi(m)",
            }
            .into());
        }
        let words: Vec<u32> = sources.iter().map(|&k| k as u32).collect();
        self.device().stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    /// The permutation by an uploaded source table.
    fn permute_rows_with(
        &self,
        rows: &CudaSlice<u64>,
        sources: &CudaSlice<u32>,
        stride: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        let n = self.n;
        if stride < n {
            return Err(GpuError::LengthMismatch { expected: n, actual: stride });
        }
        let row_count = count * self.limbs();
        self.check_len(rows, row_count * stride)?;
        let stream = self.device().stream();
        // Written in full by cyc_permute.
        let mut out = self.alloc_written(row_count * stride)?;
        let geometry = [n as u64, stride as u64, row_count as u64];
        let mut launch = self.kernels.cyc_permute.builder(stream);
        launch.arg(&mut out).arg(rows).arg(sources);
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_permute(u64* out, const u64* x, const unsigned* sources, u64 n,
        // u64 stride, u64 rows)`: `out` and `rows` hold rows * stride words (checked and
        // allocated so), `sources` n indices below n <= stride (checked); the kernel writes
        // every word of `out`.
        unsafe { launch.launch(config(row_count * stride)) }?;
        Ok(out)
    }

    /// `out[c][i][s] = a[c][i][k_s + m - 1] chirp[i][k_s]` for `s < used`, zero up to `stride`.
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &self,
        out: &mut CudaSlice<u64>,
        a: &DevicePolyBatch<Coeff>,
        positions: &CudaSlice<u32>,
        chirp: &CudaSlice<u64>,
        used: usize,
        stride: usize,
        count: usize,
    ) -> Result<()> {
        let stream = self.device().stream();
        let limbs = self.limbs();
        let geometry = [used as u64, stride as u64, self.m as u64, self.big_m as u64, limbs as u64, count as u64];
        let mut launch = self.kernels.cyc_gather_chirp.builder(stream);
        launch.arg(out).arg(a.device_buffer()).arg(positions).arg(chirp).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_gather_chirp(u64* out, const u64* a, const unsigned* positions,
        // const u64* chirp, const Modulus* moduli, u64 n, u64 out_stride, u64 m, u64 big_m, u64
        // limbs, u64 count)`: `out` holds count L stride words (allocated so by the callers),
        // `a` count L M, `positions` at least `used` indices below m (n primitive ones or 0 ..
        // m), so k + m - 1 < 2m - 1 <= M; `chirp` L m words.
        unsafe { launch.launch(config(count * limbs * stride)) }
    }

    /// `out[c][i][j] = sum_r in[c][i][offset + j + r width]` (below `in_len`) for `j < width`,
    /// zero up to `out_stride` (kernel `cyc_fold_window`).
    #[allow(clippy::too_many_arguments)]
    pub fn fold_window(
        &self,
        out: &mut CudaSlice<u64>,
        input: &CudaSlice<u64>,
        in_stride: usize,
        offset: usize,
        in_len: usize,
        width: usize,
        out_stride: usize,
        count: usize,
    ) -> Result<()> {
        let stream = self.device().stream();
        let limbs = self.limbs();
        let geometry = [
            in_stride as u64,
            offset as u64,
            in_len as u64,
            width as u64,
            out_stride as u64,
            limbs as u64,
            count as u64,
        ];
        let mut launch = self.kernels.cyc_fold_window.builder(stream);
        launch.arg(out).arg(input).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_fold_window(u64* out, const u64* in, const Modulus* moduli, u64
        // in_stride, u64 offset, u64 in_len, u64 width, u64 out_stride, u64 limbs, u64 count)`:
        // callers pass `in_len <= in_stride` with `input` of count L in_stride words and `out`
        // of count L out_stride words; the kernel reads indices below in_len of each row and
        // writes every word of `out`.
        unsafe { launch.launch(config(count * limbs * out_stride)) }
    }

    /// The reduction modulo `Phi_m` of `count` polynomials `[count][L][in_stride]` whose first
    /// `in_len` coefficients are used: `[count][L][n]` (module docs), by the binomial steps where
    /// this ring has them, else by the products.
    pub fn reduce_device(
        &self,
        input: &CudaSlice<u64>,
        in_stride: usize,
        in_len: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        self.reduce_device_with(self.reduction_method(), input, in_stride, in_len, count, self.n)
    }

    /// The method [`reduce_device`](Self::reduce_device) takes: the binomial steps where this ring
    /// has them and they are as few as the device's tuning allows
    /// (`CyclotomicTuning::binomial_max_steps`), else the products.
    pub fn reduction_method(&self) -> ReductionMethod {
        let max_steps = self.device().tuning().cyclotomic.binomial_max_steps as u64;
        match &self.binomial {
            Some(b) if b.quotient_steps + b.remainder_steps <= max_steps => ReductionMethod::BinomialSteps,
            _ => ReductionMethod::Products,
        }
    }

    /// [`reduce_device`](Self::reduce_device) by `method`, in rows of `out_stride >= phi(m)` words
    /// with zeros past `phi(m)`. Errors with [`GpuError::LengthMismatch`] for lengths that do not
    /// fit, and [`GpuError::Unsupported`] for the binomial steps where the ring has none.
    pub fn reduce_device_with(
        &self,
        method: ReductionMethod,
        input: &CudaSlice<u64>,
        in_stride: usize,
        in_len: usize,
        count: usize,
        out_stride: usize,
    ) -> Result<CudaSlice<u64>> {
        let (n, limbs) = (self.n, self.limbs());
        if in_len > in_stride {
            return Err(GpuError::LengthMismatch { expected: in_stride, actual: in_len });
        }
        if out_stride < n {
            return Err(GpuError::LengthMismatch { expected: n, actual: out_stride });
        }
        self.check_len(input, count * limbs * in_stride)?;
        match method {
            ReductionMethod::BinomialSteps => {
                let binomial = self.binomial.as_ref().ok_or_else(|| GpuError::Unsupported {
                    what: "the binomial reduction of this ring (a row exceeds a block's shared memory)".to_string(),
                })?;
                self.reduce_by_steps(binomial, input, in_stride, in_len, count, out_stride)
            }
            ReductionMethod::Products => self.reduce_by_products(input, in_stride, in_len, count, out_stride),
        }
    }

    /// `cyc_reduce_binomial`: a block per row.
    fn reduce_by_steps(
        &self,
        binomial: &BinomialReduction,
        input: &CudaSlice<u64>,
        in_stride: usize,
        in_len: usize,
        count: usize,
        out_stride: usize,
    ) -> Result<CudaSlice<u64>> {
        let rows = count * self.limbs();
        // Written in full by cyc_reduce_binomial.
        let mut out = self.alloc_written(rows * out_stride)?;
        if rows == 0 {
            return Ok(out);
        }
        let stream = self.device().stream();
        let geometry = [
            binomial.quotient_steps,
            binomial.remainder_steps,
            binomial.flags,
            self.m as u64,
            self.n as u64,
            in_stride as u64,
            in_len as u64,
            out_stride as u64,
            self.limbs() as u64,
        ];
        let mut launch = self.kernels.cyc_reduce_binomial.builder(stream);
        launch.arg(&mut out).arg(input).arg(self.context.moduli_table()).arg(&binomial.steps);
        for value in &geometry {
            launch.arg(value);
        }
        let grid =
            u32::try_from(rows).map_err(|_| GpuError::LengthMismatch { expected: u32::MAX as usize, actual: rows })?;
        let config = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (BINOMIAL_THREADS, 1, 1),
            shared_mem_bytes: binomial.shared_bytes,
        };
        // SAFETY: matches `cyc_reduce_binomial(u64* out, const u64* in, const Modulus* moduli,
        // const unsigned* steps, u64 quotient_steps, u64 remainder_steps, u64 flags, u64 m, u64 n,
        // u64 in_stride, u64 in_len, u64 out_stride, u64 limbs)`: one block per row of `input`
        // (rows * in_stride words, checked; reads below in_len <= in_stride) and of `out` (rows *
        // out_stride words, every one written); `steps` holds the two counts' codes (at least one
        // word); the shared memory is max(n, m - n) + 32 words, within the attribute set at
        // construction.
        unsafe { launch.launch(config) }?;
        Ok(out)
    }

    /// The reduction by two products (module docs): `[count][L][out_stride]`, zeros past `n`.
    ///
    /// With `g` the input modulo `x^m - 1` and `D = m - n`: `rev(Q) = rev(g) Phi_m^-1 mod x^D`
    /// (the quotient `Q = floor(g / Phi_m)`, `Phi_m` palindromic), a product of length `N >= 2D -
    /// 1` without wrap-around; then `P = Q Phi_m mod (x^N + 1)`, whose coefficients at `x^(N + j)`
    /// are `g`'s (`Q Phi_m = g - R`, `deg R < n <= N`, `deg g < m <= 2N`), so that
    /// `R_j = g_j - P_j - g_(N + j)`.
    fn reduce_by_products(
        &self,
        input: &CudaSlice<u64>,
        in_stride: usize,
        in_len: usize,
        count: usize,
        out_stride: usize,
    ) -> Result<CudaSlice<u64>> {
        let (n, m, limbs) = (self.n, self.m, self.limbs());
        let d = m - n;
        let products = &self.reduction;
        let len = products.context.degree();
        let rows = count * limbs;
        // g = input mod (x^m - 1), m words a row (the input itself when it is just that).
        let folded;
        let (g, g_stride) = if in_len == m {
            (input, in_stride)
        } else {
            let mut buffer = self.alloc_written(rows * m)?;
            self.fold_window(&mut buffer, input, in_stride, 0, in_len, m, m, count)?;
            folded = buffer;
            (&folded, m)
        };
        // rev(g) on D words, then rev(Q) = rev(g) Phi_m^-1 mod x^D.
        let mut reversed = self.alloc_written(rows * len)?;
        self.reverse_window(&mut reversed, g, g_stride, m - 1, d, len, rows)?;
        let reversed_q = self.convolve_in(&products.context, reversed, count, &products.quotient_inv)?;
        let mut quotient = self.alloc_written(rows * len)?;
        self.reverse_window(&mut quotient, reversed_q.device_buffer(), len, d - 1, d, len, rows)?;
        drop(reversed_q);
        let wrapped = self.convolve_in(&products.context, quotient, count, &products.phi_wrapped)?;
        let mut out = self.alloc_written(rows * out_stride)?;
        let stream = self.device().stream();
        let geometry = [n, out_stride, g_stride, len, len, m, limbs, rows].map(|v| v as u64);
        let mut launch = self.kernels.cyc_remainder.builder(stream);
        launch.arg(&mut out).arg(g).arg(wrapped.device_buffer()).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_remainder(u64* out, const u64* g, const u64* wrapped, const Modulus*
        // moduli, u64 n, u64 out_stride, u64 g_stride, u64 w_stride, u64 wrap, u64 m, u64 limbs,
        // u64 rows)`: `out` holds rows out_stride words (every one written; n <= out_stride,
        // checked by the caller), `g` rows g_stride >= m words (read below m), `wrapped` rows len
        // words (read below n <= len), the moduli table L triples.
        unsafe { launch.launch(config(rows * out_stride)) }?;
        Ok(out)
    }

    /// `out[row][j] = j < len ? in[row][start - j] : 0` for `j < out_stride` (`start - j` from
    /// `start` down; `len <= start + 1`), kernel `cyc_reverse_window`.
    #[allow(clippy::too_many_arguments)]
    fn reverse_window(
        &self,
        out: &mut CudaSlice<u64>,
        input: &CudaSlice<u64>,
        in_stride: usize,
        start: usize,
        len: usize,
        out_stride: usize,
        rows: usize,
    ) -> Result<()> {
        if len > start + 1 || start >= in_stride {
            return Err(GpuError::LengthMismatch { expected: start + 1, actual: len });
        }
        self.check_len(input, rows * in_stride)?;
        let stream = self.device().stream();
        let geometry = [in_stride as u64, start as u64, len as u64, out_stride as u64, rows as u64];
        let mut launch = self.kernels.cyc_reverse_window.builder(stream);
        launch.arg(out).arg(input);
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_reverse_window(u64* out, const u64* in, u64 in_stride, u64 start,
        // u64 len, u64 out_stride, u64 rows)`: `input` holds rows in_stride words (checked) and is
        // read at start - j for j < len <= start + 1, start < in_stride (checked); `out` holds rows
        // out_stride words (the callers allocate so), every one written.
        unsafe { launch.launch(config(rows * out_stride)) }
    }

    /// The coefficients modulo `Phi_m` (`[count][L][n]`) of `count` polynomials given by their
    /// evaluations `[count][L][n]`: the inverse Bluestein transform with zeros at the
    /// non-primitive roots, then the reduction modulo `Phi_m`.
    pub fn inverse_device(&self, evaluations: &CudaSlice<u64>, count: usize) -> Result<CudaSlice<u64>> {
        let (n, m, big_m, limbs) = (self.n, self.m, self.big_m, self.limbs());
        self.check_len(evaluations, count * limbs * n)?;
        if let Some(pfa) = &self.prime_factor {
            let interpolants = pfa.inverse(evaluations, n, count, self.context.moduli_table())?;
            return self.reduce_device(&interpolants, m, m, count);
        }
        let stream = self.device().stream();
        let mut padded =
            stream.alloc_zeros::<u64>(count * limbs * big_m).map_err(|e| driver_error("cuMemsetD8Async", e))?;
        let geometry = [n as u64, m as u64, big_m as u64, limbs as u64, count as u64];
        let mut launch = self.kernels.cyc_scatter_chirp.builder(stream);
        launch
            .arg(&mut padded)
            .arg(evaluations)
            .arg(&self.primitive)
            .arg(&self.chirp_inv)
            .arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_scatter_chirp(u64* out, const u64* x, const unsigned* positions,
        // const u64* chirp, const Modulus* moduli, u64 n, u64 m, u64 big_m, u64 limbs, u64
        // count)`: `padded` holds count L M zeroed words, `evaluations` count L n (checked), the
        // n positions are below m < M, `chirp` L m words.
        unsafe { launch.launch(config(count * limbs * n)) }?;
        let product = self.convolve(padded, count, &self.kernel_inv)?;
        let mut g = self.alloc_written(count * limbs * big_m)?;
        self.gather(&mut g, &product, &self.all, &self.chirp_inv_out, m, big_m, count)?;
        drop(product);
        self.reduce_device(&g, big_m, m, count)
    }

    fn upload_checked(&self, values: &[u64], row: usize) -> Result<CudaSlice<u64>> {
        let limbs = self.limbs();
        if row == 0 || !values.len().is_multiple_of(row * limbs) {
            return Err(GpuError::LengthMismatch { expected: row * limbs, actual: values.len() });
        }
        for (index, chunk) in values.chunks_exact(row).enumerate() {
            let (limb, p) = (index % limbs, self.rings[index % limbs].modulus().value());
            if let Some((index, &value)) = chunk.iter().enumerate().find(|&(_, &v)| v >= p) {
                return Err(PolyError::CoefficientOutOfRange { limb, index, value, modulus: p }.into());
            }
        }
        self.device().stream().clone_htod(values).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    fn download(&self, buffer: &CudaSlice<u64>) -> Result<Vec<u64>> {
        self.device().download_words(buffer)
    }

    /// The evaluations (`[count][L][n]`) of `count` polynomials already on the device
    /// (`[count][L][n]` canonical coefficients, not checked again): only queues work.
    pub fn forward_on_device(&self, coefficients: &CudaSlice<u64>, count: usize) -> Result<CudaSlice<u64>> {
        self.forward_device(&ForwardInput { x: coefficients, stride: self.n, scale: 1, msg: None }, count)
    }

    /// The coefficients modulo `Phi_m` (`[count][L][n]`) of `count` polynomials given by their
    /// evaluations on the device: only queues work.
    pub fn inverse_on_device(&self, evaluations: &CudaSlice<u64>, count: usize) -> Result<CudaSlice<u64>> {
        self.inverse_device(evaluations, count)
    }

    /// The evaluations of polynomials given by `n` coefficients per limb (`[count][L][n]`,
    /// canonical): [`CyclotomicPlan::forward`] per prime.
    pub fn forward(&self, coefficients: &[u64]) -> Result<Vec<u64>> {
        let x = self.upload_checked(coefficients, self.n)?;
        let count = coefficients.len() / (self.n * self.limbs());
        self.download(&self.forward_device(&ForwardInput { x: &x, stride: self.n, scale: 1, msg: None }, count)?)
    }

    /// The coefficients of polynomials given by their evaluations (`[count][L][n]`):
    /// [`CyclotomicPlan::inverse`] per prime.
    pub fn inverse(&self, evaluations: &[u64]) -> Result<Vec<u64>> {
        let x = self.upload_checked(evaluations, self.n)?;
        let count = evaluations.len() / (self.n * self.limbs());
        self.download(&self.inverse_device(&x, count)?)
    }

    /// Polynomials of `len` coefficients per limb (`[count][L][len]`, any `len >= 1`) reduced
    /// modulo `Phi_m`: `[count][L][n]`, [`CyclotomicPlan::reduce`] per prime.
    pub fn reduce(&self, values: &[u64], len: usize) -> Result<Vec<u64>> {
        self.reduce_with(self.reduction_method(), values, len, self.n)
    }

    /// [`reduce`](Self::reduce) by `method`, in rows of `out_stride >= phi(m)` words (zeros past
    /// `phi(m)`); errors as [`reduce_device_with`](Self::reduce_device_with).
    pub fn reduce_with(
        &self,
        method: ReductionMethod,
        values: &[u64],
        len: usize,
        out_stride: usize,
    ) -> Result<Vec<u64>> {
        let x = self.upload_checked(values, len)?;
        let count = values.len() / (len * self.limbs());
        self.download(&self.reduce_device_with(method, &x, len, len, count, out_stride)?)
    }
}
