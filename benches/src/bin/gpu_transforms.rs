//! GPU benchmark: forward and inverse NTT, DGT and hierarchical DGT, and the evaluation-domain
//! product of `poly-cuda`, for N = 2^12 .. 2^17 with 1, 8, 32 and 64 limbs (and N = 2^12 with
//! 3 limbs).
//!
//! Method (docs/anchors.md, docs/performance.md): CUDA events around each call, warm-up first, the median
//! of at least `--runs` (default 200) calls; inputs rotate over enough polynomials that they
//! do not fit in L2 (about 100 MB per rotation), random canonical values, never zeros.
//! Two timings per operation: "GPU us" queues the calls behind a kernel that keeps the GPU busy
//! for a few milliseconds (`kernels/timing.cu`), so the events see device time only;
//! "call us" times each call on an idle GPU, host launch latency included. The
//! device-to-device copy bandwidth is measured in the same run (bytes read + written) and each
//! operation's achieved bandwidth is reported as a fraction of it. Bytes counted: in-place
//! transform = one read and one write of the polynomial (`16 L N`, the one-pass floor;
//! twiddle reads are not counted); product = two reads and one write (`24 L N`).
//!
//! Before timing a shape, each timed operation's output is computed once and compared with the
//! CPU reference (`poly`); a mismatch stops the benchmark with an error (exit status 1).
//!
//! Usage: `gpu_transforms [--runs R] [--quick] [--shapes 16x32,12x3] [--transforms ntt,dgt,hdgt]
//! [--bits B]` (`--quick`: fewer shapes, for smoke tests; `--shapes`: only these `log2(N)` x limbs
//! shapes; `--transforms`: which transforms, default all three; `--bits`: the primes' size,
//! default 60; below 43 bits the NTT's butterflies run on the FP64 pipe unless
//! `HEGPU_NTT_FP64=0`).
//! Prints a markdown table on stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use benches::gpu_timing::{EventTimer as Timer, copy_bandwidth, median};
use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};
use rand::{Rng, SeedableRng};

/// Bytes that one rotation of inputs should span, well beyond the H100's 50 MB L2.
const ROTATION_BYTES: usize = 100 << 20;

struct Row {
    log_n: u32,
    limbs: usize,
    op: String,
    /// Device time per call (primed), sorted.
    samples: Vec<f64>,
    /// Per-call time on an idle GPU, launch included, sorted.
    call: Vec<f64>,
    bytes: usize,
}

/// The outputs of the timed operations (forward, inverse, evaluation-domain product) on `host`,
/// once, against the CPU reference; an error naming the first mismatch.
fn check_outputs(gpu: &GpuContext, host: &Poly<Coeff>, label: &str) -> Result<(), String> {
    let eval = DevicePoly::upload(gpu, host).unwrap().forward().unwrap();
    let cpu_eval = host.clone().forward().unwrap();
    if eval.download().unwrap() != cpu_eval {
        return Err(format!("{label}: the GPU forward transform differs from the CPU's"));
    }
    if eval.duplicate().unwrap().inverse().unwrap().download().unwrap() != *host {
        return Err(format!("{label}: the GPU inverse transform does not give the input back"));
    }
    let mut product = eval.duplicate().unwrap();
    product.mul_assign(&eval).unwrap();
    if product.download().unwrap() != cpu_eval.mul(&cpu_eval).unwrap() {
        return Err(format!("{label}: the GPU evaluation-domain product differs from the CPU's"));
    }
    Ok(())
}

