#![cfg(feature = "serde")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! serde on the CPU backend: every object type round-trips through postcard (compact binary)
//! and JSON as its byte encoding, and loads validated against a context; tampered input
//! (a word not below its prime, a coefficient not below `t`, a level beyond the chain, other
//! parameters, truncated, not a byte string) is refused with the decoders' typed errors.

use std::sync::Arc;

use bgv_encrypt::{
    BatchEncoder, BgvContext, BgvError, BgvParameters, BgvParametersBuilder, Ciphertext, GaloisKeys, Plaintext,
    PlaintextSeed, Preset, PublicKey, RelinKey, SecretKey, SeededCiphertext,
};
use hegpu_test_support::packed;
use poly::{CpuBackend, PolyError, Seed, TransformKind};
use rlwe::RlweError;
use rlwe::serde_support::Codec;
use serde::Serialize;
use serde::de::DeserializeSeed;

type Context = BgvContext<CpuBackend>;

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// `N = 1024`, two 30-bit primes and one special prime, `t = 65537` (insecure, small).
fn small(t: u64) -> Arc<BgvParameters> {
    BgvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&[30, 30])
        .special_moduli_bits(&[31])
        .plaintext_modulus(t)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// Bytes as a serde byte string (what the objects serialize to), for tampered input.
struct Raw<'a>(&'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

struct Fixture {
    params: Arc<BgvParameters>,
    context: Context,
    encoder: BatchEncoder,
    secret: SecretKey<CpuBackend>,
    public: PublicKey<CpuBackend>,
    relin: RelinKey<CpuBackend>,
    galois: GaloisKeys<CpuBackend>,
}

fn fixture() -> Fixture {
    let params = small(65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let elements = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()];
    let galois = context.galois_keys_from_seed(&secret, &elements, &seed(4)).unwrap();
    Fixture { params, context, encoder, secret, public, relin, galois }
}

/// `value` through postcard and JSON, each loaded with the seed, and through postcard with
/// `load`: the three results. Checks that both formats carry exactly the byte encoding.
fn round_trips<T>(context: &Context, value: &T) -> Vec<T>
where
    Context: Codec<T, Error = BgvError>,
{
    let bytes = context.encode(value).unwrap();
    let binary = postcard::to_allocvec(&context.serializable(value)).unwrap();
    assert_eq!(postcard::from_bytes::<&[u8]>(&binary).unwrap(), &bytes[..], "postcard holds the byte encoding");
    let json = serde_json::to_string(&context.serializable(value)).unwrap();
    assert_eq!(serde_json::from_str::<Vec<u8>>(&json).unwrap(), bytes, "JSON holds the byte encoding");
    let from_binary = context.seed::<T>().deserialize(&mut postcard::Deserializer::from_bytes(&binary)).unwrap();
    let from_json = context.seed::<T>().deserialize(&mut serde_json::Deserializer::from_str(&json)).unwrap();
    let loaded = context.load::<T, _>(&mut postcard::Deserializer::from_bytes(&binary)).unwrap();
    let results = vec![from_binary, from_json, loaded];
    for result in &results {
        assert_eq!(context.encode(result).unwrap(), bytes, "{} re-encodes to other bytes", Context::WHAT);
    }
    results
}

/// `bytes` (a tampered encoding) loaded as a `T` from postcard and from JSON: the typed error
/// of `load`, which the seed's error (JSON keeps the message) must repeat.
fn refused<T>(context: &Context, bytes: &[u8]) -> BgvError
where
    Context: Codec<T, Error = BgvError>,
{
    let binary = postcard::to_allocvec(&Raw(bytes)).unwrap();
    let json = serde_json::to_string(&Raw(bytes)).unwrap();
    let Err(error) = context.load::<T, _>(&mut postcard::Deserializer::from_bytes(&binary)) else {
        panic!("tampered {} accepted", Context::WHAT)
    };
    let Err(json_error) = context.load::<T, _>(&mut serde_json::Deserializer::from_str(&json)) else {
        panic!("tampered {} accepted from JSON", Context::WHAT)
    };
    assert_eq!(json_error.to_string(), error.to_string());
    assert!(context.seed::<T>().deserialize(&mut postcard::Deserializer::from_bytes(&binary)).is_err());
    let Err(seed_error) = context.seed::<T>().deserialize(&mut serde_json::Deserializer::from_str(&json)) else {
        panic!("tampered {} accepted by the seed", Context::WHAT)
    };
    assert!(seed_error.to_string().contains(&error.to_string()), "{seed_error} / {error}");
    error
}

