//! Scheme switching between BFV and BGV under one secret key, on the CPU: part of a circuit in
//! one scheme, the rest in the other, both directions, at the top level and below it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext, BgvError};
use common::*;
use poly::CpuBackend;
use scheme_switching::SchemeSwitching;

#[test]
fn bfv_then_bgv_and_back_on_the_cpu() {
    bfv_bgv_round_trips(CpuBackend, 1);
}

/// A BFV context of another ring or another `t` is refused with a typed error.
#[test]
fn switching_refuses_other_rings_and_plaintext_moduli() {
    let params = small_params(12, &[50, 50, 50], &[55], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = keys(&context);
    for (primes, t) in [(vec![50u32, 50, 51], 65537u64), (vec![50, 50, 50], 40961)] {
        let bfv_params = if primes == [50, 50, 50] {
            bfv::BfvParametersBuilder::new(4096)
                .ciphertext_moduli(params.ciphertext_moduli())
                .special_moduli(params.special_moduli())
                .plaintext_modulus(t)
                .allow_insecure(true)
                .build()
                .unwrap()
        } else {
            bfv::BfvParametersBuilder::new(4096)
                .ciphertext_moduli_bits(&primes)
                .special_moduli_bits(&[55])
                .plaintext_modulus(t)
                .allow_insecure(true)
                .build()
                .unwrap()
        };
        let bfv_context = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let ct = context.encrypt(&encoder.encode(&[1, 2]).unwrap(), &k.public).unwrap();
        assert!(matches!(context.to_bfv(&bfv_context, &ct), Err(BgvError::ParameterMismatch { .. })));
    }
}

/// The switch to BFV and back keeps the identifier.
#[test]
fn scheme_switching_keeps_the_identifier() {
    let params = small_params(12, &[50, 40, 40], &[50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = keys(&context);
    let bfv_params = bfv_twin(&params);
    let bfv_context = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let x = context.encrypt_with_seed(&encoder.encode(&[5]).unwrap(), &k.public, &seed(40)).unwrap();
    let as_bfv = context.to_bfv(&bfv_context, &x).unwrap();
    assert_eq!(as_bfv.key_set(), k.secret.key_set());
    assert_eq!(context.from_bfv(&bfv_context, &as_bfv).unwrap().key_set(), k.secret.key_set());
}

/// The same circuit, written once over `rlwe::Evaluator`, under BFV and under BGV on one ring:
/// both decrypt to the plaintext result, hence to the same slots.
#[test]
fn one_circuit_under_either_scheme() {
    let params = small_params(12, &[55, 55, 55, 55], &[58], 65537);
    let bgv = BgvContext::new(CpuBackend, &params).unwrap();
    let bfv_context = bfv::BfvContext::new(CpuBackend, &bfv_twin(&params)).unwrap();
    let under_bgv = one_circuit(&bgv, 65537, 5);
    let under_bfv = one_circuit(&bfv_context, 65537, 5);
    assert_eq!(under_bgv, under_bfv);
}
