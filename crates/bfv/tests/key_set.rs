#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Key-set identifiers (`rlwe::KeySetId`): keys and ciphertexts carry the identifier of the
//! secret key they come from, operations that combine them refuse two different ones with a
//! typed error (a relinearization key of another secret key used to give garbage silently),
//! and the byte encodings keep it.

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvError, BfvParameters, Ciphertext, KeySetId, Preset};
use poly::{CpuBackend, Seed};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

fn params() -> Arc<BfvParameters> {
    Preset::Secure { log_degree: 12 }.build().unwrap()
}

struct KeySet {
    secret: bfv::SecretKey<CpuBackend>,
    public: bfv::PublicKey<CpuBackend>,
    relin: bfv::RelinKey<CpuBackend>,
    galois: bfv::GaloisKeys<CpuBackend>,
}

fn key_set(context: &BfvContext<CpuBackend>, first_seed: u8) -> KeySet {
    let secret = context.secret_key_from_seed(&seed(first_seed)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(first_seed + 1)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(first_seed + 2)).unwrap();
    let galois = context
        .galois_keys_from_seed(&secret, &[context.galois_element_for_row_rotation(1)], &seed(first_seed + 3))
        .unwrap();
    KeySet { secret, public, relin, galois }
}

fn is_key_set_mismatch<T: std::fmt::Debug>(result: Result<T, BfvError>, what: &str) -> bool {
    match result {
        Err(BfvError::KeySetMismatch { what: w, expected, actual }) => w == what && expected != actual,
        other => {
            eprintln!("expected a key-set mismatch on {what}, got {other:?}");
            false
        }
    }
}

fn encrypt(context: &BfvContext<CpuBackend>, keys: &KeySet, values: &[u64], s: u8) -> Ciphertext<CpuBackend> {
    let encoder = BatchEncoder::new(context.params()).unwrap();
    context.encrypt_with_seed(&encoder.encode(values).unwrap(), &keys.public, &seed(s)).unwrap()
}

/// Every key and ciphertext of one secret key carries its identifier, which depends only on
/// the secret key's seed.
#[test]
fn keys_and_ciphertexts_carry_the_secret_keys_identifier() {
    let params = params();
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let a = key_set(&context, 10);
    let id = a.secret.key_set().unwrap();
    assert_eq!(id, KeySetId::from_seed(&seed(10)));
    assert_eq!(context.secret_key_from_seed(&seed(10)).unwrap().key_set(), Some(id));
    assert_ne!(context.secret_key_from_seed(&seed(11)).unwrap().key_set(), Some(id));
    assert_eq!(a.public.key_set(), Some(id));
    assert_eq!(a.relin.key_set(), Some(id));
    assert_eq!(a.galois.key_set(), Some(id));
    let ct = encrypt(&context, &a, &[1, 2, 3], 50);
    assert_eq!(ct.key_set(), Some(id));
    let encoder = BatchEncoder::new(&params).unwrap();
    let seeded =
        context.encrypt_symmetric_with_seeds(&encoder.encode(&[4]).unwrap(), &a.secret, &seed(51), &seed(52)).unwrap();
    assert_eq!(seeded.key_set(), Some(id));
    assert_eq!(context.expand(&seeded).unwrap().key_set(), Some(id));
    let product = context.mul_relin(&ct, &ct, &a.relin).unwrap();
    assert_eq!(product.key_set(), Some(id));
    assert_eq!(context.rotate_rows(&product, 1, &a.galois).unwrap().key_set(), Some(id));
    assert_eq!(context.mod_switch_to_next(&product).unwrap().key_set(), Some(id));
}

/// A relinearization key, Galois keys or a secret key of another secret key, and a
/// ciphertext under another key, are refused with `KeySetMismatch`; the same operations with
/// the right keys work.
#[test]
fn keys_of_another_secret_key_are_refused() {
    let params = params();
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let (a, b) = (key_set(&context, 10), key_set(&context, 20));
    let encoder = BatchEncoder::new(&params).unwrap();
    let x = encrypt(&context, &a, &[3, 4], 60);
    let y = encrypt(&context, &b, &[5, 6], 61);
    let product = context.mul(&x, &x).unwrap();
    assert!(is_key_set_mismatch(context.relinearize(&product, &b.relin), "relinearization key"));
    assert!(is_key_set_mismatch(context.mul_relin(&x, &x, &b.relin), "relinearization key"));
    assert!(is_key_set_mismatch(context.square_relin(&x, &b.relin), "relinearization key"));
    assert!(is_key_set_mismatch(context.rotate_rows(&x, 1, &b.galois), "Galois keys"));
    assert!(is_key_set_mismatch(context.decrypt(&x, &b.secret), "secret key"));
    assert!(is_key_set_mismatch(context.add(&x, &y), "ciphertext"));
    assert!(is_key_set_mismatch(context.sub(&x, &y), "ciphertext"));
    assert!(is_key_set_mismatch(context.mul(&x, &y), "ciphertext"));
    assert!(is_key_set_mismatch(context.mul_relin(&x, &y, &a.relin), "ciphertext"));
    let mut z = context.duplicate(&x).unwrap();
    assert!(is_key_set_mismatch(context.add_assign(&mut z, &y), "ciphertext"));
    assert_eq!(context.decrypt(&z, &a.secret).unwrap(), context.decrypt(&x, &a.secret).unwrap());
    // The right keys.
    let squared = context.relinearize(&product, &a.relin).unwrap();
    let slots = encoder.decode(&context.decrypt(&squared, &a.secret).unwrap()).unwrap();
    assert_eq!(&slots[..3], &[9, 16, 0]);
    let rotated = context.rotate_rows(&x, 1, &a.galois).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&rotated, &a.secret).unwrap()).unwrap()[0], 4);
}