/// Whether `error` says "other parameters" (BGV reports the framing's findings as the core's
/// errors, its own checks as its own).
fn mismatch(error: &BgvError) -> bool {
    matches!(error, BgvError::ParameterMismatch { .. })
}

/// Whether `error` says "not an encoding of this kind".
fn malformed(error: &BgvError) -> bool {
    matches!(error, BgvError::Malformed { .. })
}

/// The length of a ciphertext's or plaintext's header with `limbs` primes.
fn header_len(limbs: usize) -> usize {
    8 + 1 + 1 + 4 + 4 + 8 * limbs + 8 + 4
}

fn put_word(bytes: &mut [u8], offset: usize, word: u64) {
    bytes[offset..offset + 8].copy_from_slice(&word.to_le_bytes());
}

#[test]
fn parameters_round_trip_and_are_rebuilt_with_every_check() {
    for params in [
        small(65537),
        Preset::Secure { log_degree: 12 }.build().unwrap(),
        Preset::Secure { log_degree: 13 }.builder().unwrap().transform(TransformKind::HierarchicalDgt).build().unwrap(),
        BgvParametersBuilder::new(2048)
            .ciphertext_moduli_bits(&[40, 40])
            .special_moduli_bits(&[41])
            .plaintext_modulus(256)
            .transform(TransformKind::Dgt)
            .allow_insecure(true)
            .build()
            .unwrap(),
    ] {
        let binary = postcard::to_allocvec(&*params).unwrap();
        let from_binary: BgvParameters = postcard::from_bytes(&binary).unwrap();
        assert_eq!(from_binary, *params);
        let json = serde_json::to_string(&*params).unwrap();
        let from_json: Arc<BgvParameters> = serde_json::from_str(&json).unwrap();
        assert_eq!(*from_json, *params);
        let loaded = BgvParameters::load(&mut serde_json::Deserializer::from_str(&json)).unwrap();
        assert_eq!(*loaded, *params);
    }

    let json = serde_json::to_value(&*small(65537)).unwrap();
    let load = |value: &serde_json::Value| BgvParameters::load(value);
    let edit = |field: &str, value: serde_json::Value| {
        let mut edited = json.clone();
        edited[field] = value;
        edited
    };
    match load(&edit("degree", 1000.into())) {
        Err(RlweError::InvalidParameter { name: "degree", value: 1000, .. }) => {}
        other => panic!("{other:?}"),
    }
    // A prime that is not 1 mod 2N, and one that is not prime.
    let q0 = json["ciphertext_moduli"][0].as_u64().unwrap();
    for bad in [q0 + 2, q0 + 2048] {
        match load(&edit("ciphertext_moduli", serde_json::json!([bad, json["ciphertext_moduli"][1]]))) {
            Err(RlweError::InvalidParameter { name: "ciphertext moduli", value, .. }) => {
                assert_eq!(value, bad)
            }
            other => panic!("{other:?}"),
        }
    }
    match load(&edit("plaintext_modulus", q0.into())) {
        Err(BgvError::InvalidParameter { name: "plaintext modulus t", .. }) => {}
        other => panic!("{other:?}"),
    }
    // Beyond the 128-bit table without the opt-out.
    match load(&edit("allow_insecure", false.into())) {
        Err(RlweError::Insecure { degree: 1024, .. }) => {}
        other => panic!("{other:?}"),
    }
    // Too many primes: refused before the builder tests any.
    match load(&edit("special_moduli", serde_json::json!(vec![3u64; rlwe::params::MAX_PRIMES]))) {
        // The core's check (shared with the core's own parameter decoder), wrapped as BGV wraps
        // every core error.
        Err(RlweError::InvalidParameter { name: "number of ciphertext and special primes", value, .. }) => {
            assert_eq!(value, rlwe::params::MAX_PRIMES as u64 + 2);
        }
        other => panic!("{other:?}"),
    }
    match load(&edit("transform", "Fast".into())) {
        Err(BgvError::Malformed { what: "serialized parameters", .. }) => {}
        other => panic!("{other:?}"),
    }
    match load(&edit("extra", 1.into())) {
        Err(BgvError::Malformed { what: "serialized parameters", .. }) => {}
        other => panic!("{other:?}"),
    }
    // Truncated postcard.
    let binary = postcard::to_allocvec(&*small(65537)).unwrap();
    assert!(matches!(
        BgvParameters::load(&mut postcard::Deserializer::from_bytes(&binary[..binary.len() - 1])),
        Err(BgvError::Malformed { .. })
    ));
    // The plain Deserialize refuses what load refuses.
    assert!(serde_json::from_value::<BgvParameters>(edit("degree", 1000.into())).is_err());
}

