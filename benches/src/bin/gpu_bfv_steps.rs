//! Where the time of the small BFV operations goes on the GPU: the steps of Decrypt (forward
//! transform of `c_1`, product by `s`, inverse transform, addition of `c_0`, scale-and-round,
//! download of the `N` plaintext words; and the fused path: scale-and-round with the addition
//! of `c_0` inside), one ciphertext Add's polynomial addition, and the device allocation and
//! download costs under them, at Phantom's parameter sets (docs/anchors.md), both variants.
//!
//! Each step is timed two ways, median of `--runs` (default 200) after warm-up:
//! - **call**: CUDA events around the call with a stream synchronize before the end event
//!   (what a caller waits for: host work, launch latency and the device time);
//! - **device**: the same calls queued back to back behind a busy kernel, events around each
//!   (device time only; the gap to "call" is host and launch overhead);
//! - **host**: wall clock around the call alone, the device left to catch up after it (the
//!   host's cost of queueing the work: API calls, allocations, checks).
//!
//! Inputs are random residues, rotated over 4 sets per step so the L2 cache does not hold them.
//! Before any timing, each timed step's output is computed once and compared with the CPU
//! reference (`poly`, `rns`, the known plaintext for BFV's decryption); a mismatch stops the
//! benchmark with an error (exit status 2).
//!
//! `gpu_bfv_steps [--runs R] [--sets LIST]` (sets: names as printed, comma-separated).

use std::process::ExitCode;
use std::sync::Arc;

use benches::gpu_timing::{EventTimer, median};
use bfv::params::MulTables;
use bfv::{MulVariant, Preset};
use poly::{Coeff, Eval, Poly, RingContext};
use poly_cuda::cudarc::driver::sys::CUevent_flags;
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rns::gpu::{GpuBehz, GpuDecryption, GpuHps};

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Input sets each step rotates over.
const ROTATION: usize = 4;
const WARMUP: usize = 5;

fn random_poly(ring: &Arc<RingContext>, rng: &mut StdRng) -> BoxResult<Poly<Coeff>> {
    let n = ring.degree();
    let values: Vec<u64> = (0..ring.poly_len()).map(|i| rng.gen_range(0..ring.moduli()[i / n].value())).collect();
    Ok(Poly::from_limbs(ring, values)?)
}

/// `Ok` when the GPU's words equal the CPU reference's; else an error naming the step and the
/// first mismatch (a benchmark of a wrong result is worthless).
fn check(step: &str, gpu: &[u64], cpu: &[u64]) -> BoxResult<()> {
    if gpu.len() != cpu.len() {
        return Err(format!("{step}: {} words from the GPU, {} from the CPU reference", gpu.len(), cpu.len()).into());
    }
    match gpu.iter().zip(cpu).position(|(g, c)| g != c) {
        None => Ok(()),
        Some(at) => Err(format!("{step}: word {at} differs: GPU {}, CPU reference {}", gpu[at], cpu[at]).into()),
    }
}

/// Median microseconds of `op` timed three ways: (call, device, host).
fn time_both(
    device: &Arc<GpuDevice>,
    runs: usize,
    mut op: impl FnMut(usize) -> BoxResult<()>,
) -> BoxResult<(f64, f64, f64)> {
    for i in 0..WARMUP {
        op(i)?;
    }
    device.synchronize()?;
    // Call time: start event, the call, synchronize, end event.
    let stream = device.stream();
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let mut call = Vec::with_capacity(runs);
    for i in 0..runs {
        let start = stream.record_event(flags)?;
        op(i)?;
        device.synchronize()?;
        let end = stream.record_event(flags)?;
        stream.synchronize()?;
        call.push(f64::from(start.elapsed_ms(&end)?) * 1e3);
    }
    call.sort_by(f64::total_cmp);
    // Device time: queued back to back behind a busy kernel (chunks of 20 so the queue never
    // drains while the host is still launching).
    let mut device_us = Vec::with_capacity(runs);
    for chunk in 0..runs.div_ceil(20) {
        let mut timer = EventTimer::primed(device)?;
        timer.prime(5)?;
        for i in 0..20.min(runs - chunk * 20) {
            timer.time(|| op(i))??;
        }
        device_us.extend(timer.finish()?);
    }
    device_us.sort_by(f64::total_cmp);
    // Host time: the call alone, then a synchronize outside the clock.
    let mut host = Vec::with_capacity(runs);
    for i in 0..runs {
        let start = std::time::Instant::now();
        op(i)?;
        host.push(start.elapsed().as_secs_f64() * 1e6);
        device.synchronize()?;
    }
    host.sort_by(f64::total_cmp);
    Ok((median(&call), median(&device_us), median(&host)))
}

