//! Recrypt on the CPU (setting `toy-recrypt`: `n = 32`, `t = 256`, `s = 4`, `S = 16`): recrypted
//! fresh and multiplied ciphertexts decrypt to their bits, recrypted ciphertexts multiply
//! (an AND chain of any length with a Recrypt after each product), the noise after Recrypt does
//! not depend on the input's, and rejected inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gh::{GhError, GhParams, PublicKey, RecryptKey, RecryptParams, SecretKey, keygen, recrypt_keygen};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;

fn keys() -> &'static (PublicKey, SecretKey, RecryptKey) {
    static KEYS: OnceLock<(PublicKey, SecretKey, RecryptKey)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let params = GhParams::toy_recrypt();
        let (pk, sk) = keygen(&params, 21).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let rk = recrypt_keygen(&pk, &sk, RecryptParams::for_setting(&params), &mut rng).unwrap();
        (pk, sk, rk)
    })
}

#[test]
fn recrypted_bits_decrypt() {
    let (pk, sk, rk) = keys();
    assert_eq!(rk.eta().len(), 4);
    assert!(rk.eta().iter().all(|row| row.len() == 7));
    let limit = pk.modulus().bits() - 2;
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut max_noise = 0;
    for case in 0..32 {
        let bit = (case % 2) as u8 ^ u8::from(rng.r#gen::<bool>());
        let mut ct = pk.encrypt(bit, &mut rng).unwrap();
        if case % 4 == 3 {
            // A noisier input: times an encryption of 1, twice.
            for _ in 0..2 {
                ct = pk.mul(&ct, &pk.encrypt(1, &mut rng).unwrap()).unwrap();
            }
        }
        let fresh_noise = sk.noise_bits(pk, &ct).unwrap();
        let r = pk.recrypt(rk, &ct).unwrap();
        let noise = sk.noise_bits(pk, &r).unwrap();
        max_noise = max_noise.max(noise);
        assert!(noise < limit, "case {case}: noise {noise}, limit {limit} (input {fresh_noise})");
        assert_eq!(sk.decrypt(pk, &r).unwrap(), bit, "case {case}");
        assert_ne!(r.value(), ct.value());
    }
    eprintln!("|d| = {} bits, max noise after Recrypt {max_noise} bits", pk.modulus().bits());
    // Room for a product: the noise roughly doubles its excess over |w_i|.
    assert!(max_noise + 100 < limit, "max noise {max_noise}, limit {limit}");
}

#[test]
fn recrypt_then_multiply_decrypts() {
    let (pk, sk, rk) = keys();
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for case in 0..8 {
        let (b1, b2) = (rng.gen_range(0..2u8), rng.gen_range(0..2u8));
        let r1 = pk.recrypt(rk, &pk.encrypt(b1, &mut rng).unwrap()).unwrap();
        let r2 = pk.recrypt(rk, &pk.encrypt(b2, &mut rng).unwrap()).unwrap();
        let product = pk.mul(&r1, &r2).unwrap();
        assert_eq!(sk.decrypt(pk, &product).unwrap(), b1 & b2, "case {case}: and");
        assert_eq!(sk.decrypt(pk, &pk.add(&r1, &r2).unwrap()).unwrap(), b1 ^ b2, "case {case}: xor");
        // A recrypted product also recrypts.
        let again = pk.recrypt(rk, &product).unwrap();
        assert_eq!(sk.decrypt(pk, &again).unwrap(), b1 & b2, "case {case}: recrypted product");
    }
}

#[test]
fn an_and_chain_longer_than_the_noise_allows_runs_with_recrypt() {
    let (pk, sk, rk) = keys();
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    let limit = pk.modulus().bits() - 2;
    // Without Recrypt a chain of products of fresh 1s runs out of noise room (within 2 bits of
    // d) after some tens of products.
    let mut plain = pk.encrypt(1, &mut rng).unwrap();
    let mut steps_plain = 0;
    while sk.noise_bits(pk, &plain).unwrap() < limit && steps_plain < 400 {
        plain = pk.mul(&plain, &pk.encrypt(1, &mut rng).unwrap()).unwrap();
        steps_plain += 1;
    }
    assert!(steps_plain < 400, "{steps_plain} products without Recrypt");
    // With Recrypt after each product, more products than that decrypt, with one 0 among them.
    let zero_at = steps_plain / 2 + rng.gen_range(0..steps_plain / 2);
    let bits: Vec<u8> = (0..steps_plain + 10).map(|i| u8::from(i != zero_at)).collect();
    let mut acc = pk.encrypt(bits[0], &mut rng).unwrap();
    let mut expected = bits[0];
    for &b in &bits[1..] {
        acc = pk.recrypt(rk, &pk.mul(&acc, &pk.encrypt(b, &mut rng).unwrap()).unwrap()).unwrap();
        expected &= b;
        assert_eq!(sk.decrypt(pk, &acc).unwrap(), expected);
        assert!(sk.noise_bits(pk, &acc).unwrap() + 100 < limit);
    }
    assert_eq!(expected, 0);
    eprintln!("{steps_plain} products without Recrypt, {} with", bits.len() - 1);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let (pk, sk, rk) = keys();
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    // A key pair of another setting, with its own recrypt key.
    let (toy_pk, toy_sk) = keygen(&GhParams::toy(), 1).unwrap();
    let toy_rk = recrypt_keygen(&toy_pk, &toy_sk, RecryptParams::for_setting(&GhParams::toy()), &mut rng).unwrap();
    let ours = pk.encrypt(1, &mut rng).unwrap();
    let theirs = toy_pk.encrypt(1, &mut rng).unwrap();
    assert!(matches!(pk.recrypt(&toy_rk, &ours), Err(GhError::WrongKey { what: "recrypt key", .. })));
    assert!(matches!(pk.recrypt(rk, &theirs), Err(GhError::WrongKey { what: "ciphertext", .. })));
    assert!(matches!(toy_pk.recrypt(rk, &theirs), Err(GhError::WrongKey { what: "recrypt key", .. })));
    assert!(matches!(pk.recrypt_factors(&toy_rk, &ours), Err(GhError::WrongKey { .. })));
    assert!(matches!(
        recrypt_keygen(pk, &toy_sk, RecryptParams::for_setting(pk.params()), &mut rng),
        Err(GhError::WrongKey { what: "secret key", .. })
    ));
    assert!(matches!(RecryptParams::new(1, 16), Err(GhError::BadParameters { .. })));
    assert!(matches!(RecryptParams::new(4, 1), Err(GhError::BadParameters { .. })));
    assert!(matches!(RecryptParams::new(65, 16), Err(GhError::BadParameters { .. })));
    // Inputs untouched and still usable.
    assert_eq!(sk.decrypt(pk, &pk.recrypt(rk, &ours).unwrap()).unwrap(), 1);
}

#[test]
fn one_hot_recrypt_decrypts_with_less_noise() {
    let (pk, sk, rk) = keys();
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let one_hot = recrypt_keygen(pk, sk, RecryptParams::for_setting(pk.params()).one_hot(), &mut rng).unwrap();
    assert!(one_hot.params().is_one_hot());
    assert!(one_hot.eta().iter().all(|row| row.len() == 16));
    let (mut worst_one, mut worst_two) = (0, 0);
    for case in 0..12 {
        let bit = rng.gen_range(0..2u8);
        let ct = pk.encrypt(bit, &mut rng).unwrap();
        let r1 = pk.recrypt(&one_hot, &ct).unwrap();
        let r2 = pk.recrypt(rk, &ct).unwrap();
        assert_eq!(sk.decrypt(pk, &r1).unwrap(), bit, "case {case}");
        let product = pk.mul(&r1, &pk.recrypt(&one_hot, &pk.encrypt(1, &mut rng).unwrap()).unwrap()).unwrap();
        assert_eq!(sk.decrypt(pk, &product).unwrap(), bit, "case {case}: one-hot recrypt then mul");
        worst_one = worst_one.max(sk.noise_bits(pk, &r1).unwrap());
        worst_two = worst_two.max(sk.noise_bits(pk, &r2).unwrap());
    }
    eprintln!("noise after Recrypt: one-hot {worst_one} bits, two-hot {worst_two} bits");
    assert!(worst_one <= worst_two);
}
