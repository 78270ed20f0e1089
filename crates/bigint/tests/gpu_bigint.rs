//! `bigint::gpu` against the CPU reference, word for word: products, squares and batches of
//! random and edge operands (zero, one, all-ones limbs, carries through every limb) from one
//! bit to 2^24 bits, Barrett reduction and modular add/sub/mul/square for random and edge
//! moduli (the Gentry-Halevi size included), batched modular products, products by a factor
//! transformed once, limbs downloaded in parts, reusable product plans (CUDA graphs, every
//! cut of the transform into groups of stages), and rejected inputs.
//! Random cases are proptest's (`hegpu_test_support::gpu_cases`).
//!
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hegpu_test_support::gpu_cases;

use bigint::gpu::{GpuBigInt, ProductOptions};
use bigint::{BarrettModulus, BigIntError, BigNat};
use gpu_cases::{Regressions, device};
use num_bigint::{BigUint, RandBigInt};
use num_traits::One;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu_bigint.proptest-regressions"), source: file!() };

fn gpu() -> Option<GpuBigInt> {
    device().map(|d| GpuBigInt::new(d).unwrap())
}

fn ones(bits: u64) -> BigNat {
    BigNat::from(&((BigUint::one() << bits) - 1u32))
}

/// An operand of `bits` bits of the given kind: 0 random, 1 all ones, 2 zero, 3 one, 4 a power
/// of two, 5 all ones but one zero bit in the middle.
fn operand(kind: u8, bits: u64, rng: &mut ChaCha8Rng) -> BigNat {
    match kind {
        0 => BigNat::from(&rng.gen_biguint(bits)),
        1 => ones(bits),
        2 => BigNat::zero(),
        3 => BigNat::from_u64(1),
        4 => BigNat::power_of_two(bits - 1),
        _ => BigNat::from(&(BigUint::from(&ones(bits)) ^ (BigUint::one() << (bits / 2)))),
    }
}

fn limbs_of(x: &BigNat) -> usize {
    x.limbs().len().max(1)
}

fn check_product(gpu: &GpuBigInt, a: &BigNat, b: &BigNat, extra_limbs: usize) {
    let cpu = bigint::mul(a, b).unwrap();
    let ga = gpu.upload(a, limbs_of(a) + extra_limbs).unwrap();
    let gb = gpu.upload(b, limbs_of(b)).unwrap();
    let got = gpu.download(&gpu.mul(&ga, &gb).unwrap()).unwrap();
    assert!(got == cpu, "product of {} x {} bits differs", a.bits(), b.bits());
}

#[test]
fn random_products_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let strategy = (1u64..=65_536, 1u64..=65_536, 0u8..6, 0u8..6, any::<u64>(), 0usize..3);
    gpu_cases::check(64, REGRESSIONS, strategy, |(bits_a, bits_b, kind_a, kind_b, seed, extra)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let a = operand(kind_a, bits_a.max(2), &mut rng);
        let b = operand(kind_b, bits_b.max(2), &mut rng);
        check_product(&gpu, &a, &b, extra);
    });
}

#[test]
fn large_and_edge_products_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(0x61);
    for bits in [1u64 << 18, 1 << 20, 1 << 22, 1 << 24] {
        let a = operand(0, bits, &mut rng);
        let b = operand(0, bits, &mut rng);
        check_product(&gpu, &a, &b, 0);
    }
    // Largest coefficients and carries through every limb, at 2^24 bits.
    let x = ones(1 << 24);
    check_product(&gpu, &x, &x, 0);
    let y = BigNat::power_of_two(1 << 20).add(&BigNat::from_u64(1));
    check_product(&gpu, &ones(1 << 20), &y, 0);
    let gx = gpu.upload(&x, x.limbs().len()).unwrap();
    let square = gpu.download(&gpu.square(&gx).unwrap()).unwrap();
    assert!(square == bigint::square(&x).unwrap(), "square of 2^24 ones");
}

#[test]
fn random_squares_and_batches_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let strategy = (2u64..=100_000, 0u8..6, 1usize..=12, any::<u64>());
    gpu_cases::check(24, REGRESSIONS, strategy, |(bits, kind, members, seed)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let a = operand(kind, bits, &mut rng);
        let ga = gpu.upload(&a, limbs_of(&a)).unwrap();
        assert!(gpu.download(&gpu.square(&ga).unwrap()).unwrap() == bigint::square(&a).unwrap());
        let limbs = bits.div_ceil(64) as usize;
        let xs: Vec<BigNat> = (0..members).map(|i| operand((kind + i as u8) % 6, bits, &mut rng)).collect();
        let ys: Vec<BigNat> = (0..members).map(|i| operand((kind + 2 * i as u8) % 6, bits / 2 + 2, &mut rng)).collect();
        let (bx, by) = (
            gpu.upload_batch(&xs, limbs).unwrap(),
            gpu.upload_batch(&ys, (bits / 2 + 2).div_ceil(64) as usize).unwrap(),
        );
        let got = gpu.download_batch(&gpu.mul_batch(&bx, &by).unwrap()).unwrap();
        for ((x, y), p) in xs.iter().zip(&ys).zip(&got) {
            assert!(*p == bigint::mul(x, y).unwrap(), "batch member");
        }
    });
}