/// The variant's decryption tables on the device.
enum Decryptor {
    Hps(Arc<GpuHps>),
    Behz(Arc<GpuBehz>),
}

impl Decryptor {
    fn decrypt(&self, x: &DevicePoly<Coeff>) -> BoxResult<Vec<u64>> {
        Ok(match self {
            Decryptor::Hps(gpu) => gpu.decrypt_poly(x)?,
            Decryptor::Behz(gpu) => gpu.decrypt_poly(x)?,
        })
    }

    fn decrypt_sum(&self, x: &DevicePoly<Coeff>, y: &DevicePoly<Coeff>) -> BoxResult<Vec<u64>> {
        Ok(match self {
            Decryptor::Hps(gpu) => gpu.decrypt_sum_poly(x, y)?,
            Decryptor::Behz(gpu) => gpu.decrypt_sum_poly(x, y)?,
        })
    }
}

struct Row {
    set: String,
    variant: &'static str,
    step: &'static str,
    call: f64,
    device: f64,
    host: f64,
}

fn steps_for(
    device: &Arc<GpuDevice>,
    preset: Preset,
    variant: MulVariant,
    runs: usize,
    rows: &mut Vec<Row>,
) -> BoxResult<()> {
    let params = preset.builder()?.allow_insecure(true).variant(variant).build()?;
    let ring = params.ring_q();
    let context = GpuContext::new(device, ring)?;
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let hosts =
        |rng: &mut StdRng| -> BoxResult<Vec<Poly<Coeff>>> { (0..ROTATION).map(|_| random_poly(ring, rng)).collect() };
    let upload_all = |polys: &[Poly<Coeff>]| -> BoxResult<Vec<DevicePoly<Coeff>>> {
        polys.iter().map(|p| Ok(DevicePoly::upload(&context, p)?)).collect()
    };
    let (host_c0, host_c1) = (hosts(&mut rng)?, hosts(&mut rng)?);
    let (c0, c1) = (upload_all(&host_c0)?, upload_all(&host_c1)?);
    let host_secret = random_poly(ring, &mut rng)?.forward()?;
    let secret: DevicePoly<Eval> = DevicePoly::upload(&context, &host_secret)?;
    let products: Vec<DevicePoly<Eval>> = c1.iter().map(|c| Ok(c.duplicate()?.forward()?)).collect::<BoxResult<_>>()?;
    let set = format!("{} ({}+{})", preset.name(), params.ciphertext_moduli().len(), params.special_moduli().len());
    let mut push = |step: &'static str, (call, device_us, host): (f64, f64, f64)| {
        rows.push(Row { set: set.clone(), variant: variant.name(), step, call, device: device_us, host });
    };

    // Every timed step's output once against the CPU reference, before anything is timed.
    let cpu_forward = host_c1[0].clone().forward()?;
    let cpu_product = cpu_forward.mul(&host_secret)?;
    check("zero poly", &DevicePoly::<Coeff>::zero(&context)?.to_vec()?, &vec![0; ring.poly_len()])?;
    check("Add", &c0[0].add(&c1[1])?.to_vec()?, host_c0[0].add(&host_c1[1])?.as_slice())?;
    check("forward", &c1[0].duplicate()?.forward()?.to_vec()?, cpu_forward.as_slice())?;
    check("forward_to_new", &c1[0].forward_to_new()?.to_vec()?, cpu_forward.as_slice())?;
    let mut product = products[0].duplicate()?;
    product.mul_assign(&secret)?;
    check("product by s", &product.to_vec()?, cpu_product.as_slice())?;
    check("inverse", &products[0].duplicate()?.inverse()?.to_vec()?, host_c1[0].as_slice())?;
    let mut sum = c1[0].duplicate()?;
    sum.add_assign(&c0[0])?;
    let cpu_sum = host_c1[0].add(&host_c0[0])?;
    check("add c0 in place", &sum.to_vec()?, cpu_sum.as_slice())?;

    // Steps shared by both variants (run once, under HPS).
    if variant == MulVariant::Hps {
        push(
            "alloc + drop one poly over q",
            time_both(device, runs, |_| {
                drop(DevicePoly::<Coeff>::zero(&context)?);
                Ok(())
            })?,
        );
        push(
            "Add: one poly (fresh output)",
            time_both(device, runs, |i| {
                drop(c0[i % ROTATION].add(&c1[(i + 1) % ROTATION])?);
                Ok(())
            })?,
        );
        push(
            "Decrypt 1: duplicate + forward c1",
            time_both(device, runs, |i| {
                drop(c1[i % ROTATION].duplicate()?.forward()?);
                Ok(())
            })?,
        );
        let mut scratch: Vec<DevicePoly<Eval>> =
            products.iter().map(DevicePoly::duplicate).collect::<Result<_, _>>()?;
        push(
            "Decrypt 2: product by s (in place)",
            time_both(device, runs, |i| {
                scratch[i % ROTATION].mul_assign(&secret)?;
                Ok(())
            })?,
        );
        push(
            "Decrypt 3: duplicate + inverse",
            time_both(device, runs, |i| {
                drop(products[i % ROTATION].duplicate()?.inverse()?);
                Ok(())
            })?,
        );
        let mut sums: Vec<DevicePoly<Coeff>> = c1.iter().map(DevicePoly::duplicate).collect::<Result<_, _>>()?;
        push(
            "Decrypt 4: add c0 (in place)",
            time_both(device, runs, |i| {
                sums[i % ROTATION].add_assign(&c0[i % ROTATION])?;
                Ok(())
            })?,
        );
        let host_words: Vec<Vec<u64>> =
            (0..ROTATION).map(|_| (0..ring.degree()).map(|_| rng.r#gen()).collect()).collect();
        let words: Vec<_> =
            host_words.iter().map(|values| device.stream().clone_htod(values)).collect::<Result<_, _>>()?;
        check("download (staged)", &device.download_words(&words[0])?, &host_words[0])?;
        check("download (pageable)", &device.download_words_pageable(&words[0])?, &host_words[0])?;
        push(
            "download N words (staged, pinned)",
            time_both(device, runs, |i| {
                drop(device.download_words(&words[i % ROTATION])?);
                Ok(())
            })?,
        );
        push(
            "download N words (pageable)",
            time_both(device, runs, |i| {
                drop(device.download_words_pageable(&words[i % ROTATION])?);
                Ok(())
            })?,
        );
    }
    let decryptor = match params.multiplication_tables() {
        MulTables::Hps(hps) => Decryptor::Hps(std::sync::Arc::new(GpuHps::new(device, hps)?)),
        MulTables::Behz(behz) => Decryptor::Behz(std::sync::Arc::new(GpuBehz::new(device, behz)?)),
    };
    // The CPU's decryption scale-and-round of `words` (limb-major over q).
    let cpu_scale_round = |words: &[u64]| -> BoxResult<Vec<u64>> {
        let mut out = vec![0u64; ring.degree()];
        match params.multiplication_tables() {
            MulTables::Hps(hps) => hps.decrypt_scale_round(words, &mut out)?,
            MulTables::Behz(behz) => behz.decrypt_scale_round(words, &mut out)?,
        }
        Ok(out)
    };
    check(
        "Decrypt 5: scale-and-round + download",
        &decryptor.decrypt(&c0[0])?,
        &cpu_scale_round(host_c0[0].as_slice())?,
    )?;
    check("Decrypt 4+5 fused", &decryptor.decrypt_sum(&c1[0], &c0[0])?, &cpu_scale_round(cpu_sum.as_slice())?)?;
    // Decrypt as the bfv crate runs it, against its device part alone (the same kernels into a
    // device buffer, no host copy) and the host work on its output.
    {
        let backend = poly_cuda::GpuBackend::from_device(Arc::clone(device));
        let bfv_context = bfv::BfvContext::new(backend, &params)?;
        let seed = |byte: u8| poly::Seed::from([byte; 32]);
        let sk = bfv_context.secret_key_from_seed(&seed(1))?;
        let pk = bfv_context.public_key_from_seed(&sk, &seed(2))?;
        let t = params.plaintext_modulus();
        let values: Vec<u64> = (0..ring.degree() as u64).map(|i| (i * 7 + 1) % t).collect();
        let plaintext = bfv::Plaintext::from_coefficients(&params, &values)?;
        let ciphertexts: Vec<_> = (0..ROTATION)
            .map(|i| bfv_context.encrypt_with_seed(&plaintext, &pk, &seed(10 + i as u8)))
            .collect::<Result<_, _>>()?;
        check("bfv decrypt", bfv_context.decrypt(&ciphertexts[0], &sk)?.coefficients(), &values)?;
        let resident = bfv_context.decrypt_resident(&ciphertexts[0], &sk)?.to_plaintext()?;
        check("bfv decrypt_resident", resident.coefficients(), &values)?;
        push(
            "Decrypt (bfv::BfvContext::decrypt, whole)",
            time_both(device, runs, |i| {
                drop(bfv_context.decrypt(&ciphertexts[i % ROTATION], &sk)?);
                Ok(())
            })?,
        );
        push(
            "Decrypt, plaintext left on the device (bfv::BfvContext::decrypt_resident)",
            time_both(device, runs, |i| {
                drop(bfv_context.decrypt_resident(&ciphertexts[i % ROTATION], &sk)?);
                Ok(())
            })?,
        );
        push(
            "forward_to_new of c1 (alloc + forward transform)",
            time_both(device, runs, |i| {
                drop(c1[i % ROTATION].forward_to_new()?);
                Ok(())
            })?,
        );
        let mut plain_out = device.stream().alloc_zeros::<u64>(ring.degree())?;
        match &decryptor {
            Decryptor::Hps(gpu) => gpu.decrypt_scale_round(c0[0].device_buffer(), &mut plain_out)?,
            Decryptor::Behz(gpu) => gpu.decrypt_scale_round(c0[0].device_buffer(), &mut plain_out)?,
        }
        check("scale-and-round alone", &device.download_words(&plain_out)?, &cpu_scale_round(host_c0[0].as_slice())?)?;
        let x = c1[0].forward_to_new()?.inverse_of_product(&secret)?;
        match &decryptor {
            Decryptor::Hps(gpu) => gpu.decrypt_scale_round(x.device_buffer(), &mut plain_out)?,
            Decryptor::Behz(gpu) => gpu.decrypt_scale_round(x.device_buffer(), &mut plain_out)?,
        }
        let cpu_device_part = cpu_scale_round(cpu_product.clone().inverse()?.as_slice())?;
        check("Decrypt device part", &device.download_words(&plain_out)?, &cpu_device_part)?;
        push(
            "scale-and-round alone into a device buffer",
            time_both(device, runs, |i| {
                match &decryptor {
                    Decryptor::Hps(gpu) => gpu.decrypt_scale_round(c0[i % ROTATION].device_buffer(), &mut plain_out)?,
                    Decryptor::Behz(gpu) => {
                        gpu.decrypt_scale_round(c0[i % ROTATION].device_buffer(), &mut plain_out)?
                    }
                }
                Ok(())
            })?,
        );
        push(
            "Decrypt device part (same kernels, output on the device)",
            time_both(device, runs, |i| {
                let x = c1[i % ROTATION].forward_to_new()?.inverse_of_product(&secret)?;
                match &decryptor {
                    Decryptor::Hps(gpu) => gpu.decrypt_scale_round(x.device_buffer(), &mut plain_out)?,
                    Decryptor::Behz(gpu) => gpu.decrypt_scale_round(x.device_buffer(), &mut plain_out)?,
                }
                Ok(())
            })?,
        );
        if variant == MulVariant::Hps
            && let Ok(encoder) = bfv::BatchEncoder::new(&params)
        {
            let slots: Vec<u64> = (0..ring.degree() as u64).map(|i| (i * 5 + 3) % t).collect();
            let encoded = encoder.encode(&slots)?;
            check(
                "encode_resident",
                encoder.encode_resident(&bfv_context, &slots)?.to_plaintext()?.coefficients(),
                encoded.coefficients(),
            )?;
            let decoded = encoder.decode_resident(&bfv_context, &bfv_context.upload_plaintext(&encoded)?)?;
            check("decode_resident", &decoded, &encoder.decode(&encoded)?)?;
            push(
                "batch encode on the host (BatchEncoder::encode)",
                time_both(device, runs, |_| {
                    drop(encoder.encode(&slots)?);
                    Ok(())
                })?,
            );
            push(
                "batch encode on the device (encode_resident: upload N words + inverse NTT mod t)",
                time_both(device, runs, |_| {
                    drop(encoder.encode_resident(&bfv_context, &slots)?);
                    Ok(())
                })?,
            );
            let host_plaintext = encoder.encode(&slots)?;
            let resident = bfv_context.upload_plaintext(&host_plaintext)?;
            push(
                "batch decode on the host (BatchEncoder::decode of a host plaintext)",
                time_both(device, runs, |_| {
                    drop(encoder.decode(&host_plaintext)?);
                    Ok(())
                })?,
            );
            push(
                "batch decode on the device (decode_resident: forward NTT mod t + download N words)",
                time_both(device, runs, |_| {
                    drop(encoder.decode_resident(&bfv_context, &resident)?);
                    Ok(())
                })?,
            );
        }
        if variant == MulVariant::Hps {
            push(
                "host: Plaintext::from_coefficients of N words",
                time_both(device, runs, |_| {
                    drop(bfv::Plaintext::from_coefficients(&params, &values)?);
                    Ok(())
                })?,
            );
            push(
                "host: clone of N words",
                time_both(device, runs, |_| {
                    drop(std::hint::black_box(values.clone()));
                    Ok(())
                })?,
            );
        }
    }
    push(
        "Decrypt 5: scale-and-round + download",
        time_both(device, runs, |i| {
            drop(decryptor.decrypt(&c0[i % ROTATION])?);
            Ok(())
        })?,
    );
    push(
        "Decrypt 4+5 fused: add c0 in scale-and-round + download",
        time_both(device, runs, |i| {
            drop(decryptor.decrypt_sum(&c1[i % ROTATION], &c0[i % ROTATION])?);
            Ok(())
        })?,
    );
    Ok(())
}

fn run() -> BoxResult<()> {
    let mut runs = 200usize;
    let mut filter: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().ok_or("--runs takes a number")?.parse()?,
            "--sets" => {
                filter = Some(args.next().ok_or("--sets takes a list")?.split(',').map(str::to_string).collect())
            }
            "-h" | "--help" => {
                println!("gpu_bfv_steps [--runs R] [--sets LIST]");
                return Ok(());
            }
            other => return Err(format!("unknown argument '{other}'").into()),
        }
    }
    let Some(device) = benches::tuning::open_device_or_skip(0)? else { return Ok(()) };
    println!("## BFV steps on the GPU: {}\n", device.name());
    println!(
        "Median microseconds of {runs} runs: call = events around call + synchronize; device = back-to-back device \
         time; host = wall clock of the call alone (queueing).\n"
    );
    println!("| set | variant | step | call us | device us | host us |");
    println!("|---|---|---|---:|---:|---:|");
    let mut presets = Vec::new();
    for log_degree in 12..=16 {
        presets.push(Preset::Phantom { log_degree, hybrid: false });
        if log_degree >= 14 {
            presets.push(Preset::Phantom { log_degree, hybrid: true });
        }
    }
    for preset in presets {
        if let Some(names) = &filter
            && !names.iter().any(|n| preset.name().contains(n.as_str()))
        {
            continue;
        }
        for variant in [MulVariant::Hps, MulVariant::Behz] {
            let mut rows = Vec::new();
            steps_for(&device, preset, variant, runs, &mut rows)?;
            for row in rows {
                println!(
                    "| {} | {} | {} | {:.1} | {:.1} | {:.1} |",
                    row.set, row.variant, row.step, row.call, row.device, row.host
                );
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gpu_bfv_steps: {error}");
            ExitCode::from(2)
        }
    }
}
