//! Recrypt on the GPU against the CPU, bit for bit (setting `toy-recrypt`): the device's
//! recrypted ciphertext (selectors precomputed on the device, batched products) equals
//! `PublicKey::recrypt`'s for random bits, fresh and multiplied, decrypts to the bit, and
//! multiplies further; and rejected inputs.
//!
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hegpu_test_support::gpu_cases;

use gh::gpu::GpuGh;
use gh::{GhError, GhParams, RecryptParams, keygen, recrypt_keygen};
use gpu_cases::device;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn recrypt_equals_cpu() {
    let Some(device) = device() else { return };
    let params = GhParams::toy_recrypt();
    let (pk, sk) = keygen(&params, 31).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let rk = recrypt_keygen(&pk, &sk, RecryptParams::for_setting(&params), &mut rng).unwrap();
    let gpu = GpuGh::new(device, &pk, Some(&sk), 8).unwrap();
    let grk = gpu.load_recrypt_key(&rk).unwrap();
    for case in 0..12 {
        let (b1, b2) = (rng.gen_range(0..2u8), rng.gen_range(0..2u8));
        let mut c1 = pk.encrypt(b1, &mut rng).unwrap();
        if case % 3 == 2 {
            c1 = pk.mul(&c1, &pk.encrypt(1, &mut rng).unwrap()).unwrap();
        }
        let c2 = pk.encrypt(b2, &mut rng).unwrap();
        let cpu1 = pk.recrypt(&rk, &c1).unwrap();
        let g1 = gpu.recrypt(&grk, &gpu.upload(&c1).unwrap()).unwrap();
        assert_eq!(gpu.download(&g1).unwrap(), cpu1, "case {case}: recrypt");
        assert_eq!(gpu.decrypt(&g1).unwrap(), b1, "case {case}");
        let g2 = gpu.recrypt(&grk, &gpu.upload(&c2).unwrap()).unwrap();
        let cpu2 = pk.recrypt(&rk, &c2).unwrap();
        assert_eq!(gpu.download(&g2).unwrap(), cpu2, "case {case}: recrypt");
        let product = gpu.mul(&g1, &g2).unwrap();
        assert_eq!(gpu.download(&product).unwrap(), pk.mul(&cpu1, &cpu2).unwrap());
        assert_eq!(gpu.decrypt(&product).unwrap(), b1 & b2, "case {case}: recrypt then mul");
        assert_eq!(sk.decrypt(&pk, &gpu.download(&product).unwrap()).unwrap(), b1 & b2);
        let factors = pk.recrypt_factors(&rk, &c2).unwrap();
        assert_eq!(gpu.recrypt_factors(&grk, &gpu.upload(&c2).unwrap()).unwrap(), factors, "factors");
        assert_eq!(gpu.download(&gpu.recrypt_with_factors(&grk, &factors).unwrap()).unwrap(), cpu2);
    }
}

