//! Gentry-Halevi on the GPU against the CPU, bit for bit (toy setting): Encrypt with the same
//! noise (windows 1, 8 and n) gives the CPU's ciphertext, Decrypt the CPU's bit, add and mul the
//! CPU's ciphertexts, over proptest's random bits, noise and circuits; Decrypt the CPU's bit for
//! any residue (random, and at the rounding boundary); and rejected inputs.
//!
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hegpu_test_support::gpu_cases;

use bigint::BigNat;
use gh::gpu::GpuGh;
use gh::{GhError, GhParams, keygen};
use gpu_cases::{Regressions, device};
use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu_gh.proptest-regressions"), source: file!() };

#[test]
fn encrypt_decrypt_add_mul_equal_cpu() {
    let Some(device) = device() else { return };
    let (pk, sk) = keygen(&GhParams::toy(), 11).unwrap();
    let gpus: Vec<GpuGh> = [1, 8, 64].iter().map(|&w| GpuGh::new(device.clone(), &pk, Some(&sk), w).unwrap()).collect();
    gpu_cases::check(24, REGRESSIONS, (any::<u64>(), 0u8..2, 0u8..2, 0usize..3), |(seed, b1, b2, which)| {
        let gpu = &gpus[which];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (n1, n2) = (pk.sample_noise(&mut rng), pk.sample_noise(&mut rng));
        let (c1, c2) = (pk.encrypt_with_noise(b1, &n1).unwrap(), pk.encrypt_with_noise(b2, &n2).unwrap());
        let (g1, g2) = (gpu.encrypt_with_noise(b1, &n1).unwrap(), gpu.encrypt_with_noise(b2, &n2).unwrap());
        assert_eq!(gpu.download(&g1).unwrap(), c1, "encrypt, window {}", gpu.window());
        assert_eq!(gpu.decrypt(&g1).unwrap(), b1);
        assert_eq!(gpu.decrypt(&g2).unwrap(), sk.decrypt(&pk, &c2).unwrap());
        let (gs, gp) = (gpu.add(&g1, &g2).unwrap(), gpu.mul(&g1, &g2).unwrap());
        assert_eq!(gpu.download(&gs).unwrap(), pk.add(&c1, &c2).unwrap(), "add");
        assert_eq!(gpu.download(&gp).unwrap(), pk.mul(&c1, &c2).unwrap(), "mul");
        assert_eq!(gpu.decrypt(&gp).unwrap(), b1 & b2);
        let squared = gpu.mul(&gp, &gs).unwrap();
        assert_eq!(gpu.decrypt(&squared).unwrap(), (b1 & b2) & (b1 ^ b2));
        let uploaded = gpu.upload(&c1).unwrap();
        assert_eq!(gpu.decrypt(&uploaded).unwrap(), b1);
    });
}

/// Encrypt with sparse noise (most windows empty, some encryptions with no noise at all) gives
/// the CPU's ciphertexts, for windows 1, 8 and `n`.
#[test]
fn sparse_encrypt_equals_cpu() {
    let Some(device) = device() else { return };
    let params = GhParams::toy().with_noise(2).unwrap();
    let (pk, sk) = keygen(&params, 13).unwrap();
    let gpus: Vec<GpuGh> = [1, 8, 64].iter().map(|&w| GpuGh::new(device.clone(), &pk, Some(&sk), w).unwrap()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let zero = vec![0i8; params.n()];
    let mut last = zero.clone();
    last[params.n() - 1] = -1;
    for case in 0..40 {
        let bit = (case % 2) as u8;
        let noise = match case {
            0 | 1 => zero.clone(),
            2 | 3 => last.clone(),
            _ => pk.sample_noise(&mut rng),
        };
        let cpu = pk.encrypt_with_noise(bit, &noise).unwrap();
        for gpu in &gpus {
            let g = gpu.encrypt_with_noise(bit, &noise).unwrap();
            assert_eq!(gpu.download(&g).unwrap(), cpu, "case {case}, window {}", gpu.window());
            assert_eq!(gpu.decrypt(&g).unwrap(), bit);
        }
    }
}

/// Decrypt (one product by the transformed `floor(2^K w / d)`, three words back) gives the
/// CPU's bit for any residue, not only ciphertexts: random values, 0, 1, `d - 1`, and the values
/// with `c w = (d - 1) / 2`, `(d + 1) / 2` (fractions within `1 / 2d` of one half: the fallback to
/// the modular product) and `0`, `1`, `d - 1 mod d`.
#[test]
fn decrypt_equals_cpu_for_any_residue() {
    let Some(device) = device() else { return };
    for (params, seed) in [(GhParams::toy(), 11), (GhParams::toy_recrypt(), 31)] {
        let (pk, sk) = keygen(&params, seed).unwrap();
        let gpu = GpuGh::new(device.clone(), &pk, Some(&sk), 8).unwrap();
        let d = BigUint::from(pk.modulus().modulus());
        let w = BigUint::from(sk.w());
        let mut values: Vec<BigUint> = vec![BigUint::zero(), BigUint::one(), &d - 1u32];
        if let Some(w_inv) = w.modinv(&d) {
            let half = &d >> 1u32;
            for target in [half.clone(), &half + 1u32, BigUint::zero(), BigUint::one(), &d - 1u32] {
                values.push(target * &w_inv % &d);
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        values.extend((0..64).map(|_| rng.gen_biguint_below(&d)));
        for (i, c) in values.iter().enumerate() {
            let ct = pk.ciphertext(BigNat::from(c)).unwrap();
            let g = gpu.upload(&ct).unwrap();
            let cpu = sk.decrypt(&pk, &ct).unwrap();
            assert_eq!(gpu.decrypt(&g).unwrap(), cpu, "{}: value {i}", params.name());
            assert_eq!(gpu.decrypt_by_residue(&g).unwrap(), cpu, "{}: value {i}", params.name());
        }
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let Some(device) = device() else { return };
    let (pk, sk) = keygen(&GhParams::toy(), 11).unwrap();
    let (other_pk, other_sk) = keygen(&GhParams::toy(), 12).unwrap();
    assert!(matches!(GpuGh::new(device.clone(), &pk, Some(&other_sk), 8), Err(GhError::WrongKey { .. })));
    assert!(matches!(GpuGh::new(device.clone(), &pk, Some(&sk), 3), Err(GhError::BadParameters { .. })));
    let ours = GpuGh::new(device.clone(), &pk, Some(&sk), 8).unwrap();
    let theirs = GpuGh::new(device, &other_pk, None, 8).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let a = ours.encrypt(1, &mut rng).unwrap();
    let b = theirs.encrypt(1, &mut rng).unwrap();
    assert!(matches!(ours.add(&a, &b), Err(GhError::WrongKey { what: "b", .. })));
    assert!(matches!(ours.decrypt(&b), Err(GhError::WrongKey { .. })));
    assert!(matches!(theirs.decrypt(&b), Err(GhError::BadParameters { .. })));
    assert!(matches!(ours.encrypt(2, &mut rng), Err(GhError::NotABit { value: 2 })));
    let cpu_theirs = other_pk.encrypt(0, &mut rng).unwrap();
    assert!(matches!(ours.upload(&cpu_theirs), Err(GhError::WrongKey { .. })));
    assert_eq!(ours.decrypt(&a).unwrap(), 1);
}
