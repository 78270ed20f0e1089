//! Prepared plaintexts (`BgvContext::prepare_plain`): products by them are the products by the
//! plaintexts they were prepared from (words, level and noise estimate), at the top level and
//! below it, for general and constant plaintexts, on both ring kinds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext, BgvError, CoefficientEncoder, Plaintext, Preset};
use poly::CpuBackend;
use rand::{Rng, SeedableRng, rngs::StdRng};

#[test]
fn prepared_products_are_the_plain_products() {
    let sets =
        [Preset::Secure { log_degree: 13 }.build().unwrap(), common::phi_m::params(1705, &[55, 45, 45], &[56], 257)];
    for params in &sets {
        let context = BgvContext::new(CpuBackend, params).unwrap();
        let encoder = CoefficientEncoder::new(params);
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(5);
        let mut random =
            || encoder.encode(&(0..params.degree()).map(|_| rng.gen_range(0..t)).collect::<Vec<_>>()).unwrap();
        let sk = context.secret_key_from_seed(&common::seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &common::seed(2)).unwrap();
        let ct = context.encrypt_with_seed(&random(), &pk, &common::seed(3)).unwrap();
        let lower = context.mod_switch_to_next(&ct).unwrap();
        for plain in [random(), Plaintext::constant(params, 3).unwrap()] {
            let prepared = context.prepare_plain(&plain).unwrap();
            for (what, input) in [("top level", &ct), ("level below", &lower)] {
                let want = context.mul_plain(input, &plain).unwrap();
                let got = context.mul_plain_prepared(input, &prepared).unwrap();
                assert_eq!(context.download(&got).unwrap(), context.download(&want).unwrap(), "{what}");
                assert_eq!(got.level(), want.level(), "{what}");
                assert_eq!(got.state(), want.state(), "{what}");
                assert_eq!(got.state().estimated_noise_bits(), want.state().estimated_noise_bits(), "{what}");
            }
        }
    }
    let other = Preset::Secure { log_degree: 12 }.build().unwrap();
    let context = BgvContext::new(CpuBackend, &sets[0]).unwrap();
    let plain = BatchEncoder::new(&other).unwrap().encode(&[1, 2, 3]).unwrap();
    assert!(matches!(context.prepare_plain(&plain), Err(BgvError::ParameterMismatch { .. })));
}
