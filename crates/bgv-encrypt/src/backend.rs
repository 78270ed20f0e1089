//! [`BgvBackend`]: what a backend runs for BGV beyond the core's [`rlwe::PlaintextBackend`]
//! (key switching, plaintext words and the plaintext lift, the centered lift of `[0, t)` into
//! each prime): the exact reduction of a decryption phase to `Z_t`
//! ([`DecryptionTables::reduce_host`]; one kernel on the GPU, `kernels/bgv.cu`).

use modarith::Modulus;
use poly::{Coeff, CpuBackend, Eval, Poly};

use crate::{BgvError, Result};

/// The constants of decryption at one level (primes `q_0 .. q_l`): `(q/q_i)^{-1} mod q_i`
/// with Shoup companions, `(q/q_i) mod t`, `q mod t`, and `t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecryptionTables {
    moduli: Vec<Modulus>,
    /// Per limb: `(q/q_i)^{-1} mod q_i`, its Shoup companion, `(q/q_i) mod t`.
    per_limb: Vec<u64>,
    q_mod_t: u64,
    t: u64,
    /// Every product `y_i [(q/q_i)]_t` (`y_i < q_i`) fits a word.
    narrow: bool,
}

impl DecryptionTables {
    /// The tables of the primes `moduli` and plaintext modulus `2 <= t < 2^60`. Errors with
    /// [`BgvError::InvalidParameter`] for another `t`, and as [`rns::RnsBase::new`] for the
    /// primes.
    pub fn new(moduli: &[u64], t: u64) -> Result<Self> {
        if !(2..1u64 << crate::params::MAX_PLAINTEXT_BITS).contains(&t) {
            return Err(BgvError::InvalidParameter {
                name: "plaintext modulus t",
                value: t,
                requirement: "must satisfy 2 <= t < 2^60".to_string(),
            });
        }
        let base = rns::RnsBase::new(moduli)?;
        let mut per_limb = Vec::with_capacity(3 * moduli.len());
        for (i, m) in base.moduli().iter().enumerate() {
            let punctured_mod_t = (&base.punctured_products()[i] % t).iter_u64_digits().next().unwrap_or(0);
            per_limb.extend_from_slice(&[
                base.punctured_inverses()[i],
                m.shoup(base.punctured_inverses()[i]),
                punctured_mod_t,
            ]);
        }
        let q_mod_t = (base.product() % t).iter_u64_digits().next().unwrap_or(0);
        let narrow = base
            .moduli()
            .iter()
            .zip(per_limb.chunks_exact(3))
            .all(|(m, row)| u128::from(m.value() - 1) * u128::from(row[2]) < 1u128 << 64);
        Ok(Self { moduli: base.moduli().to_vec(), per_limb, q_mod_t, t, narrow })
    }

    /// The number of primes.
    pub fn num_limbs(&self) -> usize {
        self.moduli.len()
    }

    /// Per limb `(q/q_i)^{-1} mod q_i`, its Shoup companion and `(q/q_i) mod t`.
    pub fn per_limb(&self) -> &[u64] {
        &self.per_limb
    }

    /// `q mod t`.
    pub fn q_mod_t(&self) -> u64 {
        self.q_mod_t
    }

