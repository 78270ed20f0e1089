//! GPU benchmark: the RNS steps of `rns::gpu` (HPS and BEHZ extension, scale-down and
//! decryption; ModUp and ModDown) at the parameter sets of docs/anchors.md
//! (N = 2^12, 3 primes ... N = 2^16, 32 primes, with one special prime or hybrid digits).
//!
//! Method (as `gpu_transforms`): CUDA events around each call, warm-up
//! first, the median of at least `--runs` (default 200) calls; inputs rotate over enough
//! polynomials that one rotation spans about 100 MB (twice the H100's L2), random canonical
//! values. "GPU us" queues the calls behind a kernel that keeps the GPU busy for a few
//! milliseconds (`kernels/timing.cu`), so the events see device time only; "call us" times
//! each call on an idle GPU, host launch latency (and the output's stream-ordered allocation)
//! included. The device-to-device copy bandwidth is measured in the same run.
//!
//! What each row runs is what the BFV GPU backend calls: the polynomial methods (`extend_poly`,
//! `scale_down_poly`, `mod_up_poly`, `mod_down_poly`: a fresh output per call, as BFV gets it),
//! and the decryption kernels on preallocated buffers (the polynomial method also downloads).
//! Bytes counted: every limb each kernel must read or write once (intermediates included);
//! products: the lazy Shoup products of the base-conversion inner products, `N` times the
//! source limbs times the output rows.
//!
//! Before timing a set, each timed step's output is computed once and compared with the CPU
//! reference (`rns`); a mismatch stops the benchmark with an error (exit status 1).
//!
//! Usage: `gpu_rns [--runs R] [--quick]` (`--quick`: N = 2^12 and 2^16 only). Prints a
//! markdown table on stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use benches::gpu_timing::{EventTimer as Timer, copy_bandwidth, median};
use poly::{Coeff, Poly, RingContext, TransformKind};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};
use rand::{Rng, SeedableRng};
use rns::gpu::{GpuBehz, GpuDecryption, GpuHps, GpuKeySwitch};
use rns::{BehzContext, Extension, HpsContext, KeySwitchContext};

/// Bytes that one rotation of inputs should span, well beyond the H100's 50 MB L2.
const ROTATION_BYTES: usize = 100 << 20;

struct ParameterSet {
    log_n: u32,
    q: &'static [(u32, usize)],
    special: &'static [(u32, usize)],
}

const SETS: [ParameterSet; 7] = [
    ParameterSet { log_n: 12, q: &[(35, 2), (38, 1)], special: &[(60, 1)] },
    ParameterSet { log_n: 13, q: &[(54, 3), (56, 1)], special: &[(60, 1)] },
    ParameterSet { log_n: 14, q: &[(54, 7), (60, 1)], special: &[(60, 1)] },
    ParameterSet { log_n: 14, q: &[(36, 8)], special: &[(37, 2), (38, 2)] },
    ParameterSet { log_n: 15, q: &[(55, 15), (56, 1)], special: &[(60, 1)] },
    ParameterSet { log_n: 16, q: &[(55, 15), (56, 17)], special: &[(60, 1)] },
    ParameterSet { log_n: 16, q: &[(36, 32), (39, 15), (40, 1)], special: &[(40, 16)] },
];

fn generate(groups: &[(u32, usize)], two_n: u64, taken: &mut Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for &(bits, count) in groups {
        let found = modarith::generate_ntt_primes(bits, two_n, count, taken).unwrap();
        taken.extend(&found);
        out.extend(found);
    }
    out
}

struct Row {
    set: String,
    op: &'static str,
    gpu: Vec<f64>,
    call: Vec<f64>,
    bytes: usize,
    products: usize,
}

struct Bench<'a> {
    device: &'a Arc<GpuDevice>,
    runs: usize,
    rng: rand::rngs::StdRng,
}

