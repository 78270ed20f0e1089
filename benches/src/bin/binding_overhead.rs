//! The Rust side of the Python binding's overhead benchmark (`crates/python/bench/overhead.py`
//! runs both): Mul+Relin called from Rust in the loop the Python script times, `--calls` calls
//! back to back and one device synchronization, wall clock, the median per call over
//! `--rounds` rounds after a warm-up round. Prints `rust <scheme> <N> <device> <median_us>`.
//!
//! `binding_overhead --scheme bfv|bgv --log-degree 13 --device cpu|gpu [--calls 50] [--rounds 15]`

use std::process::ExitCode;
use std::time::Instant;

use rlwe::{Evaluator, RlweBackend, SlotEncoding};

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

struct Options {
    scheme: String,
    log_degree: u32,
    device: String,
    calls: usize,
    rounds: usize,
}

fn parse() -> BoxResult<Options> {
    let mut options = Options { scheme: "bfv".into(), log_degree: 13, device: "cpu".into(), calls: 50, rounds: 15 };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--scheme" => options.scheme = value,
            "--log-degree" => options.log_degree = value.parse()?,
            "--device" => options.device = value,
            "--calls" => options.calls = value.parse()?,
            // `--runs`, as the other benchmarks name it (run.sh passes BENCH_ARGS to every one).
            "--rounds" | "--runs" => options.rounds = value.parse()?,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(options)
}

/// The median per call, in microseconds, of `rounds` rounds of `calls` Mul+Relin calls.
fn time<B: RlweBackend, E: Evaluator<B>>(context: &E, options: &Options) -> BoxResult<f64> {
    let core = context.core();
    let secret = core.generate_secret_key()?;
    let public = core.generate_public_key(&secret)?;
    let relin = core.generate_relinearization_key(&secret)?;
    let encoder = context.batch_encoder()?;
    let a = context.encrypt(&encoder.encode_slots(&[1, 2, 3])?, &public)?;
    let b = context.encrypt(&encoder.encode_slots(&[4, 5, 6])?, &public)?;
    let mut per_call = Vec::with_capacity(options.rounds);
    for round in 0..=options.rounds {
        let start = Instant::now();
        for _ in 0..options.calls {
            std::hint::black_box(context.mul_relin(&a, &b, &relin)?);
        }
        core.backend().synchronize().map_err(|e| format!("{e:?}"))?;
        // Round 0 warms up.
        if round > 0 {
            per_call.push(start.elapsed().as_secs_f64() * 1e6 / options.calls as f64);
        }
    }
    per_call.sort_by(f64::total_cmp);
    Ok(per_call[per_call.len() / 2])
}

fn run(options: &Options) -> BoxResult<f64> {
    match (options.scheme.as_str(), options.device.as_str()) {
        ("bfv", "cpu") => {
            let params = bfv::Preset::Secure { log_degree: options.log_degree }.build()?;
            time(&bfv::BfvContext::new(poly::CpuBackend, &params)?, options)
        }
        ("bgv", "cpu") => {
            let params = bgv_encrypt::Preset::Secure { log_degree: options.log_degree }.build()?;
            time(&bgv_encrypt::BgvContext::new(poly::CpuBackend, &params)?, options)
        }
        #[cfg(feature = "cuda")]
        ("bfv", "gpu") => {
            let params = bfv::Preset::Secure { log_degree: options.log_degree }.build()?;
            time(&bfv::BfvContext::new(poly_cuda::GpuBackend::new(0)?, &params)?, options)
        }
        #[cfg(feature = "cuda")]
        ("bgv", "gpu") => {
            let params = bgv_encrypt::Preset::Secure { log_degree: options.log_degree }.build()?;
            time(&bgv_encrypt::BgvContext::new(poly_cuda::GpuBackend::new(0)?, &params)?, options)
        }
        (scheme, device) => Err(format!("no {scheme} on {device} in this build").into()),
    }
}

fn main() -> ExitCode {
    let result = parse().and_then(|options| {
        let median = run(&options)?;
        println!("rust {} {} {} {median:.2}", options.scheme, 1u64 << options.log_degree, options.device);
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("binding_overhead: {error}");
            ExitCode::FAILURE
        }
    }
}
