//! [`GpuCyclotomic`]: `Z_Q[x]/Phi_m(x)` (several primes) on the GPU, staying on the device:
//! coefficients to evaluations at the primitive `m`-th roots and back, and the reduction modulo
//! `Phi_m` of polynomials of any degree; the words of [`CyclotomicRing`] per prime.
//!
//! Data flow: `kernels/cyclotomic.cu`'s header. Every step is a kernel of that module or one of
//! poly-cuda's negacyclic NTTs of length `M` (a batch of polynomials per launch sequence); all
//! of it is queued on the device's stream, nothing waits until a download.
//!
//! Reduction modulo `Phi_m` (the choice, see `docs/cyclotomic.md`): a precomputed table of
//! `x^k mod Phi_m` would hold `O(m phi(m))` words, and the long division is sequential in the
//! degree. Instead the input is folded modulo `x^m - 1` (which `Phi_m` divides), and the
//! quotient by `Phi_m` is read off a product with the cofactor `Psi_m = (x^m - 1) / Phi_m`:
//! two products of length `M` (four NTTs, the tables' NTTs precomputed), each of them
//! element-wise work the GPU does well ([`CyclotomicRing::reduce_fast`] is the same algorithm
//! on the CPU, tested against the long division).

use std::sync::Arc;

use modarith::Modulus;
use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::cudarc::driver::{CudaSlice, LaunchConfig};
use poly_cuda::kernel::{address, linear_config};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice};

use crate::{CyclotomicError, Result};
use crate::{CyclotomicRing, bluestein_length};

pub(crate) fn backend_error(error: poly_cuda::GpuError) -> CyclotomicError {
    CyclotomicError::Backend(Box::new(error))
}

pub(crate) fn driver_error(call: &'static str, error: poly_cuda::cudarc::driver::DriverError) -> CyclotomicError {
    backend_error(poly_cuda::GpuError::Driver { call, reason: error.to_string() })
}

poly_cuda::kernel_set! {
    /// The kernels of `kernels/cyclotomic.cu`.
    pub struct CyclotomicKernels(poly_cuda::hegpu_kernels::CYCLOTOMIC) {
        cyc_pad_chirp,
        cyc_scatter_chirp,
        cyc_mul_broadcast,
        cyc_gather_chirp,
        cyc_fold_window,
        cyc_sub_low,
        cyc_encrypt_combine,
        cyc_add,
        cyc_tensor,
        cyc_phase,
        cyc_digit_spread,
        cyc_keyswitch_inner,
        cyc_moddown_lift,
        cyc_moddown_combine,
    }
}

/// Blocks of a grid-stride launch over `items` words.
pub(crate) fn config(items: usize) -> LaunchConfig {
    linear_config(items, 1 << 16)
}

/// One input of the forward transform: rows of `stride` words (the first `n` used), each
/// coefficient replaced by `scale x_j + lift(msg_j)` (`msg`: `n` values below `t`, lifted to
/// the centered residue), or `scale x_j` without a message.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ForwardInput<'a> {
    pub(crate) x: &'a CudaSlice<u64>,
    pub(crate) stride: usize,
    pub(crate) scale: u64,
    pub(crate) msg: Option<(&'a CudaSlice<u64>, u64)>,
}

/// The tables of one ring `Z_Q[x]/Phi_m` (primes `q_0 .. q_{L-1}`) on one device (module docs).
#[derive(Debug)]
pub struct GpuCyclotomic {
    m: usize,
    n: usize,
    big_m: usize,
    rings: Vec<CyclotomicRing>,
    context: GpuContext,
    kernels: Arc<CyclotomicKernels>,
    /// The `n` primitive indices `k_s` (u32), and `0 .. m`.
    primitive: CudaSlice<u32>,
    all: CudaSlice<u32>,
    /// `[L][m]`: the forward chirp `c`, the inverse's input chirp `c^-1`, and its output chirp
    /// `c^-1 m^-1`.
    chirp: CudaSlice<u64>,
    chirp_inv: CudaSlice<u64>,
    chirp_inv_out: CudaSlice<u64>,
    /// `[L][M]` NTTs: the forward and inverse Bluestein kernels, `Psi_m` and `Phi_m`.
    kernel: DevicePoly<Eval>,
    kernel_inv: DevicePoly<Eval>,
    psi: DevicePoly<Eval>,
    phi: DevicePoly<Eval>,
}

