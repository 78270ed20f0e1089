//! BFV benchmark: KeyGen, Encrypt (public key), Decrypt, Add, Mul+Relin and (batching sets)
//! Rotate rows by one slot of the `bfv` crate
//! on the GPU (`poly_cuda::GpuBackend`, feature `cuda`) and on the CPU reference backend, next
//! to Phantom's published H100 medians (docs/anchors.md) or the seed papers' own
//! GPU numbers, and next to fhe.rs 0.1.1 (CPU, one thread) run in the same process.
//!
//! Parameter sets (the `bfv` presets):
//! - Phantom's table: `N = 2^12 .. 2^16`, one special prime, and the hybrid sets (several
//!   special primes) at `N >= 2^14`; `t` a 20-bit batching prime; NTT; HPS and BEHZ where
//!   Phantom reports them;
//! - the seeds' sets: spog section 4.2 "BPAVR" and "BVMA" (`t = 256`, HPS, hierarchical DGT)
//!   and GPU-FV Table 4 (`t = 2`, BEHZ, DGT). Most are below 128-bit security; they are built
//!   with `allow_insecure` because the papers measured them.
//!
//! Method. GPU: a CUDA event is recorded before the call, the call runs (host work included,
//! as a user sees it), the device is synchronized, a second event is recorded; the time is
//! the elapsed time between the two events. Warm-up calls first; the median of `--runs`
//! (default 100) calls for Encrypt, Decrypt, Add and Mul+Relin, of 20 for KeyGen and for
//! every operation at `N = 2^16`; each operation's calls back to back, or with `--interleaved`
//! one call of each operation per round. CPU (ours and fhe.rs): wall clock, median of a few runs.
//! KeyGen is secret + public + relinearization key (the Galois key of the rotation is made
//! outside the timing; fhe.rs is not timed on rotations). Encrypt takes an encoded plaintext on the
//! host; Decrypt returns the plaintext on the host (not decoded). The resident rows (`encrypt`
//! of a `ResidentPlaintext`, `decrypt_resident`) keep the plaintext on the backend, as
//! Phantom's encryption and decryption do (device plaintexts; its decode copies to the host),
//! and are compared with the same Phantom figures. fhe.rs gets the same `N`,
//! `t` and all our primes (`q` and the special primes, `log QP` as in the anchors' fhe.rs
//! table) as its ciphertext moduli, since it has no special primes; its Mul+Relin is its
//! default `Multiplicator` (multiplication then relinearization). A hybrid set shows the
//! fhe.rs numbers of the one-special set of its degree (same `N` and `log QP`), marked
//! "(1 special)": fhe.rs cannot use the split, and 32 to 64 primes cost it minutes.
//!
//! Correctness is checked inside the benchmark on every backend and on fhe.rs: the decrypted
//! encryption, sum and Mul+Relin product of two random full plaintexts must equal the
//! slot-wise values (batching `t`; also the rotated slots) or the negacyclic product modulo `t` (coefficient
//! encoding, `t` a power of two). A wrong result prints `MISMATCH` and the exit status is 1.
//!
//! Usage: `bfv_bench [--quick] [--sets LIST] [--runs R] [--no-cpu] [--no-fhe]
//! [--fhe-65536] [--list]`
//! - `--quick`: few runs and the small sets (`N <= 4096`), for smoke tests;
//! - `--sets`: comma-separated set names (`--list` prints them) or parts of names
//!   (`phantom`, `16384`, `gpufv`); an exact name selects only that set;
//! - `--runs`: GPU runs of the fast operations (at least 100 outside `--quick`);
//! - `--no-cpu`, `--no-fhe`: skip our CPU backend (run for `N <= 8192` only) or fhe.rs;
//! - `--fhe-65536`: also run fhe.rs at `N = 2^16` (3 runs, 1 KeyGen; it needs tens of GB and
//!   minutes there, beyond the benchmark's five-minute budget, so it is off by default).
//!
//! Without a GPU (or without feature `cuda`) it says so and runs the CPU parts only.
//! Prints markdown tables on stdout, progress on stderr.

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use bfv::{BatchEncoder, BfvBackend, BfvContext, BfvParameters, CoefficientEncoder, MulVariant, Plaintext, Preset};
use poly::CpuBackend;

type BoxResult<T> = Result<T, Box<dyn Error>>;

/// Our CPU backend runs, as a reference, for sets up to this degree (beyond it the CPU runs
/// would take much of the benchmark's time budget).
const CPU_MAX_DEGREE: usize = 8192;
/// GPU runs of KeyGen, and of every operation at `N = 2^16`.
const GPU_SLOW_RUNS: usize = 20;
/// GPU warm-up calls of each operation before timing.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
const GPU_WARMUP: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    KeyGen,
    Encrypt,
    Decrypt,
    Add,
    MulRelin,
    Rotate,
    /// Encrypt of a plaintext already on the backend (`BfvContext::encrypt` of a `ResidentPlaintext`).
    EncryptResident,
    /// Decrypt leaving the plaintext on the backend (`BfvContext::decrypt_resident`).
    DecryptResident,
    /// `BfvContext::add_assign` (Phantom's `add_inplace`).
    AddInPlace,
}

