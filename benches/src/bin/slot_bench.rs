//! BGV with HElib's plaintext algebra (`t = p^r`, extension-field slots, the hypercube) at
//! HElib-style parameter sets and one power-of-two set: the operations HElib's and fheanor's
//! benchmarks time, on the CPU backend (one thread) and, with `--features cuda` and a device,
//! on the GPU.
//!
//! Operations (medians of `--runs` calls; microseconds):
//! - `KeyGen`: secret, public and relinearization keys (wall clock; on the GPU synchronized);
//! - `Encrypt`: public-key encryption of an encoded plaintext (the `phi(m)` words uploaded on
//!   the GPU; CUDA events there);
//! - `Decrypt`: to the plaintext's `phi(m)` words on the host (wall clock, synchronized);
//! - `Mul+Relin`: product of two fresh ciphertexts, relinearized, at the top level;
//! - `ModSwitch`: a fresh ciphertext switched down one prime (BGV's modulus switching);
//! - `Automorph`: one automorphism with its key switch (`x -> x^{g_0}`, the generator of
//!   dimension 0);
//! - `Rotate`: rotation by one along dimension 0 of the hypercube (on a bad dimension two
//!   hoisted automorphisms and two masks);
//! - `LinMap1D`: a random `o x o` matrix over the slots' ring applied along dimension 0 by the
//!   baby-step giant-step method (`ceil(sqrt(o))` baby steps on a good dimension,
//!   `ceil(sqrt(o / 2))` on a bad one), its diagonals prepared once beforehand (`Prepare`,
//!   host time, as HElib's `MatMul1DExec`);
//! - `TotalSum`: every slot replaced by the sum of all slots.
//!
//! Each result is decrypted and checked against the slots before timing; a mismatch prints
//! `MISMATCH` and the exit status is 1. Peers are run by hand beside this binary (docs/performance.md).
//!
//! Usage: `slot_bench [--runs R] [--set NAME]... [--cpu-only | --gpu-only]` (R = 5 by default,
//! at least 20 on the GPU; sets: `m21845-p2`,
//! `m21845-p2r8`, `pow2-14-p12289`).

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use bgv_encrypt::{BgvBackend, BgvContext, BgvParameters, BgvParametersBuilder};
use hegpu_test_support::slot_ring::mul_mod;
use hegpu_test_support::slots::{add_mod, slot_op};
use poly::{CpuBackend, Seed};
use rlwe::Evaluator;
use rlwe::hypercube_ops::HypercubeOps;

type BoxResult<T> = Result<T, Box<dyn Error>>;

/// One parameter set: `m` (`m = 2N` for the power-of-two ring), `t = p^r`, the primes' bits.
struct Set {
    name: &'static str,
    m: usize,
    power_of_two: bool,
    p: u64,
    r: u32,
    ciphertext_bits: Vec<u32>,
    special_bits: Vec<u32>,
}

fn sets() -> Vec<Set> {
    vec![
        // HElib's bootstrapping m = 5 * 17 * 257 with p = 2: 1024 slots of GF(2^16).
        Set {
            name: "m21845-p2",
            m: 21845,
            power_of_two: false,
            p: 2,
            r: 1,
            ciphertext_bits: vec![50; 6],
            special_bits: vec![55; 2],
        },
        // The same ring with t = 2^8: slots GR(2^8, 16).
        Set {
            name: "m21845-p2r8",
            m: 21845,
            power_of_two: false,
            p: 2,
            r: 8,
            ciphertext_bits: vec![50; 6],
            special_bits: vec![55; 2],
        },
        // x^16384 + 1 with p = 12289: 2048 slots of GF(12289^8).
        Set {
            name: "pow2-14-p12289",
            m: 32768,
            power_of_two: true,
            p: 12289,
            r: 1,
            ciphertext_bits: vec![50; 6],
            special_bits: vec![55; 2],
        },
    ]
}

struct Options {
    runs: usize,
    sets: Vec<String>,
    cpu_only: bool,
    gpu_only: bool,
}

fn options() -> BoxResult<Options> {
    let mut o = Options { runs: 5, sets: Vec::new(), cpu_only: false, gpu_only: false };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => o.runs = args.next().ok_or("missing value")?.parse()?,
            "--set" => o.sets.push(args.next().ok_or("missing value")?),
            "--cpu-only" => o.cpu_only = true,
            "--gpu-only" => o.gpu_only = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    Ok(o)
}

