#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Errors that say what to do: a parameter mismatch names the first value that differs (and so
//! does its message), an operation given a product before relinearization says to relinearize,
//! and key-set ids print the same way in `Display` and `Debug`.

mod common;

use bgv_encrypt::{BgvContext, BgvError, BgvParametersBuilder, CoefficientEncoder};
use common::{keys, seed, small_params};
use poly::{CpuBackend, TransformKind};

fn mismatch_field<T: std::fmt::Debug>(result: Result<T, BgvError>) -> (&'static str, String) {
    match result {
        Err(error @ BgvError::ParameterMismatch { field, .. }) => (field, error.to_string()),
        other => panic!("expected a parameter mismatch, got {other:?}"),
    }
}

#[test]
fn a_parameter_mismatch_names_the_field() {
    let base = small_params(12, &[50, 40], &[50], 65537);
    let context = BgvContext::new(CpuBackend, &base).unwrap();
    // (other parameters, the field encryption with their public key names, the field decoding
    // their ciphertext names: a key belongs to the ring, its errors scaled by t, and a
    // ciphertext's frame holds neither the special primes nor the transform).
    let dgt = BgvParametersBuilder::new(1 << 12)
        .ciphertext_moduli_bits(&[50, 40])
        .special_moduli_bits(&[50])
        .plaintext_modulus(65537)
        .transform(TransformKind::Dgt)
        .allow_insecure(true)
        .build()
        .unwrap();
    let others = [
        (small_params(13, &[50, 40], &[50], 65537), "ring degree", Some("ring degree")),
        (small_params(12, &[50, 41], &[50], 65537), "ciphertext primes", Some("ciphertext primes")),
        (small_params(12, &[50, 40], &[51], 65537), "special primes", None),
        (small_params(12, &[50, 40], &[50], 257), "error scale", Some("plaintext modulus")),
        (dgt, "transform", None),
    ];
    for (other, key_field, bytes_field) in others {
        let other_context = BgvContext::new(CpuBackend, &other).unwrap();
        let secret = other_context.secret_key_from_seed(&seed(1)).unwrap();
        let public = other_context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let plain = CoefficientEncoder::new(&base).encode(&[1, 2, 3]).unwrap();
        let (field, message) = mismatch_field(context.encrypt_with_seed(&plain, &public, &seed(3)));
        assert!(field.starts_with(key_field), "{message}");
        assert!(message.contains(field), "{message}");
        let other_plain = CoefficientEncoder::new(&other).encode(&[1]).unwrap();
        let ct = other_context.encrypt_with_seed(&other_plain, &public, &seed(4)).unwrap();
        let bytes = other_context.ciphertext_to_bytes(&ct).unwrap();
        if let Some(want) = bytes_field {
            let (field, message) = mismatch_field(context.ciphertext_from_bytes(&bytes));
            assert_eq!(field, want, "{message}");
        }
        // A ciphertext of the other parameters, given to an operation, names the same field
        // as the parameters' own comparison.
        let own = context.encrypt_with_seed(&plain, &keys(&context).public, &seed(5)).unwrap();
        let (field, message) = mismatch_field(context.add(&own, &ct));
        assert_eq!(field, rlwe::SchemeParameters::difference(&*base, &other), "{message}");
    }
}

#[test]
fn a_product_before_relinearization_says_to_relinearize() {
    let params = small_params(12, &[50, 40, 40], &[50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = keys(&context);
    let plain = CoefficientEncoder::new(&params).encode(&[2]).unwrap();
    let ct = context.encrypt_with_seed(&plain, &k.public, &seed(5)).unwrap();
    let product = context.mul(&ct, &ct).unwrap();
    assert_eq!(product.size(), 3);
    let error = context.rotate_rows(&product, 1, &k.galois).unwrap_err();
    assert!(matches!(error, BgvError::InvalidCiphertextSize { actual: 3, .. }), "{error:?}");
    assert!(error.to_string().contains("relinearize it first"), "{error}");
    // Other size errors carry no such hint.
    let decoded = context.ciphertext_from_bytes(&[]).unwrap_err();
    assert!(!decoded.to_string().contains("relinearize"), "{decoded}");
}

#[test]
fn key_set_ids_print_the_same_everywhere() {
    let params = small_params(12, &[50, 40], &[50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let a = keys(&context);
    let other = context.secret_key_from_seed(&seed(31)).unwrap();
    let other_relin = context.relin_key_from_seed(&other, &seed(32)).unwrap();
    let plain = CoefficientEncoder::new(&params).encode(&[2]).unwrap();
    let ct = context.encrypt_with_seed(&plain, &a.public, &seed(6)).unwrap();
    let error = context.mul_relin(&ct, &ct, &other_relin).unwrap_err();
    let BgvError::KeySetMismatch { expected, actual, .. } = &error else { panic!("{error:?}") };
    let (display, debug) = (error.to_string(), format!("{error:?}"));
    for id in [expected, actual] {
        let hex = id.to_string();
        assert_eq!(hex.len(), 16);
        assert!(display.contains(&hex), "{display}");
        assert!(debug.contains(&hex), "{debug}");
    }
}

/// BFV's parameters also differ in their multiplication variant, which its mismatch names.
#[test]
fn a_bfv_mismatch_names_the_multiplication_variant() {
    let build = |variant| {
        bfv::BfvParametersBuilder::new(1 << 12)
            .ciphertext_moduli_bits(&[50, 40])
            .special_moduli_bits(&[50])
            .plaintext_modulus(65537)
            .variant(variant)
            .allow_insecure(true)
            .build()
            .unwrap()
    };
    let (hps, behz) = (build(bfv::MulVariant::Hps), build(bfv::MulVariant::Behz));
    let (hps_context, behz_context) =
        (bfv::BfvContext::new(CpuBackend, &hps).unwrap(), bfv::BfvContext::new(CpuBackend, &behz).unwrap());
    let secret = behz_context.secret_key_from_seed(&seed(1)).unwrap();
    let public = behz_context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let plain = bfv::CoefficientEncoder::new(&behz).encode(&[1]).unwrap();
    let ct = behz_context.encrypt_with_seed(&plain, &public, &seed(3)).unwrap();
    match hps_context.add(&ct, &ct) {
        Err(error @ BgvError::ParameterMismatch { field: "multiplication variant (BEHZ or HPS)", .. }) => {
            assert!(error.to_string().contains("BEHZ or HPS"), "{error}");
        }
        other => panic!("expected the variant named, got {other:?}"),
    }
}
