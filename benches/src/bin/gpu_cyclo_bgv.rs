//! BGV over `Z_Q[x]/Phi_m(x)` at HElib's `m` on the GPU: the one BGV (`bgv-encrypt`) over the
//! ring kind `Phi_m` (`BgvParametersBuilder::new_cyclotomic`), after the seed thesis (Dong,
//! BGV encryption on the GPU for HElib's rings: Bluestein NTT).
//!
//! For each `m` (`L` primes of 50 bits, one special prime of 58 bits, `t = 65537`):
//! 1. the transforms of one polynomial of `L` limbs on the device: the Bluestein forward
//!    transform (coefficients -> evaluations at the `phi(m)` primitive roots), the inverse with
//!    the reduction modulo `Phi_m`, and poly-cuda's negacyclic NTT of length `M` (the power of
//!    two the convolution uses) for the cost factor;
//! 2. public-key encryption (the plaintext's `phi(m)` words uploaded, the ciphertext left on the
//!    device; CUDA events, device time), and one encryption with the ciphertext brought to the
//!    host (wall clock, synchronized);
//! 3. evaluation at the top level: the tensor product, relinearization (hybrid key switching
//!    with the special prime), modulus switching (CUDA events), and decryption with its phase
//!    reduction on the device, `phi(m)` words down (wall clock, synchronized). The switched
//!    product is compared word for word with the CPU's (same seeds) and decrypted against the
//!    plaintext product; a mismatch prints `MISMATCH` and the exit status is 1.
//!
//! Usage: `gpu_cyclo_bgv [--quick] [--runs R]` (defaults: R = 30 timed calls of each
//! measurement). Markdown tables on stdout.

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use benches::gpu_timing::{EventTimer, median};
use bgv_encrypt::{BgvContext, BgvParametersBuilder, CoefficientEncoder};
use poly::{Coeff, CpuBackend, Poly, RingContext, Seed, TransformKind};
use poly_cuda::{DevicePoly, GpuBackend, GpuContext, GpuDevice};

type BoxResult<T> = Result<T, Box<dyn Error>>;

struct Options {
    quick: bool,
    runs: usize,
}

fn options() -> BoxResult<Options> {
    let mut o = Options { quick: false, runs: 30 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || -> BoxResult<usize> { Ok(args.next().ok_or("missing value")?.parse()?) };
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--runs" => o.runs = value()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if o.quick {
        o.runs = o.runs.min(10);
    }
    Ok(o)
}

/// Median microseconds of `runs` calls of `op` (device time, primed).
fn time_device(device: &GpuDevice, runs: usize, mut op: impl FnMut() -> BoxResult<()>) -> BoxResult<f64> {
    for _ in 0..3 {
        op()?;
    }
    device.synchronize()?;
    let mut timer = EventTimer::primed(device)?;
    timer.prime(20)?;
    for _ in 0..runs {
        timer.time(&mut op)??;
    }
    Ok(median(&timer.finish()?))
}

