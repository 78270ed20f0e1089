#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Galois keys and slot rotations on the CPU backend: rotated ciphertexts decrypt to the
//! rotated slot vector (both variants, NTT and DGT, one special prime and hybrid key
//! switching), general automorphisms decrypt to `m(x^g)`, keys follow their documented
//! formula and sampling indices, and every misuse is a typed error.

mod common;

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvError, BfvParameters, BfvParametersBuilder, MulVariant, Preset};
use poly::{CpuBackend, Eval, Poly, Seed, TransformKind};
use rand::{Rng, SeedableRng, rngs::StdRng};

use crate::common::preset_params;

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// `N = 4096` with four 40-bit ciphertext primes and three 41-bit special primes: hybrid key
/// switching with two digits (far below 128-bit security; small for speed).
fn hybrid_4096(variant: MulVariant, transform: TransformKind) -> Arc<BfvParameters> {
    BfvParametersBuilder::new(4096)
        .ciphertext_moduli_bits(&[40; 4])
        .special_moduli_bits(&[41; 3])
        .plaintext_modulus(bfv::params::batching_prime(20, 4096).unwrap())
        .variant(variant)
        .transform(transform)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// Every combination the rotations are checked on: both variants, NTT and DGT, one special
/// prime (`Secure`, N = 4096) and hybrid (two digits).
fn cases() -> Vec<(String, Arc<BfvParameters>)> {
    let mut out = Vec::new();
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        for transform in [TransformKind::Ntt, TransformKind::Dgt] {
            let one_special = preset_params(Preset::Secure { log_degree: 12 }, variant, transform);
            let hybrid = hybrid_4096(variant, transform);
            assert_eq!(one_special.special_moduli().len(), 1);
            assert!(hybrid.key_switch_tables().num_digits() > 1 && hybrid.special_moduli().len() > 1);
            out.push((format!("Secure(N=4096) {variant:?} {transform:?}"), one_special));
            out.push((format!("hybrid(N=4096) {variant:?} {transform:?}"), hybrid));
        }
    }
    out
}

/// The slot vector with both rows rotated left by `steps` (right for negative `steps`).
fn rotate_rows_plain(values: &[u64], steps: i64) -> Vec<u64> {
    let row = values.len() / 2;
    let shift = steps.rem_euclid(row as i64) as usize;
    let mut out = Vec::with_capacity(values.len());
    for half in values.chunks_exact(row) {
        out.extend((0..row).map(|i| half[(i + shift) % row]));
    }
    out
}

/// The slot vector with its two rows swapped.
fn swap_rows_plain(values: &[u64]) -> Vec<u64> {
    let row = values.len() / 2;
    values[row..].iter().chain(&values[..row]).copied().collect()
}

/// `a(x) -> a(x^g)` on plaintext coefficients modulo `t`.
fn automorphism_plain(a: &[u64], g: u64, t: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (j, &c) in a.iter().enumerate() {
        let k = (j as u64 * g % (2 * n as u64)) as usize;
        if k < n {
            out[k] = c;
        } else {
            out[k - n] = (t - c) % t;
        }
    }
    out
}

