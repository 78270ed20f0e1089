//! serde loading of every BFV and BGV object (parameters, plaintext, ciphertext, seeded
//! ciphertext, public, relinearization, Galois and secret keys) from postcard and JSON, with
//! the context's `DeserializeSeed`, on raw or mutated-valid input: errors are fine, panics
//! and aborts are not; an object that loads serializes again, and that loads to the same
//! byte encoding.
//!
//! The first byte picks the scheme (bit 1), the format (bit 0) and the object (the rest,
//! modulo 9); the remaining bytes are the input (`with_input_bytes`, on that object's valid
//! serialized form; for JSON the forms of the plaintext, ciphertexts and keys are
//! their first bytes only, see
//! `serialized_forms`). Parameters are built only up to `N = 4096`, and input bytes that built
//! parameters once are not built again (the build is deterministic and takes milliseconds).
#![no_main]

use libfuzzer_sys::fuzz_target;
use poly::CpuBackend;
use rlwe::serde_support::{Codec, ContextSeed, Serializable};
use serde::de::DeserializeSeed;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let json = selector & 1 == 1;
    let bgv = selector & 2 == 2;
    let object = usize::from(selector >> 2) % hegpu_fuzz::SERDE_OBJECTS;
    let valid = &hegpu_fuzz::serde_fixture().valid[usize::from(bgv)][usize::from(json)][object..=object];
    hegpu_fuzz::with_input_bytes(rest, valid, |bytes| {
        if bgv { check_bgv(object, json, bytes) } else { check_bfv(object, json, bytes) }
    });
});

/// `T` loaded from `bytes` with the seed of `context`; on success serialized again, loaded
/// again, and compared by byte encoding.
fn round_trip<C: Codec<T>, T>(context: &C, json: bool, bytes: &[u8]) {
    let Some(value) = load::<C, T>(context, json, bytes) else { return };
    let encoding = context.encode(&value).unwrap_or_else(|_| panic!("{} loaded but does not encode", C::WHAT));
    let view = Serializable::new(context, &value);
    let again = if json { serde_json::to_vec(&view).unwrap() } else { postcard::to_allocvec(&view).unwrap() };
    let back = load::<C, T>(context, json, &again).unwrap_or_else(|| panic!("{} does not load again", C::WHAT));
    assert!(context.encode(&back).unwrap_or_default() == encoding, "{} changed on a round trip", C::WHAT);
}

fn load<C: Codec<T>, T>(context: &C, json: bool, bytes: &[u8]) -> Option<T> {
    let seed = ContextSeed::<C, T>::new(context);
    if json {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let value = seed.deserialize(&mut deserializer).ok()?;
        deserializer.end().ok()?;
        Some(value)
    } else {
        seed.deserialize(&mut postcard::Deserializer::from_bytes(bytes)).ok()
    }
}

/// The degree the input's parameters name, when it parses as parameters (with the field
/// order of both schemes' parameters up to `degree`): larger rings take seconds to build.
fn declared_degree(json: bool, bytes: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Degree {
        degree: u64,
    }
    if json {
        serde_json::from_slice::<serde_json::Value>(bytes).ok()?.get("degree")?.as_u64()
    } else {
        postcard::take_from_bytes::<Degree>(bytes).ok().map(|(d, _)| d.degree)
    }
}

thread_local! {
    /// Hashes of the inputs that built parameters (bounded: cleared when full).
    static BUILT: std::cell::RefCell<std::collections::HashSet<u64>> = Default::default();
}

fn input_key(scheme: u8, json: bool, bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write_u8(scheme);
    hasher.write_u8(u8::from(json));
    hasher.write(bytes);
    hasher.finish()
}

/// Parameters load (rebuilt through the builder) within `N <= 4096`, and round-trip.
macro_rules! parameters {
    ($params:ty, $scheme:expr, $json:expr, $bytes:expr) => {{
        let (json, bytes) = ($json, $bytes);
        if declared_degree(json, bytes).is_some_and(|degree| degree > 4096) {
            return;
        }
        let key = input_key($scheme, json, bytes);
        if BUILT.with_borrow(|built| built.contains(&key)) {
            return;
        }
        let loaded = if json {
            <$params>::load(&mut serde_json::Deserializer::from_slice(bytes))
        } else {
            <$params>::load(&mut postcard::Deserializer::from_bytes(bytes))
        };
        if let Ok(params) = loaded {
            let again =
                if json { serde_json::to_vec(&*params).unwrap() } else { postcard::to_allocvec(&*params).unwrap() };
            let back = if json {
                <$params>::load(&mut serde_json::Deserializer::from_slice(&again))
            } else {
                <$params>::load(&mut postcard::Deserializer::from_bytes(&again))
            };
            assert!(back.is_ok_and(|back| *back == *params), "parameters changed on a round trip");
            BUILT.with_borrow_mut(|built| {
                if built.len() >= 1 << 16 {
                    built.clear();
                }
                built.insert(key);
            });
        }
    }};
}

fn check_bfv(object: usize, json: bool, bytes: &[u8]) {
    let c = &hegpu_fuzz::bfv_fixture().context;
    type B = CpuBackend;
    match object {
        0 => parameters!(bfv::BfvParameters, 0, json, bytes),
        1 => round_trip::<_, bfv::Plaintext>(c, json, bytes),
        2 | 3 => round_trip::<_, bfv::Ciphertext<B>>(c, json, bytes),
        4 => round_trip::<_, bfv::SeededCiphertext<B>>(c, json, bytes),
        5 => round_trip::<_, bfv::PublicKey<B>>(c, json, bytes),
        6 => round_trip::<_, bfv::RelinKey<B>>(c, json, bytes),
        7 => round_trip::<_, bfv::GaloisKeys<B>>(c, json, bytes),
        _ => round_trip::<_, bfv::SecretKey<B>>(c, json, bytes),
    }
}

fn check_bgv(object: usize, json: bool, bytes: &[u8]) {
    let c = &hegpu_fuzz::bgv_fixture().context;
    type B = CpuBackend;
    match object {
        0 => parameters!(bgv_encrypt::BgvParameters, 1, json, bytes),
        1 => round_trip::<_, bgv_encrypt::Plaintext>(c, json, bytes),
        2 | 3 => round_trip::<_, bgv_encrypt::Ciphertext<B>>(c, json, bytes),
        4 => round_trip::<_, bgv_encrypt::SeededCiphertext<B>>(c, json, bytes),
        5 => round_trip::<_, bgv_encrypt::PublicKey<B>>(c, json, bytes),
        6 => round_trip::<_, bgv_encrypt::RelinKey<B>>(c, json, bytes),
        7 => round_trip::<_, bgv_encrypt::GaloisKeys<B>>(c, json, bytes),
        _ => round_trip::<_, bgv_encrypt::SecretKey<B>>(c, json, bytes),
    }
}