    /// `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.t
    }

    /// Whether every product `y_i [(q/q_i)]_t` with `y_i < q_i` fits a word (primes and `t`
    /// small enough, as in Phantom's sets): `bgv_reduce_phase` then sums one-word products.
    pub fn narrow_products(&self) -> bool {
        self.narrow
    }

    /// `[x_c]_t f^{-1} mod t` per coefficient of `phase` (limb-major over these primes, degree
    /// `N`), `x_c` the centered representative modulo `q`, `f^{-1}` = `correction_inv`: the
    /// reference of the GPU kernel `bgv_reduce_phase` (kernels/bgv.cu), step for step.
    ///
    /// `round(sum_i y_i / q_i)` is taken in 0.64 fixed point (`y_i floor(2^128 / q_i) / 2^64`
    /// rounded down, summed modulo `2^64` with the carries counted), which is exact unless `x`
    /// is within `L 2^-63 q` of `+-q/2`: only a phase whose noise has spent its budget comes
    /// there. Errors with [`poly::PolyError::LengthMismatch`] for a
    /// phase of another length.
    pub fn reduce_host(&self, phase: &[u64], degree: usize, correction_inv: u64) -> Result<Vec<u64>> {
        let limbs = self.moduli.len();
        let expected = limbs.checked_mul(degree);
        if expected != Some(phase.len()) {
            let expected = expected.unwrap_or(usize::MAX);
            return Err(poly::PolyError::LengthMismatch { expected, actual: phase.len() }.into());
        }
        let t = u128::from(self.t);
        let mut out = Vec::with_capacity(degree);
        for j in 0..degree {
            // The fraction sum_i y_i / q_i in 0.64 fixed point (modulo 2^64, carries counted).
            let (mut fraction, mut carries, mut acc) = (0u64, 0u64, 0u128);
            for (i, m) in self.moduli.iter().enumerate() {
                let row = &self.per_limb[3 * i..3 * i + 3];
                let y = m.mul_shoup(phase[i * degree + j], row[0], row[1]);
                let (hi, lo) = m.barrett_constant();
                // floor(y floor(2^128 / q_i) / 2^64): below 2^64, as y < q_i.
                let term = y.wrapping_mul(hi).wrapping_add(((u128::from(y) * u128::from(lo)) >> 64) as u64);
                let (sum, overflow) = fraction.overflowing_add(term);
                fraction = sum;
                carries += u64::from(overflow);
                acc = (acc + u128::from(y) % t * u128::from(row[2])) % t;
            }
            let v = u128::from(carries) + u128::from(fraction >> 63);
            let r = (acc + t - v % t * u128::from(self.q_mod_t) % t) % t;
            out.push((r * u128::from(correction_inv) % t) as u64);
        }
        Ok(out)
    }
}

/// A backend BGV runs on: the core's steps and plaintext lift, and the phase reduction.
pub trait BgvBackend: rlwe::PlaintextBackend {
    /// [`DecryptionTables`] as this backend uses them (uploaded on a device).
    type Decryption: Send + Sync;

    /// Prepares `tables` (uploads them on a device).
    fn prepare_decryption(&self, tables: &DecryptionTables) -> Result<Self::Decryption>;

    /// [`DecryptionTables::reduce_host`] of `phase` (over the tables' primes), on the
    /// backend; the `N` words stay there (a device backend queues the work and waits for
    /// nothing).
    fn reduce_phase_resident(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        phase: &Self::Poly<Coeff>,
        correction_inv: u64,
    ) -> Result<Self::PlainWords>;

    /// [`reduce_phase_resident`](Self::reduce_phase_resident), the `N` words brought to the
    /// host.
    fn reduce_phase(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        phase: &Self::Poly<Coeff>,
        correction_inv: u64,
    ) -> Result<Vec<u64>> {
        let words = self.reduce_phase_resident(tables, prepared, phase, correction_inv)?;
        self.download_plain_words(&words)
    }

    /// Decryption's words from its operands `[c_0, acc, s]` (evaluations over the tables'
    /// primes): [`reduce_phase_resident`](Self::reduce_phase_resident) of the phase
    /// `inverse(c_0 + acc s)`, the same words. A backend may fuse the steps (the GPU folds
    /// `(q/q_i)^{-1}` into the inverse transform).
    fn decrypt_words_resident(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        [c0, acc, s]: [&Self::Poly<Eval>; 3],
        correction_inv: u64,
    ) -> Result<Self::PlainWords> {
        let phase = self.inverse_of_mul_add(c0, acc, s)?;
        self.reduce_phase_resident(tables, prepared, &phase, correction_inv)
    }

    /// [`decrypt_words_resident`](Self::decrypt_words_resident), the `N` words on the host
    /// ([`reduce_phase`](Self::reduce_phase) of the phase).
    fn decrypt_words(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        [c0, acc, s]: [&Self::Poly<Eval>; 3],
        correction_inv: u64,
    ) -> Result<Vec<u64>> {
        let phase = self.inverse_of_mul_add(c0, acc, s)?;
        self.reduce_phase(tables, prepared, &phase, correction_inv)
    }
}

impl BgvBackend for CpuBackend {
    type Decryption = ();

    fn prepare_decryption(&self, _tables: &DecryptionTables) -> Result<()> {
        Ok(())
    }

    fn reduce_phase_resident(
        &self,
        tables: &DecryptionTables,
        _prepared: &(),
        phase: &Poly<Coeff>,
        correction_inv: u64,
    ) -> Result<Vec<u64>> {
        tables.reduce_host(phase.as_slice(), phase.context().degree(), correction_inv)
    }
}

/// The fewest limbs a thread of `bgv_reduce_phase` takes when several threads share a
/// coefficient. More limbs a thread (fewer threads, more loads in flight each) measured slower
/// on an H100: at `N = 2^16 x 32` limbs 15.1 us with 4, 16.4 with 8, 18.9 with 16, 21.9 with 32.
#[cfg(feature = "cuda")]
const REDUCE_LIMBS_PER_THREAD: usize = 4;