#[test]
fn ciphertexts_round_trip_at_every_level_and_decrypt() {
    let f = fixture();
    let c = &f.context;
    let values = [1, 2, 3, 65536];
    let plain = f.encoder.encode(&values).unwrap();
    let top = c.encrypt_with_seed(&plain, &f.public, &seed(5)).unwrap();
    let low = c.mod_switch_to_next(&top).unwrap();
    let product = c.mul(&top, &top).unwrap(); // three polynomials
    assert_ne!(low.state().correction_factor(), 1);
    for ciphertext in [&top, &low, &product] {
        for loaded in round_trips(c, ciphertext) {
            assert_eq!(loaded.level(), ciphertext.level());
            assert_eq!(loaded.state().correction_factor(), ciphertext.state().correction_factor());
            assert_eq!(loaded.size(), ciphertext.size());
            assert_eq!(loaded.key_set(), ciphertext.key_set());
            let decrypted = f.encoder.decode(&c.decrypt(&loaded, &f.secret).unwrap()).unwrap();
            let expected: Vec<u64> =
                if ciphertext.size() == 3 { values.iter().map(|v| v * v % 65537).collect() } else { values.to_vec() };
            assert_eq!(&decrypted[..4], &expected[..]);
        }
    }
    let seeded = c.encrypt_symmetric_with_seeds(&plain, &f.secret, &seed(6), &seed(7)).unwrap();
    for loaded in round_trips(c, &seeded) {
        assert_eq!(loaded.public_seed().as_bytes(), seeded.public_seed().as_bytes());
        let expanded = c.expand(&loaded).unwrap();
        assert_eq!(&f.encoder.decode(&c.decrypt(&expanded, &f.secret).unwrap()).unwrap()[..4], &values);
    }
}

#[test]
fn plaintexts_round_trip() {
    let f = fixture();
    let plain = f.encoder.encode(&[7, 0, 65536, 12345]).unwrap();
    for loaded in round_trips(&f.context, &plain) {
        assert_eq!(loaded, plain);
    }
    // Plaintexts also serialize without a context, and load with their parameters alone.
    let binary = postcard::to_allocvec(&plain).unwrap();
    assert_eq!(binary, postcard::to_allocvec(&f.context.serializable(&plain)).unwrap());
    let seed = PlaintextSeed { params: &f.params };
    assert_eq!(seed.deserialize(&mut postcard::Deserializer::from_bytes(&binary)).unwrap(), plain);
    let json = serde_json::to_string(&plain).unwrap();
    assert_eq!(seed.deserialize(&mut serde_json::Deserializer::from_str(&json)).unwrap(), plain);
    // Of other parameters: refused (the header names another t).
    let other = small(257);
    let Err(error) = PlaintextSeed { params: &other }.deserialize(&mut serde_json::Deserializer::from_str(&json))
    else {
        panic!("a plaintext of other parameters was accepted")
    };
    assert!(error.to_string().contains("encoded plaintext belongs to different parameters"), "{error}");
}