const OPS: [Op; 9] = [
    Op::KeyGen,
    Op::Encrypt,
    Op::EncryptResident,
    Op::Decrypt,
    Op::DecryptResident,
    Op::Add,
    Op::AddInPlace,
    Op::MulRelin,
    Op::Rotate,
];

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::KeyGen => "KeyGen",
            Op::Encrypt => "Encrypt (pk)",
            Op::Decrypt => "Decrypt",
            Op::Add => "Add",
            Op::MulRelin => "Mul+Relin",
            Op::Rotate => "Rotate rows by 1",
            Op::EncryptResident => "Encrypt (pk), plaintext on the backend",
            Op::DecryptResident => "Decrypt, plaintext left on the backend",
            Op::AddInPlace => "Add in place",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Median time of one operation.
#[derive(Debug, Clone, Copy)]
struct Stat {
    median_us: f64,
}

impl Stat {
    fn from_samples(mut samples: Vec<f64>) -> Option<Stat> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_by(f64::total_cmp);
        Some(Stat { median_us: samples[samples.len() / 2] })
    }
}

/// One [`Stat`] per [`Op`].
type Timings = [Option<Stat>; 9];

/// Which published numbers a set is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Phantom on an H100 (docs/anchors.md).
    Phantom,
    /// spog (Alves et al.) Table 1, BPAVR setup, on a V100.
    SpogBpavr,
    /// spog Table 1, BVMA setup, on a K80.
    SpogBvma,
    /// GPU-FV_RNS (Al Badawi et al.) Table 5, on a P100.
    GpuFv,
}

impl Family {
    fn reference_name(self) -> &'static str {
        match self {
            Family::Phantom => "Phantom, H100",
            Family::SpogBpavr => "spog, V100",
            Family::SpogBvma => "spog, K80",
            Family::GpuFv => "GPU-FV, P100",
        }
    }
}

/// A parameter set and the variants it is measured with.
#[derive(Debug, Clone)]
struct BenchSet {
    name: String,
    preset: Preset,
    variants: Vec<MulVariant>,
    family: Family,
}

impl BenchSet {
    fn log_degree(&self) -> u32 {
        match self.preset {
            Preset::Secure { log_degree }
            | Preset::Phantom { log_degree, .. }
            | Preset::SpogBpavr { log_degree }
            | Preset::SpogBvma { log_degree }
            | Preset::GpuFv { log_degree } => log_degree,
        }
    }
}

/// Phantom's sets (HPS and, where Phantom measured it, BEHZ) and the seeds' sets (each in the
/// variant of its paper: spog HPS, GPU-FV BEHZ).
fn all_sets() -> Vec<BenchSet> {
    let mut sets = Vec::new();
    for log_degree in 12..=16u32 {
        for hybrid in [false, true] {
            if hybrid && log_degree < 14 {
                continue;
            }
            // Phantom reports BEHZ for every one-special set and for the hybrid set at 2^16.
            let variants = if !hybrid || log_degree == 16 {
                vec![MulVariant::Hps, MulVariant::Behz]
            } else {
                vec![MulVariant::Hps]
            };
            sets.push(BenchSet {
                name: format!("phantom-{}{}", 1u64 << log_degree, if hybrid { "-hybrid" } else { "" }),
                preset: Preset::Phantom { log_degree, hybrid },
                variants,
                family: Family::Phantom,
            });
        }
    }
    for log_degree in 11..=15u32 {
        sets.push(BenchSet {
            name: format!("spog-bpavr-{}", 1u64 << log_degree),
            preset: Preset::SpogBpavr { log_degree },
            variants: vec![MulVariant::Hps],
            family: Family::SpogBpavr,
        });
    }
    for log_degree in 11..=15u32 {
        sets.push(BenchSet {
            name: format!("spog-bvma-{}", 1u64 << log_degree),
            preset: Preset::SpogBvma { log_degree },
            variants: vec![MulVariant::Hps],
            family: Family::SpogBvma,
        });
    }
    for log_degree in 11..=14u32 {
        sets.push(BenchSet {
            name: format!("gpufv-{}", 1u64 << log_degree),
            preset: Preset::GpuFv { log_degree },
            variants: vec![MulVariant::Behz],
            family: Family::GpuFv,
        });
    }
    sets
}