/// Threads per block of `bgv_reduce_phase` (`REDUCE_THREADS` in kernels/bgv.cu, whose shared
/// arrays hold that many partial sums).
#[cfg(feature = "cuda")]
const REDUCE_THREADS: u32 = 256;
/// Blocks per SM its registers allow (`REDUCE_MIN_BLOCKS` in kernels/bgv.cu).
#[cfg(feature = "cuda")]
const REDUCE_MIN_BLOCKS: usize = 4;

/// The launch shape of `bgv_reduce_phase` (kernels/bgv.cu) over `degree` coefficients of
/// `limbs` primes: blocks of 256 threads, `G` threads per coefficient sharing its limbs (`G`
/// the largest of 1, 2, 4, 8 leaving each thread at least 4 limbs; 2 limbs a thread measured
/// no better), `256 / G` coefficients per block.
///
/// With `wave_threads` (output into device memory: the threads the device holds at once), `G`
/// also keeps `degree * G` within that one wave, with at most 16 limbs a thread. The kernel
/// reads the phase from L2 and is bound by latency; extra waves only added the partial sums'
/// merges. H100, ncu: 2^16 x 32 limbs 11.3 us with 4 limbs a thread, 9.2 with 16; 2^15 x 16
/// limbs 5.2 us with 4, which is one wave there (docs/performance.md).
/// Into mapped host memory more threads were faster (15.2 against 18.4 us at 2^16), so that
/// output keeps the limbs-only rule.
#[cfg(feature = "cuda")]
pub fn reduce_phase_config(
    degree: usize,
    limbs: usize,
    wave_threads: Option<usize>,
) -> poly_cuda::cudarc::driver::LaunchConfig {
    let per_thread = REDUCE_LIMBS_PER_THREAD;
    let fits_wave = |g: u32| wave_threads.is_none_or(|wave| degree.saturating_mul(g as usize) <= wave);
    let mut groups = [8u32, 4, 2].into_iter().find(|&g| limbs >= per_thread * g as usize && fits_wave(g)).unwrap_or(1);
    // No more than 16 limbs a thread for the wave's sake (the most measured).
    while wave_threads.is_some() && limbs > 16 * groups as usize && groups < 8 {
        groups *= 2;
    }
    let columns = REDUCE_THREADS / groups;
    let blocks = degree.div_ceil(columns as usize).clamp(1, u32::MAX as usize) as u32;
    poly_cuda::cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (columns, groups, 1),
        shared_mem_bytes: 0,
    }
}

/// Threads of `bgv_reduce_phase` a device holds at once.
#[cfg(feature = "cuda")]
fn reduce_wave_threads(device: &poly_cuda::GpuDevice) -> usize {
    device.multiprocessors() * REDUCE_MIN_BLOCKS * REDUCE_THREADS as usize
}

#[cfg(feature = "cuda")]
poly_cuda::kernel_set! {
    /// The kernels of `kernels/bgv.cu`, loaded once per device.
    struct BgvKernels(poly_cuda::hegpu_kernels::BGV) { bgv_reduce_phase }
}

/// Where `bgv_reduce_phase` writes its `N` words: a device buffer, or the device address of
/// mapped host memory (`GpuDevice::collect_words`).
#[cfg(feature = "cuda")]
#[derive(Debug)]
pub enum ReduceOutput<'a> {
    /// A buffer of at least `N` words.
    Device(&'a mut poly_cuda::cudarc::driver::CudaSlice<u64>),
    /// The device address of `N` words of mapped host memory.
    Mapped(u64),
}

/// Queues `bgv_reduce_phase` (kernels/bgv.cu) of `phase` into `output`, after checking that
/// `phase` lives on `backend`'s device over the tables' primes.
#[cfg(feature = "cuda")]
pub(crate) fn queue_reduce_phase(
    backend: &poly_cuda::GpuBackend,
    tables: &DecryptionTables,
    prepared: &poly_cuda::cudarc::driver::CudaSlice<u64>,
    phase: &poly_cuda::DevicePoly<Coeff>,
    correction_inv: u64,
    scaled: bool,
    output: ReduceOutput<'_>,
) -> Result<()> {
    let context = phase.context();
    // SAFETY: `phase` is a DevicePoly of a ring whose primes are the tables' (checked by the
    // callers: check_decryption_context), so it holds L N canonical words over them (N the
    // device row: the ring degree, or phi(m) padded to a power of two) and the context's
    // moduli table L triples; `prepared` is the tables' upload (3 L words); `output` holds N
    // words (a device buffer of N words, or N words of mapped host memory that collect_words
    // hands out).
    unsafe {
        queue_phase_reduction(
            backend.device(),
            tables,
            prepared,
            (phase.device_buffer(), context.moduli_table()),
            context.degree(),
            correction_inv,
            scaled,
            output,
        )
    }
}