#[test]
fn keys_round_trip_and_work() {
    let f = fixture();
    let c = &f.context;
    let values = [3, 4, 5];
    let x = c.encrypt_with_seed(&f.encoder.encode(&values).unwrap(), &f.public, &seed(5)).unwrap();
    for public in round_trips(c, &f.public) {
        let y = c.encrypt_with_seed(&f.encoder.encode(&values).unwrap(), &public, &seed(5)).unwrap();
        assert_eq!(c.ciphertext_to_bytes(&y).unwrap(), c.ciphertext_to_bytes(&x).unwrap());
    }
    for relin in round_trips(c, &f.relin) {
        let product = c.mul_relin(&x, &x, &relin).unwrap();
        assert_eq!(&f.encoder.decode(&c.decrypt(&product, &f.secret).unwrap()).unwrap()[..3], &[9, 16, 25]);
    }
    for galois in round_trips(c, &f.galois) {
        assert_eq!(galois.elements(), f.galois.elements());
        let rotated = c.rotate_rows(&x, 1, &galois).unwrap();
        assert_eq!(&f.encoder.decode(&c.decrypt(&rotated, &f.secret).unwrap()).unwrap()[..2], &[4, 5]);
    }
    for secret in round_trips(c, &f.secret) {
        assert_eq!(secret.key_set(), f.secret.key_set());
        assert_eq!(&f.encoder.decode(&c.decrypt(&x, &secret).unwrap()).unwrap()[..3], &values);
    }
}

