//! BGV on the CPU: encryption, decryption at every level, the noise budget, evaluation,
//! modulus switching, rotations, parameters and typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{
    BatchEncoder, BgvContext, BgvError, BgvParametersBuilder, CoefficientEncoder, LevelPolicy, Plaintext, Preset,
};
use common::*;
use poly::CpuBackend;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Public- and secret-key (seeded) encryptions decrypt to their plaintexts, for batching `t`
/// and for coefficient encoding with a power of two and with `t = 3`.
#[test]
fn encryptions_decrypt_for_batching_and_coefficient_encoding() {
    let mut rng = StdRng::seed_from_u64(1);
    for t in [65537u64, 1 << 16, 3] {
        let params = small_params(12, &[40, 40, 40], &[45], t);
        let context = BgvContext::new(CpuBackend, &params).unwrap();
        let k = keys(&context);
        let coefficient = CoefficientEncoder::new(&params);
        for round in 0..3u8 {
            let values = random_slots(&mut rng, params.degree(), t);
            let plain = coefficient.encode(&values).unwrap();
            let ct = context.encrypt_with_seed(&plain, &k.public, &seed(20 + round)).unwrap();
            assert_eq!(context.decrypt(&ct, &k.secret).unwrap(), plain, "t = {t}: public key");
            let seeded = context.encrypt_symmetric_with_seeds(&plain, &k.secret, &seed(30), &seed(31 + round)).unwrap();
            let expanded = context.expand(&seeded).unwrap();
            assert_eq!(context.decrypt(&expanded, &k.secret).unwrap(), plain, "t = {t}: secret key");
            assert_eq!(ct.state().correction_factor(), 1);
        }
        if t == 65537 {
            let batch = BatchEncoder::new(&params).unwrap();
            let values = random_slots(&mut rng, params.degree(), t);
            let ct = context.encrypt(&batch.encode(&values).unwrap(), &k.public).unwrap();
            assert_eq!(batch.decode(&context.decrypt(&ct, &k.secret).unwrap()).unwrap(), values);
        } else {
            assert!(matches!(BatchEncoder::new(&params), Err(BgvError::BatchingUnsupported { .. })));
        }
    }
}

/// Modulus switching down the whole chain: decryption at every level stays right, the
/// correction factor is multiplied by `q_l^{-1} mod t`, and the budget after a switch is at
/// least `min(budget, log2(q_{l-1} / (t (1 + N)))) - 1` (the rounding floor); a product
/// loses budget. Switching up is refused.
#[test]
fn modulus_switching_keeps_the_plaintext_and_the_budget_follows_theory() {
    for t in [65537u64, 1 << 16] {
        let params = small_params(12, &[50, 40, 40, 40], &[50], t);
        let context = BgvContext::new(CpuBackend, &params).unwrap();
        let k = keys(&context);
        let encoder = CoefficientEncoder::new(&params);
        let mut rng = StdRng::seed_from_u64(t);
        let values = random_slots(&mut rng, params.degree(), t);
        let plain = encoder.encode(&values).unwrap();
        let fresh = context.encrypt_with_seed(&plain, &k.public, &seed(9)).unwrap();
        let product = context.mul_relin(&fresh, &fresh, &k.relin).unwrap();
        assert!(context.noise_budget(&product, &k.secret).unwrap() < context.noise_budget(&fresh, &k.secret).unwrap());
        let mut ct = fresh;
        let n = params.degree() as f64;
        while ct.level() > 0 {
            let before = context.noise_budget(&ct, &k.secret).unwrap();
            let next = context.mod_switch_to_next(&ct).unwrap();
            let q_last = params.ciphertext_moduli()[ct.level()];
            let expected_factor = {
                let inv = (1..t).find(|&x| u128::from(x) * u128::from(q_last % t) % u128::from(t) == 1).unwrap();
                u128::from(ct.state().correction_factor()) * u128::from(inv) % u128::from(t)
            };
            assert_eq!(u128::from(next.state().correction_factor()), expected_factor);
            assert_eq!(context.decrypt(&next, &k.secret).unwrap(), plain, "t = {t}, level {}", next.level());
            let q_bits: f64 = params.ciphertext_moduli()[..=next.level()].iter().map(|&q| (q as f64).log2()).sum();
            let floor = (q_bits - (t as f64 * (1.0 + n)).log2()).floor() as u32;
            let after = context.noise_budget(&next, &k.secret).unwrap();
            assert!(
                after + 1 >= before.min(floor),
                "t = {t}, level {}: budget {before} -> {after}, floor {floor}",
                next.level()
            );
            ct = next;
        }
        assert!(context.mod_switch_to(&ct, 2).is_err());
        assert!(context.mod_switch_to_next(&ct).is_err());
    }
}