/// Queues `bgv_reduce_phase` (kernels/bgv.cu) on `device`'s stream: `output[j] = [x_c]_t
/// f^{-1} mod t` (`f^{-1}` = `correction_inv`) for the `degree` coefficients of `phase`, `x_c`
/// the centered lift of coefficient `j` over the tables' primes (`phase` already times
/// `(q/q_i)^{-1}` when `scaled`). `degree` is a power of two; `moduli` is a moduli table
/// (`modarith::Modulus` triples) of the tables' primes. Errors as [`poly_cuda::raw::LiftFinish::new`]
/// for `correction_inv` not below `t` (nothing queued), and for a failed launch.
///
/// # Safety
/// `phase` must hold `L degree` canonical words (limb-major) over the tables' `L` primes,
/// `moduli` their `L` triples, `prepared` the tables' upload ([`BgvBackend::prepare_decryption`]
/// on a device: `3 L` words), and `output` `degree` writable words, all on `device`.
#[cfg(feature = "cuda")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn queue_phase_reduction(
    device: &poly_cuda::GpuDevice,
    tables: &DecryptionTables,
    prepared: &poly_cuda::cudarc::driver::CudaSlice<u64>,
    (phase, moduli): (&poly_cuda::cudarc::driver::CudaSlice<u64>, &poly_cuda::cudarc::driver::CudaSlice<u64>),
    degree: usize,
    correction_inv: u64,
    scaled: bool,
    output: ReduceOutput<'_>,
) -> Result<()> {
    let limbs = tables.num_limbs();
    let kernels = device.kernel_set::<BgvKernels>().map_err(BgvError::from_backend)?;
    let t = tables.plaintext_modulus();
    let finish =
        poly_cuda::raw::LiftFinish::new(t, tables.q_mod_t(), correction_inv).map_err(BgvError::from_backend)?;
    let (log_n, limbs_arg) = (degree.trailing_zeros() as i32, limbs as i32);
    let scaled_arg = i32::from(scaled);
    let narrow_arg = i32::from(tables.narrow_products());
    // Declared before the builder, which borrows it until the launch.
    let mapped_address: u64;
    let mut builder = kernels.bgv_reduce_phase.builder(device.stream());
    let wave = matches!(output, ReduceOutput::Device(_)).then(|| reduce_wave_threads(device));
    match output {
        ReduceOutput::Device(out) => builder.arg(out),
        ReduceOutput::Mapped(address) => {
            mapped_address = address;
            builder.arg(&mapped_address)
        }
    };
    builder
        .arg(phase)
        .arg(moduli)
        .arg(prepared)
        .arg_pod(&finish)
        .arg(&log_n)
        .arg(&limbs_arg)
        .arg(&scaled_arg)
        .arg(&narrow_arg);
    // SAFETY: matches `bgv_reduce_phase(u64* out, const u64* in, const Modulus* moduli,
    // const u64* tables, centered_lift::Finish finish, int log_n, int limbs, int scaled,
    // int narrow)` in kernels/bgv.cu (`finish` by value, mirrored by LiftFinish); the buffers'
    // sizes are the caller's (this function's contract); `finish` from LiftFinish::new
    // (2 <= t < 2^60, q mod t and correction_inv below t); `narrow` only where every product
    // fits a word, as DecryptionTables::new checked. The shape is reduce_phase_config's:
    // REDUCE_THREADS per block, as the kernel's shared arrays hold.
    unsafe { builder.launch(reduce_phase_config(degree, limbs, wave)) }.map_err(BgvError::from_backend)
}

/// Errors unless `context` is of `backend`'s device and over the primes of `tables`
/// (prepared).
#[cfg(feature = "cuda")]
fn check_decryption_context(
    backend: &poly_cuda::GpuBackend,
    tables: &DecryptionTables,
    prepared: &GpuDecryption,
    context: &poly_cuda::GpuContext,
) -> Result<()> {
    if !std::sync::Arc::ptr_eq(context.device(), backend.device()) {
        return Err(BgvError::from_backend(poly_cuda::GpuError::WrongContext));
    }
    let ring = context.ring();
    let limbs = ring.num_limbs();
    let same_primes =
        limbs == tables.num_limbs() && ring.moduli().iter().zip(&tables.moduli).all(|(a, b)| a.value() == b.value());
    if !same_primes || prepared.per_limb.len() != 3 * limbs {
        return Err(poly::PolyError::ContextMismatch.into());
    }
    Ok(())
}

