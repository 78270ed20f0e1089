//! BGV on the GPU at Phantom's BGV sets (its `bgv_bench`: `N = 4096, 16384, 32768, 65536`
//! with its prime sizes and special-prime counts, a 20-bit batching `t`): Encrypt (host
//! plaintext to a device ciphertext), Decrypt (device ciphertext to a host plaintext; and
//! DecryptResident, the plaintext left on the device, as Phantom's `decrypt`), Add (out
//! of place, into a new ciphertext), Add in place (as Phantom's `add_inplace`, whose benchmark
//! copies the operand before it starts its timer), Mul+Relin (at the top level, as Phantom),
//! Rotate rows by one; Rotate8 (rotations by 1 .. 8, one after the other from the same
//! ciphertext) against Rotate8Hoisted (the same eight as one `rotate_rows_many`, the ModUp of
//! `c_1` shared).
//!
//! Each call is timed with CUDA events on the device's stream around the call (the end event
//! recorded when the call returns, as Phantom's benchmark does), medians of `--runs` (default
//! 100; 30 at `N = 65536`) after five warm-up calls. By default the rounds are interleaved (one
//! call of each operation per round), so each call finds in L2 what the other operations left
//! there; `--back-to-back` times each operation in its own loop of consecutive calls instead,
//! as Phantom's `bgv_bench` does (its operands then stay in L2 from one call to the next).
//! Every result is decrypted and checked against slot arithmetic; a wrong one prints
//! `MISMATCH` and the exit code is 1.
//!
//! `bgv_bench [--runs N] [--sets 4096,16384,...] [--host] [--primed] [--back-to-back]`; prints
//! one table row per set and operation: `BGV <N> <op> median_us min_us max_us`; `--host` adds
//! the host's time per call (until the call returns) as comment rows `# host BGV <N> <op> ...`:
//! where it is close to the device time, the call is bound by the host's issue rate. `--primed`
//! queues each call behind a kernel that keeps the GPU busy for a millisecond, so the events
//! see the kernels' time alone (not comparable with Phantom's timing, which includes the host's
//! latency to the first kernel); against the default it shows how much of a call that latency
//! is. With `HEGPU_TRACE_LAUNCHES=1` in the environment, comment rows `# trace BGV <N> <op>` list
//! the last round's launches, each as its host time (microseconds after the start event) and
//! name.

use std::process::ExitCode;
use std::sync::Arc;

use bgv_encrypt::{BatchEncoder, BgvContext, Preset};
use poly_cuda::GpuBackend;
use poly_cuda::cudarc::driver::sys::CUevent_flags;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const OPS: [&str; 13] = [
    "Encrypt",
    "Decrypt",
    "Add",
    "AddInPlace",
    "MulRelin",
    "Rotate",
    "Mul",
    "Relinearize",
    "ModSwitch",
    "Square",
    "DecryptResident",
    "Rotate8",
    "Rotate8Hoisted",
];

