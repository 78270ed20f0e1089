//! The API every scheme shares, under BGV and BFV on the CPU, against plaintext arithmetic
//! (bodies in `common/api.rs`), and BGV's automatic modulus switching, which refuses to
//! multiply past the last level.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext, BgvError, ModSwitching};
use common::api::api_session;
use poly::CpuBackend;

#[test]
fn bgv_api_on_the_cpu() {
    let params = common::small_params(12, &[55, 55, 55], &[58], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    api_session(&context, 1);
}

#[test]
fn bfv_api_on_the_cpu() {
    let params = common::switching::bfv_twin(&common::small_params(12, &[55, 55, 55], &[58], 65537));
    let context = bfv::BfvContext::new(CpuBackend, &params).unwrap();
    api_session(&context, 2);
}

/// BFV parameters over a BGV set's core are the builder's with the same primes; over `Phi_m`
/// and for a `t` the builder refuses, the same typed errors.
#[test]
fn bfv_parameters_from_a_bgv_core() {
    let bgv = common::small_params(12, &[55, 55, 55], &[58], 65537);
    for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
        let from_core = bfv::BfvParameters::from_core(bgv.core(), 65537, variant).unwrap();
        let built = bfv::BfvParametersBuilder::new(bgv.degree())
            .ciphertext_moduli(bgv.ciphertext_moduli())
            .special_moduli(bgv.special_moduli())
            .plaintext_modulus(65537)
            .variant(variant)
            .allow_insecure(true)
            .build()
            .unwrap();
        assert_eq!(*from_core, *built);
        assert_eq!(from_core.multiplication_tables(), built.multiplication_tables());
    }
    assert!(matches!(
        bfv::BfvParameters::from_core(bgv.core(), 1, bfv::MulVariant::Hps),
        Err(BgvError::InvalidParameter { name: "plaintext modulus t", .. })
    ));
    let cyclotomic =
        common::with_moduli(bgv_encrypt::BgvParametersBuilder::new_cyclotomic(257), &[50, 50], &[55], 65537);
    assert!(matches!(
        bfv::BfvParameters::from_core(cyclotomic.core(), 65537, bfv::MulVariant::Hps),
        Err(BgvError::InvalidParameter { name: "m", .. })
    ));
}

/// Squaring again and again under the default (automatic) switching: every power decrypts
/// right while levels last, then the next squaring is refused with a typed error, never
/// decrypted to garbage. A product by a general plaintext is switched down before the next
/// product; one by a constant is not.
#[test]
fn automatic_switching_never_multiplies_past_the_last_level() {
    let params = common::small_params(12, &[60, 45, 45], &[61], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let k = common::keys(&context);
    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    let x: Vec<u64> = (0..params.degree() as u64).map(|i| (i * 7 + 3) % t).collect();
    let mut ct = context.encrypt(&encoder.encode(&x).unwrap(), &k.public).unwrap();
    let mut want = x.clone();
    let mut squarings = 0;
    loop {
        match context.square_relin(&ct, &k.relin) {
            Ok(next) => {
                ct = next;
                want = want.iter().map(|&v| (u128::from(v) * u128::from(v) % u128::from(t)) as u64).collect();
                squarings += 1;
                let got = encoder.decode(&context.decrypt(&ct, &k.secret).unwrap()).unwrap();
                assert_eq!(got, want, "after {squarings} squarings, level {}", ct.level());
            }
            Err(BgvError::ModulusChainExhausted { operation: "squaring" }) => break,
            Err(other) => panic!("unexpected error {other}"),
        }
        assert!(squarings < 10);
    }
    // Three primes: the fresh level and one per switch, each squaring after the first at a
    // level one lower.
    assert_eq!((squarings, ct.level()), (3, 0));
    assert!(context.noise_budget(&ct, &k.secret).unwrap() > 0);
    // Manual mode multiplies anyway, at the caller's risk.
    let manual = BgvContext::new(CpuBackend, &params).unwrap().with_mod_switching(ModSwitching::Manual);
    assert!(manual.square_relin(&ct, &k.relin).is_ok());

    // Plaintext products: a general plaintext counts as a product, a constant does not.
    let fresh = context.encrypt(&encoder.encode(&x).unwrap(), &k.public).unwrap();
    let top = fresh.level();
    let general = context.mul_plain(&fresh, &encoder.encode(&x).unwrap()).unwrap();
    assert!(general.state().is_unswitched_product());
    assert_eq!(context.square_relin(&general, &k.relin).unwrap().level(), top - 1);
    // The flag travels in the bytes (version 3), so a loaded product is switched too.
    let bytes = context.to_bytes(&general).unwrap();
    let reloaded: bgv_encrypt::Ciphertext<_> = context.load_bytes(&bytes).unwrap();
    assert!(reloaded.state().is_unswitched_product());
    assert_eq!(context.square_relin(&reloaded, &k.relin).unwrap().level(), top - 1);
    assert_eq!(context.to_bytes(&reloaded).unwrap(), bytes);
    let constant = context.mul_plain(&fresh, &encoder.encode(&vec![3; params.degree()]).unwrap()).unwrap();
    assert!(!constant.state().is_unswitched_product());
    assert_eq!(context.square_relin(&constant, &k.relin).unwrap().level(), top);
}