/// Decryption's constants on a device: [`DecryptionTables::per_limb`] uploaded, and the
/// centered lift modulo `t` for the level's context (its inverse-transform scale by
/// `(q/q_i)^{-1}`; made on first use).
#[cfg(feature = "cuda")]
#[derive(Debug)]
pub struct GpuDecryption {
    per_limb: poly_cuda::cudarc::driver::CudaSlice<u64>,
    lift: std::sync::OnceLock<poly_cuda::raw::CenteredLift>,
    replays: crate::decryption_replay::DecryptionReplays,
    /// The direct path's transform scratch (one polynomial of the level), reused by every
    /// decryption queued on the device's stream: no allocation before the first kernel, and
    /// no free after the last.
    scratch: std::sync::Mutex<Option<poly_cuda::DevicePoly<Coeff>>>,
}

#[cfg(feature = "cuda")]
impl GpuDecryption {
    /// [`DecryptionTables::per_limb`] on the device.
    pub(crate) fn per_limb(&self) -> &poly_cuda::cudarc::driver::CudaSlice<u64> {
        &self.per_limb
    }

    /// The level's decryptions recorded as graphs.
    pub(crate) fn replays(&self) -> &crate::decryption_replay::DecryptionReplays {
        &self.replays
    }
}

/// Runs `f` with the centered lift of `context` (the operands' context, checked): the cached
/// one, made on first use for the first context seen (the level's ciphertexts share it), or
/// for another context one of its own, made for this call.
#[cfg(feature = "cuda")]
fn with_lift<T>(
    tables: &DecryptionTables,
    prepared: &GpuDecryption,
    context: &poly_cuda::GpuContext,
    f: impl FnOnce(&poly_cuda::raw::CenteredLift) -> Result<T>,
) -> Result<T> {
    let new_lift = || {
        let factors: Vec<u64> = tables.per_limb().chunks_exact(3).map(|row| row[0]).collect();
        let terms: Vec<u64> = tables.per_limb().chunks_exact(3).map(|row| row[2]).collect();
        let t = tables.plaintext_modulus();
        poly_cuda::raw::CenteredLift::new(context, &factors, &terms, t, tables.q_mod_t())
            .map_err(BgvError::from_backend)
    };
    if prepared.lift.get().is_none() {
        let _ = prepared.lift.set(new_lift()?);
    }
    match prepared.lift.get() {
        Some(lift) if lift.context().id() == context.id() => f(lift),
        _ => f(&new_lift()?),
    }
}

/// One kernel per phase reduction: into device memory (`reduce_phase_resident`), or straight
/// into mapped host memory (`reduce_phase`: no separate copy back). The decryptions lift in
/// the inverse transform's last pass where that path exists (two kernels in all), else reduce
/// the phase already times `(q/q_i)^{-1}` from the inverse transform.
#[cfg(feature = "cuda")]
impl BgvBackend for poly_cuda::GpuBackend {
    type Decryption = GpuDecryption;

    fn prepare_decryption(&self, tables: &DecryptionTables) -> Result<Self::Decryption> {
        let stream = self.device().stream();
        let per_limb = stream
            .clone_htod(tables.per_limb())
            .map_err(|e| BgvError::from_backend(poly_cuda::GpuError::driver("cuMemcpyHtoDAsync", e)))?;
        Ok(GpuDecryption {
            per_limb,
            lift: std::sync::OnceLock::new(),
            replays: Default::default(),
            scratch: std::sync::Mutex::new(None),
        })
    }

    fn reduce_phase_resident(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        phase: &poly_cuda::DevicePoly<Coeff>,
        correction_inv: u64,
    ) -> Result<Self::PlainWords> {
        check_decryption_context(self, tables, prepared, phase.context())?;
        reduce_into_device(self, tables, prepared, phase, correction_inv, false)
    }

    fn reduce_phase(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        phase: &poly_cuda::DevicePoly<Coeff>,
        correction_inv: u64,
    ) -> Result<Vec<u64>> {
        check_decryption_context(self, tables, prepared, phase.context())?;
        reduce_to_host(self, tables, prepared, phase, correction_inv, false)
    }