fn modulus_of(kind: u8, bits: u64, rng: &mut ChaCha8Rng) -> BigNat {
    match kind {
        0 => BigNat::from(&(rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)))),
        1 => ones(bits),
        2 => BigNat::power_of_two(bits - 1),
        _ => BigNat::power_of_two(bits - 1).add(&BigNat::from_u64(1)),
    }
}

fn check_modular(gpu: &GpuBigInt, m: &BigNat, rng: &mut ChaCha8Rng) {
    let host = BarrettModulus::new(m).unwrap();
    let dm = gpu.modulus(&host).unwrap();
    let mb = BigUint::from(m);
    let top = BigNat::from(&(&mb - 1u32));
    let values =
        [BigNat::from(&rng.gen_biguint_below(&mb)), BigNat::from(&rng.gen_biguint_below(&mb)), top, BigNat::zero()];
    for (i, a) in values.iter().enumerate() {
        let b = &values[(i + 1) % values.len()];
        let (ga, gb) = (gpu.upload_residue(&dm, a).unwrap(), gpu.upload_residue(&dm, b).unwrap());
        let down = |r| gpu.download_residue(&r).unwrap();
        assert!(down(gpu.mul_mod(&dm, &ga, &gb).unwrap()) == host.mul_mod(a, b).unwrap(), "mul_mod, {} bits", m.bits());
        assert!(down(gpu.square_mod(&dm, &ga).unwrap()) == host.square_mod(a).unwrap(), "square_mod");
        assert!(down(gpu.add_mod(&dm, &ga, &gb).unwrap()) == host.add_mod(a, b).unwrap(), "add_mod");
        assert!(down(gpu.sub_mod(&dm, &ga, &gb).unwrap()) == host.sub_mod(a, b).unwrap(), "sub_mod");
    }
    // Reduction of a product given as a plain integer.
    let (a, b) = (&values[2], &values[2]);
    let t = bigint::mul(a, b).unwrap();
    let gt = gpu.upload(&t, 2 * host.limbs()).unwrap();
    assert!(gpu.download_residue(&gpu.reduce(&dm, &gt).unwrap()).unwrap() == host.reduce(&t).unwrap(), "reduce");
}

#[test]
fn random_modular_operations_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let strategy = (2u64..=40_000, 0u8..4, any::<u64>());
    gpu_cases::check(32, REGRESSIONS, strategy, |(bits, kind, seed)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let m = modulus_of(kind, bits.max(3), &mut rng);
        check_modular(&gpu, &m, &mut rng);
    });
}

#[test]
fn gentry_halevi_size_modular_operations_and_batches_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(0x62);
    for kind in 0..4 {
        let m = modulus_of(kind, 790_000, &mut rng);
        check_modular(&gpu, &m, &mut rng);
    }
    let m = modulus_of(0, 790_000, &mut rng);
    let host = BarrettModulus::new(&m).unwrap();
    let dm = gpu.modulus(&host).unwrap();
    let mb = BigUint::from(&m);
    let xs: Vec<BigNat> = (0..6).map(|_| BigNat::from(&rng.gen_biguint_below(&mb))).collect();
    let ys: Vec<BigNat> = (0..6).map(|_| BigNat::from(&rng.gen_biguint_below(&mb))).collect();
    let gx: Vec<_> = xs.iter().map(|x| gpu.upload_residue(&dm, x).unwrap()).collect();
    let gy: Vec<_> = ys.iter().map(|y| gpu.upload_residue(&dm, y).unwrap()).collect();
    let got = gpu.mul_mod_batch(&dm, &gx.iter().collect::<Vec<_>>(), &gy.iter().collect::<Vec<_>>()).unwrap();
    for ((x, y), r) in xs.iter().zip(&ys).zip(&got) {
        assert!(gpu.download_residue(r).unwrap() == host.mul_mod(x, y).unwrap(), "batched mul_mod");
    }
}

