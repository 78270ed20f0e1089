//! The byte format: objects recorded in format version 2 (every word in 8 bytes;
//! `hegpu_test_support::format_v2`) still load, to the objects the same seeds make today; today's
//! encodings (version 3, words packed to their primes' widths) are smaller by the widths'
//! share of 64 bits and load back to the same bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BgvContext, Preset};
use common::wire::{bfv_objects, bfv_params, bgv_objects, bgv_params, seeded_keys_session};
use poly::CpuBackend;

fn recorded(name: &str) -> Vec<u8> {
    hegpu_test_support::format_v2::recorded(name).unwrap_or_else(|| panic!("no recorded {name}")).to_vec()
}

/// Loads version-2 `bytes` as the object `name` names and writes it again (version 3).
fn reencode_bgv(context: &BgvContext<CpuBackend>, name: &str, bytes: &[u8]) -> Vec<u8> {
    use bgv_encrypt::{Ciphertext, GaloisKeys, Plaintext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
    match name {
        "bgv_secret_key.bin" => context.to_bytes(&context.load_bytes::<SecretKey<_>>(bytes).unwrap()),
        "bgv_public_key.bin" => context.to_bytes(&context.load_bytes::<PublicKey<_>>(bytes).unwrap()),
        "bgv_relin_key.bin" => context.to_bytes(&context.load_bytes::<RelinKey<_>>(bytes).unwrap()),
        "bgv_galois_keys.bin" => context.to_bytes(&context.load_bytes::<GaloisKeys<_>>(bytes).unwrap()),
        "bgv_ciphertext.bin" => context.to_bytes(&context.load_bytes::<Ciphertext<_>>(bytes).unwrap()),
        "bgv_seeded.bin" => context.to_bytes(&context.load_bytes::<SeededCiphertext<_>>(bytes).unwrap()),
        "bgv_plaintext.bin" => context.to_bytes(&context.load_bytes::<Plaintext>(bytes).unwrap()),
        other => panic!("no recorded object {other}"),
    }
    .unwrap()
}

#[test]
fn version_2_bytes_load_to_the_objects_of_today() {
    let context = BgvContext::new(CpuBackend, &bgv_params()).unwrap();
    for (name, today) in bgv_objects() {
        let old = recorded(name);
        assert_eq!(old[8], 2, "{name}: recorded in version 2");
        assert_eq!(today[8], 3, "{name}: written in version 3");
        assert_eq!(reencode_bgv(&context, name, &old), today, "{name}");
        assert!(today.len() < old.len(), "{name}: {} bytes, not fewer than {}", today.len(), old.len());
    }
    let bfv = bfv::BfvContext::new(CpuBackend, &bfv_params()).unwrap();
    for (name, today) in bfv_objects() {
        let old = recorded(name);
        let again = match name {
            "bfv_public_key.bin" => bfv.to_bytes(&bfv.load_bytes::<bfv::PublicKey<_>>(&old).unwrap()),
            "bfv_ciphertext.bin" => bfv.to_bytes(&bfv.load_bytes::<bfv::Ciphertext<_>>(&old).unwrap()),
            "bfv_seeded.bin" => bfv.to_bytes(&bfv.load_bytes::<bfv::SeededCiphertext<_>>(&old).unwrap()),
            other => panic!("no recorded object {other}"),
        }
        .unwrap();
        assert_eq!(again, today, "{name}");
    }
}

/// Version 3 is version 2 with each polynomial limb packed to its prime's width: a truncated
/// or extended encoding is refused, and every byte count follows from the widths.
#[test]
fn packed_sizes_follow_the_primes_widths() {
    let params = bgv_params();
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    for (name, today) in bgv_objects() {
        let old = recorded(name);
        // 50-bit q (width 50), 55-bit special prime (width 55), t = 65537 (width 17).
        let saved = old.len() - today.len();
        assert!(saved > 0, "{name}");
        let mut cut = today.clone();
        cut.pop();
        let longer = [today.clone(), vec![0]].concat();
        for bad in [cut, longer] {
            let result = match name {
                "bgv_ciphertext.bin" => context.load_bytes::<bgv_encrypt::Ciphertext<_>>(&bad).map(|_| ()),
                "bgv_relin_key.bin" => context.load_bytes::<bgv_encrypt::RelinKey<_>>(&bad).map(|_| ()),
                _ => continue,
            };
            assert!(matches!(result, Err(bgv_encrypt::BgvError::Malformed { .. })), "{name}: {result:?}");
        }
    }
    // The preset N = 8192 (three 54-bit primes): a ciphertext at most 0.9 of its 8-byte words,
    // generated keys (their uniform halves as seeds) at most 0.5.
    let preset = Preset::Secure { log_degree: 13 }.build().unwrap();
    let context = BgvContext::new(CpuBackend, &preset).unwrap();
    let secret = context.generate_secret_key().unwrap();
    let public = context.generate_public_key(&secret).unwrap();
    let relin = context.generate_relin_key(&secret).unwrap();
    let galois = context.generate_galois_keys(&secret, &[context.galois_element_for_row_rotation(1)]).unwrap();
    let plain = bgv_encrypt::Plaintext::zero(&preset);
    let ct = context.encrypt(&plain, &public).unwrap();
    let words = |polys: usize, limbs: usize| polys * limbs * preset.degree() * 8;
    let (q, qp) = (preset.ciphertext_moduli().len(), preset.ciphertext_moduli().len() + preset.special_moduli().len());
    let digits = relin.key_switching_key().digits().len();
    let sizes = [
        ("ciphertext", context.to_bytes(&ct).unwrap().len(), words(2, q)),
        ("public key", context.to_bytes(&public).unwrap().len(), words(2, q)),
        ("relinearization key", context.to_bytes(&relin).unwrap().len(), words(2 * digits, qp)),
        ("Galois key", context.to_bytes(&galois).unwrap().len(), words(2 * digits, qp)),
    ];
    for (what, bytes, unpacked) in sizes {
        println!(
            "N = 8192 preset: {what}: {bytes} bytes ({:.3} of {unpacked} in 8-byte words)",
            bytes as f64 / unpacked as f64
        );
        let bound = if what == "ciphertext" { 9 } else { 5 };
        assert!(bytes * 10 <= unpacked * bound, "{what}: {bytes} > 0.{bound} x {unpacked}");
    }
}

/// Keys made with separate uniform and error seeds travel as their uniform seed and `b`: they
/// load to the same words and products; a seeded key naming another first sampling index, or
/// an unknown form, is refused; a key from one seed is written whole (its seed would reveal
/// its error).
#[test]
fn seeded_keys_load_to_the_same_keys() {
    let params = bgv_params();
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let bytes = seeded_keys_session(&context);
    let (_, whole) = bgv_objects().into_iter().find(|(name, _)| *name == "bgv_relin_key.bin").unwrap();
    // One digit: a seeded key is b alone (a 32-byte seed and an index in place of a).
    assert!(bytes[1].len() * 2 < whole.len() + 200, "{} vs {}", bytes[1].len(), whole.len());
    // The form byte follows the header (8 + 1 + 1 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 1 = 51 bytes).
    let form = 51;
    assert_eq!((bytes[1][form], whole[form]), (1, 0));
    let mut other_index = bytes[1].clone();
    other_index[form + 1 + 32] ^= 1;
    assert!(matches!(
        context.load_bytes::<bgv_encrypt::RelinKey<_>>(&other_index),
        Err(bgv_encrypt::BgvError::Malformed { .. })
    ));
    let mut unknown = bytes[1].clone();
    unknown[form] = 7;
    assert!(matches!(
        context.load_bytes::<bgv_encrypt::RelinKey<_>>(&unknown),
        Err(bgv_encrypt::BgvError::Malformed { .. })
    ));
}

/// The product flag is bit 63 of the correction-factor word from version 3 on; in a version-2
/// ciphertext that bit makes the word no invertible factor, refused as before.
#[test]
fn the_product_bit_is_read_from_version_3_only() {
    let context = BgvContext::new(CpuBackend, &bgv_params()).unwrap();
    let mut old = recorded("bgv_ciphertext.bin");
    // Header: magic 8, version 1, kind 1, N 4, L 4, one prime 8, t 8, count 4 = 38 bytes.
    let word = 38;
    assert_eq!(u64::from_le_bytes(old[word..word + 8].try_into().unwrap()), 1, "a fresh factor");
    old[word + 7] |= 0x80;
    assert!(matches!(
        context.load_bytes::<bgv_encrypt::Ciphertext<_>>(&old),
        Err(bgv_encrypt::BgvError::Malformed { .. })
    ));
    let (_, today) = bgv_objects().into_iter().find(|(name, _)| *name == "bgv_ciphertext.bin").unwrap();
    let mut flagged = today.clone();
    flagged[word + 7] |= 0x80;
    let loaded = context.load_bytes::<bgv_encrypt::Ciphertext<_>>(&flagged).unwrap();
    assert!(loaded.state().is_unswitched_product());
    assert_eq!(loaded.state().correction_factor(), 1);
}