#[test]
fn one_hot_recrypt_equals_cpu() {
    let Some(device) = device() else { return };
    let params = GhParams::toy_recrypt();
    let (pk, sk) = keygen(&params, 34).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let rk = recrypt_keygen(&pk, &sk, RecryptParams::for_setting(&params).one_hot(), &mut rng).unwrap();
    let gpu = GpuGh::new(device, &pk, Some(&sk), 8).unwrap();
    let grk = gpu.load_recrypt_key(&rk).unwrap();
    for case in 0..6 {
        let bit = rng.gen_range(0..2u8);
        let ct = pk.encrypt(bit, &mut rng).unwrap();
        let cpu = pk.recrypt(&rk, &ct).unwrap();
        let g = gpu.recrypt(&grk, &gpu.upload(&ct).unwrap()).unwrap();
        assert_eq!(gpu.download(&g).unwrap(), cpu, "case {case}");
        assert_eq!(gpu.decrypt(&g).unwrap(), bit);
        let product = gpu.mul(&g, &g).unwrap();
        assert_eq!(gpu.decrypt(&product).unwrap(), bit);
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let Some(device) = device() else { return };
    let params = GhParams::toy_recrypt();
    let (pk, sk) = keygen(&params, 31).unwrap();
    let (toy_pk, toy_sk) = keygen(&GhParams::toy(), 1).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let rk = recrypt_keygen(&pk, &sk, RecryptParams::for_setting(&params), &mut rng).unwrap();
    let toy_rk = recrypt_keygen(&toy_pk, &toy_sk, RecryptParams::for_setting(&GhParams::toy()), &mut rng).unwrap();
    let ours = GpuGh::new(device.clone(), &pk, Some(&sk), 8).unwrap();
    let theirs = GpuGh::new(device, &toy_pk, Some(&toy_sk), 8).unwrap();
    assert!(matches!(ours.load_recrypt_key(&toy_rk), Err(GhError::WrongKey { what: "recrypt key", .. })));
    let grk = ours.load_recrypt_key(&rk).unwrap();
    let toy_grk = theirs.load_recrypt_key(&toy_rk).unwrap();
    let a = ours.encrypt(1, &mut rng).unwrap();
    let b = theirs.encrypt(1, &mut rng).unwrap();
    assert!(matches!(ours.recrypt(&toy_grk, &a), Err(GhError::WrongKey { what: "recrypt key", .. })));
    assert!(matches!(ours.recrypt(&grk, &b), Err(GhError::WrongKey { what: "ciphertext", .. })));
    let toy_factors = toy_pk.recrypt_factors(&toy_rk, &toy_pk.encrypt(0, &mut rng).unwrap()).unwrap();
    assert!(matches!(ours.recrypt_with_factors(&toy_grk, &toy_factors), Err(GhError::WrongKey { .. })));
    // Factors of another shape (toy-recrypt's s = 4, S = 16 both, but truncated here).
    let mut short = pk.recrypt_factors(&rk, &pk.encrypt(0, &mut rng).unwrap()).unwrap();
    short.bits.pop();
    assert!(matches!(ours.recrypt_with_factors(&grk, &short), Err(GhError::BadParameters { .. })));
    // Inputs untouched.
    assert_eq!(ours.decrypt(&ours.recrypt(&grk, &a).unwrap()).unwrap(), 1);
}

/// Gentry and Halevi's small setting (`n = 2048`, `t = 380`, `s = 15`, `S = 512`, two-hot, their
/// sparse noise): 20 products of two recrypted ciphertexts of random bits decrypt right, on the
/// device and on the CPU, with noise room left (printed). Minutes of CPU key generation.
#[test]
#[ignore = "small setting: KeyGen on the CPU (about 20 s) and 40 recrypts on the GPU"]
fn small_setting_recrypt_then_multiply() {
    let Some(device) = device() else { return };
    let params = GhParams::small();
    let (pk, sk) = keygen(&params, 7).unwrap();
    let gpu = GpuGh::new(device, &pk, Some(&sk), 64).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let rp = RecryptParams::for_setting(&params);
    let rk = gh::recrypt_keygen_with(&pk, &sk, rp, &mut rng, |bit, rng| gpu.download(&gpu.encrypt(bit, rng)?)).unwrap();
    let grk = gpu.load_recrypt_key(&rk).unwrap();
    let limit = pk.modulus().bits() - 1;
    let (mut worst_recrypt, mut worst_product) = (0, 0);
    for case in 0..20 {
        let (b1, b2) = (rng.gen_range(0..2u8), rng.gen_range(0..2u8));
        let r1 = gpu.recrypt(&grk, &gpu.encrypt(b1, &mut rng).unwrap()).unwrap();
        let r2 = gpu.recrypt(&grk, &gpu.encrypt(b2, &mut rng).unwrap()).unwrap();
        assert_eq!(gpu.decrypt(&r1).unwrap(), b1, "case {case}: recrypt");
        assert_eq!(gpu.decrypt(&r2).unwrap(), b2, "case {case}: recrypt");
        let product = gpu.mul(&r1, &r2).unwrap();
        assert_eq!(gpu.decrypt(&product).unwrap(), b1 & b2, "case {case}: recrypt then mul");
        let cpu_product = gpu.download(&product).unwrap();
        assert_eq!(sk.decrypt(&pk, &cpu_product).unwrap(), b1 & b2, "case {case}: CPU decrypt");
        worst_recrypt = worst_recrypt.max(sk.noise_bits(&pk, &gpu.download(&r1).unwrap()).unwrap());
        worst_product = worst_product.max(sk.noise_bits(&pk, &cpu_product).unwrap());
        assert!(worst_product < limit, "case {case}: noise {worst_product} at the limit {limit}");
    }
    eprintln!(
        "small setting: |d| = {} bits, noise after Recrypt <= {worst_recrypt} bits ({} below the limit), \
         after Recrypt + mul <= {worst_product} bits ({} below)",
        limit + 1,
        limit - worst_recrypt,
        limit - worst_product
    );
}
