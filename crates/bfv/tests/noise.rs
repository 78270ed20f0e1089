#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The invariant noise budget against theory: its exact value on ciphertexts of known noise,
//! the worst-case bound of fresh encryptions, the exact cost of plaintext multiplication by
//! `2^k`, the cost of a multiplication (about `log2(N t)` bits), and exhaustion.

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvError, BfvParameters, Ciphertext, MulVariant, Preset};
use num_bigint::BigUint;
use poly::{Coeff, CpuBackend, Poly, Seed, TransformKind};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

fn log2_floor(x: &BigUint) -> u64 {
    x.bits() - 1
}

fn params(log_degree: u32, variant: MulVariant) -> Arc<BfvParameters> {
    Preset::Secure { log_degree }.builder().unwrap().variant(variant).build().unwrap()
}

#[test]
fn budget_of_a_ciphertext_with_known_noise_is_exact() {
    // (c_0, c_1) = (E, 0) encrypts 0 with invariant noise t E / q: w = t E exactly.
    let params = params(12, MulVariant::Hps);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let q = params.ciphertext_modulus().clone();
    let t = params.plaintext_modulus();
    for max_error in [1i64, 3, 1000, 123_456, 1 << 30] {
        let mut error = vec![0i64; params.degree()];
        error[17] = -max_error;
        error[100] = max_error / 2;
        let c0 = Poly::<Coeff>::from_signed_coeffs(params.ring_q(), &error).unwrap();
        let ct = context.upload(&[c0, Poly::zero(params.ring_q())]).unwrap();
        // floor(log2(q / (2 t max_error))).
        let expected = log2_floor(&(&q / (BigUint::from(t) * 2u32 * max_error as u64)));
        match context.noise_budget(&ct, &sk) {
            Ok(budget) => assert_eq!(u64::from(budget), expected, "max error {max_error}"),
            Err(BfvError::NoiseBudgetExhausted { .. }) => assert_eq!(expected, 0),
            Err(other) => panic!("{other}"),
        }
    }
    // The zero ciphertext has the whole modulus: floor(log2 q).
    let zero = context.upload(&[Poly::zero(params.ring_q()), Poly::zero(params.ring_q())]).unwrap();
    assert_eq!(u64::from(context.noise_budget(&zero, &sk).unwrap()), log2_floor(&q));
}

#[test]
fn fresh_budget_is_within_the_worst_case_bound() {
    for log_degree in [12, 13, 14] {
        for variant in [MulVariant::Hps, MulVariant::Behz] {
            let params = params(log_degree, variant);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let n = params.degree() as u64;
            let t = params.plaintext_modulus();
            // t (c_0 + c_1 s) = q m + t (e_1 - e u + e_2 s) + (t round(q m / t) - q m): the noise
            // is at most t (21 + 21 N + 21 N) + t/2 < 2 t (21 N + 11).
            let bound = BigUint::from(t) * 2u32 * (21 * n + 11);
            let worst = log2_floor(&(params.ciphertext_modulus() / (bound * 2u32)));
            for byte in 1..4u8 {
                let sk = context.secret_key_from_seed(&seed(byte)).unwrap();
                let pk = context.public_key_from_seed(&sk, &seed(byte + 10)).unwrap();
                let values: Vec<u64> = (0..n).map(|i| i * 7919 % t).collect();
                let ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &pk, &seed(byte + 20)).unwrap();
                let budget = u64::from(context.noise_budget(&ct, &sk).unwrap());
                // Typical noise is about sqrt(N) times below the worst case: a few bits above.
                assert!(budget >= worst && budget <= worst + 10, "N = {n}: budget {budget}, worst case {worst}");
                let symmetric = context
                    .expand(
                        &context
                            .encrypt_symmetric_with_seeds(
                                &encoder.encode(&values).unwrap(),
                                &sk,
                                &seed(byte + 30),
                                &seed(byte + 40),
                            )
                            .unwrap(),
                    )
                    .unwrap();
                // Symmetric noise is one binomial sample: more budget.
                assert!(u64::from(context.noise_budget(&symmetric, &sk).unwrap()) > budget);
            }
        }
    }
}

