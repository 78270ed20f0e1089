//! Big-integer multiplication and the Gentry-Halevi primitives' arithmetic on the GPU
//! (`bigint::gpu`), against num-bigint on one CPU core, in one run.
//!
//! ```text
//! cargo build --release -p benches --features cuda --bin gpu_bigint   # then, on the GPU machine:
//! ./gpu_bigint
//! ```
//!
//! Times are wall-clock medians of whole calls (launches, allocations from the pool, a final
//! stream synchronization; Decrypt includes the download of `[c w]_d`), after warm-up. Every
//! GPU product is checked once against num-bigint. The Gentry-Halevi rows use the small
//! setting's sizes (`|d|` = 790,000 bits, `n` = 2048) with random `d`, `c`, `w` and random
//! residues standing in for the powers of `r` (the work does not depend on the values; key
//! generation at this size is not part of this run).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use bigint::gpu::GpuBigInt;
use bigint::{BarrettModulus, BigNat};
use num_bigint::{BigUint, RandBigInt};
use rand::{Rng, SeedableRng};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    f();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

fn main() {
    let Some(device) = poly_cuda::open_device_or_skip(0).expect("device") else {
        println!("no CUDA device: skipped");
        return;
    };
    println!("device: {}", device.name());
    let gpu = GpuBigInt::new(device.clone()).expect("kernels");
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);

    println!("\n## Multiplication n x n bits (GPU: whole call incl. sync; num-bigint: one core)\n");
    println!("| bits | GPU ms | num-bigint ms | num-bigint / GPU | GPU batch of 16, ms per product |");
    println!("|---|---|---|---|---|");
    for log_bits in 18..=24u32 {
        let bits = 1u64 << log_bits;
        let (a, b) = (rng.gen_biguint(bits), rng.gen_biguint(bits));
        let limbs = (bits / 64) as usize;
        let (ga, gb) = (gpu.upload(&BigNat::from(&a), limbs).unwrap(), gpu.upload(&BigNat::from(&b), limbs).unwrap());
        let product = gpu.download(&gpu.mul(&ga, &gb).unwrap()).unwrap();
        assert!(BigUint::from(&product) == &a * &b, "GPU product differs from num-bigint at 2^{log_bits}");
        let runs = if log_bits <= 22 { 50 } else { 20 };
        let t_gpu = time_ms(runs, || {
            let p = gpu.mul(&ga, &gb).unwrap();
            device.synchronize().unwrap();
            drop(p);
        });
        let cpu_runs = if log_bits <= 20 { 7 } else { 3 };
        let t_cpu = time_ms(cpu_runs, || {
            std::hint::black_box(&a * &b);
        });
        let batch = if log_bits <= 20 {
            let xs: Vec<BigNat> = (0..16).map(|_| BigNat::from(&rng.gen_biguint(bits))).collect();
            let bx = gpu.upload_batch(&xs, limbs).unwrap();
            let by = gpu.upload_batch(&xs, limbs).unwrap();
            let t = time_ms(20, || {
                let p = gpu.mul_batch(&bx, &by).unwrap();
                device.synchronize().unwrap();
                drop(p);
            });
            format!("{:.3}", t / 16.0)
        } else {
            "-".to_string()
        };
        println!("| 2^{log_bits} | {t_gpu:.3} | {t_cpu:.2} | {:.0}x | {batch} |", t_cpu / t_gpu);
    }

    println!("\n## Gentry-Halevi small-setting arithmetic (|d| = 790,000 bits, n = 2048)\n");
    let d = rng.gen_biguint(790_000) | (BigUint::from(1u32) << 789_999u32) | BigUint::from(1u32);
    let host = BarrettModulus::new(&BigNat::from(&d)).unwrap();
    let m = gpu.modulus(&host).unwrap();
    let c = gpu.upload_residue(&m, &BigNat::from(&rng.gen_biguint_below(&d))).unwrap();
    let w = gpu.upload_residue(&m, &BigNat::from(&rng.gen_biguint_below(&d))).unwrap();
    let x = gpu.download_residue(&gpu.mul_mod(&m, &c, &w).unwrap()).unwrap();
    let expect = host.mul_mod(&gpu.download_residue(&c).unwrap(), &gpu.download_residue(&w).unwrap()).unwrap();
    assert!(x == expect, "mul_mod differs from the CPU");
    let t_mulmod = time_ms(50, || {
        let p = gpu.mul_mod(&m, &c, &w).unwrap();
        device.synchronize().unwrap();
        drop(p);
    });
    let t_decrypt = time_ms(50, || {
        let p = gpu.mul_mod(&m, &c, &w).unwrap();
        std::hint::black_box(gpu.download_residue(&p).unwrap().bit(0));
    });
    let members: Vec<_> =
        (0..32).map(|_| gpu.upload_residue(&m, &BigNat::from(&rng.gen_biguint_below(&d))).unwrap()).collect();
    let refs: Vec<_> = members.iter().collect();
    let t_batch = time_ms(20, || {
        let p = gpu.mul_mod_batch(&m, &refs, &refs).unwrap();
        device.synchronize().unwrap();
        drop(p);
    }) / 32.0;
    let noise: Vec<i8> = (0..2048).map(|_| [-2i8, 0, 0, 2][rng.gen_range(0..4)]).collect();
    let mut encrypt_rows = Vec::new();
    for window in [64usize, 2048] {
        let rows: Vec<BigNat> = (0..window).map(|_| BigNat::from(&rng.gen_biguint_below(&d))).collect();
        let table = gpu.upload_table(&m, &rows).unwrap();
        let r_window = gpu.upload_residue(&m, &BigNat::from(&rng.gen_biguint_below(&d))).unwrap();
        let t = time_ms(20, || {
            let blocks = gpu.linear_combinations_mod(&m, &table, &noise).unwrap();
            let mut iter = blocks.into_iter().rev();
            let mut y = iter.next().unwrap();
            for block in iter {
                let shifted = gpu.mul_mod(&m, &y, &r_window).unwrap();
                y = gpu.add_mod(&m, &shifted, &block).unwrap();
            }
            device.synchronize().unwrap();
        });
        encrypt_rows.push((window, t));
    }
    let (cb, wb) =
        (BigUint::from(&gpu.download_residue(&c).unwrap()), BigUint::from(&gpu.download_residue(&w).unwrap()));
    let t_cpu_mulmod = time_ms(5, || {
        std::hint::black_box(&cb * &wb % &d);
    });
    println!("| operation | GPU ms | seed's C2050 | target |");
    println!("|---|---|---|---|");
    println!("| mul_mod (Barrett, 790,000 bits) | {t_mulmod:.3} | - | - |");
    println!("| mul_mod, batch of 32, per product | {t_batch:.3} | - | - |");
    println!("| Decrypt: mul_mod + download + parity | {t_decrypt:.3} | 2.5 ms | <= 0.2 ms |");
    for (window, t) in encrypt_rows {
        println!(
            "| Encrypt, window {window} ({} window sums in one launch sequence + {} mul_mod/add_mod) | {t:.3} | 220 ms | <= 10 ms |",
            2048 / window,
            2048 / window - 1
        );
    }
    println!("| num-bigint c w mod d, one core (reference) | {t_cpu_mulmod:.2} | 18.5 ms (GH's CPU Decrypt) | - |");
}
