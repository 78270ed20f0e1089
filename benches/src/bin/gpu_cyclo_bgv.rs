//! BGV over `Z_Q[x]/Phi_m(x)` at HElib's `m` on the GPU (`cyclotomic::gpu`), after the seed
//! thesis (Dong, BGV encryption on the GPU for HElib's rings: Bluestein NTT, copy/compute
//! overlap on streams).
//!
//! For each `m` (`L` primes of 50 bits, one special prime of 58 bits, `t = 65537`):
//! 1. the transforms of one polynomial of `L` limbs on the device: the Bluestein forward
//!    transform (coefficients -> evaluations at the `phi(m)` primitive roots), the inverse with
//!    the reduction modulo `Phi_m`, and poly-cuda's negacyclic NTT of length `M` (the power of
//!    two the convolution uses) for the cost factor;
//! 2. public-key encryption on the device (plaintext already there; CUDA events, queued behind
//!    a busy kernel: device time), and the latency of one encryption from the host (pinned
//!    plaintext up, encryption, ciphertext down to pinned memory, synchronized; wall clock);
//! 3. homomorphic evaluation on the device at the top level: the tensor product, relinearization
//!    (key switching with `L` RNS digits and the special prime), modulus switching (CUDA events,
//!    as 2.), and decryption with its CRT on the device, `phi(m)` words down (wall clock,
//!    synchronized); the relinearized and switched product is checked against the CPU;
//! 4. a stream of `K` plaintexts from pinned host memory encrypted to pinned host memory:
//!    serialized (one stream, copy up, encrypt, copy down, wait, per plaintext) against
//!    overlapped (`S` CUDA streams in one context, plaintext `k` on stream `k mod S`, nothing
//!    waited for until the end, so one stream's copies run under another's kernels); wall
//!    clock of the whole stream, median of the repetitions.
//!
//! Correctness: ciphertexts of the overlapped run are compared with the CPU reference's
//! encryption of the same plaintext and seed (first and last), and decrypted; a mismatch prints
//! `MISMATCH` and the exit status is 1.
//!
//! Usage: `gpu_cyclo_bgv [--quick] [--k K] [--streams S] [--runs R]` (defaults: K = 64,
//! S = 4, R = 30 timed calls of each kernel-level measurement, 5 repetitions of each stream).
//! Markdown tables on stdout.

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use benches::gpu_timing::{EventTimer, median};
use cyclotomic::bgv::{Bgv, BgvParameters};
use cyclotomic::gpu::{GpuBgv, GpuCyclotomic};
use poly::{Coeff, Poly, RingContext, Seed, TransformKind};
use poly_cuda::cudarc::driver::{CudaSlice, PinnedHostSlice};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};

type BoxResult<T> = Result<T, Box<dyn Error>>;

struct Options {
    quick: bool,
    k: usize,
    streams: usize,
    runs: usize,
}