#[test]
fn budget_falls_as_theory_says() {
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        for transform in [TransformKind::Ntt, TransformKind::Dgt] {
            let params = Preset::Secure { log_degree: 13 }
                .builder()
                .unwrap()
                .variant(variant)
                .transform(transform)
                .build()
                .unwrap();
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let n = params.degree();
            let t = params.plaintext_modulus();
            let log_nt = i64::from(n.trailing_zeros()) + i64::from(64 - t.leading_zeros());
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
            let values: Vec<u64> = (0..n as u64).map(|i| (i * i + 3) % t).collect();
            let pt = encoder.encode(&values).unwrap();
            let a = context.encrypt_with_seed(&pt, &pk, &seed(4)).unwrap();
            let b = context.encrypt_with_seed(&pt, &pk, &seed(5)).unwrap();
            let budget = |ct: &Ciphertext<CpuBackend>| i64::from(context.noise_budget(ct, &sk).unwrap());
            let fresh = budget(&a).min(budget(&b));
            // Addition: the noises add, at most one bit.
            let sum = context.add(&a, &b).unwrap();
            assert!(budget(&sum) >= fresh - 1);
            // Multiplication by the constant 2^k: w doubles k times, exactly k bits.
            for k in [0u32, 1, 3, 5] {
                let scaled = context.mul_plain(&a, &encoder.encode(&vec![1 << k; n]).unwrap()).unwrap();
                assert_eq!(budget(&scaled), budget(&a) - i64::from(k), "constant 2^{k}");
            }
            // A ciphertext multiplication costs about log2(N t) bits (the t s r-type terms of
            // the tensor product); relinearization with P >= q_i costs at most a bit.
            let product = context.mul(&a, &b).unwrap();
            let drop = fresh - budget(&product);
            assert!(
                (log_nt - 3..=log_nt + 5).contains(&drop),
                "{variant:?} {transform:?}: mul cost {drop} bits, log2(N t) = {log_nt}"
            );
            let relin = context.relinearize(&product, &rk).unwrap();
            assert!(budget(&relin) >= budget(&product) - 1);
            // The next level costs about the same.
            let second = context.square_relin(&relin, &rk).unwrap();
            let drop2 = budget(&relin) - budget(&second);
            assert!((log_nt - 3..=log_nt + 5).contains(&drop2), "second mul cost {drop2} bits");
        }
    }
}

#[test]
fn budget_reaches_zero_where_decryption_stops_being_reliable() {
    let params = params(13, MulVariant::Hps);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
    let n = params.degree();
    let values: Vec<u64> = (0..n as u64).map(|i| (i + 2) % t).collect();
    let mut expected = values.clone();
    let mut ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &pk, &seed(4)).unwrap();
    let log_nt = i64::from(n.trailing_zeros()) + i64::from(64 - t.leading_zeros());
    let fresh = i64::from(context.noise_budget(&ct, &sk).unwrap());
    let mut level = 0i64;
    loop {
        ct = context.square_relin(&ct, &rk).unwrap();
        expected = expected.iter().map(|&v| (u128::from(v) * u128::from(v) % u128::from(t)) as u64).collect();
        level += 1;
        match context.noise_budget(&ct, &sk) {
            Ok(budget) => {
                assert_eq!(encoder.decode(&context.decrypt(&ct, &sk).unwrap()).unwrap(), expected, "level {level}");
                assert!(i64::from(budget) > 0);
            }
            Err(BfvError::NoiseBudgetExhausted { noise_bits, modulus_bits }) => {
                assert!(noise_bits + 2 >= modulus_bits, "{noise_bits} of {modulus_bits} bits");
                break;
            }
            Err(other) => panic!("{other}"),
        }
        assert!(level < 20, "the budget never ran out");
    }
    // It ran out after about fresh / log2(N t) levels.
    assert!(
        (fresh / (log_nt + 5)..=fresh / (log_nt - 3) + 1).contains(&level),
        "exhausted at level {level}, fresh {fresh}"
    );
    // One more level and decryption is wrong.
    ct = context.square_relin(&ct, &rk).unwrap();
    expected = expected.iter().map(|&v| (u128::from(v) * u128::from(v) % u128::from(t)) as u64).collect();
    assert_ne!(encoder.decode(&context.decrypt(&ct, &sk).unwrap()).unwrap(), expected);
    assert!(matches!(context.noise_budget(&ct, &sk), Err(BfvError::NoiseBudgetExhausted { .. })));
}