/// Median microseconds of `runs` synchronized calls of `op` (wall clock, after 3 warm-ups).
fn time_wall(device: &GpuDevice, runs: usize, mut op: impl FnMut() -> BoxResult<()>) -> BoxResult<f64> {
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs + 3 {
        let start = Instant::now();
        op()?;
        device.synchronize()?;
        if run >= 3 {
            times.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(median(&times))
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

fn run() -> BoxResult<bool> {
    let o = options()?;
    let Some(device) = benches::tuning::open_device_or_skip(0)? else {
        println!("no GPU: nothing to measure");
        return Ok(true);
    };
    println!("device: {}", device.name());
    let sets: &[(usize, usize)] =
        if o.quick { &[(21845, 4)] } else { &[(15709, 4), (21845, 4), (32767, 4), (21845, 8), (32767, 8)] };
    let mut ok = true;
    let (mut transform_rows, mut encrypt_rows, mut eval_rows) = (Vec::new(), Vec::new(), Vec::new());
    let t = 65537u64;
    for &(m, limbs) in sets {
        let params = BgvParametersBuilder::new_cyclotomic(m)
            .ciphertext_moduli_bits(&vec![50; limbs])
            .special_moduli_bits(&[58])
            .plaintext_modulus(t)
            .allow_insecure(true)
            .build()?;
        let n = params.degree();
        eprintln!("m = {m}, phi(m) = {n}, L = {limbs}");
        let gpu = BgvContext::new(GpuBackend::from_device(device.clone()), &params)?;
        let cpu = BgvContext::new(CpuBackend, &params)?;
        let seed = |byte: u8| Seed::from([byte; 32]);

        // 1. Transforms of one polynomial over q.
        let ring_q = params.ring_q();
        let context_q = GpuContext::new(&device, ring_q)?;
        let big_m = context_q.bluestein().ok_or("a Phi_m ring without Bluestein's transform")?.convolution_length();
        let coefficients = DevicePoly::upload(&context_q, &Poly::<Coeff>::from_limbs(ring_q, vec![3u64; limbs * n])?)?;
        let forward = time_device(&device, o.runs, || {
            coefficients.forward_to_new()?;
            Ok(())
        })?;
        let evaluations = coefficients.forward_to_new()?;
        let inverse = time_device(&device, o.runs, || {
            evaluations.inverse_to_new()?;
            Ok(())
        })?;
        let ntt_ring = RingContext::new(big_m, &params.ciphertext_moduli()[..limbs], TransformKind::Ntt)?;
        let ntt_context = GpuContext::new(&device, &ntt_ring)?;
        let ntt_input = DevicePoly::upload(&ntt_context, &Poly::<Coeff>::zero(&ntt_ring))?;
        let ntt = time_device(&device, o.runs, || {
            ntt_input.forward_to_new()?;
            Ok(())
        })?;
        transform_rows.push(format!(
            "| {m} | {n} | {big_m} | {limbs} | {forward:.1} | {inverse:.1} | {ntt:.1} | {:.1} |",
            forward / ntt
        ));

        // 2. Encryption.
        let secret = gpu.secret_key_from_seed(&seed(1))?;
        let public = gpu.public_key_from_seed(&secret, &seed(2))?;
        let relin = gpu.relin_key_from_seed(&secret, &seed(3))?;
        let encoder = CoefficientEncoder::new(&params);
        let values: Vec<u64> = (0..n as u64).map(|j| (j * 7919 + 11) % t).collect();
        let plain = encoder.encode(&values)?;
        let encrypt_us = time_device(&device, o.runs, || {
            gpu.encrypt_with_seed(&plain, &public, &seed(4))?;
            Ok(())
        })?;
        let round_trip_us = time_wall(&device, o.runs, || {
            let ct = gpu.encrypt_with_seed(&plain, &public, &seed(4))?;
            gpu.download(&ct)?;
            Ok(())
        })?;
        let log_qp: f64 =
            params.ciphertext_moduli().iter().chain(params.special_moduli()).map(|&q| (q as f64).log2()).sum();
        encrypt_rows.push(format!(
            "| {m} | {n} | {limbs} | {log_qp:.0} | {encrypt_us:.1} | {round_trip_us:.1} | {:.0} |",
            1e6 / encrypt_us
        ));

        // 3. Evaluation at the top level.
        let x = gpu.encrypt_with_seed(&plain, &public, &seed(5))?;
        let y = gpu.encrypt_with_seed(&plain, &public, &seed(6))?;
        let tensor_us = time_device(&device, o.runs, || {
            gpu.mul(&x, &y)?;
            Ok(())
        })?;
        let product = gpu.mul(&x, &y)?;
        let relin_us = time_device(&device, o.runs, || {
            gpu.relinearize(&product, &relin)?;
            Ok(())
        })?;
        let relinearized = gpu.relinearize(&product, &relin)?;
        let switch_us = time_device(&device, o.runs, || {
            gpu.mod_switch_to_next(&relinearized)?;
            Ok(())
        })?;
        let switched = gpu.mod_switch_to_next(&relinearized)?;
        let decrypt_us = time_wall(&device, o.runs, || {
            gpu.decrypt(&x, &secret)?;
            Ok(())
        })?;
        // The same seeds on the CPU give the same words.
        let cpu_secret = cpu.secret_key_from_seed(&seed(1))?;
        let cpu_public = cpu.public_key_from_seed(&cpu_secret, &seed(2))?;
        let cpu_relin = cpu.relin_key_from_seed(&cpu_secret, &seed(3))?;
        let (cx, cy) = (
            cpu.encrypt_with_seed(&plain, &cpu_public, &seed(5))?,
            cpu.encrypt_with_seed(&plain, &cpu_public, &seed(6))?,
        );
        let want = cpu.mod_switch_to_next(&cpu.mul_relin(&cx, &cy, &cpu_relin)?)?;
        let square = encoder.decode(&cpu.decrypt(&want, &cpu_secret)?)?;
        if gpu.download(&switched)? != cpu.download(&want)?
            || encoder.decode(&gpu.decrypt(&switched, &secret)?)? != square
        {
            println!("MISMATCH: m = {m}, the relinearized and switched product differs from the CPU's");
            ok = false;
        }
        eval_rows.push(format!(
            "| {m} | {n} | {limbs} | {tensor_us:.1} | {relin_us:.1} | {switch_us:.1} | {decrypt_us:.1} |"
        ));
        drop((gpu, x, y, product, relinearized, switched));
        device.trim_memory_pool(0)?;
    }
    println!("\n### Transforms of one polynomial of L limbs (device time, median, us)\n");
    println!(
        "| m | phi(m) | M | L | Bluestein forward | inverse + Phi_m reduction | NTT of length M | forward / NTT |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in transform_rows {
        println!("{row}");
    }
    println!("\n### Public-key encryption (t = 65537, 50-bit primes, 58-bit special prime)\n");
    println!(
        "| m | phi(m) | L | log QP | device time (us) | with the ciphertext to the host, synchronized (us) | encryptions/s (device) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in encrypt_rows {
        println!("{row}");
    }
    println!("\n### Evaluation at the top level (device time, median, us; decryption: wall clock, synchronized)\n");
    println!(
        "| m | phi(m) | L | tensor product | relinearization | modulus switch | decryption (phase reduction on the device) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in eval_rows {
        println!("{row}");
    }
    Ok(ok)
}