    fn decrypt_words_resident(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        [c0, acc, s]: [&poly_cuda::DevicePoly<Eval>; 3],
        correction_inv: u64,
    ) -> Result<Self::PlainWords> {
        check_decryption_context(self, tables, prepared, c0.context())?;
        if c0.context().bluestein().is_some() {
            // Phi_m rings: no scaled inverse to fold the lift into; the phase, then the kernel.
            let phase = c0.inverse_of_mul_add(acc, s).map_err(BgvError::from_backend)?;
            return reduce_into_device(self, tables, prepared, &phase, correction_inv, false);
        }
        with_lift(tables, prepared, c0.context(), |lift| {
            let cached = prepared.lift.get().is_some_and(|cached| std::ptr::eq(cached, lift));
            let degree = c0.context().ring().degree();
            let replay = poly_cuda::graph::replay_enabled_up_to(
                c0.context().device(),
                degree,
                crate::decryption_replay::DECRYPTION_REPLAY_MAX_DEGREE,
            );
            if cached && replay {
                let decryption = crate::decryption_replay::Decryption {
                    backend: self,
                    tables,
                    prepared,
                    lift,
                    factor: correction_inv,
                };
                let replayed = decryption.replay([c0, acc, s])?;
                if let Some(words) = replayed {
                    return Ok(words);
                }
            }
            if let Some(words) =
                c0.inverse_of_mul_add_lifted(acc, s, lift, correction_inv).map_err(BgvError::from_backend)?
            {
                return Ok(words);
            }
            if let Some(words) = decrypt_through_scratch(self, tables, prepared, lift, [c0, acc, s], correction_inv)? {
                return Ok(words);
            }
            let phase = c0.inverse_of_mul_add_scaled(acc, s, lift.scale()).map_err(BgvError::from_backend)?;
            reduce_into_device(self, tables, prepared, &phase, correction_inv, true)
        })
    }

    fn decrypt_words(
        &self,
        tables: &DecryptionTables,
        prepared: &Self::Decryption,
        [c0, acc, s]: [&poly_cuda::DevicePoly<Eval>; 3],
        correction_inv: u64,
    ) -> Result<Vec<u64>> {
        check_decryption_context(self, tables, prepared, c0.context())?;
        if c0.context().bluestein().is_some() {
            let phase = c0.inverse_of_mul_add(acc, s).map_err(BgvError::from_backend)?;
            return reduce_to_host(self, tables, prepared, &phase, correction_inv, false);
        }
        with_lift(tables, prepared, c0.context(), |lift| {
            let fused = c0.inverse_of_mul_add_lifted_to_host(acc, s, lift, correction_inv);
            if let Some(words) = fused.map_err(BgvError::from_backend)? {
                return Ok(words);
            }
            let phase = c0.inverse_of_mul_add_scaled(acc, s, lift.scale()).map_err(BgvError::from_backend)?;
            reduce_to_host(self, tables, prepared, &phase, correction_inv, true)
        })
    }
}

/// The scaled transform and `bgv_reduce_phase` of checked operands into a new buffer of `N`
/// words, the transform written into the level's cached scratch (made on first use): the host
/// issues two launches and one allocation (the output's, between them) where the plain path
/// also allocates and frees the scratch, and the first kernel starts that much sooner. The
/// lock is held until both kernels are queued, and the cache is used only on the device's own
/// stream, so decryptions sharing the scratch run in stream order. `Ok(None)`, nothing queued,
/// where it does not apply (a thread capturing a graph, a lift of another context, DGT rings).
#[cfg(feature = "cuda")]
fn decrypt_through_scratch(
    backend: &poly_cuda::GpuBackend,
    tables: &DecryptionTables,
    prepared: &GpuDecryption,
    lift: &poly_cuda::raw::CenteredLift,
    [c0, acc, s]: [&poly_cuda::DevicePoly<Eval>; 3],
    correction_inv: u64,
) -> Result<Option<poly_cuda::cudarc::driver::CudaSlice<u64>>> {
    let device = backend.device();
    let context = c0.context();
    let own_stream = std::sync::Arc::ptr_eq(device.stream(), device.streams().main());
    let cached_lift = prepared.lift.get().is_some_and(|cached| std::ptr::eq(cached, lift));
    // DGT rings have no scaled transform (their scale follows the inverse): the plain path.
    let scaled = context.ring().transform() == poly::TransformKind::Ntt;
    if !own_stream || !cached_lift || !scaled {
        return Ok(None);
    }
    let mut guard = prepared.scratch.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // The cached scratch if it is of this context, else a new one in its place.
    let scratch = match guard.take() {
        Some(scratch) if scratch.context().id() == context.id() => guard.insert(scratch),
        _ => guard.insert(poly_cuda::DevicePoly::<Coeff>::zero(context).map_err(BgvError::from_backend)?),
    };
    c0.inverse_of_mul_add_scaled_into(acc, s, lift.scale(), scratch).map_err(BgvError::from_backend)?;
    reduce_into_device(backend, tables, prepared, scratch, correction_inv, true).map(Some)
}