/// The published median (microseconds) for `op` on `set` in `variant`, if there is one.
///
/// Phantom: docs/anchors.md (no KeyGen). spog Table 1: BPAVR decryption and multiplication at
/// `log N = 12..15`; BVMA encryption, decryption, addition, multiplication at `11..14`.
/// GPU-FV Table 5 (P100): all five at `11..14`. The papers' "Hom. Mul." is our Mul+Relin.
fn reference_us(set: &BenchSet, variant: MulVariant, op: Op) -> Option<f64> {
    let log_n = set.log_degree();
    let column = |values: [f64; 4], first_log_n: u32| -> Option<f64> {
        let index = log_n.checked_sub(first_log_n)? as usize;
        values.get(index).copied()
    };
    match (set.family, set.preset) {
        (Family::Phantom, Preset::Phantom { hybrid, .. }) => {
            // [encrypt, decrypt, add, mul+relin, rotate 1]
            let row: [f64; 5] = match (log_n, hybrid, variant) {
                (12, false, MulVariant::Hps) => [198.0, 42.0, 8.2, 254.0, 117.0],
                (12, false, MulVariant::Behz) => [221.0, 62.0, 8.7, 413.0, 355.0],
                (13, false, MulVariant::Hps) => [220.0, 45.0, 7.8, 264.0, 110.0],
                (13, false, MulVariant::Behz) => [354.0, 107.0, 12.2, 401.0, 99.0],
                (14, false, MulVariant::Hps) => [209.0, 48.0, 6.9, 409.0, 183.0],
                (14, true, MulVariant::Hps) => [228.0, 52.0, 9.1, 373.0, 133.0],
                (14, false, MulVariant::Behz) => [220.0, 63.0, 9.0, 514.0, 188.0],
                (15, false, MulVariant::Hps) => [293.0, 75.0, 10.5, 1140.0, 579.0],
                (15, true, MulVariant::Hps) => [345.0, 73.0, 10.8, 855.0, 250.0],
                (15, false, MulVariant::Behz) => [291.0, 93.0, 10.5, 1217.0, 578.0],
                (16, false, MulVariant::Hps) => [721.0, 189.0, 39.7, 5461.0, 2969.0],
                (16, true, MulVariant::Hps) => [1136.0, 194.0, 40.7, 3685.0, 977.0],
                (16, false, MulVariant::Behz) => [717.0, 219.0, 39.6, 5090.0, 2973.0],
                (16, true, MulVariant::Behz) => [1126.0, 226.0, 40.7, 4081.0, 978.0],
                _ => return None,
            };
            match op {
                Op::KeyGen => None,
                // Phantom's encryption takes a plaintext on the device and its decryption leaves
                // one there: the resident operations do the same work.
                Op::Encrypt | Op::EncryptResident => Some(row[0]),
                Op::Decrypt | Op::DecryptResident => Some(row[1]),
                Op::Add | Op::AddInPlace => Some(row[2]),
                Op::MulRelin => Some(row[3]),
                Op::Rotate => Some(row[4]),
            }
        }
        (Family::SpogBpavr, _) => match op {
            Op::Decrypt => column([29.0, 31.0, 49.0, 99.0], 12),
            Op::MulRelin => column([423.0, 472.0, 823.0, 2325.0], 12),
            _ => None,
        },
        (Family::SpogBvma, _) => match op {
            Op::KeyGen => None,
            Op::Encrypt => column([303.0, 309.0, 575.0, 1630.0], 11),
            Op::Decrypt => column([89.0, 98.0, 191.0, 542.0], 11),
            Op::Add => column([9.0, 10.0, 21.0, 66.0], 11),
            Op::MulRelin => column([926.0, 1214.0, 3061.0, 13914.0], 11),
            // The papers do not say where their plaintexts live.
            Op::Rotate | Op::EncryptResident | Op::DecryptResident | Op::AddInPlace => None,
        },
        (Family::GpuFv, _) => match op {
            Op::KeyGen => column([2786.0, 8147.0, 30943.0, 174508.0], 11),
            Op::Encrypt => column([271.0, 730.0, 1081.0, 3296.0], 11),
            Op::Decrypt => column([65.0, 108.0, 152.0, 252.0], 11),
            Op::Add => column([16.0, 21.0, 30.0, 53.0], 11),
            Op::MulRelin => column([1072.0, 1833.0, 3538.0, 11747.0], 11),
            Op::Rotate | Op::EncryptResident | Op::DecryptResident | Op::AddInPlace => None,
        },
        _ => None,
    }
}

/// Deterministic test values (splitmix64): the benchmark needs no cryptographic randomness
/// for its plaintexts, only values that fill every slot.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `[0, bound)` (the modulo bias is irrelevant here).
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// How plaintexts are encoded for a set, and the values they should decrypt to.
struct Check {
    /// `Some` for a batching `t` (slot-wise arithmetic), `None` for the coefficient encoding.
    batch: Option<BatchEncoder>,
    coefficients: CoefficientEncoder,
    a: Vec<u64>,
    b: Vec<u64>,
    sum: Vec<u64>,
    product: Vec<u64>,
}

impl Check {
    /// `a` with both rows of `N/2` slots rotated left by one (`new[i] = old[i + 1]`).
    fn rotated_a(&self) -> Vec<u64> {
        let half = self.a.len() / 2;
        self.a
            .chunks(half.max(1))
            .flat_map(|row| row.iter().cycle().skip(1).take(row.len()).copied().collect::<Vec<_>>())
            .collect()
    }

    fn new(params: &Arc<BfvParameters>, seed: u64) -> BoxResult<Check> {
        let n = params.degree();
        let t = params.plaintext_modulus();
        let mut rng = SplitMix(seed);
        let a: Vec<u64> = (0..n).map(|_| rng.below(t)).collect();
        let b: Vec<u64> = (0..n).map(|_| rng.below(t)).collect();
        let sum = a.iter().zip(&b).map(|(&x, &y)| ((u128::from(x) + u128::from(y)) % u128::from(t)) as u64).collect();
        let batch = BatchEncoder::new(params).ok();
        let product = if batch.is_some() {
            a.iter().zip(&b).map(|(&x, &y)| (u128::from(x) * u128::from(y) % u128::from(t)) as u64).collect()
        } else {
            negacyclic_product_mod_power_of_two(&a, &b, t)?
        };
        Ok(Check { batch, coefficients: CoefficientEncoder::new(params), a, b, sum, product })
    }

    fn encode(&self, values: &[u64]) -> BoxResult<Plaintext> {
        Ok(match &self.batch {
            Some(encoder) => encoder.encode(values)?,
            None => self.coefficients.encode(values)?,
        })
    }

    fn decode(&self, plaintext: &Plaintext) -> BoxResult<Vec<u64>> {
        Ok(match &self.batch {
            Some(encoder) => encoder.decode(plaintext)?,
            None => self.coefficients.decode(plaintext)?,
        })
    }
}

