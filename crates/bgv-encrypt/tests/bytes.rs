//! Byte encodings of BGV ciphertexts and keys on the CPU: round trips (every level, seeded,
//! keys that still work after decoding), and typed errors for every malformed input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext};
use common::*;
use poly::CpuBackend;
use rand::SeedableRng;
use rand::rngs::StdRng;

#[test]
fn ciphertexts_and_keys_round_trip_and_bad_bytes_are_refused() {
    let params = small_params(12, &[50, 45, 45], &[50, 50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = keys(&context);
    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(2);
    let values = random_slots(&mut rng, params.degree(), t);
    let plain = encoder.encode(&values).unwrap();
    let ct = context.encrypt(&plain, &k.public).unwrap();
    let product = context.mul(&ct, &ct).unwrap();
    let low = context.mod_switch_to(&context.relinearize(&product, &k.relin).unwrap(), 1).unwrap();
    for c in [&ct, &product, &low] {
        let bytes = context.ciphertext_to_bytes(c).unwrap();
        let back = context.ciphertext_from_bytes(&bytes).unwrap();
        assert_eq!(
            (back.level(), back.size(), back.state().correction_factor()),
            (c.level(), c.size(), c.state().correction_factor())
        );
        assert_eq!(context.download(&back).unwrap(), context.download(c).unwrap());
        assert_eq!(context.ciphertext_to_bytes(&back).unwrap(), bytes);
    }
    let seeded = context.encrypt_symmetric(&plain, &k.secret).unwrap();
    let back = context.seeded_from_bytes(&context.seeded_to_bytes(&seeded).unwrap()).unwrap();
    assert_eq!(context.decrypt(&context.expand(&back).unwrap(), &k.secret).unwrap(), plain);

    // Keys: decoded keys encrypt, relinearize, rotate and decrypt.
    let public = context.public_key_from_bytes(&context.public_key_to_bytes(&k.public).unwrap()).unwrap();
    let relin = context.relin_key_from_bytes(&context.relin_key_to_bytes(&k.relin).unwrap()).unwrap();
    let galois = context.galois_keys_from_bytes(&context.galois_keys_to_bytes(&k.galois).unwrap()).unwrap();
    let secret = context.secret_key_from_bytes(&context.secret_key_to_bytes(&k.secret).unwrap()).unwrap();
    let x = context.encrypt(&plain, &public).unwrap();
    let y = context.rotate_rows(&context.mul_relin(&x, &x, &relin).unwrap(), 1, &galois).unwrap();
    let want = rotate_rows_left(&slot_op(&values, &values, t, mul_mod));
    assert_eq!(encoder.decode(&context.decrypt(&y, &secret).unwrap()).unwrap(), want);

    // Malformed: truncated, trailing, BFV magic, bad correction factor, word above its prime,
    // a count the input cannot hold, parameters of another ring.
    let bytes = context.ciphertext_to_bytes(&low).unwrap();
    assert!(context.ciphertext_from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(context.ciphertext_from_bytes(&trailing).is_err());
    let mut bfv_tag = bytes.clone();
    bfv_tag[5..8].copy_from_slice(b"BFV");
    assert!(context.ciphertext_from_bytes(&bfv_tag).is_err());
    // The header ends before the correction factor (8 bytes); the key set's 8 bytes end it all.
    let level_primes = &params.ciphertext_moduli()[..=low.level()];
    let poly_bytes = hegpu_test_support::packed::poly_bytes(level_primes, params.degree());
    let header = bytes.len() - 8 - low.size() * poly_bytes - 8;
    for bad in [0u64, t, 65537 * 3] {
        let mut factor = bytes.clone();
        factor[header..header + 8].copy_from_slice(&bad.to_le_bytes());
        assert!(context.ciphertext_from_bytes(&factor).is_err(), "factor {bad}");
    }
    let mut word = bytes.clone();
    let q0 = params.ciphertext_moduli()[0];
    hegpu_test_support::packed::set_word(&mut word, header + 8, level_primes, params.degree(), 0, 0, q0);
    assert!(context.ciphertext_from_bytes(&word).is_err());
    let mut count = bytes.clone();
    let count_at = header - 4;
    count[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(context.ciphertext_from_bytes(&count).is_err());
    let other = small_params(12, &[50, 45, 46], &[50, 50], 65537);
    let other_context = BgvContext::new(CpuBackend, &other).unwrap();
    assert!(other_context.ciphertext_from_bytes(&context.ciphertext_to_bytes(&ct).unwrap()).is_err());
    assert!(other_context.relin_key_from_bytes(&context.relin_key_to_bytes(&k.relin).unwrap()).is_err());
    // A BFV key's bytes (tag "BFV") are not a BGV key.
    let bfv_params = common::switching::bfv_twin(&params);
    let bfv_context = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
    let bfv_public = bfv_context.public_key_from_seed(&k.secret, &seed(5)).unwrap();
    assert!(context.public_key_from_bytes(&bfv_context.public_key_to_bytes(&bfv_public).unwrap()).is_err());
}