/// The byte encodings keep the identifier (from format version 2); version-1 bytes (no
/// identifier) still decode, to objects without one, which combine with anything.
#[test]
fn byte_encodings_keep_the_identifier_and_version_1_still_decodes() {
    let params = params();
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let (a, b) = (key_set(&context, 10), key_set(&context, 20));
    let id = a.secret.key_set();
    let x = encrypt(&context, &a, &[7], 70);
    let ct_bytes = context.ciphertext_to_bytes(&x).unwrap();
    assert_eq!(context.ciphertext_from_bytes(&ct_bytes).unwrap().key_set(), id);
    let encoder = BatchEncoder::new(&params).unwrap();
    let seeded =
        context.encrypt_symmetric_with_seeds(&encoder.encode(&[4]).unwrap(), &a.secret, &seed(71), &seed(72)).unwrap();
    assert_eq!(context.seeded_from_bytes(&context.seeded_to_bytes(&seeded).unwrap()).unwrap().key_set(), id);
    let pk = context.public_key_from_bytes(&context.public_key_to_bytes(&a.public).unwrap()).unwrap();
    assert_eq!(pk.key_set(), id);
    let sk = context.secret_key_from_bytes(&context.secret_key_to_bytes(&a.secret).unwrap()).unwrap();
    assert_eq!(sk.key_set(), id);
    let gk = context.galois_keys_from_bytes(&context.galois_keys_to_bytes(&a.galois).unwrap()).unwrap();
    assert_eq!(gk.key_set(), id);
    // A decoded relinearization key of the other key set is still refused.
    let other_relin = context.relin_key_from_bytes(&context.relin_key_to_bytes(&b.relin).unwrap()).unwrap();
    assert_eq!(other_relin.key_set(), b.secret.key_set());
    assert!(is_key_set_mismatch(context.mul_relin(&x, &x, &other_relin), "relinearization key"));

    // Versions 1 and 2 still load: objects recorded in version 2 (8-byte words), and the same
    // bytes without the final 8 under version byte 1 (no identifier).
    let fixture_params = bfv::BfvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&[50])
        .special_moduli_bits(&[55])
        .plaintext_modulus(65537)
        .variant(bfv::MulVariant::Hps)
        .allow_insecure(true)
        .build()
        .unwrap();
    let fixture = BfvContext::new(CpuBackend, &fixture_params).unwrap();
    let recorded = |name: &str| hegpu_test_support::format_v2::recorded(name).unwrap().to_vec();
    let fixture_secret = fixture.secret_key_from_seed(&seed(1)).unwrap();
    let fixture_id = fixture_secret.key_set();
    let v2 = recorded("bfv_ciphertext.bin");
    let recorded_ct = fixture.ciphertext_from_bytes(&v2).unwrap();
    assert_eq!(recorded_ct.key_set(), fixture_id);
    let mut v1 = v2[..v2.len() - 8].to_vec();
    v1[8] = 1;
    let old = fixture.ciphertext_from_bytes(&v1).unwrap();
    assert_eq!(old.key_set(), None);
    assert_eq!(fixture.download(&old).unwrap(), fixture.download(&recorded_ct).unwrap());
    let pk_v2 = recorded("bfv_public_key.bin");
    let mut pk_v1 = pk_v2[..pk_v2.len() - 8].to_vec();
    pk_v1[8] = 1;
    let unknown_pk = fixture.public_key_from_bytes(&pk_v1).unwrap();
    assert_eq!(unknown_pk.key_set(), None);
    // Unknown combines with anything (no check is possible): the sum carries the known set.
    let plain = bfv::Plaintext::from_coefficients(&fixture_params, &[1]).unwrap();
    let unknown_ct = fixture.encrypt_with_seed(&plain, &unknown_pk, &seed(3)).unwrap();
    assert_eq!(unknown_ct.key_set(), None);
    assert_eq!(fixture.add(&unknown_ct, &recorded_ct).unwrap().key_set(), fixture_id);
    // Bytes cut to the previous version's length, or carrying a trailer they should not, are
    // refused: version 2 without its identifier, version 1 with one.
    assert!(matches!(fixture.ciphertext_from_bytes(&v2[..v2.len() - 8]), Err(BfvError::Malformed { .. })));
    let mut v1_long = v2.clone();
    v1_long[8] = 1;
    assert!(matches!(fixture.ciphertext_from_bytes(&v1_long), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.ciphertext_from_bytes(&ct_bytes[..ct_bytes.len() - 8]), Err(BfvError::Malformed { .. })));
}