/// `a * b` in `Z_t[x]/(x^N + 1)` for `t` a power of two, exactly: schoolbook in wrapping
/// 64-bit arithmetic (exact modulo 2^64, hence modulo `t`), `O(N^2)`.
fn negacyclic_product_mod_power_of_two(a: &[u64], b: &[u64], t: u64) -> BoxResult<Vec<u64>> {
    if !t.is_power_of_two() {
        return Err(format!("no reference product for t = {t}: neither a batching prime nor a power of two").into());
    }
    let n = a.len();
    let mut out = vec![0u64; n];
    for (i, &ai) in a.iter().enumerate() {
        // x^i * x^j = x^(i+j), and x^(i+j) = -x^(i+j-N) past the degree.
        let (low, high) = b.split_at(n - i);
        for (o, &bj) in out[i..].iter_mut().zip(low) {
            *o = o.wrapping_add(ai.wrapping_mul(bj));
        }
        for (o, &bj) in out[..i].iter_mut().zip(high) {
            *o = o.wrapping_sub(ai.wrapping_mul(bj));
        }
    }
    let mask = t - 1;
    Ok(out.into_iter().map(|v| v & mask).collect())
}

/// Times one call.
trait Clock {
    /// Runs `op` and returns its result and its duration in microseconds.
    fn time<T>(&self, op: impl FnOnce() -> BoxResult<T>) -> BoxResult<(T, f64)>;
}

/// Wall clock (CPU backends).
struct WallClock;

