//! Throughput of Mul+Relin with many operations in flight (`poly_cuda::DevicePool`), against
//! the latency of one operation at a time: BFV (HPS) and BGV at Phantom's sets, `N = 2^14` and
//! `2^16` by default.
//!
//! - **latency**: one worker, one multiplication at a time (CUDA events around the call, the
//!   stream synchronized after each), median of `--runs`; `1/latency` is the sequential rate.
//! - **throughput**: `W` workers (`--streams` per device, over every device, or `--devices`),
//!   each with `--ops` resident ciphertext pairs, all multiplying at once from their own host
//!   threads; ops/s = `W * ops` over the wall time from start to every stream finished, median
//!   of 3 repetitions. Every worker's last product is decrypted and checked.
//!
//! `gpu_throughput [--sets 14,16] [--streams 1,2,4,8] [--ops 32] [--runs 30] [--devices N]
//! [--schemes bfv,bgv]`; prints, per scheme and set, `LATENCY <scheme> <N> <median_us>`,
//! `SINGLE <scheme> <N> <ops/s> <ratio to 1/latency>` (one context without a pool, operations
//! back to back), then `THROUGHPUT <scheme> <N> <devices> <workers> <ops/s> <ratio to
//! 1/latency> <ratio to SINGLE>` rows.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use poly_cuda::cudarc::driver::sys::CUevent_flags;
use poly_cuda::{DevicePool, GpuBackend, GpuDevice};

type BoxResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

struct Options {
    sets: Vec<u32>,
    streams: Vec<usize>,
    ops: usize,
    runs: usize,
    devices: Option<usize>,
    schemes: Vec<String>,
}