/// Random circuits to each small preset's estimated depth decrypt right, under automatic
/// switching and with manual switching after every product.
#[test]
fn random_circuits_reach_the_estimated_depth() {
    for (i, preset) in
        [Preset::Secure { log_degree: 12 }, Preset::Secure { log_degree: 13 }, Preset::Phantom { log_degree: 12 }]
            .into_iter()
            .enumerate()
    {
        let params = preset.build().unwrap();
        let depth = params.estimated_depth();
        assert!(depth >= 1, "{}: depth {depth}", preset.name());
        random_circuit(CpuBackend, &params, depth, i as u64, false);
        random_circuit(CpuBackend, &params, depth, 100 + i as u64, true);
    }
    // A deeper chain of small primes at a small t: several levels of automatic switching.
    let params = small_params(12, &[60, 40, 40, 40, 40, 40], &[60], 65537);
    let depth = params.estimated_depth();
    assert!(depth >= 4, "depth {depth}");
    assert_eq!(random_circuit(CpuBackend, &params, depth, 7, false), params.max_level() + 1 - depth);
}

/// Operations between levels: the higher operand is switched down (the result is right), or
/// under the strict policy a typed error; different correction factors are balanced. Rotations
/// and relinearization work below the top.
#[test]
fn operations_between_levels_and_below_the_top() {
    let params = small_params(12, &[50, 40, 40, 40], &[50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = keys(&context);
    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(5);
    let (a, b) = (random_slots(&mut rng, 4096, t), random_slots(&mut rng, 4096, t));
    let ca = context.encrypt(&encoder.encode(&a).unwrap(), &k.public).unwrap();
    let cb = context.encrypt(&encoder.encode(&b).unwrap(), &k.public).unwrap();
    let low = context.mod_switch_to(&cb, 1).unwrap();
    for (x, y) in [(&ca, &low), (&low, &ca)] {
        let sum = context.add(x, y).unwrap();
        assert_eq!(sum.level(), 1);
        assert_eq!(encoder.decode(&context.decrypt(&sum, &k.secret).unwrap()).unwrap(), slot_op(&a, &b, t, add_mod));
        let product = context.mul_relin(x, y, &k.relin).unwrap();
        assert_eq!(product.level(), 1);
        assert_eq!(
            encoder.decode(&context.decrypt(&product, &k.secret).unwrap()).unwrap(),
            slot_op(&a, &b, t, mul_mod)
        );
    }
    let difference = context.sub(&ca, &low).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&difference, &k.secret).unwrap()).unwrap(), slot_op(&a, &b, t, sub_mod));
    let rotated = context.rotate_rows(&low, 1, &k.galois).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&rotated, &k.secret).unwrap()).unwrap(), rotate_rows_left(&b));
    let swapped = context.rotate_columns(&low, &k.galois).unwrap();
    let got = encoder.decode(&context.decrypt(&swapped, &k.secret).unwrap()).unwrap();
    assert_eq!(&got[..2048], &b[2048..]);
    let strict = BgvContext::new(CpuBackend, &params).unwrap().with_level_policy(LevelPolicy::Strict);
    assert!(matches!(strict.add(&ca, &low), Err(BgvError::LevelMismatch { .. })));
    assert!(matches!(strict.mul(&ca, &low), Err(BgvError::LevelMismatch { .. })));
    // Noise budget, negate, plaintext subtraction, squaring at a lower level.
    let neg = context.negate(&low).unwrap();
    let zero = context.add(&neg, &low).unwrap();
    assert!(context.decrypt(&zero, &k.secret).unwrap().coefficients().iter().all(|&c| c == 0));
    let sq = context.square_relin(&low, &k.relin).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&sq, &k.secret).unwrap()).unwrap(), slot_op(&b, &b, t, mul_mod));
    let minus = context.sub_plain(&low, &encoder.encode(&a).unwrap()).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&minus, &k.secret).unwrap()).unwrap(), slot_op(&b, &a, t, sub_mod));
}