impl Clock for WallClock {
    fn time<T>(&self, op: impl FnOnce() -> BoxResult<T>) -> BoxResult<(T, f64)> {
        let start = Instant::now();
        let out = op()?;
        Ok((out, start.elapsed().as_secs_f64() * 1e6))
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::sync::Arc;

    use poly_cuda::GpuDevice;
    use poly_cuda::cudarc::driver::sys::CUevent_flags;

    use super::{BoxResult, Clock};

    /// CUDA events on the device's stream: start event, the call, device synchronize (unless
    /// `queued`), end event; the time between the events. With `queued` the end event is
    /// recorded as soon as the call returns, as Phantom's benchmark does (events around the
    /// call, then a wait for the end event): the device's span of the call's work, without the
    /// host's wake-up after a synchronize.
    pub struct EventClock {
        pub device: Arc<GpuDevice>,
        pub queued: bool,
    }

    impl Clock for EventClock {
        fn time<T>(&self, op: impl FnOnce() -> BoxResult<T>) -> BoxResult<(T, f64)> {
            let stream = self.device.stream();
            let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let start = stream.record_event(flags)?;
            let out = op()?;
            if !self.queued {
                self.device.synchronize()?;
            }
            let end = stream.record_event(flags)?;
            stream.synchronize()?;
            let ms = start.elapsed_ms(&end)?;
            Ok((out, f64::from(ms) * 1e3))
        }
    }
}

/// Runs per operation for one backend on one set.
#[derive(Debug, Clone, Copy)]
struct RunPlan {
    warmup: usize,
    keygen: usize,
    fast: usize,
    /// Time the operations round by round (one call of each per round) instead of one
    /// operation's calls back to back.
    interleaved: bool,
}

/// GPU runs: `--runs` of the fast operations (20 at `N = 2^16`), 20 KeyGens, 3 warm-up calls;
/// `--quick`: at most 10 runs, 3 KeyGens, 1 warm-up call.
fn gpu_plan(options: &Options, degree: usize) -> RunPlan {
    if options.quick {
        RunPlan { warmup: 1, keygen: 3, fast: options.runs.clamp(1, 10), interleaved: options.interleaved }
    } else {
        let fast = if degree >= 1 << 16 { GPU_SLOW_RUNS } else { options.runs };
        RunPlan { warmup: GPU_WARMUP, keygen: GPU_SLOW_RUNS, fast, interleaved: options.interleaved }
    }
}

/// Warm-up calls, then `runs` timed calls of `call`, their times appended to `samples`. Each
/// result is dropped after its timing ends (freeing device memory is not part of the call).
fn time_calls<C: Clock, T>(
    clock: &C,
    warmup: usize,
    runs: usize,
    mut call: impl FnMut() -> BoxResult<T>,
    samples: &mut Vec<f64>,
) -> BoxResult<()> {
    for _ in 0..warmup {
        drop(call()?);
    }
    for _ in 0..runs {
        let (result, us) = clock.time(&mut call)?;
        samples.push(us);
        drop(result);
    }
    Ok(())
}

/// A wrong decryption, described for the MISMATCH line.
fn compare(what: &str, got: &[u64], expected: &[u64]) -> Result<(), String> {
    match got.iter().zip(expected).position(|(g, e)| g != e) {
        None if got.len() == expected.len() => Ok(()),
        None => Err(format!("{what}: {} values, expected {}", got.len(), expected.len())),
        Some(i) => Err(format!("{what}: value {i} is {}, expected {}", got[i], expected[i])),
    }
}

/// Times our operations on `backend` and checks the results. Returns the timings and
/// the list of mismatches (empty when every result decrypted correctly).
fn measure_ours<B: BfvBackend + 'static, C: Clock>(
    backend: B,
    clock: &C,
    params: &Arc<BfvParameters>,
    check: &Check,
    plan: RunPlan,
) -> BoxResult<(Timings, Vec<String>)> {
    let context = BfvContext::new(backend, params)?;
    let keygen = || -> BoxResult<_> {
        let secret = context.generate_secret_key()?;
        let public = context.generate_public_key(&secret)?;
        let relin = context.generate_relin_key(&secret)?;
        Ok((secret, public, relin))
    };
    let mut samples: [Vec<f64>; 9] = Default::default();
    // The first KeyGen is the warm-up, and its keys serve the other operations.
    let (secret, public, relin) = keygen()?;
    time_calls(clock, 0, plan.keygen, keygen, &mut samples[Op::KeyGen.index()])?;

    let (pa, pb) = (check.encode(&check.a)?, check.encode(&check.b)?);
    let ca = context.encrypt(&pa, &public)?;
    let cb = context.encrypt(&pb, &public)?;
    let (warmup, runs) = (plan.warmup, plan.fast);
    let resident_pa = context.upload_plaintext(&pa)?;
    // The accumulator of the in-place additions (its value is not checked).
    let mut sum_target = context.duplicate(&ca)?;
    // Slot rotation (batching sets only): the Galois key of x -> x^3, made outside the timing.
    let galois = match check.batch {
        Some(_) => Some(context.generate_galois_keys(&secret, &[context.galois_element_for_row_rotation(1)])?),
        None => None,
    };
    // Each call's result is kept until its timing has ended (freeing it is not part of the call).
    type Call<'a> = Box<dyn FnMut() -> BoxResult<Box<dyn std::any::Any>> + 'a>;
    fn held<T: 'static>(value: T) -> BoxResult<Box<dyn std::any::Any>> {
        Ok(Box::new(value))
    }
    let mut calls: Vec<(Op, Call<'_>)> = vec![
        (Op::Encrypt, Box::new(|| held(context.encrypt(&pa, &public)?))),
        (Op::EncryptResident, Box::new(|| held(context.encrypt(&resident_pa, &public)?))),
        (Op::Decrypt, Box::new(|| held(context.decrypt(&ca, &secret)?))),
        (Op::DecryptResident, Box::new(|| held(context.decrypt_resident(&ca, &secret)?))),
        (Op::Add, Box::new(|| held(context.add(&ca, &cb)?))),
        (
            Op::AddInPlace,
            Box::new(|| {
                context.add_assign(&mut sum_target, &cb)?;
                held(())
            }),
        ),
        (Op::MulRelin, Box::new(|| held(context.mul_relin(&ca, &cb, &relin)?))),
    ];
    if let Some(keys) = &galois {
        calls.push((Op::Rotate, Box::new(|| held(context.rotate_rows(&ca, 1, keys)?))));
    }
    if plan.interleaved {
        // One call of each operation per round: a slow stretch of the machine touches a few
        // samples of every operation instead of all samples of one.
        for (_, call) in &mut calls {
            for _ in 0..warmup {
                drop(call()?);
            }
        }
        for _ in 0..runs {
            for (op, call) in &mut calls {
                let (result, us) = clock.time(&mut *call)?;
                samples[op.index()].push(us);
                drop(result);
            }
        }
    } else {
        for (op, call) in &mut calls {
            time_calls(clock, warmup, runs, &mut *call, &mut samples[op.index()])?;
        }
    }
    drop(calls);

    let mut mismatches = Vec::new();
    let decrypted = |ct: &bfv::Ciphertext<B>| -> BoxResult<Vec<u64>> { check.decode(&context.decrypt(ct, &secret)?) };
    let resident_round_trip = context.decrypt_resident(&context.encrypt(&resident_pa, &public)?, &secret)?;
    let mut results = vec![
        ("decrypt(encrypt(a))", decrypted(&ca)?, check.a.clone()),
        ("decrypt_resident(encrypt(resident a))", check.decode(&resident_round_trip.to_plaintext()?)?, check.a.clone()),
        ("decrypt(a + b)", decrypted(&context.add(&ca, &cb)?)?, check.sum.clone()),
        ("decrypt(mul_relin(a, b))", decrypted(&context.mul_relin(&ca, &cb, &relin)?)?, check.product.clone()),
    ];
    if let Some(keys) = &galois {
        results.push((
            "decrypt(rotate_rows(a, 1))",
            decrypted(&context.rotate_rows(&ca, 1, keys)?)?,
            check.rotated_a(),
        ));
    }
    for (what, got, expected) in &results {
        if let Err(why) = compare(what, got, expected) {
            mismatches.push(why);
        }
    }
    Ok((samples.map(Stat::from_samples), mismatches))
}

#[cfg(feature = "peer-fhe")]
mod peer {
    use fhe::bfv::{
        BfvParametersBuilder, Ciphertext, Encoding, Multiplicator, Plaintext, PublicKey, RelinearizationKey, SecretKey,
    };
    use fhe_traits::{FheDecoder, FheDecrypter, FheEncoder, FheEncrypter};

    use super::{BoxResult, Check, Op, RunPlan, Stat, Timings, WallClock, compare, time_calls};