/// The steps of Rotate8 and Rotate8Hoisted, each with its own key.
const EIGHT_STEPS: [i64; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

struct Options {
    runs: usize,
    sets: Vec<u32>,
    /// Also print the host's time per call (until the call returns, nothing awaited).
    host: bool,
    /// Queue every call behind a busy kernel: device time only.
    primed: bool,
    /// Time each operation in its own loop of consecutive calls (Phantom's `bgv_bench`).
    back_to_back: bool,
}

fn parse_options() -> BoxResult<Options> {
    let mut options =
        Options { runs: 100, sets: vec![12, 14, 15, 16], host: false, primed: false, back_to_back: false };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--host" => options.host = true,
            "--primed" => options.primed = true,
            "--back-to-back" => options.back_to_back = true,
            "--runs" => options.runs = args.next().ok_or("--runs needs a number")?.parse()?,
            "--sets" => {
                let list = args.next().ok_or("--sets needs a list of degrees")?;
                options.sets = list
                    .split(',')
                    .map(|n| n.trim().parse::<usize>().map(|n| n.trailing_zeros()))
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    Ok(options)
}

/// One timed call: microseconds of device time and of host time, and the launches traced
/// (host microseconds after the start event, kernel name).
type Timing = (f64, f64, Vec<(f64, &'static str)>);

/// Times `op` between two events on `device`'s stream; microseconds of device time and of
/// host time (from the start event to the call's return, nothing awaited), and its traced
/// launches. With `spin`, the call is queued behind that busy kernel first (`--primed`).
fn timed<T>(
    device: &Arc<poly_cuda::GpuDevice>,
    spin: Option<&benches::gpu_timing::EventTimer>,
    op: impl FnOnce() -> BoxResult<T>,
) -> BoxResult<(T, Timing)> {
    let stream = device.stream();
    if let Some(timer) = spin {
        timer.prime(1)?;
    }
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream.record_event(flags)?;
    poly_cuda::launch_trace::take();
    let host_start = std::time::Instant::now();
    let out = op()?;
    let host = host_start.elapsed().as_secs_f64() * 1e6;
    let end = stream.record_event(flags)?;
    let launches = poly_cuda::launch_trace::take()
        .into_iter()
        .map(|l| (l.at.saturating_duration_since(host_start).as_secs_f64() * 1e6, l.name))
        .collect();
    stream.synchronize()?;
    Ok((out, (f64::from(start.elapsed_ms(&end)?) * 1e3, host, launches)))
}

fn stats(mut samples: Vec<f64>) -> (f64, f64, f64) {
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[0], samples[samples.len() - 1])
}

/// One set: every operation timed, results checked. Returns the mismatches.
fn bench_set(gpu: &GpuBackend, log_degree: u32, runs: usize, options: &Options) -> BoxResult<Vec<String>> {
    let (host, primed, back_to_back) = (options.host, options.primed, options.back_to_back);
    let params = Preset::Phantom { log_degree }.build()?;
    let n = params.degree();
    let t = params.plaintext_modulus();
    let context = BgvContext::new(gpu.clone(), &params)?;
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;
    let galois = context.generate_rotation_keys(&secret, &EIGHT_STEPS, false)?;
    let encoder = BatchEncoder::new(&params)?;
    let mut state = 0x5eed ^ n as u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % t
    };
    let a: Vec<u64> = (0..n).map(|_| next()).collect();
    let b: Vec<u64> = (0..n).map(|_| next()).collect();
    let (pa, pb) = (encoder.encode(&a)?, encoder.encode(&b)?);
    let ca = context.encrypt(&pa, &public)?;
    let cb = context.encrypt(&pb, &public)?;
    let device = Arc::clone(gpu.device());
    let spin = if primed { Some(benches::gpu_timing::EventTimer::primed(&device)?) } else { None };
    let spin = spin.as_ref();
    // Relinearize's input, made once (untimed).
    let product = context.mul(&ca, &cb)?;
    // One timed call of operation `index` of OPS (set-up and frees outside the events).
    let one_call = |index: usize| -> BoxResult<Timing> {
        let us = match index {
            0 => timed(&device, spin, || Ok(context.encrypt(&pa, &public)?))?.1,
            1 => timed(&device, spin, || Ok(context.decrypt(&ca, &secret)?))?.1,
            2 => timed(&device, spin, || Ok(context.add(&ca, &cb)?))?.1,
            3 => {
                let mut target = context.duplicate(&ca)?;
                timed(&device, spin, || Ok(context.add_assign(&mut target, &cb)?))?.1
            }
            4 => timed(&device, spin, || Ok(context.mul_relin(&ca, &cb, &relin)?))?.1,
            5 => timed(&device, spin, || Ok(context.rotate_rows(&ca, 1, &galois)?))?.1,
            // The parts of Mul+Relin, and modulus switching.
            6 => timed(&device, spin, || Ok(context.mul(&ca, &cb)?))?.1,
            7 => timed(&device, spin, || Ok(context.relinearize(&product, &relin)?))?.1,
            8 => timed(&device, spin, || Ok(context.mod_switch_to_next(&ca)?))?.1,
            9 => timed(&device, spin, || Ok(context.square(&ca)?))?.1,
            10 => timed(&device, spin, || Ok(context.decrypt_resident(&ca, &secret)?))?.1,
            11 => {
                timed(&device, spin, || {
                    EIGHT_STEPS
                        .iter()
                        .map(|&k| Ok(context.rotate_rows(&ca, k, &galois)?))
                        .collect::<BoxResult<Vec<_>>>()
                })?
                .1
            }
            _ => timed(&device, spin, || Ok(context.rotate_rows_many(&ca, &EIGHT_STEPS, &galois)?))?.1,
        };
        Ok(us)
    };
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); OPS.len()];
    let mut host_samples: Vec<Vec<f64>> = vec![Vec::new(); OPS.len()];
    let mut traces: Vec<Vec<(f64, &'static str)>> = vec![Vec::new(); OPS.len()];
    let warmup = 5;
    let mut record = |index: usize, round: usize, (us, host_us, launches): Timing| {
        if round >= warmup {
            samples[index].push(us);
            host_samples[index].push(host_us);
            traces[index] = launches;
        }
    };
    if back_to_back {
        for index in 0..OPS.len() {
            for round in 0..warmup + runs {
                record(index, round, one_call(index)?);
            }
        }
    } else {
        for round in 0..warmup + runs {
            for index in 0..OPS.len() {
                record(index, round, one_call(index)?);
            }
        }
    }
    drop(product);
    for (op, s) in OPS.iter().zip(samples) {
        let (median, min, max) = stats(s);
        println!("BGV {n} {op} {median:.1} {min:.1} {max:.1}");
    }
    if host {
        for (op, s) in OPS.iter().zip(host_samples) {
            let (median, min, max) = stats(s);
            println!("# host BGV {n} {op} {median:.1} {min:.1} {max:.1}");
        }
    }
    for (op, launches) in OPS.iter().zip(&traces) {
        if !launches.is_empty() {
            let list: Vec<String> = launches.iter().map(|(us, name)| format!("{us:.1} {name}")).collect();
            println!("# trace BGV {n} {op}: {}", list.join(", "));
        }
    }

    let mut mismatches = Vec::new();
    let decode = |ct: &bgv_encrypt::Ciphertext<GpuBackend>| -> BoxResult<Vec<u64>> {
        Ok(encoder.decode(&context.decrypt(ct, &secret)?)?)
    };
    let sum: Vec<u64> = a.iter().zip(&b).map(|(x, y)| (x + y) % t).collect();
    let product: Vec<u64> =
        a.iter().zip(&b).map(|(&x, &y)| (u128::from(x) * u128::from(y) % u128::from(t)) as u64).collect();
    let row = n / 2;
    let rotated: Vec<u64> = (0..n).map(|i| a[(i / row) * row + (i % row + 1) % row]).collect();
    let mut in_place = context.duplicate(&ca)?;
    context.add_assign(&mut in_place, &cb)?;
    for (what, got, want) in [
        ("decrypt(encrypt(a))", decode(&ca)?, a.clone()),
        (
            "decrypt_resident(encrypt(a))",
            encoder.decode(&context.decrypt_resident(&ca, &secret)?.to_plaintext()?)?,
            a.clone(),
        ),
        ("a + b", decode(&context.add(&ca, &cb)?)?, sum.clone()),
        ("a += b", decode(&in_place)?, sum),
        ("mul_relin(a, b)", decode(&context.mul_relin(&ca, &cb, &relin)?)?, product),
        ("rotate_rows(a, 1)", decode(&context.rotate_rows(&ca, 1, &galois)?)?, rotated),
    ] {
        if got != want {
            mismatches.push(format!("N = {n}: {what} decrypted wrong"));
        }
    }
    for (rotated, &k) in context.rotate_rows_many(&ca, &EIGHT_STEPS, &galois)?.iter().zip(&EIGHT_STEPS) {
        let k = k as usize;
        let want: Vec<u64> = (0..n).map(|i| a[(i / row) * row + (i % row + k) % row]).collect();
        if decode(rotated)? != want {
            mismatches.push(format!("N = {n}: rotate_rows_many(a, {k}) decrypted wrong"));
        }
    }
    Ok(mismatches)
}

fn main() -> ExitCode {
    let run = || -> BoxResult<bool> {
        let options = parse_options()?;
        let gpu = GpuBackend::from_device(benches::tuning::open_device(0)?);
        println!(
            "# bgv_bench: GPU {}; medians of {} runs (30 at N = 65536), microseconds; {}",
            gpu.device().name(),
            options.runs,
            if options.back_to_back { "each operation back to back" } else { "rounds interleaved" }
        );
        println!("# scheme N op median_us min_us max_us");
        let mut ok = true;
        for &log_degree in &options.sets {
            let runs = if log_degree >= 16 { options.runs.min(30) } else { options.runs };
            for why in bench_set(&gpu, log_degree, runs, &options)? {
                println!("MISMATCH {why}");
                ok = false;
            }
        }
        Ok(ok)
    };
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("bgv_bench: {error}");
            ExitCode::from(2)
        }
    }
}
