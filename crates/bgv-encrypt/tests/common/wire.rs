//! Objects of both schemes from fixed seeds at `N = 1024` (one ciphertext prime, one special
//! prime), for the byte-format tests: their encodings in the format of the day, and the
//! encodings recorded in format version 2 (`hegpu_test_support::format_v2`), which must still
//! load.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use bgv_encrypt::{BgvContext, BgvParameters, BgvParametersBuilder, ModSwitching};
use poly::{CpuBackend, Seed};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// The BGV parameters of the recorded objects.
pub fn bgv_params() -> Arc<BgvParameters> {
    BgvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&[50])
        .special_moduli_bits(&[55])
        .plaintext_modulus(65537)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// The BFV parameters of the recorded objects: BGV's core, HPS.
pub fn bfv_params() -> Arc<bfv::BfvParameters> {
    bfv::BfvParameters::from_core(bgv_params().core(), 65537, bfv::MulVariant::Hps).unwrap()
}

/// The BGV objects' encodings, by file name: secret, public, relinearization and Galois keys
/// (rotation by 1 and the row swap), a public-key ciphertext, a seeded ciphertext, a plaintext.
pub fn bgv_objects() -> Vec<(&'static str, Vec<u8>)> {
    let params = bgv_params();
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let elements = [context.galois_element_for_row_rotation(1)];
    let galois = context.galois_keys_from_seed(&secret, &elements, &seed(4)).unwrap();
    let values: Vec<u64> = (0..1024u64).map(|i| (i * 31 + 5) % 65537).collect();
    let plain = bgv_encrypt::Plaintext::from_coefficients(&params, &values).unwrap();
    let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
    let seeded = context.encrypt_symmetric_with_seeds(&plain, &secret, &seed(6), &seed(7)).unwrap();
    vec![
        ("bgv_secret_key.bin", context.to_bytes(&secret).unwrap()),
        ("bgv_public_key.bin", context.to_bytes(&public).unwrap()),
        ("bgv_relin_key.bin", context.to_bytes(&relin).unwrap()),
        ("bgv_galois_keys.bin", context.to_bytes(&galois).unwrap()),
        ("bgv_ciphertext.bin", context.to_bytes(&ct).unwrap()),
        ("bgv_seeded.bin", context.to_bytes(&seeded).unwrap()),
        ("bgv_plaintext.bin", context.to_bytes(&plain).unwrap()),
    ]
}

/// The BFV objects' encodings, by file name: a public key, a public-key ciphertext, a seeded
/// ciphertext (the keys' codec is the core's, shared with BGV).
pub fn bfv_objects() -> Vec<(&'static str, Vec<u8>)> {
    let params = bfv_params();
    let context = bfv::BfvContext::new(CpuBackend, &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let values: Vec<u64> = (0..1024u64).map(|i| (i * 31 + 5) % 65537).collect();
    let plain = bfv::Plaintext::from_coefficients(&params, &values).unwrap();
    let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
    let seeded = context.encrypt_symmetric_with_seeds(&plain, &secret, &seed(6), &seed(7)).unwrap();
    vec![
        ("bfv_public_key.bin", context.to_bytes(&public).unwrap()),
        ("bfv_ciphertext.bin", context.to_bytes(&ct).unwrap()),
        ("bfv_seeded.bin", context.to_bytes(&seeded).unwrap()),
    ]
}

/// Keys of `context` from split seeds (uniform seeds 21, 22, 23; error seeds 31, 32, 33: the
/// form whose bytes carry the uniform seeds) and a product relinearized with them, as bytes:
/// public key, relinearization key, Galois keys (rotation by 1, row swap), the relinearized
/// product; plus the same keys loaded back from those bytes (for the caller's checks).
pub fn seeded_keys_session<B: bgv_encrypt::BgvBackend>(context: &BgvContext<B>) -> Vec<Vec<u8>> {
    let core = context.core();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = core.public_key_from_seeds(&secret, &seed(21), &seed(31)).unwrap();
    let relin = core.relinearization_key_from_seeds(&secret, &seed(22), &seed(32)).unwrap();
    let elements = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()];
    let galois = core.galois_keys_from_seeds(&secret, &elements, &seed(23), &seed(33)).unwrap();
    let params = context.params();
    let values: Vec<u64> = (0..params.degree() as u64).map(|i| (i * 17 + 3) % params.plaintext_modulus()).collect();
    let plain = bgv_encrypt::Plaintext::from_coefficients(params, &values).unwrap();
    let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
    let pk_bytes = context.to_bytes(&public).unwrap();
    let rk_bytes = context.to_bytes(&relin).unwrap();
    let gk_bytes = context.to_bytes(&galois).unwrap();
    // The keys as loaded from their bytes: the same words, the same products.
    let loaded_relin: bgv_encrypt::RelinKey<B> = context.load_bytes(&rk_bytes).unwrap();
    let loaded_galois: bgv_encrypt::GaloisKeys<B> = context.load_bytes(&gk_bytes).unwrap();
    let loaded_public: bgv_encrypt::PublicKey<B> = context.load_bytes(&pk_bytes).unwrap();
    assert_eq!(context.to_bytes(&loaded_relin).unwrap(), rk_bytes);
    assert_eq!(context.to_bytes(&loaded_galois).unwrap(), gk_bytes);
    assert_eq!(context.to_bytes(&loaded_public).unwrap(), pk_bytes);
    // One 50-bit prime at N = 1024: the square does not decrypt (automatic switching refuses
    // it), but its bytes are what this compares; Manual multiplies anyway.
    let manual = BgvContext::new(context.backend().clone(), params).unwrap().with_mod_switching(ModSwitching::Manual);
    let product = manual.mul_relin(&ct, &ct, &relin).unwrap();
    let again = manual.mul_relin(&ct, &ct, &loaded_relin).unwrap();
    let rotated = context.rotate_rows(&product, 1, &loaded_galois).unwrap();
    let from_loaded_pk = context.encrypt_with_seed(&plain, &loaded_public, &seed(5)).unwrap();
    let product_bytes = context.to_bytes(&product).unwrap();
    assert_eq!(context.to_bytes(&again).unwrap(), product_bytes);
    assert_eq!(context.to_bytes(&from_loaded_pk).unwrap(), context.to_bytes(&ct).unwrap());
    vec![pk_bytes, rk_bytes, gk_bytes, product_bytes, context.to_bytes(&rotated).unwrap()]
}