/// Row rotations by positive, negative, zero, `N/2 - 1` and `N/2` steps and the row swap
/// decrypt to the rotated slot vector, with a positive noise budget that key switching has
/// barely touched; composition (1 then 1 is 2; -1 then 1 is the identity; swap twice is the
/// identity; swap and rotate commute).
#[test]
fn rotations_decrypt_to_rotated_slots() {
    for (label, params) in cases() {
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let n = params.degree();
        let half = (n / 2) as i64;
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(n as u64 + params.special_moduli().len() as u64);
        let values: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &pk, &seed(3)).unwrap();
        let fresh = context.noise_budget(&ct, &sk).unwrap();

        let steps = [1i64, -1, 2, 5, -7, half - 1, 0, half, -half - 3];
        let mut elements: Vec<u64> = steps.iter().map(|&s| context.galois_element_for_row_rotation(s)).collect();
        elements.push(context.galois_element_for_row_swap());
        let keys = context.galois_keys_from_seed(&sk, &elements, &seed(4)).unwrap();
        // -1 and N/2 - 1 share an element, as 0 and N/2 (the identity, 1): 7 distinct, + swap.
        assert_eq!(keys.len(), 8, "{label}: {:?}", keys.elements());

        let decrypt = |ct: &bfv::Ciphertext<CpuBackend>| encoder.decode(&context.decrypt(ct, &sk).unwrap()).unwrap();
        for &s in &steps {
            let rotated = context.rotate_rows(&ct, s, &keys).unwrap();
            assert_eq!(rotated.size(), 2);
            assert!(decrypt(&rotated) == rotate_rows_plain(&values, s), "{label}: rotate rows by {s}");
            let budget = context.noise_budget(&rotated, &sk).unwrap();
            assert!(budget > 0 && budget + 3 >= fresh, "{label}: rotate {s}: budget {budget} of {fresh}");
        }
        let swapped = context.rotate_columns(&ct, &keys).unwrap();
        assert!(decrypt(&swapped) == swap_rows_plain(&values), "{label}: swap rows");
        let budget = context.noise_budget(&swapped, &sk).unwrap();
        assert!(budget > 0 && budget + 3 >= fresh, "{label}: swap: budget {budget} of {fresh}");

        let twice = context.rotate_rows(&context.rotate_rows(&ct, 1, &keys).unwrap(), 1, &keys).unwrap();
        assert!(decrypt(&twice) == rotate_rows_plain(&values, 2), "{label}: 1 + 1 = 2");
        assert!(decrypt(&twice) == decrypt(&context.rotate_rows(&ct, 2, &keys).unwrap()));
        let back = context.rotate_rows(&context.rotate_rows(&ct, -1, &keys).unwrap(), 1, &keys).unwrap();
        assert!(decrypt(&back) == values, "{label}: -1 + 1 = 0");
        let swapped_twice = context.rotate_columns(&swapped, &keys).unwrap();
        assert!(decrypt(&swapped_twice) == values, "{label}: swap twice");
        let swap_then_rotate = context.rotate_rows(&swapped, 5, &keys).unwrap();
        let rotate_then_swap = context.rotate_columns(&context.rotate_rows(&ct, 5, &keys).unwrap(), &keys).unwrap();
        assert!(decrypt(&swap_then_rotate) == decrypt(&rotate_then_swap), "{label}: swap and rotate commute");
        assert!(decrypt(&swap_then_rotate) == rotate_rows_plain(&swap_rows_plain(&values), 5));
        let budget = context.noise_budget(&swap_then_rotate, &sk).unwrap();
        assert!(budget > 0 && budget + 4 >= fresh, "{label}: two switches: budget {budget} of {fresh}");
    }
}