fn bench_shape(
    device: &Arc<GpuDevice>,
    transform: TransformKind,
    log_n: u32,
    limbs: usize,
    (bits, runs): (u32, usize),
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    let n = 1usize << log_n;
    let primes = modarith::generate_ntt_primes(bits, 2 * n as u64, limbs, &[]).unwrap();
    let ring: Arc<RingContext> = RingContext::new(n, &primes, transform).unwrap();
    let gpu = GpuContext::new(device, &ring).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(log_n) << 8 | limbs as u64);
    let mut values = Vec::with_capacity(ring.poly_len());
    for m in ring.moduli() {
        values.extend((0..n).map(|_| rng.gen_range(1..m.value())));
    }
    let poly_bytes = ring.poly_len() * 8;
    let rotation = ROTATION_BYTES.div_ceil(poly_bytes).clamp(2, runs);
    let host = Poly::<Coeff>::from_limbs(&ring, values).unwrap();
    check_outputs(&gpu, &host, &format!("{} N = 2^{log_n}, {limbs} limbs", transform.name()))?;
    let first = DevicePoly::upload(&gpu, &host).unwrap();
    let mut coeffs: Vec<DevicePoly<Coeff>> = (0..rotation).map(|_| first.duplicate().unwrap()).collect();

    // Warm-up: every kernel once (module functions load, clocks rise).
    for _ in 0..3 {
        let mut next = Vec::with_capacity(rotation);
        for p in coeffs {
            next.push(p.forward().unwrap().inverse().unwrap());
        }
        coeffs = next;
    }

    let rounds = runs.div_ceil(rotation);
    // Per round: every polynomial forward, then every one back (the data stays random).
    let mut ntt_timings = Vec::new();
    for primed in [true, false] {
        let make = || if primed { Timer::primed(device).unwrap() } else { Timer::new(device.stream()) };
        let (mut forward, mut inverse) = (make(), make());
        for _ in 0..rounds {
            forward.prime(5).unwrap();
            let evals: Vec<DevicePoly<Eval>> =
                coeffs.into_iter().map(|p| forward.time(|| p.forward().unwrap()).unwrap()).collect();
            inverse.prime(5).unwrap();
            coeffs = evals.into_iter().map(|p| inverse.time(|| p.inverse().unwrap()).unwrap()).collect();
        }
        ntt_timings.push((forward.finish().unwrap(), inverse.finish().unwrap()));
    }
    let [(fwd_gpu, inv_gpu), (fwd_call, inv_call)]: [(Vec<f64>, Vec<f64>); 2] = ntt_timings.try_into().unwrap();
    let name = transform.name();
    let op = |what: &str| format!("{name} {what}");
    rows.push(Row { log_n, limbs, op: op("forward"), samples: fwd_gpu, call: fwd_call, bytes: 2 * poly_bytes });
    rows.push(Row { log_n, limbs, op: op("inverse"), samples: inv_gpu, call: inv_call, bytes: 2 * poly_bytes });

    // Products: a_i <- a_i * b_i over two rotating sets.
    let mut a: Vec<DevicePoly<Eval>> = Vec::with_capacity(rotation);
    for p in coeffs.drain(..) {
        a.push(p.forward().unwrap());
    }
    let b: Vec<DevicePoly<Eval>> = a.iter().map(|p| p.duplicate().unwrap()).collect();
    for (x, y) in a.iter_mut().zip(&b) {
        x.mul_assign(y).unwrap();
    }
    let mut mul_timings = Vec::new();
    for primed in [true, false] {
        let mut mul = if primed { Timer::primed(device).unwrap() } else { Timer::new(device.stream()) };
        for _ in 0..rounds {
            mul.prime(5).unwrap();
            for (x, y) in a.iter_mut().zip(&b) {
                mul.time(|| x.mul_assign(y).unwrap()).unwrap();
            }
        }
        mul_timings.push(mul.finish().unwrap());
    }
    let [mul_gpu, mul_call]: [Vec<f64>; 2] = mul_timings.try_into().unwrap();
    rows.push(Row { log_n, limbs, op: op("mul (eval)"), samples: mul_gpu, call: mul_call, bytes: 3 * poly_bytes });
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(200usize)
        .max(100);
    let quick = args.iter().any(|a| a == "--quick");
    let bits: u32 = args
        .iter()
        .position(|a| a == "--bits")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let only: Option<Vec<(u32, usize)>> =
        args.iter().position(|a| a == "--shapes").and_then(|i| args.get(i + 1)).map(|list| {
            list.split(',')
                .map(|shape| {
                    let (log_n, limbs) = shape.split_once('x').expect("--shapes takes LOGNxLIMBS,...");
                    (log_n.parse().unwrap(), limbs.parse().unwrap())
                })
                .collect()
        });
    let transforms: Vec<TransformKind> = args
        .iter()
        .position(|a| a == "--transforms")
        .and_then(|i| args.get(i + 1))
        .map(|list| {
            TransformKind::ALL
                .into_iter()
                .filter(|t| list.split(',').any(|w| w.eq_ignore_ascii_case(t.name())))
                .collect()
        })
        .unwrap_or(TransformKind::ALL.to_vec());

    let device = match benches::tuning::open_device(0) {
        Ok(device) => device,
        Err(e) => {
            eprintln!("gpu_transforms: no GPU: {e}");
            std::process::exit(2);
        }
    };
    let copy_gbs = copy_bandwidth(&device).unwrap();

    let mut shapes: Vec<(u32, usize)> = vec![(12, 3)];
    let log_ns: Vec<u32> = if quick { vec![12, 16] } else { (12..=17).collect() };
    for &log_n in &log_ns {
        for limbs in [1usize, 8, 32, 64] {
            shapes.push((log_n, limbs));
        }
    }
    if let Some(only) = only {
        shapes = only;
    }
    let mut rows = Vec::new();
    for (log_n, limbs) in shapes {
        for &transform in &transforms {
            if let Err(mismatch) = bench_shape(&device, transform, log_n, limbs, (bits, runs), &mut rows) {
                eprintln!("gpu_transforms: wrong output, nothing timed is valid: {mismatch}");
                std::process::exit(1);
            }
            eprintln!("done: {} N = 2^{log_n}, {limbs} limbs", transform.name());
        }
    }

    println!("## poly-cuda transforms on {}", device.name());
    println!();
    println!("Device-to-device copy: {copy_gbs:.0} GB/s (read + write). Median of >= {runs} calls, CUDA events.");
    println!("Primes of {bits} bits.");
    println!(
        "GPU us: device time (calls queued behind a busy kernel); call us: one call on an idle GPU, launch included."
    );
    println!("Floor = one read + one write of the data (products: two reads, one write) at the copy bandwidth.");
    println!();
    println!("| N | limbs | operation | GPU us (median) | p10 | p90 | call us | floor us | GB/s | % of copy BW |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let s = &row.samples;
        let med = median(s);
        let gbs = row.bytes as f64 / (med * 1e-6) / 1e9;
        let floor = row.bytes as f64 / (copy_gbs * 1e9) * 1e6;
        println!(
            "| 2^{} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0}% |",
            row.log_n,
            row.limbs,
            row.op,
            med,
            s[s.len() / 10],
            s[s.len() * 9 / 10],
            median(&row.call),
            floor,
            gbs,
            100.0 * gbs / copy_gbs
        );
    }
}