impl GpuCyclotomic {
    /// The ring of odd `m` modulo `primes` ([`crate::bluestein_primes`]: `= 1 mod m` and
    /// `= 1 mod 2M`), its tables uploaded to `device`. `M` must be at least 2^10 (`m >= 513`),
    /// the smallest ring poly-cuda transforms.
    pub fn new(device: &Arc<GpuDevice>, m: usize, primes: &[u64]) -> Result<Self> {
        let rings =
            primes.iter().map(|&p| Ok(CyclotomicRing::new(Modulus::new(p)?, m)?)).collect::<Result<Vec<_>>>()?;
        Self::from_rings(device, m, rings)
    }

    /// The ring of the CPU rings `rings` (all of the same odd `m`), their tables uploaded.
    pub(crate) fn from_rings(device: &Arc<GpuDevice>, m: usize, rings: Vec<CyclotomicRing>) -> Result<Self> {
        if let Some(other) = rings.iter().find(|r| r.m() != m) {
            return Err(CyclotomicError::InvalidParameter {
                name: "m",
                value: other.m() as u64,
                requirement: format!("every ring must be of m = {m}"),
            });
        }
        let primes: Vec<u64> = rings.iter().map(|r| r.modulus().value()).collect();
        let primes = primes.as_slice();
        let big_m = bluestein_length(m);
        let n = crate::euler_phi(m as u64) as usize;
        let ring = RingContext::new(big_m, primes, TransformKind::Ntt)?;
        let context = GpuContext::new(device, &ring).map_err(backend_error)?;
        let kernels = device.kernel_set::<CyclotomicKernels>().map_err(backend_error)?;
        let stream = device.stream();
        let upload_words = |words: &[u64]| stream.clone_htod(words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        let upload_eval = |words: Vec<u64>| -> Result<DevicePoly<Eval>> {
            DevicePoly::upload(&context, &Poly::<Eval>::from_limbs(&ring, words)?).map_err(backend_error)
        };
        let concat = |f: &dyn Fn(&CyclotomicRing) -> Vec<u64>| rings.iter().flat_map(f).collect::<Vec<u64>>();
        let positions = |indices: &[usize]| -> Result<CudaSlice<u32>> {
            let words: Vec<u32> = indices.iter().map(|&k| k as u32).collect();
            stream.clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
        };
        let first = rings.first().ok_or(CyclotomicError::InvalidParameter {
            name: "primes",
            value: 0,
            requirement: "at least one prime".to_string(),
        })?;
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
        let psi = upload_eval(concat(&|r| r.psi_ntt().to_vec()))?;
        let phi = upload_eval(concat(&|r| r.phi_ntt().to_vec()))?;
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
            psi,
            phi,
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

    /// The CPU rings, one per prime.
    pub fn rings(&self) -> &[CyclotomicRing] {
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

    pub(crate) fn kernels(&self) -> &CyclotomicKernels {
        &self.kernels
    }

    /// `M`, the length of the convolution.
    pub fn convolution_length(&self) -> usize {
        self.big_m
    }

    /// A fresh device buffer of `len` words that the caller's next kernel writes in full.
    pub(crate) fn alloc(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: every caller queues a kernel that writes all `len` words before anything
        // reads them (each call site says which).
        unsafe { self.device().stream().alloc::<u64>(len) }.map_err(|e| driver_error("cuMemAllocAsync", e))
    }

    fn check_len(&self, buffer: &CudaSlice<u64>, expected: usize, what: &'static str) -> Result<()> {
        if buffer.len() != expected {
            return Err(CyclotomicError::LengthMismatch { what, expected, actual: buffer.len() });
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
        let batch =
            DevicePolyBatch::<Coeff>::from_device_buffer(&self.context, count, buffer).map_err(backend_error)?;
        let batch = batch.forward().map_err(backend_error)?;
        let stream = self.device().stream();
        let (big_m, limbs, count64) = (self.big_m as u64, self.limbs() as u64, count as u64);
        let data = address(batch.device_buffer(), stream);
        let mut launch = self.kernels.cyc_mul_broadcast.builder(stream);
        launch
            .arg(&data)
            .arg(table.device_buffer())
            .arg(self.context.moduli_table())
            .arg(&big_m)
            .arg(&limbs)
            .arg(&count64);
        // SAFETY: matches `cyc_mul_broadcast(u64* data, const u64* factor, const Modulus* moduli,
        // u64 big_m, u64 limbs, u64 count)`: `data` is the batch's live buffer of count * L * M
        // words (checked by from_device_buffer), `factor` L * M words, the moduli table L
        // triples; the kernel touches `data[0 .. count L M)` and `factor[0 .. L M)` only.
        unsafe { launch.launch(config(count * self.limbs() * self.big_m)) }.map_err(backend_error)?;
        batch.inverse().map_err(backend_error)
    }

    /// Checks the inputs of [`pad_into`](Self::pad_into).
    fn check_forward_input(&self, input: &ForwardInput<'_>, count: usize) -> Result<()> {
        let n = self.n;
        if input.stride < n {
            return Err(CyclotomicError::LengthMismatch { what: "row stride", expected: n, actual: input.stride });
        }
        self.check_len(input.x, count * self.limbs() * input.stride, "forward input")?;
        if let Some((words, _)) = input.msg {
            self.check_len(words, n, "plaintext")?;
        }
        if let Some(ring) = self.rings.iter().find(|r| input.scale >= r.modulus().value()) {
            return Err(CyclotomicError::InvalidParameter {
                name: "scale",
                value: input.scale,
                requirement: format!("must be below p = {}", ring.modulus().value()),
            });
        }
        Ok(())
    }

    /// Queues `cyc_pad_chirp` writing `count` padded, chirped polynomials (`count L M` words) at
    /// device address `out` (inside a buffer of the caller's that holds them), from a checked
    /// input.
    fn pad_into(&self, out: u64, input: &ForwardInput<'_>, count: usize) -> Result<()> {
        let (n, m, big_m, limbs) = (self.n, self.m, self.big_m, self.limbs());
        let stream = self.device().stream();
        let (msg_address, t) = match input.msg {
            Some((words, t)) => (address(words, stream), t),
            None => (0, 1),
        };
        let geometry =
            [input.scale, t, n as u64, input.stride as u64, m as u64, big_m as u64, limbs as u64, count as u64];
        let mut launch = self.kernels.cyc_pad_chirp.builder(stream);
        launch.arg(&out).arg(input.x).arg(&msg_address).arg(&self.chirp).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_pad_chirp(u64* out, const u64* x, const u64* msg, const u64* chirp,
        // const Modulus* moduli, u64 scale, u64 t, u64 n, u64 in_stride, u64 m, u64 big_m, u64
        // limbs, u64 count)`: `out` addresses count L M words of a live buffer (the callers'
        // contract), `x` holds count L in_stride words, `msg` is null or n words
        // (check_forward_input), `chirp` L m words, the moduli table L triples; reads stay below
        // those lengths since j < n <= in_stride and n < m.
        unsafe { launch.launch(config(count * limbs * big_m)) }.map_err(backend_error)
    }

    /// The evaluations (`[count][L][n]`, at the primitive roots) of `count` polynomials whose
    /// coefficients are the first `n` words of each row of `input.x` (`[count][L][stride]`,
    /// `stride >= n`), each coefficient first replaced by `scale x_j + lift(msg_j)` when a
    /// message is given.
    pub(crate) fn forward_device(&self, input: &ForwardInput<'_>, count: usize) -> Result<CudaSlice<u64>> {
        self.check_forward_input(input, count)?;
        let padded = self.alloc(count * self.limbs() * self.big_m)?;
        self.pad_into(address(&padded, self.device().stream()), input, count)?;
        self.finish_forward(padded, count)
    }

    /// The evaluations of one polynomial per input, in one batch `[inputs][L][n]` (one
    /// convolution for all of them).
    pub(crate) fn forward_batch(&self, inputs: &[ForwardInput<'_>]) -> Result<CudaSlice<u64>> {
        for input in inputs {
            self.check_forward_input(input, 1)?;
        }
        let per_poly = self.limbs() * self.big_m;
        let padded = self.alloc(inputs.len() * per_poly)?;
        let base = address(&padded, self.device().stream());
        for (i, input) in inputs.iter().enumerate() {
            // Polynomial i of the batch: `per_poly` words from word i * per_poly of `padded`.
            self.pad_into(base + (i * per_poly * size_of::<u64>()) as u64, input, 1)?;
        }
        self.finish_forward(padded, inputs.len())
    }

    fn finish_forward(&self, padded: CudaSlice<u64>, count: usize) -> Result<CudaSlice<u64>> {
        let n = self.n;
        let product = self.convolve(padded, count, &self.kernel)?;
        let mut out = self.alloc(count * self.limbs() * n)?;
        self.gather(&mut out, &product, &self.primitive, &self.chirp, n, n, count)?;
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
        unsafe { launch.launch(config(count * limbs * stride)) }.map_err(backend_error)
    }

    /// `out[c][i][j] = sum_r in[c][i][offset + j + r width]` (below `in_len`) for `j < width`,
    /// zero up to `out_stride` (kernel `cyc_fold_window`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fold_window(
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
        unsafe { launch.launch(config(count * limbs * out_stride)) }.map_err(backend_error)
    }

    /// The reduction modulo `Phi_m` of `count` polynomials `[count][L][in_stride]` whose first
    /// `in_len` coefficients are used: `[count][L][n]` (module docs).
    pub(crate) fn reduce_device(
        &self,
        input: &CudaSlice<u64>,
        in_stride: usize,
        in_len: usize,
        count: usize,
    ) -> Result<CudaSlice<u64>> {
        let (n, m, big_m, limbs) = (self.n, self.m, self.big_m, self.limbs());
        if in_len > in_stride {
            return Err(CyclotomicError::LengthMismatch { what: "used length", expected: in_stride, actual: in_len });
        }
        self.check_len(input, count * limbs * in_stride, "reduction input")?;
        // g = input mod (x^m - 1): padded to M for the product, and its n low words kept.
        let mut g = self.alloc(count * limbs * big_m)?;
        self.fold_window(&mut g, input, in_stride, 0, in_len, m, big_m, count)?;
        let mut low = self.alloc(count * limbs * n)?;
        self.fold_window(&mut low, input, in_stride, 0, in_len, m, n, count)?;
        let g_psi = self.convolve(g, count, &self.psi)?;
        // Q = coefficients m .. 2m - n of g Psi_m (degree < 2m - n <= M: no wrap-around).
        let mut quotient = self.alloc(count * limbs * big_m)?;
        self.fold_window(&mut quotient, g_psi.device_buffer(), big_m, m, 2 * m - n, m - n, big_m, count)?;
        drop(g_psi);
        let phi_q = self.convolve(quotient, count, &self.phi)?;
        let mut out = self.alloc(count * limbs * n)?;
        let stream = self.device().stream();
        let geometry = [n as u64, n as u64, big_m as u64, limbs as u64, count as u64];
        let mut launch = self.kernels.cyc_sub_low.builder(stream);
        launch.arg(&mut out).arg(&low).arg(phi_q.device_buffer()).arg(self.context.moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_sub_low(u64* out, const u64* a, const u64* b, const Modulus*
        // moduli, u64 n, u64 a_stride, u64 b_stride, u64 limbs, u64 count)`: `out` and `low`
        // hold count L n words, `phi_q` count L M (M > n); the kernel writes every word of `out`.
        unsafe { launch.launch(config(count * limbs * n)) }.map_err(backend_error)?;
        Ok(out)
    }

    /// The coefficients modulo `Phi_m` (`[count][L][n]`) of `count` polynomials given by their
    /// evaluations `[count][L][n]`: the inverse Bluestein transform with zeros at the
    /// non-primitive roots, then the reduction modulo `Phi_m`.
    pub(crate) fn inverse_device(&self, evaluations: &CudaSlice<u64>, count: usize) -> Result<CudaSlice<u64>> {
        let (n, m, big_m, limbs) = (self.n, self.m, self.big_m, self.limbs());
        self.check_len(evaluations, count * limbs * n, "inverse input")?;
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
        unsafe { launch.launch(config(count * limbs * n)) }.map_err(backend_error)?;
        let product = self.convolve(padded, count, &self.kernel_inv)?;
        let mut g = self.alloc(count * limbs * big_m)?;
        self.gather(&mut g, &product, &self.all, &self.chirp_inv_out, m, big_m, count)?;
        drop(product);
        self.reduce_device(&g, big_m, m, count)
    }

    fn upload_checked(&self, values: &[u64], row: usize, what: &'static str) -> Result<CudaSlice<u64>> {
        let limbs = self.limbs();
        if row == 0 || !values.len().is_multiple_of(row * limbs) {
            return Err(CyclotomicError::LengthMismatch { what, expected: row * limbs, actual: values.len() });
        }
        for (index, chunk) in values.chunks_exact(row).enumerate() {
            let p = self.rings[index % limbs].modulus().value();
            if let Some(&bad) = chunk.iter().find(|&&v| v >= p) {
                return Err(CyclotomicError::InvalidParameter {
                    name: "value",
                    value: bad,
                    requirement: format!("must be below p = {p}"),
                });
            }
        }
        self.device().stream().clone_htod(values).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    fn download(&self, buffer: &CudaSlice<u64>) -> Result<Vec<u64>> {
        self.device().download_words(buffer).map_err(backend_error)
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
    /// canonical): [`CyclotomicRing::forward`] per prime.
    pub fn forward(&self, coefficients: &[u64]) -> Result<Vec<u64>> {
        let x = self.upload_checked(coefficients, self.n, "coefficients")?;
        let count = coefficients.len() / (self.n * self.limbs());
        self.download(&self.forward_device(&ForwardInput { x: &x, stride: self.n, scale: 1, msg: None }, count)?)
    }

    /// The coefficients of polynomials given by their evaluations (`[count][L][n]`):
    /// [`CyclotomicRing::inverse`] per prime.
    pub fn inverse(&self, evaluations: &[u64]) -> Result<Vec<u64>> {
        let x = self.upload_checked(evaluations, self.n, "evaluations")?;
        let count = evaluations.len() / (self.n * self.limbs());
        self.download(&self.inverse_device(&x, count)?)
    }

    /// Polynomials of `len` coefficients per limb (`[count][L][len]`, any `len >= 1`) reduced
    /// modulo `Phi_m`: `[count][L][n]`, [`CyclotomicRing::reduce`] per prime.
    pub fn reduce(&self, values: &[u64], len: usize) -> Result<Vec<u64>> {
        let x = self.upload_checked(values, len, "reduction input")?;
        let count = values.len() / (len * self.limbs());
        self.download(&self.reduce_device(&x, len, len, count)?)
    }
}