impl Bench<'_> {
    fn ring(&self, n: usize, moduli: &[u64]) -> (Arc<RingContext>, GpuContext) {
        let ring = RingContext::new(n, moduli, TransformKind::Ntt).unwrap();
        let gpu = GpuContext::new(self.device, &ring).unwrap();
        (ring, gpu)
    }

    /// `count` device copies of one random polynomial of `ring` (count from the rotation), and
    /// that polynomial on the host.
    fn inputs(&mut self, ring: &Arc<RingContext>, gpu: &GpuContext) -> (Poly<Coeff>, Vec<DevicePoly<Coeff>>) {
        let n = ring.degree();
        let mut values = Vec::with_capacity(ring.poly_len());
        for m in ring.moduli() {
            values.extend((0..n).map(|_| self.rng.gen_range(1..m.value())));
        }
        let host = Poly::<Coeff>::from_limbs(ring, values).unwrap();
        let first = DevicePoly::upload(gpu, &host).unwrap();
        let rotation = ROTATION_BYTES.div_ceil(ring.poly_len() * 8).clamp(2, self.runs);
        (host, (0..rotation).map(|_| first.duplicate().unwrap()).collect())
    }

    /// Times `op` over the rotating inputs: warm-up, then primed and unprimed rounds.
    fn time<T>(&self, inputs: &[T], mut op: impl FnMut(&T)) -> (Vec<f64>, Vec<f64>) {
        for input in inputs.iter().take(3) {
            op(input);
        }
        self.device.synchronize().unwrap();
        let rounds = self.runs.div_ceil(inputs.len());
        let mut results = Vec::new();
        for primed in [true, false] {
            let mut timer = if primed { Timer::primed(self.device).unwrap() } else { Timer::new(self.device.stream()) };
            for _ in 0..rounds {
                timer.prime(5).unwrap();
                for input in inputs {
                    timer.time(|| op(input)).unwrap();
                }
                if !primed {
                    self.device.synchronize().unwrap();
                }
            }
            results.push(timer.finish().unwrap());
        }
        let call = results.pop().unwrap();
        (results.pop().unwrap(), call)
    }

    fn bench_set(&mut self, set: &ParameterSet, rows: &mut Vec<Row>) -> Result<(), String> {
        let n = 1usize << set.log_n;
        let two_n = 2 * n as u64;
        let mut taken = Vec::new();
        let q = generate(set.q, two_n, &mut taken);
        let special = generate(set.special, two_n, &mut taken);
        let t = modarith::generate_ntt_primes(20, two_n, 1, &taken).map(|p| p[0]).unwrap_or(65537);
        let (k, s) = (q.len(), special.len());
        let label = format!("2^{} {} ({})", set.log_n, k, s);
        let word = 8usize;
        let (q_ring, q_gpu) = self.ring(n, &q);
        let (q_host, q_inputs) = self.inputs(&q_ring, &q_gpu);
        let q_words = q_host.as_slice();
        let q_input = &q_inputs[0];

        // HPS.
        let hps = HpsContext::with_generated_moduli(n, &q, t).unwrap();
        let gpu_hps = GpuHps::new(self.device, &hps).unwrap();
        let l = hps.p().len();
        let (q_p_ring, q_p_gpu) = self.ring(n, &hps.q_p().unwrap().values());
        let (wide_host, wide) = self.inputs(&q_p_ring, &q_p_gpu);
        // Each timed step's output once against the CPU reference before it is timed.
        let mut cpu_plain = vec![0u64; n];
        hps.decrypt_scale_round(q_words, &mut cpu_plain).unwrap();
        check(
            &label,
            "HPS extend",
            gpu_hps.extend_poly(q_input, &q_p_gpu).unwrap().to_vec().unwrap(),
            hps.extend_poly(&q_host, &q_p_ring).unwrap().as_slice(),
        )?;
        check(
            &label,
            "HPS scale down",
            gpu_hps.scale_down_poly(&wide[0], &q_gpu).unwrap().to_vec().unwrap(),
            hps.scale_down_poly(&wide_host, &q_ring).unwrap().as_slice(),
        )?;
        check(&label, "HPS decrypt", gpu_hps.decrypt_poly(q_input).unwrap(), &cpu_plain)?;
        let (gpu, call) = self.time(&q_inputs, |x| drop(gpu_hps.extend_poly(x, &q_p_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "HPS extend q -> q u P",
            gpu,
            call,
            bytes: (2 * k + l) * n * word,
            products: n * k * l,
        });
        let (gpu, call) = self.time(&wide, |x| drop(gpu_hps.scale_down_poly(x, &q_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "HPS scale down q u P -> q",
            gpu,
            call,
            bytes: (2 * k + 3 * l) * n * word,
            products: n * (k * l + l * k),
        });
        drop(wide);
        let mut plain: CudaSlice<u64> = self.device.stream().alloc_zeros(n).unwrap();
        gpu_hps.decrypt_scale_round(q_input.device_buffer(), &mut plain).unwrap();
        check(&label, "HPS decrypt (kernel)", self.device.download_words(&plain).unwrap(), &cpu_plain)?;
        let (gpu, call) = self.time(&q_inputs, |x| gpu_hps.decrypt_scale_round(x.device_buffer(), &mut plain).unwrap());
        rows.push(Row {
            set: label.clone(),
            op: "HPS decrypt (kernel)",
            gpu,
            call,
            bytes: (k + 1) * n * word,
            products: n * k,
        });

        // BEHZ.
        let behz = BehzContext::with_generated_moduli(n, &q, t).unwrap();
        let gpu_behz = GpuBehz::new(self.device, &behz).unwrap();
        let bsk = behz.bsk().len();
        let (q_bsk_ring, q_bsk_gpu) = self.ring(n, &behz.q_bsk().unwrap().values());
        let (wide_host, wide) = self.inputs(&q_bsk_ring, &q_bsk_gpu);
        behz.decrypt_scale_round(q_words, &mut cpu_plain).unwrap();
        check(
            &label,
            "BEHZ extend",
            gpu_behz.extend_poly(q_input, &q_bsk_gpu).unwrap().to_vec().unwrap(),
            behz.extend_poly(&q_host, &q_bsk_ring).unwrap().as_slice(),
        )?;
        check(
            &label,
            "BEHZ scale down",
            gpu_behz.scale_down_poly(&wide[0], &q_gpu).unwrap().to_vec().unwrap(),
            behz.scale_down_poly(&wide_host, &q_ring).unwrap().as_slice(),
        )?;
        gpu_behz.decrypt_scale_round(q_input.device_buffer(), &mut plain).unwrap();
        check(&label, "BEHZ decrypt (kernel)", self.device.download_words(&plain).unwrap(), &cpu_plain)?;
        let (gpu, call) = self.time(&q_inputs, |x| drop(gpu_behz.extend_poly(x, &q_bsk_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "BEHZ extend q -> q u B_sk",
            gpu,
            call,
            bytes: (2 * k + bsk) * n * word,
            products: n * k * (bsk + 1),
        });
        let (gpu, call) = self.time(&wide, |x| drop(gpu_behz.scale_down_poly(x, &q_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "BEHZ scale down q u B_sk -> q",
            gpu,
            call,
            bytes: (2 * k + 3 * bsk) * n * word,
            products: n * (k * bsk + (bsk - 1) * (k + 1)),
        });
        drop(wide);
        let (gpu, call) =
            self.time(&q_inputs, |x| gpu_behz.decrypt_scale_round(x.device_buffer(), &mut plain).unwrap());
        rows.push(Row {
            set: label.clone(),
            op: "BEHZ decrypt (kernel)",
            gpu,
            call,
            bytes: (k + 1) * n * word,
            products: n * 2 * k,
        });

        // Key switching: digits of |P| primes (one prime per digit when |P| = 1, SEAL-style).
        let digit_size = s.min(k);
        let key_switch = KeySwitchContext::new(n, &q, &special, digit_size).unwrap();
        let gpu_ks = GpuKeySwitch::new(self.device, &key_switch).unwrap();
        let digits = key_switch.num_digits();
        let (ks_ring, ks_gpu) = self.ring(n, &key_switch.q_p().unwrap().values());
        let (wide_host, wide) = self.inputs(&ks_ring, &ks_gpu);
        for digit in 0..digits {
            check(
                &label,
                &format!("ModUp digit {digit}"),
                gpu_ks.mod_up_poly(q_input, digit, Extension::Exact, &ks_gpu).unwrap().to_vec().unwrap(),
                key_switch.mod_up_poly(&q_host, digit, Extension::Exact, &ks_ring).unwrap().as_slice(),
            )?;
        }
        let mut all_digits = self.device.stream().alloc_zeros::<u64>(digits * (k + s) * n).unwrap();
        gpu_ks.mod_up_all(q_input.device_buffer(), Extension::Exact, &mut all_digits).unwrap();
        let mut cpu_all = vec![0u64; digits * (k + s) * n];
        key_switch.mod_up_all(q_words, Extension::Exact, &mut cpu_all).unwrap();
        check(&label, "ModUp all, batched", self.device.download_words(&all_digits).unwrap(), &cpu_all)?;
        check(
            &label,
            "ModDown",
            gpu_ks.mod_down_poly(&wide[0], &q_gpu).unwrap().to_vec().unwrap(),
            key_switch.mod_down_poly(&wide_host, &q_ring).unwrap().as_slice(),
        )?;
        let (gpu, call) = self.time(&q_inputs, |x| drop(gpu_ks.mod_up_poly(x, 0, Extension::Exact, &ks_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "ModUp one digit (exact)",
            gpu,
            call,
            bytes: (digit_size + k + s) * n * word,
            products: n * digit_size * (k - digit_size + s),
        });
        let (gpu, call) = self.time(&q_inputs, |x| {
            for digit in 0..digits {
                drop(gpu_ks.mod_up_poly(x, digit, Extension::Exact, &ks_gpu).unwrap());
            }
        });
        rows.push(Row {
            set: label.clone(),
            op: "ModUp all digits, one call each (exact)",
            gpu,
            call,
            bytes: digits * (digit_size + k + s) * n * word,
            products: n * k * (k - digit_size + s),
        });
        // Key switching's batched path: every digit into one [digits][q u P][N] buffer (one
        // launch for one-prime digits), the buffer reused across calls.
        let (gpu, call) =
            self.time(&q_inputs, |x| gpu_ks.mod_up_all(x.device_buffer(), Extension::Exact, &mut all_digits).unwrap());
        drop(all_digits);
        rows.push(Row {
            set: label.clone(),
            op: "ModUp all digits, batched (exact)",
            gpu,
            call,
            bytes: digits * (digit_size + k + s) * n * word,
            products: n * k * (k - digit_size + s),
        });
        let (gpu, call) = self.time(&wide, |x| drop(gpu_ks.mod_down_poly(x, &q_gpu).unwrap()));
        rows.push(Row {
            set: label.clone(),
            op: "ModDown",
            gpu,
            call,
            bytes: (2 * k + s) * n * word,
            products: n * s * k,
        });
        eprintln!("done: {label} (HPS |P| = {l}, BEHZ |B_sk| = {bsk}, {digits} digits; outputs checked)");
        Ok(())
    }
}

/// `Ok` when the GPU's words equal the CPU reference's, else the step and the first mismatch.
fn check(set: &str, step: &str, gpu: Vec<u64>, cpu: &[u64]) -> Result<(), String> {
    if gpu.len() != cpu.len() {
        return Err(format!("{set}, {step}: {} words from the GPU, {} from the CPU", gpu.len(), cpu.len()));
    }
    match gpu.iter().zip(cpu).position(|(g, c)| g != c) {
        None => Ok(()),
        Some(at) => Err(format!("{set}, {step}: word {at} differs: GPU {}, CPU {}", gpu[at], cpu[at])),
    }
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
    let device = match benches::tuning::open_device(0) {
        Ok(device) => device,
        Err(e) => {
            eprintln!("gpu_rns: no GPU: {e}");
            std::process::exit(2);
        }
    };
    let copy_gbs = copy_bandwidth(&device).unwrap();
    let mut bench = Bench { device: &device, runs, rng: rand::rngs::StdRng::seed_from_u64(1) };
    let mut rows = Vec::new();
    for set in SETS.iter().filter(|set| !quick || set.log_n == 12 || set.log_n == 16) {
        if let Err(mismatch) = bench.bench_set(set, &mut rows) {
            eprintln!("gpu_rns: wrong output, nothing timed is valid: {mismatch}");
            std::process::exit(1);
        }
    }

    println!("## rns GPU steps on {}", device.name());
    println!();
    println!("Device-to-device copy: {copy_gbs:.0} GB/s (read + write). Median of >= {runs} calls, CUDA events.");
    println!(
        "GPU us: device time (calls queued behind a busy kernel); call us: one call on an idle GPU, launch included."
    );
    println!("Set: N, primes of q (special primes). Floor = the bytes each step must move at the copy bandwidth.");
    println!();
    println!("| set | step | GPU us (median) | p10 | p90 | call us | floor us | % of copy BW | G products/s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let s = &row.gpu;
        let med = median(s);
        let gbs = row.bytes as f64 / (med * 1e-6) / 1e9;
        let floor = row.bytes as f64 / (copy_gbs * 1e9) * 1e6;
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0}% | {:.1} |",
            row.set,
            row.op,
            med,
            s[s.len() / 10],
            s[s.len() * 9 / 10],
            median(&row.call),
            floor,
            100.0 * gbs / copy_gbs,
            row.products as f64 / (med * 1e-6) / 1e9
        );
    }
}
