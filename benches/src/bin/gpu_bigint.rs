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
//! residues standing in for the powers of `r` (the work does not depend on the values). The
//! last section generates a real small-setting key (CPU, Lehmer inverse), its squashed key
//! (`s = 15`, `S = 512`; indicator bits encrypted on the GPU) and times Encrypt (Gentry and
//! Halevi's sparse noise, and dense noise for comparison), Decrypt (and its fallback path) and
//! Recrypt with it, every result decrypted and checked; `GPU_BIGINT_SKIP_GH_KEY=1` skips it.
//!
//! The multiplication table also times a [`GpuMulPlan`] (buffers allocated once, the launch
//! sequence replayed as a CUDA graph): wall clock of one graph launch and the stream's
//! synchronization, the time between CUDA events around the graph launch, the same launches
//! without the graph, and 100 graphs queued back to back; then the cuts of the transform at
//! 2^20 bits. `GPU_BIGINT_ONLY_MUL=1` runs only these tables (no num-bigint, no
//! Gentry-Halevi), for the same-call comparison with `gmp_mul`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use bigint::gpu::{GpuBigInt, GpuMulPlan, ProductOptions};
use bigint::{BarrettModulus, BigNat};
use num_bigint::{BigUint, RandBigInt};
use poly_cuda::cudarc::driver::sys::CUevent_flags;
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
    let Some(device) = benches::tuning::open_device_or_skip(0).expect("device") else {
        println!("no CUDA device: skipped");
        return;
    };
    println!("device: {}", device.name());
    let gpu = GpuBigInt::new(device.clone()).expect("kernels");
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);

    let only_mul = std::env::var_os("GPU_BIGINT_ONLY_MUL").is_some();
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let stream = device.stream().clone();
    // One product of a plan: wall clock (graph launch + stream synchronization), and the
    // time between CUDA events recorded around the graph launch.
    let time_plan = |plan: &GpuMulPlan, runs: usize| -> (f64, f64) {
        for _ in 0..5 {
            plan.execute().unwrap();
        }
        device.synchronize().unwrap();
        let wall = time_ms(runs, || {
            plan.execute().unwrap();
            device.synchronize().unwrap();
        });
        let events = median(
            (0..runs)
                .map(|_| {
                    let start = stream.record_event(flags).unwrap();
                    plan.execute().unwrap();
                    let end = stream.record_event(flags).unwrap();
                    f64::from(start.elapsed_ms(&end).unwrap())
                })
                .collect(),
        );
        (wall, events)
    };

    println!("\n## Multiplication n x n bits (GPU: whole call incl. sync; num-bigint: one core)\n");
    println!(
        "| bits | mul() ms | plan, graph: wall ms | plan, graph: events ms | plan, launches: wall ms | plan, 100 graphs back to back: ms per product | num-bigint ms | num-bigint / plan wall | GPU batch of 16, ms per product |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for log_bits in 18..=24u32 {
        let bits = 1u64 << log_bits;
        let (a, b) = (rng.gen_biguint(bits), rng.gen_biguint(bits));
        let limbs = (bits / 64) as usize;
        let (ga, gb) = (gpu.upload(&BigNat::from(&a), limbs).unwrap(), gpu.upload(&BigNat::from(&b), limbs).unwrap());
        let expected = &a * &b;
        let product = gpu.download(&gpu.mul(&ga, &gb).unwrap()).unwrap();
        assert!(BigUint::from(&product) == expected, "GPU product differs from num-bigint at 2^{log_bits}");
        let mut plan = gpu.mul_plan(limbs, limbs).unwrap();
        plan.copy_operands(&ga, &gb).unwrap();
        plan.execute().unwrap();
        assert!(
            BigUint::from(&gpu.download_view(plan.product()).unwrap()) == expected,
            "plan product differs from num-bigint at 2^{log_bits}"
        );
        let runs = if log_bits <= 22 { 200 } else { 50 };
        let t_gpu = time_ms(runs.min(50), || {
            let p = gpu.mul(&ga, &gb).unwrap();
            device.synchronize().unwrap();
            drop(p);
        });
        let (t_wall, t_events) = time_plan(&plan, runs);
        let t_launches = time_ms(runs, || {
            plan.execute_launches().unwrap();
            device.synchronize().unwrap();
        });
        let t_stream = time_ms(5, || {
            for _ in 0..100 {
                plan.execute().unwrap();
            }
            device.synchronize().unwrap();
        }) / 100.0;
        assert!(BigUint::from(&gpu.download_view(plan.product()).unwrap()) == expected, "plan product after replays");
        let t_cpu = if only_mul {
            None
        } else {
            let cpu_runs = if log_bits <= 20 { 7 } else { 3 };
            Some(time_ms(cpu_runs, || {
                std::hint::black_box(&a * &b);
            }))
        };
        let batch = if log_bits <= 20 {
            let xs: Vec<BigNat> = (0..16).map(|_| BigNat::from(&rng.gen_biguint(bits))).collect();
            let bx = gpu.upload_batch(&xs, limbs).unwrap();
            let by = gpu.upload_batch(&xs, limbs).unwrap();
            let t = time_ms(20, || {
                let p = gpu.mul_batch(&bx, &by).unwrap();
                device.synchronize().unwrap();
                drop(p);
            });
            format!("{:.4}", t / 16.0)
        } else {
            "-".to_string()
        };
        let (cpu, ratio) =
            t_cpu.map_or(("-".to_string(), "-".to_string()), |t| (format!("{t:.2}"), format!("{:.0}x", t / t_wall)));
        println!(
            "| 2^{log_bits} | {t_gpu:.4} | {t_wall:.4} | {t_events:.4} | {t_launches:.4} | {t_stream:.4} | {cpu} | {ratio} | {batch} |"
        );
    }

    // How the transforms are cut, at 2^20 x 2^20 bits: tiles of 2^tile_log words per operand
    // and block, 2^(tile_log - 1) threads per block.
    println!("\n## 2^20 x 2^20 bits by cut of the transform (plan, graph)\n");
    println!("| tile words | threads | wall ms | events ms | 100 back to back, ms per product |");
    println!("|---|---|---|---|---|");
    {
        let bits = 1u64 << 20;
        let (a, b) = (rng.gen_biguint(bits), rng.gen_biguint(bits));
        let expected = BigNat::from(&(&a * &b));
        let limbs = (bits / 64) as usize;
        for tile_log in [11u32, 10, 9, 8, 0] {
            let cut =
                GpuBigInt::new(device.clone()).unwrap().with_product_options(ProductOptions { tile_log }).unwrap();
            let mut plan = cut.mul_plan(limbs, limbs).unwrap();
            plan.load(&BigNat::from(&a), &BigNat::from(&b)).unwrap();
            plan.execute().unwrap();
            assert!(cut.download_view(plan.product()).unwrap() == expected, "cut {tile_log}");
            let (wall, events) = time_plan(&plan, 200);
            let stream_ms = time_ms(5, || {
                for _ in 0..100 {
                    plan.execute().unwrap();
                }
                device.synchronize().unwrap();
            }) / 100.0;
            let (words, threads) = if tile_log == 0 {
                ("default".to_string(), "-".to_string())
            } else {
                (format!("2^{tile_log}"), (1u32 << (tile_log - 1)).to_string())
            };
            println!("| {words} | {threads} | {wall:.4} | {events:.4} | {stream_ms:.4} |");
        }
    }
    if only_mul {
        return;
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

    if std::env::var_os("GPU_BIGINT_SKIP_GH_KEY").is_none() {
        gh_small_with_key(device);
    }
}