/// The elements: `3^k mod 2N` (left by `k`), `3^-k` for right rotations, `2N - 1` for the
/// swap; `k` counts modulo `N/2`.
#[test]
fn galois_elements_for_rotations() {
    let params = preset_params(Preset::Secure { log_degree: 12 }, MulVariant::Hps, TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let two_n = 2 * params.degree() as u64;
    let half = params.degree() as i64 / 2;
    assert_eq!(context.galois_element_for_row_rotation(0), 1);
    assert_eq!(context.galois_element_for_row_rotation(1), 3);
    assert_eq!(context.galois_element_for_row_rotation(2), 9);
    assert_eq!(context.galois_element_for_row_rotation(half), 1);
    assert_eq!(context.galois_element_for_row_swap(), two_n - 1);
    let mut power = 1u64;
    for k in 0..half {
        assert_eq!(context.galois_element_for_row_rotation(k), power, "3^{k}");
        assert_eq!(context.galois_element_for_row_rotation(k + 3 * half), power, "3^{k} + 3 N/2");
        // Left by k then right by k: 3^k 3^-k = 1 mod 2N.
        let inverse = context.galois_element_for_row_rotation(-k);
        assert_eq!(power * inverse % two_n, 1, "3^-{k}");
        power = power * 3 % two_n;
    }
    assert_eq!(
        context.galois_element_for_row_rotation(i64::MIN),
        context.galois_element_for_row_rotation(i64::MIN % half)
    );
    assert_eq!(
        context.galois_element_for_row_rotation(i64::MAX),
        context.galois_element_for_row_rotation(i64::MAX % half)
    );
}

/// `apply_galois` with elements that are not row rotations (`-3^k` and others) decrypts to
/// the plaintext polynomial `m(x^g)`, coefficient for coefficient; keys from the OS.
#[test]
fn apply_galois_decrypts_to_the_automorphism_of_the_plaintext() {
    for (variant, transform) in [(MulVariant::Behz, TransformKind::Ntt), (MulVariant::Hps, TransformKind::Dgt)] {
        let params = hybrid_4096(variant, transform);
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let n = params.degree();
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(11);
        let coefficients: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let plaintext = bfv::Plaintext::from_coefficients(&params, &coefficients).unwrap();
        let sk = context.generate_secret_key().unwrap();
        let pk = context.generate_public_key(&sk).unwrap();
        let ct = context.encrypt(&plaintext, &pk).unwrap();
        let elements = [5u64, 2 * n as u64 - 3, 4097, 1];
        let keys = context.generate_galois_keys(&sk, &elements).unwrap();
        assert_eq!(keys.elements(), vec![1, 5, 4097, 2 * n as u64 - 3]);
        for g in elements {
            let image = context.apply_galois(&ct, g, &keys).unwrap();
            let decrypted = context.decrypt(&image, &sk).unwrap();
            assert!(
                decrypted.coefficients() == automorphism_plain(&coefficients, g, t),
                "{variant:?} {transform:?}: g = {g}"
            );
        }
    }
}

/// Each digit of a Galois key satisfies `b_j + a_j s = g_j s(x^g) - e_j` over `qP` with `a_j`,
/// `e_j` of the documented index `g * 2^32 + j`, recomputed with `poly`'s own samplers; the key
/// of an element does not depend on the other elements asked for; seeds matter.
#[test]
fn galois_keys_follow_their_formula_and_indices() {
    for params in [
        hybrid_4096(MulVariant::Hps, TransformKind::Ntt),
        preset_params(Preset::Secure { log_degree: 12 }, MulVariant::Behz, TransformKind::Dgt),
    ] {
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let ring_qp = params.ring_qp();
        let tables = params.key_switch_tables();
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let s = Poly::sample_ternary(ring_qp, &seed(1), 0).unwrap();
        let s_eval = s.clone().forward().unwrap();
        let elements = [3u64, 2 * params.degree() as u64 - 1, 25];
        let keys = context.galois_keys_from_seed(&sk, &elements, &seed(9)).unwrap();
        for g in elements {
            let key = keys.key(g).unwrap();
            assert_eq!(key.len(), tables.num_digits());
            let s_g = s.automorphism(g).unwrap().forward().unwrap();
            for (j, (b, a)) in key.iter().enumerate() {
                let index = (g << 32) + j as u64;
                let expected_a = Poly::<Eval>::sample_uniform(ring_qp, &seed(9), index).unwrap();
                assert!(*a == expected_a, "g = {g}, digit {j}: a");
                let e = Poly::sample_cbd(ring_qp, &seed(9), index).unwrap().forward().unwrap();
                let mut lhs = b.clone();
                lhs.add_assign(&a.mul(&s_eval).unwrap()).unwrap();
                let mut rhs = s_g.scalar_mul_per_limb(&tables.gadget_factor(j).unwrap()).unwrap();
                rhs.sub_assign(&e).unwrap();
                assert!(lhs == rhs, "g = {g}, digit {j}: b + a s = g_j s(x^g) - e");
            }
        }
        let alone = context.galois_keys_from_seed(&sk, &[25, 25], &seed(9)).unwrap();
        assert_eq!(alone.elements(), vec![25]);
        assert!(alone.key(25).unwrap() == keys.key(25).unwrap(), "a key does not depend on the other elements");
        let other_seed = context.galois_keys_from_seed(&sk, &[25], &seed(10)).unwrap();
        assert!(other_seed.key(25).unwrap()[0].1 != keys.key(25).unwrap()[0].1);
        assert!(context.galois_keys_from_seed(&sk, &[], &seed(9)).unwrap().is_empty());
    }
}

/// The production hybrid preset (N = 16384, 8 + 4 primes): rotations decrypt correctly.
#[test]
fn rotations_on_the_phantom_hybrid_preset() {
    let params = preset_params(Preset::Phantom { log_degree: 14, hybrid: true }, MulVariant::Hps, TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let n = params.degree();
    let t = params.plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(14);
    let values: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &pk, &seed(3)).unwrap();
    let fresh = context.noise_budget(&ct, &sk).unwrap();
    let elements = [context.galois_element_for_row_rotation(-3), context.galois_element_for_row_swap()];
    let keys = context.galois_keys_from_seed(&sk, &elements, &seed(4)).unwrap();
    let rotated = context.rotate_columns(&context.rotate_rows(&ct, -3, &keys).unwrap(), &keys).unwrap();
    let decrypted = encoder.decode(&context.decrypt(&rotated, &sk).unwrap()).unwrap();
    assert!(decrypted == swap_rows_plain(&rotate_rows_plain(&values, -3)));
    let budget = context.noise_budget(&rotated, &sk).unwrap();
    assert!(budget > 0 && budget + 4 >= fresh, "budget {budget} of {fresh}");
}

/// Misuse gives typed errors and leaves the inputs as they were: even and out-of-range
/// elements, a missing key (naming the element), a ciphertext of size 3, keys, ciphertexts and
/// secrets of other parameters.
#[test]
fn galois_errors_are_typed() {
    let params = hybrid_4096(MulVariant::Hps, TransformKind::Ntt);
    let other = preset_params(Preset::Secure { log_degree: 12 }, MulVariant::Hps, TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let other_context = BfvContext::new(CpuBackend, &other).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let two_n = 2 * params.degree() as u64;
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let ct = context.encrypt_with_seed(&encoder.encode(&[1, 2, 3]).unwrap(), &pk, &seed(3)).unwrap();
    let before = context.download(&ct).unwrap();
    let keys = context.galois_keys_from_seed(&sk, &[3], &seed(4)).unwrap();

    for bad in [0u64, 2, two_n, two_n + 3, u64::MAX - 1, u64::MAX] {
        let error = context.galois_keys_from_seed(&sk, &[3, bad], &seed(4)).unwrap_err();
        assert!(
            matches!(error, BfvError::InvalidGaloisElement { element, two_n: m } if element == bad && m == two_n),
            "{error}"
        );
        let error = context.apply_galois(&ct, bad, &keys).unwrap_err();
        assert!(matches!(error, BfvError::InvalidGaloisElement { element, .. } if element == bad), "{error}");
    }
    // A step without its own key is composed from the keys held (2 = 1 + 1)...
    let composed = context.rotate_rows(&ct, 2, &keys).unwrap();
    assert_eq!(&encoder.decode(&context.decrypt(&composed, &sk).unwrap()).unwrap()[..2], &[3, 0]);
    // ... and refused, naming the step and its element, when no composition makes it.
    let swap_only = context.galois_keys_from_seed(&sk, &[two_n - 1], &seed(4)).unwrap();
    let error = context.rotate_rows(&ct, 2, &swap_only).unwrap_err();
    assert!(
        matches!(error, BfvError::MissingRotationKey { operation: "rotate_rows", steps: 2, element: 9 }),
        "{error}"
    );
    assert!(error.to_string().contains("element 9") && error.to_string().contains("by 2 slots"), "{error}");
    let error = context.rotate_columns(&ct, &keys).unwrap_err();
    assert!(
        matches!(error, BfvError::MissingGaloisKey { operation: "rotate_columns", element } if element == two_n - 1),
        "{error}"
    );
    let error = context.apply_galois(&ct, 5, &keys).unwrap_err();
    assert!(matches!(error, BfvError::MissingGaloisKey { operation: "apply_galois", element: 5 }), "{error}");

    let product = context.mul(&ct, &ct).unwrap();
    let error = context.rotate_rows(&product, 1, &keys).unwrap_err();
    assert!(matches!(error, BfvError::InvalidCiphertextSize { operation: "rotate_rows", actual: 3, .. }), "{error}");

    let other_sk = other_context.secret_key_from_seed(&seed(1)).unwrap();
    let other_keys = other_context.galois_keys_from_seed(&other_sk, &[3], &seed(4)).unwrap();
    let error = context.rotate_rows(&ct, 1, &other_keys).unwrap_err();
    assert!(matches!(error, BfvError::ParameterMismatch { what: "Galois keys", .. }), "{error}");
    let other_pk = other_context.public_key_from_seed(&other_sk, &seed(2)).unwrap();
    let other_ct = other_context
        .encrypt_with_seed(&BatchEncoder::new(&other).unwrap().encode(&[1]).unwrap(), &other_pk, &seed(3))
        .unwrap();
    let error = context.rotate_rows(&other_ct, 1, &keys).unwrap_err();
    assert!(matches!(error, BfvError::ParameterMismatch { what: "ciphertext", .. }), "{error}");
    let error = context.galois_keys_from_seed(&other_sk, &[3], &seed(4)).unwrap_err();
    assert!(matches!(error, BfvError::ParameterMismatch { what: "secret key", .. }), "{error}");

    // Nothing above touched the inputs: the ciphertext still decrypts, the keys still rotate.
    assert_eq!(context.download(&ct).unwrap(), before);
    let rotated = context.rotate_rows(&ct, 1, &keys).unwrap();
    let slots = encoder.decode(&context.decrypt(&rotated, &sk).unwrap()).unwrap();
    assert_eq!(&slots[..2], &[2, 3]);
}