    /// fhe.rs on `N`, `t` and `moduli` (all our primes: it has no special primes), the same
    /// plaintext values as ours; wall clock, one thread.
    pub fn measure(
        degree: usize,
        t: u64,
        moduli: &[u64],
        check: &Check,
        plan: RunPlan,
    ) -> BoxResult<(Timings, Vec<String>)> {
        let params =
            BfvParametersBuilder::new().set_degree(degree).set_plaintext_modulus(t).set_moduli(moduli).build_arc()?;
        let encoding = if check.batch.is_some() { Encoding::simd() } else { Encoding::poly() };
        let mut rng = rand09::rng();
        let clock = WallClock;
        let mut samples: [Vec<f64>; 9] = Default::default();

        let mut keygen = || -> BoxResult<_> {
            let secret = SecretKey::random(&params, &mut rng);
            let public = PublicKey::new(&secret, &mut rng);
            let relin = RelinearizationKey::new(&secret, &mut rng)?;
            Ok((secret, public, relin))
        };
        let (secret, public, relin) = keygen()?;
        time_calls(&clock, 0, plan.keygen, &mut keygen, &mut samples[Op::KeyGen.index()])?;
        let multiplicator = Multiplicator::default(&relin)?;
        let pa = Plaintext::try_encode(check.a.as_slice(), encoding.clone(), &params)?;
        let pb = Plaintext::try_encode(check.b.as_slice(), encoding.clone(), &params)?;
        let ca: Ciphertext = public.try_encrypt(&pa, &mut rng)?;
        let cb: Ciphertext = public.try_encrypt(&pb, &mut rng)?;

        let (warmup, runs) = (plan.warmup, plan.fast);
        let [_, encrypt, decrypt, add, mul_relin, ..] = &mut samples;
        time_calls(&clock, warmup, runs, || Ok(public.try_encrypt(&pa, &mut rng)?), encrypt)?;
        time_calls(&clock, warmup, runs, || Ok(secret.try_decrypt(&ca)?), decrypt)?;
        time_calls(&clock, warmup, runs, || Ok(&ca + &cb), add)?;
        time_calls(&clock, warmup, runs, || Ok(multiplicator.multiply(&ca, &cb)?), mul_relin)?;

        let decrypted = |ct: &Ciphertext| -> BoxResult<Vec<u64>> {
            Ok(Vec::<u64>::try_decode(&secret.try_decrypt(ct)?, encoding.clone())?)
        };
        let results = [
            ("fhe.rs decrypt(encrypt(a))", decrypted(&ca)?, &check.a),
            ("fhe.rs decrypt(a + b)", decrypted(&(&ca + &cb))?, &check.sum),
            ("fhe.rs decrypt(mul_relin(a, b))", decrypted(&multiplicator.multiply(&ca, &cb)?)?, &check.product),
        ];
        let mut mismatches = Vec::new();
        for (what, got, expected) in results {
            if let Err(why) = compare(what, &got, expected) {
                mismatches.push(why);
            }
        }
        Ok((samples.map(Stat::from_samples), mismatches))
    }
}

/// Without fhe.rs built in, never called (`fhe_wanted` is false).
#[cfg(not(feature = "peer-fhe"))]
mod peer {
    use super::{BoxResult, Check, RunPlan, Timings};

    pub fn measure(_: usize, _: u64, _: &[u64], _: &Check, _: RunPlan) -> BoxResult<(Timings, Vec<String>)> {
        Err("fhe.rs is not built in (feature `peer-fhe` off)".into())
    }
}

/// Command-line options.
#[derive(Debug, Clone)]
struct Options {
    quick: bool,
    sets: Option<Vec<String>>,
    runs: usize,
    cpu: bool,
    fhe: bool,
    fhe_65536: bool,
    list: bool,
    /// GPU timing without the synchronize before the end event (Phantom's method).
    queued: bool,
    /// Our operations timed round by round (one call of each per round).
    interleaved: bool,
}

fn parse_options() -> BoxResult<Options> {
    let mut options = Options {
        quick: false,
        sets: None,
        runs: 100,
        cpu: true,
        fhe: true,
        fhe_65536: false,
        list: false,
        queued: false,
        interleaved: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--sets" => {
                let list = args.next().ok_or("--sets takes a comma-separated list")?;
                options.sets = Some(list.split(',').map(|s| s.trim().to_ascii_lowercase()).collect());
            }
            "--runs" => {
                let value = args.next().ok_or("--runs takes a number")?;
                options.runs = value.parse().map_err(|_| format!("--runs: '{value}' is not a number"))?;
            }
            "--no-cpu" => options.cpu = false,
            "--no-fhe" => options.fhe = false,
            "--fhe-65536" => options.fhe_65536 = true,
            "--list" => options.list = true,
            "--queued" => options.queued = true,
            "--interleaved" => options.interleaved = true,
            "-h" | "--help" => {
                println!(
                    "bfv_bench [--quick] [--sets LIST] [--runs R] [--no-cpu] [--no-fhe] [--fhe-65536] [--queued] [--interleaved] [--list]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument '{other}' (try --help)").into()),
        }
    }
    if !options.quick {
        options.runs = options.runs.max(100);
    }
    Ok(options)
}

/// The sets `options` select: `--sets` names (exact) or parts of names; `--quick` alone
/// keeps `N <= 4096`.
fn select_sets(options: &Options) -> Vec<BenchSet> {
    let sets = all_sets();
    match &options.sets {
        Some(filters) => sets
            .into_iter()
            .filter(|set| {
                filters.iter().any(|f| {
                    let exact = all_sets().iter().any(|s| &s.name == f);
                    if exact { &set.name == f } else { set.name.contains(f.as_str()) }
                })
            })
            .collect(),
        None if options.quick => sets.into_iter().filter(|s| s.log_degree() <= 12).collect(),
        None => sets,
    }
}

/// Everything measured on one set in one variant.
struct Measured {
    set: BenchSet,
    variant: MulVariant,
    summary: String,
    gpu: Option<Timings>,
    cpu: Option<Timings>,
    /// fhe.rs does not depend on the variant: shared by a set's rows.
    fhe: Option<Timings>,
    /// The fhe.rs numbers are those of the one-special set of the same degree.
    fhe_from_one_special: bool,
}

