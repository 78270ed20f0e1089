//! Prepared plaintexts (`BfvContext::prepare_plain`): products by them are the products by the
//! plaintexts they were prepared from, word for word, at the top level and below it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bfv::{BatchEncoder, BfvContext, BfvError, MulVariant, Preset};
use poly::{CpuBackend, Seed};
use rand::{Rng, SeedableRng, rngs::StdRng};
use rlwe::Evaluator;

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

#[test]
fn prepared_products_are_the_plain_products() {
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        let params = Preset::Secure { log_degree: 13 }.builder().unwrap().variant(variant).build().unwrap();
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(3);
        let mut random =
            || encoder.encode(&(0..params.degree()).map(|_| rng.gen_range(0..t)).collect::<Vec<_>>()).unwrap();
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let ct = context.encrypt_with_seed(&random(), &pk, &seed(3)).unwrap();
        let plain = random();
        let prepared = Evaluator::prepare_plain(&context, &plain).unwrap();
        assert_eq!(prepared.params(), &params);
        let want = context.mul_plain(&ct, &plain).unwrap();
        let got = Evaluator::mul_plain_prepared(&context, &ct, &prepared).unwrap();
        assert_eq!(context.download(&got).unwrap(), context.download(&want).unwrap(), "{variant:?}, top level");
        // Below the top level the prepared limbs are dropped.
        let lower = context.mod_switch_to_next(&ct).unwrap();
        let want = context.mul_plain(&lower, &plain).unwrap();
        let got = Evaluator::mul_plain_prepared(&context, &lower, &prepared).unwrap();
        assert_eq!(context.download(&got).unwrap(), context.download(&want).unwrap(), "{variant:?}, level below");
        // Additions take it too.
        let want = context.add_plain(&ct, &plain).unwrap();
        let got = context.add_plain(&ct, &prepared).unwrap();
        assert_eq!(context.download(&got).unwrap(), context.download(&want).unwrap(), "{variant:?}, addition");
    }
    // A plaintext of other parameters is refused.
    let params = Preset::Secure { log_degree: 12 }.build().unwrap();
    let other = Preset::Secure { log_degree: 13 }.build().unwrap();
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let plain = BatchEncoder::new(&other).unwrap().encode(&[1, 2, 3]).unwrap();
    assert!(matches!(context.prepare_plain(&plain), Err(BfvError::ParameterMismatch { .. })));
}