/// `bgv_reduce_phase` of a checked `phase` into a new device buffer of `N` words (`phi(m)`
/// over a ring `Z_q[x]/Phi_m`: the kernel covers the padded row, whose prefix is kept).
#[cfg(feature = "cuda")]
fn reduce_into_device(
    backend: &poly_cuda::GpuBackend,
    tables: &DecryptionTables,
    prepared: &GpuDecryption,
    phase: &poly_cuda::DevicePoly<Coeff>,
    correction_inv: u64,
    scaled: bool,
) -> Result<poly_cuda::cudarc::driver::CudaSlice<u64>> {
    let n = phase.context().degree();
    // SAFETY: the kernel writes all N words before anything reads them.
    let mut out = unsafe { backend.device().stream().alloc::<u64>(n) }
        .map_err(|e| BgvError::from_backend(poly_cuda::GpuError::alloc(n * size_of::<u64>(), e)))?;
    queue_reduce_phase(
        backend,
        tables,
        &prepared.per_limb,
        phase,
        correction_inv,
        scaled,
        ReduceOutput::Device(&mut out),
    )?;
    phase.context().row_words(out).map_err(BgvError::from_backend)
}

/// `bgv_reduce_phase` of a checked `phase` to the host: straight into mapped host memory, or
/// through a device buffer above the staging size.
#[cfg(feature = "cuda")]
fn reduce_to_host(
    backend: &poly_cuda::GpuBackend,
    tables: &DecryptionTables,
    prepared: &GpuDecryption,
    phase: &poly_cuda::DevicePoly<Coeff>,
    correction_inv: u64,
    scaled: bool,
) -> Result<Vec<u64>> {
    let (n, row) = (phase.context().ring().degree(), phase.context().degree());
    if row > poly_cuda::raw::STAGING_MAX_WORDS {
        let words = reduce_into_device(backend, tables, prepared, phase, correction_inv, scaled)?;
        return rlwe::PlaintextBackend::download_plain_words(backend, &words);
    }
    let mut words = backend.device().collect_words(row, |address| {
        queue_reduce_phase(
            backend,
            tables,
            &prepared.per_limb,
            phase,
            correction_inv,
            scaled,
            ReduceOutput::Mapped(address),
        )
    })?;
    words.truncate(n);
    Ok(words)
}

#[cfg(test)]
mod tests {
    /// A degree whose phase length overflows is a length mismatch, not a panic.
    #[test]
    fn reduce_host_refuses_an_overflowing_degree() {
        let moduli = modarith::generate_ntt_primes(50, 128, 2, &[]).unwrap();
        let tables = super::DecryptionTables::new(&moduli, 65537).unwrap();
        assert!(tables.reduce_host(&[], usize::MAX, 1).is_err());
        assert!(tables.reduce_host(&[1, 2, 3], 2, 1).is_err());
    }

    use num_bigint::{BigInt, BigUint};
    use num_traits::{One, Signed, Zero};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::DecryptionTables;