fn params_summary(params: &BfvParameters) -> String {
    format!(
        "log QP {}, log q {} ({}+{} primes), t = {}, {}",
        params.key_modulus_bits(),
        params.ciphertext_modulus().bits(),
        params.ciphertext_moduli().len(),
        params.special_moduli().len(),
        params.plaintext_modulus(),
        params.transform().name()
    )
}

fn format_us(us: f64) -> String {
    if us < 100.0 { format!("{us:.1}") } else { format!("{us:.0}") }
}

fn cell(stat: Option<Stat>) -> String {
    stat.map(|s| format_us(s.median_us)).unwrap_or_else(|| "-".to_string())
}

fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> String {
    match (numerator, denominator) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "-".to_string(),
    }
}

fn print_table(title: &str, rows: &[&Measured]) {
    if rows.is_empty() {
        return;
    }
    println!("### {title}");
    println!();
    println!(
        "| set | parameters | variant | operation | ours GPU us | reference us | ours/ref | fhe.rs us | fhe.rs/ours GPU | ours CPU us |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for m in rows {
        for op in OPS {
            let gpu = m.gpu.and_then(|t| t[op.index()]);
            let reference = reference_us(&m.set, m.variant, op);
            let fhe = m.fhe.and_then(|t| t[op.index()]);
            let cpu = m.cpu.and_then(|t| t[op.index()]);
            let fhe_cell = match fhe {
                Some(_) if m.fhe_from_one_special => format!("{} (1 special)", cell(fhe)),
                _ => cell(fhe),
            };
            let reference_cell = reference
                .map(|r| format!("{} ({})", format_us(r), m.set.family.reference_name()))
                .unwrap_or_else(|| "-".to_string());
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                m.set.name,
                m.summary,
                m.variant.name(),
                op.name(),
                cell(gpu),
                reference_cell,
                ratio(gpu.map(|s| s.median_us), reference),
                fhe_cell,
                ratio(fhe.map(|s| s.median_us), gpu.map(|s| s.median_us)),
                cell(cpu),
            );
        }
    }
    println!();
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("bfv_bench: {error}");
            ExitCode::from(2)
        }
    }
}

/// The GPU backend and its clock, when built with `cuda` and a device answers.
#[cfg(feature = "cuda")]
fn open_gpu(queued: bool) -> Result<(poly_cuda::GpuBackend, gpu::EventClock), String> {
    let backend = benches::tuning::open_device(0).map(poly_cuda::GpuBackend::from_device).map_err(|e| e.to_string())?;
    let clock = gpu::EventClock { device: Arc::clone(backend.device()), queued };
    Ok((backend, clock))
}

