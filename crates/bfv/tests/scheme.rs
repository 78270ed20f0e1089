#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! End-to-end tests of the scheme on the CPU backend: encryption round trips, every
//! evaluation operation against the plaintext result, both variants and the transforms.

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvParameters, MulVariant, Preset};
use modarith::Modulus;
use poly::{CpuBackend, Seed, TransformKind};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

fn secure_4096(variant: MulVariant, transform: TransformKind) -> Arc<BfvParameters> {
    Preset::Secure { log_degree: 12 }.builder().unwrap().variant(variant).transform(transform).build().unwrap()
}

const VARIANTS: [MulVariant; 2] = [MulVariant::Hps, MulVariant::Behz];

#[test]
fn encrypt_decrypt_round_trips() {
    for variant in VARIANTS {
        for transform in TransformKind::ALL {
            let params = secure_4096(variant, transform);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let t = params.plaintext_modulus();
            let mut rng = StdRng::seed_from_u64(7);
            let values: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
            let pt = encoder.encode(&values).unwrap();
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let ct = context.encrypt_with_seed(&pt, &pk, &seed(3)).unwrap();
            assert_eq!(
                encoder.decode(&context.decrypt(&ct, &sk).unwrap()).unwrap(),
                values,
                "{variant:?} {transform:?}"
            );
            let budget = context.noise_budget(&ct, &sk).unwrap();
            assert!(budget > 20, "{budget}");
            let seeded = context.encrypt_symmetric_with_seeds(&pt, &sk, &seed(4), &seed(5)).unwrap();
            let ct = context.expand(&seeded).unwrap();
            assert_eq!(encoder.decode(&context.decrypt(&ct, &sk).unwrap()).unwrap(), values);
        }
    }
}

#[test]
fn multiplication_and_relinearization() {
    for variant in VARIANTS {
        for transform in [TransformKind::Ntt, TransformKind::Dgt] {
            let params = secure_4096(variant, transform);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let t = params.plaintext_modulus();
            let m = Modulus::new(t).unwrap();
            let mut rng = StdRng::seed_from_u64(8);
            let a: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
            let b: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let rk = context.relin_key_from_seed(&sk, &seed(6)).unwrap();
            let ca = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk, &seed(3)).unwrap();
            let cb = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &pk, &seed(4)).unwrap();
            let expected: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| m.mul(x, y)).collect();
            let product = context.mul(&ca, &cb).unwrap();
            assert_eq!(product.size(), 3);
            let fresh = context.noise_budget(&ca, &sk).unwrap();
            let after_mul = context.noise_budget(&product, &sk).unwrap();
            assert_eq!(
                encoder.decode(&context.decrypt(&product, &sk).unwrap()).unwrap(),
                expected,
                "{variant:?} {transform:?} size 3"
            );
            let relin = context.relinearize(&product, &rk).unwrap();
            let after_relin = context.noise_budget(&relin, &sk).unwrap();
            assert_eq!(
                encoder.decode(&context.decrypt(&relin, &sk).unwrap()).unwrap(),
                expected,
                "{variant:?} {transform:?}"
            );
            eprintln!(
                "{variant:?} {transform:?}: budget fresh {fresh}, after mul {after_mul}, after relin {after_relin}"
            );
        }
    }
}