/// Products by a factor transformed once equal `mul`'s and the CPU's, for random and edge
/// operands, each factor used several times; and parts of them downloaded in one call.
#[test]
fn products_by_a_transformed_factor_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let strategy = (1u64..=40_000, 1u64..=40_000, 0u8..6, 0u8..6, any::<u64>(), 0usize..3);
    gpu_cases::check(32, REGRESSIONS, strategy, |(bits_a, bits_b, kind_a, kind_b, seed, extra)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let b = operand(kind_b, bits_b.max(2), &mut rng);
        let a_limbs = limbs_of(&operand(kind_a, bits_a.max(2), &mut rng));
        let b_limbs = limbs_of(&b) + extra;
        let factor = gpu.multiplier(&b, b_limbs, a_limbs).unwrap();
        let gb = gpu.upload(&b, b_limbs).unwrap();
        for round in 0..3 {
            let a = operand(if round == 0 { kind_a } else { 0 }, 64 * a_limbs as u64 - round, &mut rng);
            let ga = gpu.upload(&a, a_limbs).unwrap();
            let by = gpu.mul_by(&ga, &factor).unwrap();
            let cpu = bigint::mul(&a, &b).unwrap();
            assert!(gpu.download(&by).unwrap() == cpu, "{} x {} bits by the transformed factor", a.bits(), b.bits());
            assert!(gpu.download(&gpu.mul(&ga, &gb).unwrap()).unwrap() == cpu);
            let limbs = cpu.limbs_padded(a_limbs + b_limbs);
            let mid = (a_limbs + b_limbs) / 2;
            let parts = gpu.download_limbs(&[(&by, mid, 2.min(a_limbs + b_limbs - mid)), (&ga, 0, 1)]).unwrap();
            let mut expected = limbs[mid..(mid + 2).min(a_limbs + b_limbs)].to_vec();
            expected.push(a.limbs_padded(a_limbs)[0]);
            assert_eq!(parts, expected);
        }
    });
}

/// The same device with another cut of the transforms.
fn gpu_with(options: ProductOptions) -> Option<GpuBigInt> {
    device().map(|d| GpuBigInt::new(d).unwrap().with_product_options(options).unwrap())
}

#[test]
fn product_plans_equal_cpu_for_every_cut() {
    let Some(gpu) = gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(0x13d);
    // The default (0), tiles of 2^11 (one or two groups of stages) down to 2^2 (three or more:
    // middle groups).
    let cuts = [0, 11, 10, 9, 8, 4, 2];
    for tile_log in cuts {
        let gpu = gpu_with(ProductOptions { tile_log }).unwrap();
        for (bits_a, bits_b) in [(64u64, 64u64), (1000, 64), (4096, 4096), (50_000, 30_000), (1 << 18, 1 << 18)] {
            for kind in 0..6u8 {
                let a = operand(kind, bits_a, &mut rng);
                let b = operand((kind + 1) % 6, bits_b, &mut rng);
                let (a_limbs, b_limbs) = (bits_a.div_ceil(64) as usize, bits_b.div_ceil(64) as usize);
                let cpu = bigint::mul(&a, &b).unwrap();
                let mut plan = gpu.mul_plan(a_limbs, b_limbs).unwrap();
                plan.load(&a, &b).unwrap();
                plan.execute().unwrap();
                assert!(gpu.download_view(plan.product()).unwrap() == cpu, "plan {bits_a} x {bits_b}, cut {tile_log}");
                plan.execute_launches().unwrap();
                assert!(gpu.download_view(plan.product()).unwrap() == cpu, "launches {bits_a} x {bits_b}");
                // Replays on new operands (copied on the device).
                let (a2, b2) = (operand(0, bits_a, &mut rng), operand(1, bits_b, &mut rng));
                let (ga, gb) = (gpu.upload(&a2, a_limbs).unwrap(), gpu.upload(&b2, b_limbs).unwrap());
                plan.copy_operands(&ga, &gb).unwrap();
                plan.execute().unwrap();
                assert!(gpu.download_view(plan.product()).unwrap() == bigint::mul(&a2, &b2).unwrap());
                assert!(gpu.download(&gpu.mul(&ga, &gb).unwrap()).unwrap() == bigint::mul(&a2, &b2).unwrap());
                let mut square = gpu.square_plan(a_limbs).unwrap();
                square.load(&a, &BigNat::zero()).unwrap();
                square.execute().unwrap();
                assert!(gpu.download_view(square.product()).unwrap() == bigint::square(&a).unwrap(), "square plan");
                let factor = gpu.multiplier(&b, b_limbs, a_limbs).unwrap();
                let ga = gpu.upload(&a, a_limbs).unwrap();
                assert!(gpu.download(&gpu.mul_by(&ga, &factor).unwrap()).unwrap() == cpu, "mul_by, cut {tile_log}");
            }
        }
        let xs: Vec<BigNat> = (0..5).map(|i| operand(i % 6, 20_000, &mut rng)).collect();
        let ys: Vec<BigNat> = (0..5).map(|i| operand((i + 3) % 6, 9_000, &mut rng)).collect();
        let (bx, by) = (gpu.upload_batch(&xs, 313).unwrap(), gpu.upload_batch(&ys, 141).unwrap());
        let got = gpu.download_batch(&gpu.mul_batch(&bx, &by).unwrap()).unwrap();
        for ((x, y), p) in xs.iter().zip(&ys).zip(&got) {
            assert!(*p == bigint::mul(x, y).unwrap(), "batch member, cut {tile_log}");
        }
    }
    // Rejected: zero lengths, operands longer than the plan's, bad options.
    assert!(matches!(gpu.mul_plan(0, 4), Err(BigIntError::LimbCount { .. })));
    let mut plan = gpu.mul_plan(2, 2).unwrap();
    assert!(matches!(plan.load(&ones(200), &BigNat::zero()), Err(BigIntError::LimbCount { .. })));
    let long = gpu.upload(&ones(200), 4).unwrap();
    assert!(matches!(plan.copy_operands(&long, &long), Err(BigIntError::LimbCount { .. })));
    let bad = GpuBigInt::new(device().unwrap()).unwrap().with_product_options(ProductOptions { tile_log: 12 });
    assert!(matches!(bad, Err(BigIntError::Batch { .. })));
}

