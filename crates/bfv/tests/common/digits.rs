//! Digit removal under BFV (`bfv::digit_removal::DigitRemoval`, the rounds of
//! `rlwe::digit_removal`) on any backend: slots holding constants `y` of `Z_{31^3}` over
//! `x^1024 + 1` (16 slots of degree 64) decrypt to `floor(y / 31^2)` in `Z_31` after two rounds
//! (polynomials of degree 61 and 31); the rounds refuse other contexts and impossible digit
//! counts. Used by `digit_removal.rs` (CPU) and `gpu.rs` (the GPU's words against the CPU's).

use std::sync::Arc;

use bfv::digit_removal::DigitRemoval;
use bfv::{BfvBackend, BfvContext, BfvError, BfvParameters, BfvParametersBuilder, MulVariant};
use poly::{Coeff, Poly, Seed};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::Evaluator;
use rlwe::extension_slots::ExtensionSlots;

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

fn params(variant: MulVariant, t: u64, primes: usize) -> Arc<BfvParameters> {
    BfvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&vec![50; primes])
        .special_moduli_bits(&[55])
        .plaintext_modulus(t)
        .variant(variant)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// The slot element `y` (a constant of the slot's ring).
fn constant_slot(slots: &ExtensionSlots, y: u64) -> Vec<u64> {
    (0..slots.slot_degree()).map(|k| if k == 0 { y } else { 0 }).collect()
}

/// Two digits removed from slots holding random constants of `Z_{31^3}`, checked against the
/// integers; returns the result's polynomials.
pub fn two_digits_removed<B: BfvBackend>(backend: B, variant: MulVariant) -> Vec<Poly<Coeff>> {
    let (p, digits) = (31u64, 2u32);
    let params = params(variant, p.pow(3), 9);
    let slots = ExtensionSlots::for_params(params.as_ref()).unwrap();
    assert_eq!((slots.slot_count(), slots.slot_degree()), (16, 64));
    let context = BfvContext::new(backend.clone(), &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let values: Vec<u64> = (0..slots.slot_count()).map(|_| rng.gen_range(0..p.pow(3))).collect();
    let encoded: Vec<Vec<u64>> = values.iter().map(|&y| constant_slot(&slots, y)).collect();
    let plaintext = slots.encode_plaintext(&params, &encoded).unwrap();
    let ct = context.encrypt_with_seed(&plaintext, &public, &seed(4)).unwrap();

    let removal = DigitRemoval::new(&context, p, digits).unwrap();
    assert_eq!((removal.prime(), removal.target().params().plaintext_modulus()), (p, p));
    let result = removal.apply(&context, &ct, &relin).unwrap();
    let target = removal.target();
    let target_slots = ExtensionSlots::for_params(target.params().as_ref()).unwrap();
    let got = target_slots.decode_plaintext(&target.decrypt_checked(&result, &secret).unwrap()).unwrap();
    let want: Vec<Vec<u64>> = values.iter().map(|&y| constant_slot(&target_slots, y / p.pow(digits))).collect();
    assert_eq!(got, want, "{variant:?}");
    assert!(target.noise_budget(&result, &secret).unwrap() > 0, "{variant:?}");

    // Another context (another core, the same t) is refused before any work.
    let other = BfvContext::new(backend, &self::params(variant, p.pow(3), 8)).unwrap();
    assert!(matches!(removal.apply(&other, &ct, &relin), Err(BfvError::ParameterMismatch { .. })));
    for (prime, count) in [(31, 3), (3, 1), (31, 0)] {
        assert!(DigitRemoval::new(&context, prime, count).is_err(), "p = {prime}, {count} digits");
    }
    target.download(&result).unwrap()
}
