#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Key-set identifiers in BGV (the core's `rlwe::KeySetId`): a relinearization key, Galois
//! keys or secret key of another secret key, or a ciphertext under another key, are refused
//! with a typed error; the identifier survives the byte encodings and the switch to BFV.

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext, BgvError, Ciphertext};
use common::{keys, seed, small_params};
use poly::CpuBackend;

fn is_key_set_mismatch<T: std::fmt::Debug>(result: Result<T, BgvError>, what: &str) -> bool {
    match result {
        Err(rlwe::RlweError::KeySetMismatch { what: w, expected, actual }) => w == what && expected != actual,
        other => {
            eprintln!("expected a key-set mismatch on {what}, got {other:?}");
            false
        }
    }
}

#[test]
fn keys_of_another_secret_key_are_refused() {
    let t = 65537;
    let params = small_params(12, &[50, 40, 40], &[50], t);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let a = keys(&context);
    // A second key set from other seeds.
    let secret_b = context.secret_key_from_seed(&seed(21)).unwrap();
    let public_b = context.public_key_from_seed(&secret_b, &seed(22)).unwrap();
    let relin_b = context.relin_key_from_seed(&secret_b, &seed(23)).unwrap();
    let galois_b =
        context.galois_keys_from_seed(&secret_b, &[context.galois_element_for_row_rotation(1)], &seed(24)).unwrap();
    let id = a.secret.key_set();
    assert!(id.is_some());
    assert_ne!(id, secret_b.key_set());
    assert_eq!((a.public.key_set(), a.relin.key_set(), a.galois.key_set()), (id, id, id));

    let encoder = BatchEncoder::new(&params).unwrap();
    let plain = encoder.encode(&[3, 4]).unwrap();
    let x: Ciphertext<CpuBackend> = context.encrypt_with_seed(&plain, &a.public, &seed(30)).unwrap();
    let y = context.encrypt_with_seed(&plain, &public_b, &seed(31)).unwrap();
    assert_eq!(x.key_set(), id);
    let product = context.mul(&x, &x).unwrap();
    assert!(is_key_set_mismatch(context.relinearize(&product, &relin_b), "relinearization key"));
    assert!(is_key_set_mismatch(context.mul_relin(&x, &x, &relin_b), "relinearization key"));
    assert!(is_key_set_mismatch(context.square_relin(&x, &relin_b), "relinearization key"));
    assert!(is_key_set_mismatch(context.rotate_rows(&x, 1, &galois_b), "Galois keys"));
    assert!(is_key_set_mismatch(context.decrypt(&x, &secret_b), "secret key"));
    assert!(is_key_set_mismatch(context.add(&x, &y), "ciphertext"));
    assert!(is_key_set_mismatch(context.mul(&x, &y), "ciphertext"));

    // The right keys work, and the identifier survives the bytes.
    let squared = context.mul_relin(&x, &x, &a.relin).unwrap();
    assert_eq!(squared.key_set(), id);
    assert_eq!(&encoder.decode(&context.decrypt(&squared, &a.secret).unwrap()).unwrap()[..3], &[9, 16, 0]);
    let back = context.ciphertext_from_bytes(&context.ciphertext_to_bytes(&squared).unwrap()).unwrap();
    assert_eq!(back.key_set(), id);
    let relin_back = context.relin_key_from_bytes(&context.relin_key_to_bytes(&relin_b).unwrap()).unwrap();
    assert!(is_key_set_mismatch(context.mul_relin(&x, &x, &relin_back), "relinearization key"));
    let seeded = context.encrypt_symmetric_with_seeds(&plain, &a.secret, &seed(32), &seed(33)).unwrap();
    assert_eq!(context.seeded_from_bytes(&context.seeded_to_bytes(&seeded).unwrap()).unwrap().key_set(), id);
    assert_eq!(context.expand(&seeded).unwrap().key_set(), id);
}