/// `Ok(true)` when every result decrypted correctly.
fn run() -> BoxResult<bool> {
    let options = parse_options()?;
    if options.list {
        for set in all_sets() {
            let variants: Vec<&str> = set.variants.iter().map(|v| v.name()).collect();
            println!("{} ({})", set.name, variants.join(", "));
        }
        return Ok(true);
    }
    let sets = select_sets(&options);
    if sets.is_empty() {
        return Err("no parameter set matches --sets (see --list)".into());
    }

    #[cfg(feature = "cuda")]
    let (gpu, gpu_status) = match open_gpu(options.queued) {
        Ok(gpu) => {
            let status = format!("GPU: {}", gpu.1.device.name());
            (Some(gpu), status)
        }
        Err(why) => (None, format!("GPU: none usable ({why}): CPU parts only")),
    };
    #[cfg(not(feature = "cuda"))]
    let gpu_status = "GPU: not built (feature `cuda` off): CPU parts only".to_string();
    eprintln!("bfv_bench: {gpu_status}");
    let fhe_status = if !options.fhe {
        "fhe.rs: skipped (--no-fhe)"
    } else if cfg!(feature = "peer-fhe") {
        if options.fhe_65536 {
            "fhe.rs 0.1.1: run in this process, one thread; 3 runs per operation at N >= 32768 (1 KeyGen at 65536)"
        } else {
            "fhe.rs 0.1.1: run in this process, one thread; 3 runs per operation at N >= 32768; \
             not run at N = 65536 (tens of GB and minutes; --fhe-65536 runs it)"
        }
    } else {
        "fhe.rs: not built (feature `peer-fhe` off)"
    };

    let started = Instant::now();
    let mut all_ok = true;
    let mut measured: Vec<Measured> = Vec::new();
    // fhe.rs on the one-special set of each degree, shown again for the hybrid set of that
    // degree (same N and log QP; fhe.rs has no special primes, so the hybrid split means
    // nothing to it, and 32 to 64 primes without one cost it minutes).
    let mut fhe_by_degree: Vec<(usize, Timings)> = Vec::new();
    for set in &sets {
        let n = 1usize << set.log_degree();
        let hybrid = matches!(set.preset, Preset::Phantom { hybrid: true, .. });
        let mut fhe_timings: Option<Timings> = None;
        for (variant_index, &variant) in set.variants.iter().enumerate() {
            let phase = Instant::now();
            let params = set.preset.builder()?.allow_insecure(true).variant(variant).build()?;
            let check = Check::new(&params, 0x5eed ^ n as u64)?;
            let label = format!("{} {}", set.name, variant.name());
            let mut phases = vec![format!("parameters {:.1} s", phase.elapsed().as_secs_f64())];
            let mut report = |who: &str, outcome: BoxResult<(Timings, Vec<String>)>, phase: Instant| {
                phases.push(format!("{who} {:.1} s", phase.elapsed().as_secs_f64()));
                match outcome {
                    Ok((timings, mismatches)) => {
                        for why in &mismatches {
                            println!("MISMATCH {label} {who}: {why}");
                        }
                        all_ok &= mismatches.is_empty();
                        Some(timings)
                    }
                    Err(error) => {
                        println!("ERROR {label} {who}: {error}");
                        all_ok = false;
                        None
                    }
                }
            };

            let slow = n >= 1 << 16;
            #[cfg(feature = "cuda")]
            let gpu_timings = match &gpu {
                Some((backend, clock)) => {
                    let plan = gpu_plan(&options, n);
                    let phase = Instant::now();
                    report("GPU", measure_ours(backend.clone(), clock, &params, &check, plan), phase)
                }
                None => None,
            };
            #[cfg(not(feature = "cuda"))]
            let gpu_timings: Option<Timings> = None;

            let cpu_timings = if options.cpu && n <= CPU_MAX_DEGREE {
                let plan = if options.quick {
                    RunPlan { warmup: 1, keygen: 3, fast: 3, interleaved: options.interleaved }
                } else {
                    RunPlan { warmup: 1, keygen: 3, fast: 7, interleaved: options.interleaved }
                };
                let phase = Instant::now();
                report("CPU", measure_ours(CpuBackend, &WallClock, &params, &check, plan), phase)
            } else {
                None
            };

            // fhe.rs once per set (it has no BEHZ/HPS choice), on the first variant's primes.
            let fhe_wanted =
                cfg!(feature = "peer-fhe") && variant_index == 0 && options.fhe && (options.fhe_65536 || !slow);
            if fhe_wanted && hybrid {
                fhe_timings = fhe_by_degree.iter().find(|(degree, _)| *degree == n).map(|&(_, timings)| timings);
            } else if fhe_wanted {
                let plan = if options.quick || n >= 1 << 15 {
                    RunPlan { warmup: 0, keygen: if slow { 1 } else { 3 }, fast: 3, interleaved: false }
                } else {
                    RunPlan { warmup: 1, keygen: 3, fast: 5, interleaved: false }
                };
                let moduli: Vec<u64> =
                    params.ciphertext_moduli().iter().chain(params.special_moduli()).copied().collect();
                let phase = Instant::now();
                fhe_timings =
                    report("fhe.rs", peer::measure(n, params.plaintext_modulus(), &moduli, &check, plan), phase);
                if let (Family::Phantom, Some(timings)) = (set.family, fhe_timings) {
                    fhe_by_degree.push((n, timings));
                }
            }

            eprintln!("done: {label}: {} ({:.1} s so far)", phases.join(", "), started.elapsed().as_secs_f64());
            measured.push(Measured {
                set: set.clone(),
                variant,
                summary: params_summary(&params),
                gpu: gpu_timings,
                cpu: cpu_timings,
                fhe: fhe_timings,
                fhe_from_one_special: hybrid && fhe_timings.is_some(),
            });
        }
    }

    println!("## BFV: ours vs Phantom, the seed papers and fhe.rs");
    println!();
    println!("{gpu_status}. {fhe_status}.");
    let (plan, plan_65536) = (gpu_plan(&options, 1 << 15), gpu_plan(&options, 1 << 16));
    println!(
        "Microseconds, medians. Ours on the GPU: CUDA events around the call (host work included) {}; {} warm-up \
         call(s), then {} runs of Encrypt, Decrypt, Add, Mul+Relin and Rotate \
         ({} at N = 65536), {} of KeyGen. Ours on the CPU (N <= {CPU_MAX_DEGREE}) and fhe.rs: wall clock, a few \
         runs. KeyGen = secret + public + relinearization key. Our Encrypt includes uploading the host plaintext \
         and scaling it by q/t, our Decrypt the download of the N plaintext words; the resident rows keep the \
         plaintext on the backend (Phantom's encryption and decryption do: same reference). fhe.rs uses all of our primes \
         (q and the special primes) as its ciphertext moduli. ours/ref < 1: we are faster; fhe.rs/ours GPU > 1: \
         we are faster.",
        if options.queued {
            "with the end event recorded as soon as the call returns (--queued: Phantom's method; calls that end \
             on the host, Decrypt, still wait inside)"
        } else {
            "with a device synchronize before the end event"
        },
        plan.warmup,
        plan.fast,
        plan_65536.fast,
        plan.keygen,
    );
    if options.interleaved {
        println!(
            "Interleaved (--interleaved): our operations were timed round by round, one call of each per round \
             (KeyGen apart), so a slow stretch of the machine spreads over all of them."
        );
    }
    println!();
    let phantom: Vec<&Measured> = measured.iter().filter(|m| m.set.family == Family::Phantom).collect();
    let seeds: Vec<&Measured> = measured.iter().filter(|m| m.set.family != Family::Phantom).collect();
    print_table("Phantom's parameter sets (reference: Phantom on an H100, docs/anchors.md)", &phantom);
    print_table(
        "The seed papers' parameter sets (reference: the paper's own GPU, older than ours: spog Table 1, GPU-FV Table 5; \
         their Hom. Mul. against our Mul+Relin)",
        &seeds,
    );
    println!(
        "Total time: {:.1} s. {}",
        started.elapsed().as_secs_f64(),
        if all_ok { "All results correct." } else { "MISMATCHES above." }
    );
    Ok(all_ok)
}