#[test]
fn tampered_input_is_refused_with_typed_errors() {
    let f = fixture();
    let c = &f.context;
    let q = f.params.ciphertext_moduli().to_vec();
    let plain = f.encoder.encode(&[1, 2, 3]).unwrap();
    let top = c.encrypt_with_seed(&plain, &f.public, &seed(5)).unwrap();
    let bytes = c.ciphertext_to_bytes(&top).unwrap();

    // A word equal to its prime (limb 1 of c_0: prime q_1).
    let mut tampered = bytes.clone();
    packed::set_word(&mut tampered, header_len(2) + 8, &q, 1024, 1, 0, q[1]);
    match refused::<Ciphertext<_>>(c, &tampered) {
        RlweError::Poly(PolyError::CoefficientOutOfRange { limb: 1, index: 0, value, modulus }) => {
            assert_eq!((value, modulus), (q[1], q[1]));
        }
        other => panic!("{other:?}"),
    }
    // A level beyond the chain: three primes named where there are two.
    let mut tampered = bytes.clone();
    tampered[14..18].copy_from_slice(&3u32.to_le_bytes());
    assert!(mismatch(&refused::<Ciphertext<_>>(c, &tampered)));
    // A correction factor of 0, of t, and one not invertible modulo t (65537 is prime: none).
    for correction in [0, 65537, u64::MAX] {
        let mut tampered = bytes.clone();
        put_word(&mut tampered, header_len(2), correction);
        match refused::<Ciphertext<_>>(c, &tampered) {
            RlweError::Malformed { reason, .. } => assert!(reason.contains("correction"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
    // A lower level's prime count on top-level data: the header no longer matches.
    let mut tampered = bytes.clone();
    tampered[14..18].copy_from_slice(&1u32.to_le_bytes());
    assert!(mismatch(&refused::<Ciphertext<_>>(c, &tampered)));
    // A level-0 ciphertext whose body is cut to one polynomial: refused as malformed.
    let low = c.mod_switch_to_next(&top).unwrap();
    let low_bytes = c.ciphertext_to_bytes(&low).unwrap();
    let one_poly = header_len(1) + 8 + packed::poly_bytes(&q[..1], 1024);
    assert!(malformed(&refused::<Ciphertext<_>>(c, &low_bytes[..one_poly])));
    // A seeded ciphertext exists at the top level only.
    let seeded = c.encrypt_symmetric_with_seeds(&plain, &f.secret, &seed(6), &seed(7)).unwrap();
    let low_seeded = c.mod_switch_to_next(&c.expand(&seeded).unwrap()).unwrap();
    let mut tampered = c.ciphertext_to_bytes(&low_seeded).unwrap();
    tampered[9] = 2; // kind: seeded
    assert!(mismatch(&refused::<SeededCiphertext<_>>(c, &tampered)));
    // Truncated, and with trailing bytes.
    assert!(malformed(&refused::<Ciphertext<_>>(c, &bytes[..bytes.len() - 1])));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(malformed(&refused::<Ciphertext<_>>(c, &longer)));
    // Another object's bytes.
    assert!(malformed(&refused::<PublicKey<_>>(c, &bytes)));
    // Other parameters: the same ring with another t, and another ring.
    let other_t = BgvContext::new(CpuBackend, &small(257)).unwrap();
    assert!(mismatch(&refused_in(&other_t, &bytes)));
    let other_ring = BgvContext::new(CpuBackend, &Preset::Secure { log_degree: 12 }.build().unwrap()).unwrap();
    assert!(mismatch(&refused_in(&other_ring, &bytes)));
    // Keys: a word of the secret key over qP equal to its prime (the special prime).
    let mut secret = c.secret_key_to_bytes(&f.secret).unwrap();
    let key_header = header_len(2) + 4 + 8 + 1;
    let qp = [&q[..], f.params.special_moduli()].concat();
    packed::set_word(&mut secret, key_header + packed::poly_bytes(&q, 1024), &qp, 1024, 2, 0, qp[2]);
    assert!(matches!(
        refused::<SecretKey<_>>(c, &secret),
        RlweError::Poly(PolyError::CoefficientOutOfRange { limb: 2, index: 0, .. })
    ));
    let relin = c.relin_key_to_bytes(&f.relin).unwrap();
    assert!(malformed(&refused::<RelinKey<_>>(c, &relin[..relin.len() / 2])));
    let mut galois = c.galois_keys_to_bytes(&f.galois).unwrap();
    put_word(&mut galois, key_header, 2); // an even Galois element
    assert!(matches!(refused::<GaloisKeys<_>>(c, &galois), RlweError::InvalidGaloisElement { element: 2, .. }));
    // A plaintext coefficient equal to t.
    let mut tampered = c.plaintext_to_bytes(&plain).unwrap();
    packed::set_word(&mut tampered, header_len(2), &[65537], 1024, 0, 5, 65537);
    match refused::<Plaintext>(c, &tampered) {
        BgvError::PlaintextOutOfRange { index: 5, value: 65537, modulus: 65537 } => {}
        other => panic!("{other:?}"),
    }
    // A JSON string is read as its bytes (here too short), a number is no byte string, nor is
    // an array with an element above 255.
    match c.load::<Ciphertext<_>, _>(&mut serde_json::Deserializer::from_str("\"HEGPUBGV\"")) {
        Err(RlweError::Malformed { what: "ciphertext bytes", .. }) => {}
        other => panic!("{other:?}"),
    }
    match c.load::<Ciphertext<_>, _>(&mut serde_json::Deserializer::from_str("17")) {
        Err(BgvError::Malformed { what: "a BGV ciphertext", .. }) => {}
        other => panic!("{other:?}"),
    }
    match c.load::<Ciphertext<_>, _>(&mut serde_json::Deserializer::from_str("[1, 2, 300]")) {
        Err(BgvError::Malformed { what: "a BGV ciphertext", .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// `bytes` loaded as a ciphertext by `context` (of other parameters).
fn refused_in(context: &Context, bytes: &[u8]) -> BgvError {
    refused::<Ciphertext<_>>(context, bytes)
}

#[test]
fn serializing_an_object_of_other_parameters_fails() {
    let f = fixture();
    let other = BgvContext::new(CpuBackend, &small(257)).unwrap();
    let x = f.context.encrypt_with_seed(&f.encoder.encode(&[1]).unwrap(), &f.public, &seed(5)).unwrap();
    let error = serde_json::to_string(&other.serializable(&x)).unwrap_err();
    assert!(error.to_string().contains("belongs to different parameters"), "{error}");
    assert!(postcard::to_allocvec(&other.serializable(&x)).is_err());
}
