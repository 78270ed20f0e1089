//! Soak: many Mul+Relin on the GPU at N = 2^14 (BFV, the 128-bit preset; `--scheme bgv` for
//! BGV), device and host memory at the start and end, decryption checked at intervals.
//!
//! `gpu_soak [--ops 100000] [--check-every 10000] [--scheme bfv|bgv]`. Each step multiplies
//! the fresh ciphertexts `x` and `y` (the product is dropped, so memory must come back to the
//! pool). Prints `SOAK ...` lines; exits 1 on a wrong decryption or on device memory in use
//! growing by more than one product's size beyond the pool's steady state.

use std::process::ExitCode;

use poly_cuda::GpuBackend;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;
/// One soak step, and one check (whether a product decrypts right).
type Step = Box<dyn FnMut() -> BoxResult<()>>;
type Check = Box<dyn FnMut() -> BoxResult<bool>>;

/// Host resident set size in KiB (`VmRSS` of /proc/self/status), 0 if unknown.
fn host_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("gpu_soak: {error}");
            ExitCode::from(2)
        }
    }
}

fn run() -> BoxResult<bool> {
    let mut ops = 100_000usize;
    let mut every = 10_000usize;
    let mut scheme = "bfv".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ops" => ops = args.next().ok_or("--ops needs a number")?.parse()?,
            "--check-every" => every = args.next().ok_or("--check-every needs a number")?.parse()?,
            "--scheme" => scheme = args.next().ok_or("--scheme needs bfv or bgv")?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let gpu = GpuBackend::from_device(benches::tuning::open_device(0)?);
    let device = std::sync::Arc::clone(gpu.device());
    let values: Vec<u64> = (0..1u64 << 14).map(|i| (i * 31 + 7) % 65_000).collect();
    // One step (a product, dropped) and one check (decryption of a product against the slots),
    // written once for both schemes: they differ in the crate only.
    macro_rules! soak_closures {
        ($scheme:ident, $context:ident) => {{
            let params = $scheme::Preset::Secure { log_degree: 14 }.build()?;
            let t = params.plaintext_modulus();
            let want: Vec<u64> =
                values.iter().map(|&v| ((u128::from(v) * u128::from(v + 1)) % u128::from(t)) as u64).collect();
            let context = std::rc::Rc::new($scheme::$context::new(gpu.clone(), &params)?);
            let encoder = $scheme::BatchEncoder::new(&params)?;
            let secret = context.generate_secret_key()?;
            let public = context.generate_public_key(&secret)?;
            let relin = std::rc::Rc::new(context.generate_relin_key(&secret)?);
            let plus_one: Vec<u64> = values.iter().map(|&v| (v + 1) % t).collect();
            let x = std::rc::Rc::new(context.encrypt(&encoder.encode(&values)?, &public)?);
            let y = std::rc::Rc::new(context.encrypt(&encoder.encode(&plus_one)?, &public)?);
            let (c, xs, ys, r) = (context.clone(), x.clone(), y.clone(), relin.clone());
            let step: Step = Box::new(move || {
                drop(c.mul_relin(&xs, &ys, &r)?);
                Ok(())
            });
            let check: Check = Box::new(move || {
                let product = context.mul_relin(&x, &y, &relin)?;
                Ok(encoder.decode(&context.decrypt(&product, &secret)?)? == want)
            });
            (step, check)
        }};
    }
    let (mut step, mut check): (Step, Check) = match scheme.as_str() {
        "bfv" => soak_closures!(bfv, BfvContext),
        "bgv" => soak_closures!(bgv_encrypt, BgvContext),
        other => return Err(format!("unknown scheme {other}").into()),
    };
    // Warm-up: the pool reaches its steady state.
    for _ in 0..100 {
        step()?;
    }
    device.synchronize()?;
    let (free_start, total) = device.memory_info()?;
    let rss_start = host_rss_kib();
    println!(
        "SOAK {scheme} N=16384 start: device free {:.1} MiB of {:.1} MiB, host RSS {:.1} MiB",
        free_start as f64 / 1048576.0,
        total as f64 / 1048576.0,
        rss_start as f64 / 1024.0
    );
    let started = std::time::Instant::now();
    let mut ok = true;
    let mut min_free = free_start;
    for done in 1..=ops {
        step()?;
        if done % every == 0 {
            let right = check()?;
            device.synchronize()?;
            let (free, _) = device.memory_info()?;
            min_free = min_free.min(free);
            println!(
                "SOAK {scheme} {done} ops, {:.1} s: decryption {}, device free {:.1} MiB, host RSS {:.1} MiB",
                started.elapsed().as_secs_f64(),
                if right { "right" } else { "WRONG" },
                free as f64 / 1048576.0,
                host_rss_kib() as f64 / 1024.0
            );
            ok &= right;
        }
    }
    device.synchronize()?;
    let (free_end, _) = device.memory_info()?;
    let rss_end = host_rss_kib();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "SOAK {scheme} end: {ops} Mul+Relin in {seconds:.1} s ({:.1} us each); device free {:.1} MiB (start {:.1}, lowest {:.1}), host RSS {:.1} MiB (start {:.1})",
        seconds * 1e6 / ops as f64,
        free_end as f64 / 1048576.0,
        free_start as f64 / 1048576.0,
        min_free as f64 / 1048576.0,
        rss_end as f64 / 1024.0,
        rss_start as f64 / 1024.0
    );
    // One product of N = 2^14 over the 438-bit set is at most 3 x 8 x 2^14 words (3 MiB):
    // anything beyond that lost between start and end is growth, not the pool's steady state.
    let growth = free_start.saturating_sub(free_end);
    if growth > 3 << 20 {
        println!("SOAK {scheme} FAILED: device memory in use grew by {growth} bytes");
        ok = false;
    }
    if rss_end > rss_start + 64 * 1024 {
        println!("SOAK {scheme} FAILED: host RSS grew by {} KiB", rss_end - rss_start);
        ok = false;
    }
    Ok(ok)
}