#[test]
fn product_plans_at_benchmark_sizes_equal_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(0x13e);
    // The benchmark's sizes, and the largest coefficients with carries through every limb.
    for log_bits in [20u32, 22, 24] {
        let limbs = 1usize << (log_bits - 6);
        let mut plan = gpu.mul_plan(limbs, limbs).unwrap();
        for kind in [0u8, 1] {
            let (a, b) = (operand(kind, 1 << log_bits, &mut rng), operand(kind, 1 << log_bits, &mut rng));
            plan.load(&a, &b).unwrap();
            plan.execute().unwrap();
            assert!(gpu.download_view(plan.product()).unwrap() == bigint::mul(&a, &b).unwrap(), "2^{log_bits} plan");
        }
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let Some(gpu) = gpu() else { return };
    let big = ones(200);
    assert!(matches!(gpu.upload(&big, 3), Err(BigIntError::LimbCount { .. })));
    let m1 = BarrettModulus::new(&BigNat::from_u64(1_000_003)).unwrap();
    let m2 = BarrettModulus::new(&BigNat::from_u64(999_983)).unwrap();
    let (d1, d2) = (gpu.modulus(&m1).unwrap(), gpu.modulus(&m2).unwrap());
    assert!(matches!(gpu.upload_residue(&d1, &BigNat::from_u64(1_000_003)), Err(BigIntError::NotReduced { .. })));
    let a = gpu.upload_residue(&d1, &BigNat::from_u64(5)).unwrap();
    let b = gpu.upload_residue(&d2, &BigNat::from_u64(7)).unwrap();
    assert!(matches!(gpu.mul_mod(&d1, &a, &b), Err(BigIntError::WrongModulus { what: "b" })));
    assert!(matches!(gpu.add_mod(&d2, &a, &b), Err(BigIntError::WrongModulus { what: "a" })));
    assert!(matches!(gpu.mul_mod_batch(&d1, &[&a], &[]), Err(BigIntError::Batch { .. })));
    let long = gpu.upload(&big, 4).unwrap();
    assert!(matches!(gpu.reduce(&d1, &long), Err(BigIntError::LimbCount { .. })));
    let x = gpu.upload_batch(&[BigNat::from_u64(3), BigNat::from_u64(4)], 1).unwrap();
    let y = gpu.upload_batch(&[BigNat::from_u64(3)], 1).unwrap();
    assert!(matches!(gpu.mul_batch(&x, &y), Err(BigIntError::Batch { .. })));
    let factor = gpu.multiplier(&BigNat::from_u64(9), 1, 2).unwrap();
    assert!(matches!(gpu.multiplier(&big, 3, 2), Err(BigIntError::LimbCount { .. })));
    assert!(matches!(gpu.multiplier(&big, 4, 0), Err(BigIntError::LimbCount { .. })));
    assert!(matches!(gpu.mul_by(&long, &factor), Err(BigIntError::LimbCount { .. })));
    assert!(matches!(gpu.download_limbs(&[(&long, 3, 2)]), Err(BigIntError::LimbCount { .. })));
    assert!(matches!(gpu.download_limbs(&[(&long, usize::MAX, 2)]), Err(BigIntError::LimbCount { .. })));
    // The inputs are untouched by the failures.
    assert_eq!(gpu.download_residue(&a).unwrap(), BigNat::from_u64(5));
}