fn options() -> BoxResult<Options> {
    let mut o = Options { quick: false, k: 64, streams: 4, runs: 30 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || -> BoxResult<usize> { Ok(args.next().ok_or("missing value")?.parse()?) };
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--k" => o.k = value()?,
            "--streams" => o.streams = value()?,
            "--runs" => o.runs = value()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if o.quick {
        o.k = o.k.min(16);
        o.runs = o.runs.min(10);
    }
    Ok(o)
}

fn pinned(device: &GpuDevice, len: usize) -> BoxResult<PinnedHostSlice<u64>> {
    // SAFETY: every caller writes the buffer (a host fill or a device copy into it, waited for)
    // before reading it.
    Ok(unsafe { device.cuda_context().alloc_pinned::<u64>(len) }?)
}

fn device_buffer(device: &GpuDevice, len: usize) -> BoxResult<CudaSlice<u64>> {
    Ok(device.stream().alloc_zeros::<u64>(len)?)
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
    let mut transform_rows = Vec::new();
    let mut encrypt_rows = Vec::new();
    let mut stream_rows = Vec::new();
    let mut eval_rows = Vec::new();
    let t = 65537u64;
    for &(m, limbs) in sets {
        let params = BgvParameters::generate(m, t, 50, limbs, 58)?;
        let bgv = Bgv::new(params.clone())?;
        let n = bgv.degree();
        eprintln!("m = {m}, phi(m) = {n}, L = {limbs}");
        let (sk, pk, rk) = bgv.keygen(&Seed::from([1u8; 32]))?;
        let mut gpu = GpuBgv::new(&device, &bgv, &pk, Some(&sk))?;
        gpu.set_relin_key(&rk)?;
        let ring: &GpuCyclotomic = gpu.ring();
        let big_m = ring.convolution_length();

        // 1. Transforms.
        let coefficients = device.stream().clone_htod(&vec![3u64; limbs * n])?;
        let forward = time_device(&device, o.runs, || {
            ring.forward_on_device(&coefficients, 1)?;
            Ok(())
        })?;
        let evaluations = ring.forward_on_device(&coefficients, 1)?;
        let inverse = time_device(&device, o.runs, || {
            ring.inverse_on_device(&evaluations, 1)?;
            Ok(())
        })?;
        let ntt_ring = RingContext::new(big_m, params.primes(), TransformKind::Ntt)?;
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

        // 2. Encryption: device time, and one encryption from the host.
        let seed = Seed::from([2u8; 32]);
        let plain: Vec<u64> = (0..n as u64).map(|j| (j * 7919 + 11) % t).collect();
        let plain_device = gpu.upload_plaintext(&plain)?;
        let mut counter = 0u64;
        let device_us = time_device(&device, o.runs, || {
            counter += 1;
            gpu.encrypt_device(&plain_device, &seed, counter)?;
            Ok(())
        })?;
        let mut plain_pinned = pinned(&device, n)?;
        plain_pinned.as_mut_slice()?.copy_from_slice(&plain);
        let mut out_pinned = pinned(&device, 2 * limbs * n)?;
        let mut staged = device_buffer(&device, n)?;
        let mut latencies = Vec::new();
        for run in 0..o.runs + 3 {
            let start = Instant::now();
            device.stream().memcpy_htod(&plain_pinned, &mut staged)?;
            let ct = gpu.encrypt_device(&staged, &seed, 1000 + run as u64)?;
            device.stream().memcpy_dtoh(ct.device_buffer(), &mut out_pinned)?;
            device.synchronize()?;
            if run >= 3 {
                latencies.push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        latencies.sort_by(f64::total_cmp);
        let latency = median(&latencies);
        encrypt_rows.push(format!(
            "| {m} | {n} | {limbs} | {:.0} | {device_us:.1} | {latency:.1} | {:.0} |",
            params.log_qp(),
            1e6 / device_us
        ));

        // 3. Evaluation on the device.
        let x = gpu.encrypt(&plain, &seed, 1 << 40)?;
        let y = gpu.encrypt(&plain, &seed, (1 << 40) + 1)?;
        let tensor_us = time_device(&device, o.runs, || {
            gpu.mul(&x, &y)?;
            Ok(())
        })?;
        let product = gpu.mul(&x, &y)?;
        let relin_us = time_device(&device, o.runs, || {
            gpu.relinearize(&product)?;
            Ok(())
        })?;
        let relin = gpu.relinearize(&product)?;
        let switch_us = time_device(&device, o.runs, || {
            gpu.mod_switch(&relin)?;
            Ok(())
        })?;
        let switched = gpu.mod_switch(&relin)?;
        let want = bgv.mod_switch(&bgv.relinearize(&bgv.mul(&gpu.download(&x)?, &gpu.download(&y)?)?, &rk)?)?;
        if gpu.download(&switched)? != want || gpu.decrypt(&switched)? != bgv.decrypt(&want, &sk)? {
            println!("MISMATCH: m = {m}, relinearized and switched product differs from the CPU's");
            ok = false;
        }
        let mut decrypt_times = Vec::new();
        for run in 0..o.runs + 3 {
            let start = Instant::now();
            gpu.decrypt(&x)?;
            if run >= 3 {
                decrypt_times.push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        decrypt_times.sort_by(f64::total_cmp);
        eval_rows.push(format!(
            "| {m} | {n} | {limbs} | {tensor_us:.1} | {relin_us:.1} | {switch_us:.1} | {:.1} |",
            median(&decrypt_times)
        ));

        // 4. A stream of K plaintexts: serialized vs overlapped on S streams.
        let k = o.k;
        let plains: Vec<Vec<u64>> =
            (0..k as u64).map(|i| (0..n as u64).map(|j| (i * 31 + j * 17) % t).collect()).collect();
        let mut host_in = Vec::with_capacity(k);
        for p in &plains {
            let mut buffer = pinned(&device, n)?;
            buffer.as_mut_slice()?.copy_from_slice(p);
            host_in.push(buffer);
        }
        let mut host_out = (0..k).map(|_| pinned(&device, 2 * limbs * n)).collect::<BoxResult<Vec<_>>>()?;
        // Serialized: one stream, wait after each.
        let mut serialized = Vec::new();
        for rep in 0..6 {
            let start = Instant::now();
            for i in 0..k {
                device.stream().memcpy_htod(&host_in[i], &mut staged)?;
                let ct = gpu.encrypt_device(&staged, &seed, (rep * k + i) as u64)?;
                device.stream().memcpy_dtoh(ct.device_buffer(), &mut host_out[i])?;
                device.synchronize()?;
            }
            if rep > 0 {
                serialized.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        serialized.sort_by(f64::total_cmp);
        // Overlapped: S devices (streams) in one context, each with its keys and tables.
        let lanes: Vec<(Arc<GpuDevice>, GpuBgv)> = (0..o.streams)
            .map(|_| -> BoxResult<_> {
                let lane_device = benches::tuning::open_device(0)?;
                let lane = GpuBgv::new(&lane_device, &bgv, &pk, Some(&sk))?;
                Ok((lane_device, lane))
            })
            .collect::<BoxResult<Vec<_>>>()?;
        let mut lane_staging = lanes
            .iter()
            .map(|(d, _)| (0..k).map(|_| device_buffer(d, n)).collect::<BoxResult<Vec<_>>>())
            .collect::<BoxResult<Vec<_>>>()?;
        let mut overlapped = Vec::new();
        let seed_overlap = Seed::from([3u8; 32]);
        for rep in 0..6 {
            let start = Instant::now();
            let mut keep = Vec::with_capacity(k);
            for i in 0..k {
                let s = i % lanes.len();
                let (lane_device, lane) = &lanes[s];
                let staging = &mut lane_staging[s][i];
                lane_device.stream().memcpy_htod(&host_in[i], staging)?;
                let ct = lane.encrypt_device(staging, &seed_overlap, i as u64)?;
                lane_device.stream().memcpy_dtoh(ct.device_buffer(), &mut host_out[i])?;
                keep.push(ct);
            }
            for (lane_device, _) in &lanes {
                lane_device.synchronize()?;
            }
            if rep > 0 {
                overlapped.push(start.elapsed().as_secs_f64() * 1e3);
            }
            drop(keep);
        }
        overlapped.sort_by(f64::total_cmp);
        // Check the overlapped run's first and last ciphertexts against the CPU.
        for i in [0, k - 1] {
            let want = bgv.encrypt(&pk, &plains[i], &seed_overlap, i as u64)?;
            let got = host_out[i].as_slice()?;
            if got != want.parts.concat().as_slice() {
                println!("MISMATCH: m = {m}, overlapped ciphertext {i} differs from the CPU's");
                ok = false;
            }
            let ct = gpu.upload(&want)?;
            if gpu.decrypt(&ct)? != plains[i] {
                println!("MISMATCH: m = {m}, ciphertext {i} does not decrypt");
                ok = false;
            }
        }
        let (ser, ovl) = (median(&serialized), median(&overlapped));
        let megabytes = (k * (n + 2 * limbs * n) * 8) as f64 / 1e6;
        stream_rows.push(format!(
            "| {m} | {limbs} | {k} | {} | {ser:.2} | {ovl:.2} | {:.0} | {:.0} | {:.2}x | {megabytes:.0} |",
            o.streams,
            k as f64 / ser * 1e3,
            k as f64 / ovl * 1e3,
            ser / ovl
        ));
        drop(lanes);
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
        "| m | phi(m) | L | log QP | device time (us) | one from the host, pinned, synchronized (us) | encryptions/s (device) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in encrypt_rows {
        println!("{row}");
    }
    println!("\n### Evaluation at the top level (device time, median, us; decryption: wall clock, synchronized)\n");
    println!("| m | phi(m) | L | tensor product | relinearization | modulus switch | decryption (CRT on the device) |");
    println!("|---|---|---|---|---|---|---|");
    for row in eval_rows {
        println!("{row}");
    }
    println!("\n### A stream of K plaintexts from pinned host memory (wall clock of the stream, median of 5)\n");
    println!(
        "| m | L | K | streams | serialized (ms) | overlapped (ms) | serialized enc/s | overlapped enc/s | speed-up | MB moved |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in stream_rows {
        println!("{row}");
    }
    Ok(ok)
}