fn parse_options() -> BoxResult<Options> {
    let mut options = Options {
        sets: vec![14, 16],
        streams: vec![1, 2, 4, 8],
        ops: 32,
        runs: 30,
        devices: None,
        schemes: vec!["bfv".into(), "bgv".into()],
    };
    let mut args = std::env::args().skip(1);
    let list = |value: Option<String>, what: &str| -> BoxResult<Vec<usize>> {
        let value = value.ok_or(format!("{what} needs a list"))?;
        Ok(value.split(',').map(|x| x.trim().parse::<usize>()).collect::<Result<_, _>>()?)
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sets" => options.sets = list(args.next(), "--sets")?.into_iter().map(|x| x as u32).collect(),
            "--streams" => options.streams = list(args.next(), "--streams")?,
            "--ops" => options.ops = args.next().ok_or("--ops needs a number")?.parse()?,
            "--runs" => options.runs = args.next().ok_or("--runs needs a number")?.parse()?,
            "--devices" => options.devices = Some(args.next().ok_or("--devices needs a number")?.parse()?),
            "--schemes" => {
                options.schemes =
                    args.next().ok_or("--schemes needs a list")?.split(',').map(|s| s.trim().to_string()).collect()
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    Ok(options)
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Microseconds of `op` between two events on `device`'s stream, synchronized after.
fn timed(device: &Arc<GpuDevice>, op: impl FnOnce() -> BoxResult<()>) -> BoxResult<f64> {
    let stream = device.stream();
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream.record_event(flags)?;
    op()?;
    let end = stream.record_event(flags)?;
    stream.synchronize()?;
    Ok(f64::from(start.elapsed_ms(&end)?) * 1e3)
}

/// The slots of operand `which` of pair `k`.
fn slots(n: usize, t: u64, k: usize, which: u64) -> Vec<u64> {
    (0..n as u64).map(|j| (j * 7 + k as u64 * 131 + which * 17 + 3) % t).collect()
}

/// One scheme's benchmark: `$scheme` is the crate, `$preset` builds the parameters.
macro_rules! scheme_bench {
    ($name:ident, $label:literal, $scheme:ident, $preset:expr) => {
        fn $name(options: &Options, ordinals: &[usize], log_degree: u32) -> BoxResult<bool> {
            use $scheme::BatchEncoder;
            // Phantom's sets as it runs them (its N = 2^16 BFV set is beyond the 128-bit table).
            let params = $preset(log_degree).builder()?.allow_insecure(true).build()?;
            let (n, t) = (params.degree(), params.plaintext_modulus());
            struct State {
                context: $scheme::BfvOrBgv,
                secret: $scheme::SecretKey<GpuBackend>,
                relin: $scheme::RelinKey<GpuBackend>,
                pairs: Vec<($scheme::Ciphertext<GpuBackend>, $scheme::Ciphertext<GpuBackend>)>,
            }
            let max_streams = options.streams.iter().copied().max().unwrap_or(1);
            let ops = options.ops;
            // The single-device path first, in the same process: one context on its own handle
            // (no pool yet), one multiplication at a time (events around each, synchronized), and `--ops`
            // back to back (wall time to the last one finished).
            let single = GpuBackend::from_device(benches::tuning::open_device(ordinals[0])?);
            let context = $scheme::BfvOrBgv::new(single.clone(), &params)?;
            let secret = context.secret_key_from_seed(&poly::Seed::from([1; 32]))?;
            let public = context.public_key_from_seed(&secret, &poly::Seed::from([2; 32]))?;
            let relin = context.relin_key_from_seed(&secret, &poly::Seed::from([3; 32]))?;
            let encoder = BatchEncoder::new(&params)?;
            let a = context.encrypt(&encoder.encode(&slots(n, t, 0, 0))?, &public)?;
            let b = context.encrypt(&encoder.encode(&slots(n, t, 0, 1))?, &public)?;
            let mut samples = Vec::with_capacity(options.runs);
            for round in 0..options.runs + 5 {
                let mut product = None;
                let us = timed(single.device(), || {
                    product = Some(context.mul_relin(&a, &b, &relin)?);
                    Ok(())
                })?;
                drop(product);
                if round >= 5 {
                    samples.push(us);
                }
            }
            let latency = median(samples);
            let mut rates = Vec::new();
            for _ in 0..3 {
                let start = Instant::now();
                for _ in 0..ops {
                    drop(context.mul_relin(&a, &b, &relin)?);
                }
                single.device().synchronize()?;
                rates.push(ops as f64 / start.elapsed().as_secs_f64());
            }
            let single_rate = median(rates);
            println!("LATENCY {} {n} {latency:.1}", $label);
            println!("SINGLE {} {n} {single_rate:.0} {:.2}", $label, single_rate * latency * 1e-6);
            drop((a, b, relin, public, secret, context));
            // One pool with the most workers; runs with fewer streams use the first workers
            // of each device.
            let pool = DevicePool::with_tuning(
                ordinals,
                max_streams,
                &benches::tuning::from_env(),
                |device, _| -> BoxResult<State> {
                    let context = $scheme::BfvOrBgv::new(GpuBackend::from_device(Arc::clone(device)), &params)?;
                    let secret = context.secret_key_from_seed(&poly::Seed::from([1; 32]))?;
                    let public = context.public_key_from_seed(&secret, &poly::Seed::from([2; 32]))?;
                    let relin = context.relin_key_from_seed(&secret, &poly::Seed::from([3; 32]))?;
                    let encoder = BatchEncoder::new(&params)?;
                    let mut pairs = Vec::with_capacity(ops);
                    for k in 0..ops {
                        let a = context.encrypt(&encoder.encode(&slots(n, t, k, 0))?, &public)?;
                        let b = context.encrypt(&encoder.encode(&slots(n, t, k, 1))?, &public)?;
                        pairs.push((a, b));
                    }
                    Ok(State { context, secret, relin, pairs })
                },
            )?;
            let mut ok = true;
            let devices = pool.device_count();
            for &streams in &options.streams {
                let active = |index: usize| index % max_streams < streams;
                let mut rates = Vec::new();
                for _ in 0..3 {
                    let start = Instant::now();
                    let done = pool.for_each_worker(|worker| -> BoxResult<usize> {
                        if !active(worker.index()) {
                            return Ok(0);
                        }
                        let s = worker.state();
                        let mut last = None;
                        for (a, b) in &s.pairs {
                            last = Some(s.context.mul_relin(a, b, &s.relin)?);
                        }
                        drop(last);
                        Ok(s.pairs.len())
                    })?;
                    let seconds = start.elapsed().as_secs_f64();
                    rates.push(done.iter().sum::<usize>() as f64 / seconds);
                }
                let rate = median(rates);
                let workers = devices * streams;
                println!("THROUGHPUT {} {n} {devices} {workers} {rate:.0} {:.2}", $label, rate * latency * 1e-6);
            }
            // Every worker's last pair, multiplied and decrypted.
            let checks = pool.for_each_worker(|worker| -> BoxResult<bool> {
                let s = worker.state();
                let k = s.pairs.len() - 1;
                let (a, b) = &s.pairs[k];
                let product = s.context.mul_relin(a, b, &s.relin)?;
                let got = BatchEncoder::new(&params)?.decode(&s.context.decrypt(&product, &s.secret)?)?;
                let (x, y) = (slots(n, t, k, 0), slots(n, t, k, 1));
                let want: Vec<u64> =
                    x.iter().zip(&y).map(|(&x, &y)| (u128::from(x) * u128::from(y) % u128::from(t)) as u64).collect();
                Ok(got == want)
            })?;
            for (w, good) in checks.into_iter().enumerate() {
                if !good {
                    println!("MISMATCH {} N = {n}: worker {w}'s product decrypted wrong", $label);
                    ok = false;
                }
            }
            Ok(ok)
        }
    };
}

mod bfv_scheme {
    pub use bfv::{BatchEncoder, Ciphertext, RelinKey, SecretKey};
    pub type BfvOrBgv = bfv::BfvContext<poly_cuda::GpuBackend>;
}

mod bgv_scheme {
    pub use bgv_encrypt::{BatchEncoder, Ciphertext, RelinKey, SecretKey};
    pub type BfvOrBgv = bgv_encrypt::BgvContext<poly_cuda::GpuBackend>;
}

scheme_bench!(bench_bfv, "BFV", bfv_scheme, |log_degree| bfv::Preset::Phantom { log_degree, hybrid: false });
scheme_bench!(bench_bgv, "BGV", bgv_scheme, |log_degree| bgv_encrypt::Preset::Phantom { log_degree });

fn main() -> ExitCode {
    let run = || -> BoxResult<bool> {
        let options = parse_options()?;
        let count = poly_cuda::device_count()?;
        let ordinals: Vec<usize> = (0..options.devices.unwrap_or(count).min(count)).collect();
        let name = benches::tuning::open_device(0)?.name().to_string();
        println!(
            "# gpu_throughput: {} x {name}; {} resident pairs per worker; latency: median of {} runs",
            ordinals.len(),
            options.ops,
            options.runs
        );
        println!(
            "# LATENCY scheme N median_us | SINGLE scheme N ops_per_s ratio_to_1/latency | THROUGHPUT scheme N \
             devices workers ops_per_s ratio_to_1/latency ratio_to_single"
        );
        let mut ok = true;
        for &log_degree in &options.sets {
            for scheme in &options.schemes {
                ok &= match scheme.as_str() {
                    "bfv" => bench_bfv(&options, &ordinals, log_degree)?,
                    "bgv" => bench_bgv(&options, &ordinals, log_degree)?,
                    other => return Err(format!("unknown scheme {other}").into()),
                };
            }
        }
        Ok(ok)
    };
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("gpu_throughput: {error}");
            ExitCode::from(2)
        }
    }
}