/// Typed errors, inputs untouched: wrong sizes, keys of other parameters or of BFV (another
/// error scale), missing Galois keys, bad parameters.
#[test]
fn bad_input_gives_typed_errors() {
    let params = small_params(12, &[40, 40], &[45], 65537);
    let other = small_params(12, &[41, 40], &[45], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let other_context = BgvContext::new(CpuBackend, &other).unwrap();
    let k = keys(&context);
    let other_keys = keys(&other_context);
    let plain = Plaintext::zero(&params);
    assert!(context.encrypt(&plain, &other_keys.public).is_err());
    assert!(context.encrypt(&Plaintext::zero(&other), &k.public).is_err());
    let ct = context.encrypt(&plain, &k.public).unwrap();
    let product = context.mul(&ct, &ct).unwrap();
    assert!(matches!(context.mul(&product, &ct), Err(BgvError::InvalidCiphertextSize { .. })));
    assert!(matches!(context.rotate_rows(&product, 1, &k.galois), Err(BgvError::InvalidCiphertextSize { .. })));
    // A step without its own key is composed from the keys held; none make it with the row
    // swap alone.
    assert!(context.rotate_rows(&ct, 2, &k.galois).is_ok());
    let swap_only =
        context.galois_keys_from_seed(&k.secret, &[context.galois_element_for_row_swap()], &seed(9)).unwrap();
    assert!(matches!(context.rotate_rows(&ct, 2, &swap_only), Err(BgvError::MissingRotationKey { steps: 2, .. })));
    assert!(matches!(context.apply_galois(&ct, 5, &k.galois), Err(BgvError::MissingGaloisKey { element: 5, .. })));
    assert!(context.relinearize(&product, &other_keys.relin).is_err());
    assert!(context.decrypt(&ct, &other_keys.secret).is_err());
    // A BFV public key of the same ring: its errors are not multiples of t.
    let bfv_params = bfv::BfvParametersBuilder::new(4096)
        .ciphertext_moduli(params.ciphertext_moduli())
        .special_moduli(params.special_moduli())
        .plaintext_modulus(65537)
        .allow_insecure(true)
        .build()
        .unwrap();
    let bfv_context = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
    let bfv_public = bfv_context.public_key_from_seed(&k.secret, &seed(2)).unwrap();
    assert!(matches!(context.encrypt(&plain, &bfv_public), Err(rlwe::RlweError::ParameterMismatch { .. })));
    // Parameters.
    let t_even = BgvParametersBuilder::new(4096)
        .ciphertext_moduli_bits(&[40])
        .special_moduli_bits(&[40])
        .plaintext_modulus(1 << 61);
    assert!(matches!(t_even.build(), Err(BgvError::InvalidParameter { .. })));
    let primes = params.ciphertext_moduli().to_vec();
    let shares = BgvParametersBuilder::new(4096)
        .ciphertext_moduli(&primes)
        .special_moduli_bits(&[45])
        .plaintext_modulus(primes[0]);
    assert!(matches!(shares.build(), Err(BgvError::InvalidParameter { .. })));
    let insecure = BgvParametersBuilder::new(4096)
        .ciphertext_moduli_bits(&[60, 60])
        .special_moduli_bits(&[60])
        .plaintext_modulus(65537);
    assert!(insecure.build().is_err());
    let mut rng = StdRng::seed_from_u64(3);
    let too_big: Vec<u64> = (0..4097).map(|_| rng.gen_range(0..2)).collect();
    assert!(matches!(CoefficientEncoder::new(&params).encode(&too_big), Err(BgvError::TooManyValues { .. })));
    assert!(matches!(CoefficientEncoder::new(&params).encode(&[65537]), Err(BgvError::PlaintextOutOfRange { .. })));
}

/// Every preset builds and is within the 128-bit table but Phantom's `N = 65536` (1777 bits,
/// as Phantom runs it); names are distinct.
#[test]
fn presets_build_secure() {
    let mut names = Vec::new();
    for preset in Preset::all() {
        let params = preset.build().unwrap();
        let beyond = preset == Preset::Phantom { log_degree: 16 };
        assert_eq!(params.is_secure_128(), !beyond, "{}", preset.name());
        names.push(preset.name());
    }
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique, names);
    assert!(Preset::Secure { log_degree: 18 }.build().is_err());
}

/// The GPU comparison's session (tests/gpu.rs) on the CPU: it runs, and the same seeds give
/// the same words twice (the comparison would be meaningless otherwise).
#[test]
fn sessions_are_deterministic() {
    let params = small_params(11, &[50, 45, 45], &[55, 55], 1 << 16);
    let first = session(CpuBackend, &params, 3);
    assert_eq!(first, session(CpuBackend, &params, 3));
    assert_ne!(first, session(CpuBackend, &params, 4));
}