/// Encrypt, Decrypt and Recrypt of the small setting with a real key.
fn gh_small_with_key(device: std::sync::Arc<poly_cuda::GpuDevice>) {
    use gh::gpu::GpuGh;
    use gh::{GhParams, RecryptParams, keygen, recrypt_keygen_with};
    println!("\n## Gentry-Halevi small setting with a real key (n = 2048, t = 380, s = 15, S = 512)\n");
    let params = GhParams::small();
    let t = Instant::now();
    let (pk, sk) = keygen(&params, 7).unwrap();
    let t_keygen = t.elapsed().as_secs_f64();
    println!("KeyGen (CPU, one core): {t_keygen:.1} s, |d| = {} bits", pk.modulus().bits());
    let t = Instant::now();
    let gpu64 = GpuGh::new(device.clone(), &pk, Some(&sk), 64).unwrap();
    let gpu2048 = GpuGh::new(device, &pk, Some(&sk), 2048).unwrap();
    println!("GPU key load (powers of r for windows 64 and 2048): {:.2} s", t.elapsed().as_secs_f64());
    let mut rng = rand::rngs::StdRng::seed_from_u64(2027);
    let t = Instant::now();
    let rk = recrypt_keygen_with(&pk, &sk, RecryptParams::for_setting(&params), &mut rng, |bit, rng| {
        gpu2048.download(&gpu2048.encrypt(bit, rng)?)
    })
    .unwrap();
    println!("squashed key (495 indicator bits encrypted on the GPU): {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let grk = gpu2048.load_recrypt_key(&rk).unwrap();
    println!("squashed key load (15 x 512 selector products): {:.2} s", t.elapsed().as_secs_f64());
    // Correctness with this key: GPU Encrypt equals the CPU's, Decrypt, Recrypt, Recrypt + mul.
    let noise = pk.sample_noise(&mut rng);
    let cpu_ct = pk.encrypt_with_noise(1, &noise).unwrap();
    assert!(gpu64.download(&gpu64.encrypt_with_noise(1, &noise).unwrap()).unwrap() == cpu_ct);
    assert!(gpu2048.download(&gpu2048.encrypt_with_noise(1, &noise).unwrap()).unwrap() == cpu_ct);
    assert_eq!(sk.decrypt(&pk, &cpu_ct).unwrap(), 1);
    let (mut worst_noise, mut recrypts_ok) = (0, 0);
    let mut recrypted = Vec::new();
    for _ in 0..20 {
        let bit = rng.gen_range(0..2u8);
        let ct = gpu2048.encrypt(bit, &mut rng).unwrap();
        let r = gpu2048.recrypt(&grk, &ct).unwrap();
        recrypts_ok += usize::from(gpu2048.decrypt(&r).unwrap() == bit);
        worst_noise = worst_noise.max(sk.noise_bits(&pk, &gpu2048.download(&r).unwrap()).unwrap());
        recrypted.push((r, bit));
    }
    let (mut products_ok, mut product_noise) = (0, 0);
    for pair in recrypted.chunks(2) {
        let p = gpu2048.mul(&pair[0].0, &pair[1].0).unwrap();
        product_noise = product_noise.max(sk.noise_bits(&pk, &gpu2048.download(&p).unwrap()).unwrap());
        products_ok += usize::from(gpu2048.decrypt(&p).unwrap() == pair[0].1 & pair[1].1);
    }
    println!(
        "checks: GPU Encrypt = CPU Encrypt; Recrypts decrypting right: {recrypts_ok}/20; noise after Recrypt <= {worst_noise} bits, after Recrypt + mul <= {product_noise} bits (limit {}); Recrypt + mul right in {products_ok}/10",
        pk.modulus().bits() - 1
    );
    // Bit-exact Recrypt against the CPU's factors path is in the tests; here one CPU Recrypt
    // would take minutes (2,970 + ~600 products at 790,000 bits).
    let ct = gpu2048.encrypt(1, &mut rng).unwrap();
    let t_enc64 = time_ms(20, || {
        std::hint::black_box(gpu64.encrypt(1, &mut rng).unwrap());
        gpu64.big().device().synchronize().unwrap();
    });
    let t_enc2048 = time_ms(20, || {
        std::hint::black_box(gpu2048.encrypt(1, &mut rng).unwrap());
        gpu2048.big().device().synchronize().unwrap();
    });
    let dense = params.with_noise(params.n() / 2).unwrap();
    let t_enc64_dense = time_ms(20, || {
        let noise = dense.sample_noise(&mut rng);
        std::hint::black_box(gpu64.encrypt_with_noise(1, &noise).unwrap());
        gpu64.big().device().synchronize().unwrap();
    });
    let t_dec = time_ms(50, || {
        std::hint::black_box(gpu2048.decrypt(&ct).unwrap());
    });
    let t_dec_residue = time_ms(50, || {
        std::hint::black_box(gpu2048.decrypt_by_residue(&ct).unwrap());
    });
    // Decrypt's fast path against the modular product on fresh and recrypted ciphertexts.
    for (r, bit) in &recrypted {
        assert_eq!(gpu2048.decrypt(r).unwrap(), *bit);
        assert_eq!(gpu2048.decrypt_by_residue(r).unwrap(), *bit);
    }
    let host_ct = gpu2048.download(&ct).unwrap();
    let t_factors = time_ms(5, || {
        std::hint::black_box(gpu2048.recrypt_factors(&grk, &ct).unwrap());
    });
    let factors = gpu2048.recrypt_factors(&grk, &ct).unwrap();
    let t_homomorphic = time_ms(5, || {
        std::hint::black_box(gpu2048.recrypt_with_factors(&grk, &factors).unwrap());
        gpu2048.big().device().synchronize().unwrap();
    });
    let t_recrypt = time_ms(5, || {
        std::hint::black_box(gpu2048.recrypt(&grk, &ct).unwrap());
        gpu2048.big().device().synchronize().unwrap();
    });
    let t_cpu_dec = time_ms(3, || {
        std::hint::black_box(sk.decrypt(&pk, &host_ct).unwrap());
    });
    let t = Instant::now();
    std::hint::black_box(pk.encrypt(1, &mut rng).unwrap());
    let t_cpu_enc = t.elapsed().as_secs_f64() * 1e3;
    println!("\n| operation (real key) | GPU ms | seed's C2050 | target | our CPU ms |");
    println!("|---|---|---|---|---|");
    println!("| Encrypt, window 64 | {t_enc64:.3} | 220 ms | <= 10 ms | {t_cpu_enc:.0} (one run) |");
    println!("| Encrypt, window 2048 | {t_enc2048:.3} | 220 ms | <= 10 ms | - |");
    println!(
        "| Encrypt, window 64, dense noise (n / 2 nonzero coefficients expected) | {t_enc64_dense:.3} | - | - | - |"
    );
    println!("| Decrypt (c floor(2^K w / d), three words back) | {t_dec:.3} | 2.5 ms | <= 0.2 ms | {t_cpu_dec:.1} |");
    println!("| Decrypt by the modular product c w mod d (the fallback) | {t_dec_residue:.3} | - | - | - |");
    println!("| Recrypt (whole), two-hot (Gentry-Halevi) | {t_recrypt:.1} | 4200 ms | <= 200 ms | - |");
    println!(
        "| - factors: c x_k mod d (GPU batch) and the 15 x 512 steps by R (CPU threads) | {t_factors:.1} | - | - | - |"
    );
    println!("| - selection + grade-school addition (GPU) | {t_homomorphic:.1} | - | - | - |");
    drop((grk, rk));

    // The one-hot encoding: 15 x 512 encrypted indicator bits, degree 15 instead of 30.
    let t = Instant::now();
    let rk1 = recrypt_keygen_with(&pk, &sk, RecryptParams::for_setting(&params).one_hot(), &mut rng, |bit, rng| {
        gpu2048.download(&gpu2048.encrypt(bit, rng)?)
    })
    .unwrap();
    let grk1 = gpu2048.load_recrypt_key(&rk1).unwrap();
    println!(
        "\none-hot squashed key (7,680 indicator bits encrypted on the GPU, loaded): {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let (mut worst_noise, mut recrypts_ok) = (0, 0);
    let mut recrypted = Vec::new();
    for i in 0..6u8 {
        let bit = ((i / 2) % 2) ^ (i % 2);
        let ct = gpu2048.encrypt(bit, &mut rng).unwrap();
        let r = gpu2048.recrypt(&grk1, &ct).unwrap();
        recrypts_ok += usize::from(gpu2048.decrypt(&r).unwrap() == bit);
        worst_noise = worst_noise.max(sk.noise_bits(&pk, &gpu2048.download(&r).unwrap()).unwrap());
        recrypted.push((r, bit));
    }
    let (mut products_ok, mut product_noise) = (0, 0);
    for pair in recrypted.chunks(2) {
        let p = gpu2048.mul(&pair[0].0, &pair[1].0).unwrap();
        product_noise = product_noise.max(sk.noise_bits(&pk, &gpu2048.download(&p).unwrap()).unwrap());
        products_ok += usize::from(gpu2048.decrypt(&p).unwrap() == pair[0].1 & pair[1].1);
    }
    println!(
        "one-hot checks: Recrypts decrypting right: {recrypts_ok}/6; noise after Recrypt <= {worst_noise} bits, after Recrypt + mul <= {product_noise} bits (limit {}); Recrypt + mul right in {products_ok}/3",
        pk.modulus().bits() - 1
    );
    let t_recrypt1 = time_ms(5, || {
        std::hint::black_box(gpu2048.recrypt(&grk1, &ct).unwrap());
        gpu2048.big().device().synchronize().unwrap();
    });
    let factors1 = gpu2048.recrypt_factors(&grk1, &ct).unwrap();
    let t_homomorphic1 = time_ms(5, || {
        std::hint::black_box(gpu2048.recrypt_with_factors(&grk1, &factors1).unwrap());
        gpu2048.big().device().synchronize().unwrap();
    });
    println!("| Recrypt (whole), one-hot | {t_recrypt1:.1} | 4200 ms | <= 200 ms | - |");
    println!("| - selection + grade-school addition (GPU), one-hot | {t_homomorphic1:.1} | - | - | - |");
}