/// How one backend is timed: `device` for work that stays on the device (CUDA events on the
/// GPU), `wall` for work that ends on the host (synchronized).
trait Clock {
    fn device(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64>;
    fn wall(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64>;
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    if n % 2 == 1 { times[n / 2] } else { (times[n / 2 - 1] + times[n / 2]) / 2.0 }
}

struct CpuClock;

impl Clock for CpuClock {
    fn device(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64> {
        self.wall(runs, op)
    }
    fn wall(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64> {
        op()?;
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            op()?;
            times.push(start.elapsed().as_secs_f64() * 1e6);
        }
        Ok(median(times))
    }
}

#[cfg(feature = "cuda")]
struct GpuClock(std::sync::Arc<poly_cuda::GpuDevice>);

#[cfg(feature = "cuda")]
impl Clock for GpuClock {
    fn device(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64> {
        for _ in 0..3 {
            op()?;
        }
        self.0.synchronize()?;
        let mut timer = benches::gpu_timing::EventTimer::primed(&self.0)?;
        timer.prime(20)?;
        for _ in 0..runs.max(1) {
            timer.time(&mut *op)??;
        }
        Ok(benches::gpu_timing::median(&timer.finish()?))
    }
    fn wall(&mut self, runs: usize, op: &mut dyn FnMut() -> BoxResult<()>) -> BoxResult<f64> {
        let mut times = Vec::with_capacity(runs);
        for run in 0..runs.max(1) + 3 {
            let start = Instant::now();
            op()?;
            self.0.synchronize()?;
            if run >= 3 {
                times.push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        Ok(median(times))
    }
}

fn params_for(set: &Set) -> BoxResult<Arc<BgvParameters>> {
    let builder = if set.power_of_two {
        BgvParametersBuilder::new(set.m / 2)
    } else {
        BgvParametersBuilder::new_cyclotomic(set.m)
    };
    Ok(builder
        .ciphertext_moduli_bits(&set.ciphertext_bits)
        .special_moduli_bits(&set.special_bits)
        .plaintext_modulus(set.p.pow(set.r))
        .build()?)
}

/// `a + b` slot-ring element by element.
fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    slot_op(a, b, n, add_mod)
}

/// Times the operations of the module docs on `backend`; returns the row's cells and whether
/// every check passed.
fn measure<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    ops: &HypercubeOps,
    clock: &mut dyn Clock,
    runs: usize,
) -> BoxResult<(Vec<f64>, bool)> {
    let slots = ops.slots();
    let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
    let cube = ops.hypercube();
    let seed = |byte: u8| Seed::from([byte; 32]);
    let context = BgvContext::new(backend, params)?;
    let mut ok = true;

    let keygen = clock.wall(runs, &mut || {
        let secret = context.secret_key_from_seed(&seed(1))?;
        context.public_key_from_seed(&secret, &seed(2))?;
        context.relin_key_from_seed(&secret, &seed(3))?;
        Ok(())
    })?;
    let secret = context.secret_key_from_seed(&seed(1))?;
    let public = context.public_key_from_seed(&secret, &seed(2))?;
    let relin = context.relin_key_from_seed(&secret, &seed(3))?;

    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let values: Vec<Vec<u64>> = (0..count).map(|_| (0..d).map(|_| next()).collect()).collect();
    let plain = slots.encode_plaintext(params, &values)?;
    let encrypt = clock.device(runs, &mut || {
        context.encrypt_with_seed(&plain, &public, &seed(4))?;
        Ok(())
    })?;
    let ct = context.encrypt_with_seed(&plain, &public, &seed(4))?;
    let decrypt = clock.wall(runs, &mut || {
        context.decrypt(&ct, &secret)?;
        Ok(())
    })?;
    let mut check = |what: &str, c: &bgv_encrypt::Ciphertext<B>, want: &[Vec<u64>]| -> BoxResult<()> {
        if slots.decode_plaintext(&context.decrypt_checked(c, &secret)?)? != want {
            println!("MISMATCH: {what}");
            ok = false;
        }
        Ok(())
    };
    check("encryption", &ct, &values)?;

    let mul = clock.device(runs, &mut || {
        context.mul_relin(&ct, &ct, &relin)?;
        Ok(())
    })?;
    let g_poly = slots.slot_modulus().to_vec();
    let squares: Vec<Vec<u64>> = values.iter().map(|v| mul_mod(v, v, &g_poly, n)).collect();
    check("Mul+Relin", &context.mul_relin(&ct, &ct, &relin)?, &squares)?;
    let mod_switch = clock.device(runs, &mut || {
        context.mod_switch_to_next(&ct)?;
        Ok(())
    })?;
    check("ModSwitch", &context.mod_switch_to_next(&ct)?, &values)?;

    // Rotation by one along dimension 0: slot e receives slot e + 1_0.
    let o = cube.orders[0];
    let stride: usize = cube.orders[1..].iter().product();
    let rotation_keys = context.galois_keys_from_seed(&secret, &ops.rotation_elements(0, 1)?, &seed(5))?;
    let rotate = clock.device(runs, &mut || {
        ops.rotate(&context, &ct, 0, 1, &rotation_keys)?;
        Ok(())
    })?;
    let generator = cube.generators[0];
    let automorph = clock.device(runs, &mut || {
        context.apply_galois(&ct, generator, &rotation_keys)?;
        Ok(())
    })?;
    let rotated: Vec<Vec<u64>> = (0..count)
        .map(|e| {
            let digit = e / stride % o;
            values[e - digit * stride + (digit + 1) % o * stride].clone()
        })
        .collect();
    check("rotation", &ops.rotate(&context, &ct, 0, 1, &rotation_keys)?, &rotated)?;

    // A random linear map along dimension 0.
    let matrix: Vec<Vec<Vec<u64>>> =
        (0..o).map(|_| (0..o).map(|_| (0..d).map(|_| next()).collect()).collect()).collect();
    let good = cube.good[0];
    let baby = (if good { o as f64 } else { o as f64 / 2.0 }).sqrt().ceil() as usize;
    let start = Instant::now();
    let prepared = ops.prepare_matrix_dimension(&context, params, 0, &matrix, baby)?;
    let prepare = start.elapsed().as_secs_f64() * 1e6;
    let map_keys = context.galois_keys_from_seed(&secret, &ops.bsgs_elements(0, baby)?, &seed(6))?;
    let apply =
        || -> BoxResult<bgv_encrypt::Ciphertext<B>> { Ok(ops.apply_prepared(&context, &ct, &prepared, &map_keys)?) };
    let linear = clock.device(runs, &mut || {
        apply()?;
        Ok(())
    })?;
    let mapped: Vec<Vec<u64>> = (0..count)
        .map(|e| {
            let digit = e / stride % o;
            let column = e - digit * stride;
            (0..o).fold(vec![0; d], |acc, j| {
                add(&acc, &mul_mod(&matrix[digit][j], &values[column + j * stride], &g_poly, n), n)
            })
        })
        .collect();
    check("linear map", &apply()?, &mapped)?;

    let sum_keys = context.galois_keys_from_seed(&secret, &ops.total_sum_elements()?, &seed(7))?;
    let total = clock.device(runs, &mut || {
        ops.total_sum(&context, &ct, &sum_keys)?;
        Ok(())
    })?;
    let sum = values.iter().fold(vec![0; d], |acc, v| add(&acc, v, n));
    check("total sum", &ops.total_sum(&context, &ct, &sum_keys)?, &vec![sum; count])?;

    Ok((vec![keygen, encrypt, decrypt, mul, mod_switch, automorph, rotate, linear, total, prepare], ok))
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn row(set: &Set, backend: &str, cells: &[f64]) -> String {
    let cells: Vec<String> = cells.iter().map(|&us| format!("{:.3}", us / 1e3)).collect();
    format!("| {} | {backend} | {} |", set.name, cells.join(" | "))
}

fn run() -> BoxResult<bool> {
    let o = options()?;
    #[cfg(feature = "cuda")]
    let device = if o.cpu_only { None } else { benches::tuning::open_device_or_skip(0)? };
    #[cfg(not(feature = "cuda"))]
    let _ = o.cpu_only;
    let mut ok = true;
    let mut rows = Vec::new();
    for set in sets().iter().filter(|s| o.sets.is_empty() || o.sets.iter().any(|n| n == s.name)) {
        let params = params_for(set)?;
        let start = Instant::now();
        let ops = HypercubeOps::for_params(params.as_ref())?;
        let setup_ms = start.elapsed().as_secs_f64() * 1e3;
        let values: Vec<Vec<u64>> = (0..ops.slots().slot_count())
            .map(|i| (0..ops.slots().slot_degree()).map(|j| (i * 31 + j * 7) as u64 % ops.slots().modulus()).collect())
            .collect();
        let start = Instant::now();
        let encoded = ops.slots().encode(&values)?;
        let encode_ms = start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let decoded = ops.slots().decode(&encoded)?;
        let decode_ms = start.elapsed().as_secs_f64() * 1e3;
        if decoded != values {
            println!("MISMATCH: encoding round trip");
            ok = false;
        }
        let cube = ops.hypercube();
        let log_q: f64 = params.ciphertext_moduli().iter().map(|&q| (q as f64).log2()).sum();
        let log_p: f64 = params.special_moduli().iter().map(|&q| (q as f64).log2()).sum();
        println!(
            "{}: m = {}, phi(m) = {}, t = {}^{}, {} slots of degree {}, dimensions {:?} (good {:?}), log Q = {log_q:.0}, log P = {log_p:.0}, slot set-up {setup_ms:.0} ms, encode {encode_ms:.1} ms, decode {decode_ms:.1} ms",
            set.name,
            set.m,
            params.degree(),
            set.p,
            set.r,
            ops.slots().slot_count(),
            ops.slots().slot_degree(),
            cube.orders,
            cube.good
        );
        if !o.gpu_only {
            let (cells, checked) = measure(CpuBackend, &params, &ops, &mut CpuClock, o.runs)?;
            ok &= checked;
            rows.push(row(set, "CPU", &cells));
        }
        #[cfg(feature = "cuda")]
        if let Some(device) = &device {
            let backend = poly_cuda::GpuBackend::from_device(device.clone());
            let mut clock = GpuClock(device.clone());
            let (cells, checked) = measure(backend, &params, &ops, &mut clock, o.runs.max(20))?;
            ok &= checked;
            rows.push(row(set, "GPU", &cells));
        }
    }
    println!("\nmilliseconds, medians");
    println!(
        "| set | backend | KeyGen | Encrypt | Decrypt | Mul+Relin | ModSwitch | Automorph | Rotate | LinMap1D | TotalSum | Prepare |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!("{row}");
    }
    Ok(ok)
}
