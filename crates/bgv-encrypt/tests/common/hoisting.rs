//! Hoisted automorphisms through the core, generic over the backend: the words of each, for
//! the GPU = CPU comparison, each checked to decrypt to the automorphism of the message.

use std::sync::Arc;

use bgv_encrypt::{BgvBackend, BgvContext, BgvParameters, Plaintext};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::seed;

/// Encrypts a fixed message, hoists its `c_1` once and applies each of `elements` from the
/// hoisted digits (`apply_galois_hoisted_eval`); checks each against `automorphism` of the
/// message (the plaintext ring's, given by the caller) and returns the words of every result.
pub fn hoisted_automorphisms<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    elements: &[u64],
    automorphism: impl Fn(&[u64], u64) -> Vec<u64>,
) -> Vec<Vec<u64>> {
    let context = BgvContext::new(backend.clone(), params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let keys = context.galois_keys_from_seed(&secret, elements, &seed(3)).unwrap();
    let t = params.plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(5);
    let message: Vec<u64> = (0..params.degree()).map(|_| rng.gen_range(0..t)).collect();
    let plain = Plaintext::from_coefficients(params, &message).unwrap();
    let ct = context.encrypt_with_seed(&plain, &public, &seed(6)).unwrap();
    let core = context.core();
    let hoisted = core.hoist_eval(&ct.polys()[1], ct.level()).unwrap();
    assert_eq!(hoisted.level(), ct.level());
    let mut out = Vec::new();
    for &g in elements {
        let key = keys.switching_key(g).unwrap();
        let pair = core.apply_galois_hoisted_eval(&ct.polys()[0], &hoisted, g, key).unwrap();
        for poly in &pair {
            out.push(backend.download(poly).unwrap().as_slice().to_vec());
        }
        let rotated =
            context.ciphertext_from_polys(pair.into(), ct.level(), ct.state().correction_factor(), None).unwrap();
        let got = context.decrypt(&rotated, &secret).unwrap();
        assert_eq!(got.coefficients(), automorphism(&message, g), "g = {g}");
    }
    out
}

/// `a(x) -> a(x^g)` modulo `x^N + 1` and `t`.
pub fn negacyclic_automorphism(a: &[u64], g: u64, t: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (j, &c) in a.iter().enumerate() {
        let k = (j as u128 * u128::from(g) % (2 * n as u128)) as usize;
        if k < n {
            out[k] = (out[k] + c) % t;
        } else {
            out[k - n] = (out[k - n] + t - c % t) % t;
        }
    }
    out
}