    /// `reduce_host` equals `(x mod t) f^{-1} mod t` computed with big integers, `x` the
    /// centered value of the residues, for random `x` up to `q/2 - q 2^-20` in magnitude and
    /// the edges 0, +-1, +-(that bound); bases of 1 to 12 primes of 30 to 61 bits; `t` prime,
    /// a power of two, 3 and just below 2^60; correction factors 1 and random.
    #[test]
    fn reduce_host_is_the_centered_value_modulo_t() {
        let mut rng = StdRng::seed_from_u64(11);
        let degree = 64;
        for (count, bits) in [(1usize, 61u32), (3, 50), (5, 30), (12, 61)] {
            let moduli = modarith::generate_ntt_primes(bits, 2 * degree as u64, count, &[]).unwrap();
            let q: BigInt = moduli.iter().map(|&p| BigInt::from(p)).product();
            let bound: BigInt = &q / 2 - (&q >> 20u32);
            for t in [65537u64, 1 << 16, 3, (1 << 60) - 93] {
                let tables = DecryptionTables::new(&moduli, t).unwrap();
                let mut values: Vec<BigInt> =
                    vec![BigInt::zero(), BigInt::one(), -BigInt::one(), bound.clone(), -&bound];
                while values.len() < degree {
                    let words: Vec<u64> = (0..count + 1).map(|_| rng.r#gen::<u64>()).collect();
                    let wide = BigInt::from(BigUint::from_slice(
                        &words.iter().flat_map(|w| [*w as u32, (w >> 32) as u32]).collect::<Vec<_>>(),
                    ));
                    values.push(wide % (&bound * 2) - &bound);
                }
                let mut phase = vec![0u64; count * degree];
                for (j, x) in values.iter().enumerate() {
                    for (i, &p) in moduli.iter().enumerate() {
                        let r = ((x % BigInt::from(p)) + BigInt::from(p)) % BigInt::from(p);
                        phase[i * degree + j] = r.iter_u64_digits().next().unwrap_or(0);
                    }
                }
                for correction in [1u64, 2, t - 1] {
                    let Some(inv) = crate::context::inverse_mod(correction, t) else { continue };
                    let got = tables.reduce_host(&phase, degree, inv).unwrap();
                    for (j, x) in values.iter().enumerate() {
                        let tb = BigInt::from(t);
                        let m = ((x % &tb) + &tb) % &tb * BigInt::from(inv) % &tb;
                        assert_eq!(BigInt::from(got[j]), m, "{count} x {bits} bits, t {t}, f {correction}, x {x}");
                        assert!(!m.is_negative());
                    }
                }
            }
        }
        assert!(DecryptionTables::new(&[12289], 1).is_err());
    }

    /// The phase reduction's shape: threads per coefficient by the limbs, and for output into
    /// device memory within one wave of the device's threads.
    #[cfg(feature = "cuda")]
    #[test]
    fn reduce_shape_stays_within_a_wave_for_device_output() {
        let h100_wave = 132 * super::REDUCE_MIN_BLOCKS * super::REDUCE_THREADS as usize;
        let groups = |degree, limbs, wave| super::reduce_phase_config(degree, limbs, wave).block_dim.1;
        assert_eq!(groups(1 << 15, 16, Some(h100_wave)), 4);
        assert_eq!(groups(1 << 16, 32, Some(h100_wave)), 2);
        assert_eq!(groups(1 << 16, 32, None), 8);
        assert_eq!(groups(1 << 14, 8, Some(h100_wave)), 2);
        assert_eq!(groups(1 << 12, 3, Some(h100_wave)), 1);
        assert_eq!(groups(1 << 17, 64, Some(h100_wave)), 4);
        assert_eq!(groups(1 << 17, 16, Some(h100_wave)), 1);
        for (degree, limbs) in [(1usize << 12, 3usize), (1 << 16, 32), (1 << 17, 64)] {
            for wave in [Some(h100_wave), None] {
                let config = super::reduce_phase_config(degree, limbs, wave);
                assert_eq!(config.block_dim.0 * config.block_dim.1, 256);
                assert!(config.grid_dim.0 as usize * config.block_dim.0 as usize >= degree);
            }
        }
    }

    /// `narrow_products` is true exactly when every `(q_i - 1) [(q/q_i)]_t` fits a word (the
    /// products the GPU kernel then sums in one word each): Phantom's sets (primes of 36 to 40
    /// bits, a 20-bit `t`) are narrow; 60-bit primes with `t` near 2^60 are not.
    #[test]
    fn narrow_products_is_exact() {
        for (count, bits, t, expect) in [
            (16usize, 40u32, 786433u64, Some(true)),
            (4, 60, (1 << 60) - 93, Some(false)),
            (4, 45, 65537, None),
            (6, 50, 65537, None),
            (3, 62, 3, None),
        ] {
            let moduli = modarith::generate_ntt_primes(bits, 1 << 13, count, &[]).unwrap();
            let tables = DecryptionTables::new(&moduli, t).unwrap();
            let q: BigInt = moduli.iter().map(|&p| BigInt::from(p)).product();
            let exact = moduli.iter().all(|&p| {
                let c = (&q / BigInt::from(p)) % BigInt::from(t);
                BigInt::from(p - 1) * c < BigInt::one() << 64u32
            });
            assert_eq!(tables.narrow_products(), exact, "{count} x {bits} bits, t {t}");
            if let Some(expect) = expect {
                assert_eq!(exact, expect, "{count} x {bits} bits, t {t}");
            }
        }
    }
}
