#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! End-to-end tests of the scheme on the CPU backend: encryption round trips, every
//! evaluation operation against the plaintext result, both variants and the transforms.

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvError, BfvParameters, MulVariant, Preset};
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

/// Slot-wise reference arithmetic modulo t.
struct Slots {
    m: Modulus,
}

impl Slots {
    fn add(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        a.iter().zip(b).map(|(&x, &y)| self.m.add(x, y)).collect()
    }
    fn sub(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        a.iter().zip(b).map(|(&x, &y)| self.m.sub(x, y)).collect()
    }
    fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        a.iter().zip(b).map(|(&x, &y)| self.m.mul(x, y)).collect()
    }
    fn neg(&self, a: &[u64]) -> Vec<u64> {
        a.iter().map(|&x| self.m.neg(x)).collect()
    }
}

#[test]
fn every_operation_matches_slot_arithmetic() {
    for variant in VARIANTS {
        for transform in [TransformKind::Ntt, TransformKind::HierarchicalDgt] {
            let params = secure_4096(variant, transform);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let t = params.plaintext_modulus();
            let slots = Slots { m: Modulus::new(t).unwrap() };
            let mut rng = StdRng::seed_from_u64(9);
            let mut random = || (0..4096).map(|_| rng.gen_range(0..t)).collect::<Vec<u64>>();
            let (a, b, c) = (random(), random(), random());
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
            let ca = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk, &seed(4)).unwrap();
            let cb = context.encrypt(&encoder.encode(&b).unwrap(), &pk).unwrap();
            let pc = encoder.encode(&c).unwrap();
            let decrypt =
                |ct: &bfv::Ciphertext<CpuBackend>| encoder.decode(&context.decrypt(ct, &sk).unwrap()).unwrap();
            let label = format!("{variant:?} {transform:?}");
            assert_eq!(decrypt(&context.add(&ca, &cb).unwrap()), slots.add(&a, &b), "{label} add");
            assert_eq!(decrypt(&context.sub(&ca, &cb).unwrap()), slots.sub(&a, &b), "{label} sub");
            assert_eq!(decrypt(&context.negate(&ca).unwrap()), slots.neg(&a), "{label} negate");
            assert_eq!(decrypt(&context.add_plain(&ca, &pc).unwrap()), slots.add(&a, &c), "{label} add_plain");
            assert_eq!(decrypt(&context.sub_plain(&ca, &pc).unwrap()), slots.sub(&a, &c), "{label} sub_plain");
            assert_eq!(decrypt(&context.mul_plain(&ca, &pc).unwrap()), slots.mul(&a, &c), "{label} mul_plain");
            let mut acc = context.duplicate(&ca).unwrap();
            context.add_assign(&mut acc, &cb).unwrap();
            assert_eq!(decrypt(&acc), slots.add(&a, &b), "{label} add_assign");
            let square = context.square(&ca).unwrap();
            assert_eq!(decrypt(&square), slots.mul(&a, &a), "{label} square");
            // Size-3 and size-2 ciphertexts combine.
            let product = context.mul(&ca, &cb).unwrap();
            let mixed = context.sub(&cb, &product).unwrap();
            assert_eq!(mixed.size(), 3);
            assert_eq!(decrypt(&mixed), slots.sub(&b, &slots.mul(&a, &b)), "{label} size 2 - size 3");
            let mut grown = context.duplicate(&ca).unwrap();
            context.add_assign(&mut grown, &product).unwrap();
            assert_eq!(grown.size(), 3);
            assert_eq!(decrypt(&grown), slots.add(&a, &slots.mul(&a, &b)), "{label} add_assign grows");
            let relin = context.square_relin(&ca, &rk).unwrap();
            assert_eq!(relin.size(), 2);
            assert_eq!(decrypt(&relin), slots.mul(&a, &a), "{label} square_relin");
            // The square equals the product with itself, bit for bit.
            assert_eq!(context.download(&square).unwrap(), context.download(&context.mul(&ca, &ca).unwrap()).unwrap());
        }
    }
}

/// `a * b mod (x^N + 1, t)` by the schoolbook rule.
fn negacyclic_mod_t(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0i128; n];
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            let product = i128::from(x) * i128::from(y);
            if i + j < n {
                out[i + j] += product;
            } else {
                out[i + j - n] -= product;
            }
        }
    }
    out.into_iter().map(|v| v.rem_euclid(i128::from(t)) as u64).collect()
}

#[test]
fn coefficient_encoding_with_small_t() {
    // GPU-FV's N = 2^11 set with t = 2 (Boolean circuits: add is XOR) and spog's t = 256.
    for (preset, t) in [(Preset::GpuFv { log_degree: 11 }, 2u64), (Preset::SpogBvma { log_degree: 11 }, 256)] {
        for variant in VARIANTS {
            let params = preset.builder().unwrap().allow_insecure(true).variant(variant).build().unwrap();
            assert_eq!(params.plaintext_modulus(), t);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = bfv::CoefficientEncoder::new(&params);
            let mut rng = StdRng::seed_from_u64(t);
            let n = params.degree();
            let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
            let ca = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk, &seed(4)).unwrap();
            let cb = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &pk, &seed(5)).unwrap();
            let decrypt =
                |ct: &bfv::Ciphertext<CpuBackend>| encoder.decode(&context.decrypt(ct, &sk).unwrap()).unwrap();
            let sum: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| (x + y) % t).collect();
            assert_eq!(decrypt(&context.add(&ca, &cb).unwrap()), sum);
            let product = context.mul_relin(&ca, &cb, &rk).unwrap();
            assert_eq!(decrypt(&product), negacyclic_mod_t(&a, &b, t), "{} {variant:?}", preset.name());
        }
    }
}

#[test]
fn hybrid_key_switching_with_several_special_primes() {
    // q = 4 x 40 bits; 1 special prime: 4 digits (SEAL); 2: two digits; 3: digits of 3 and 1;
    // 5 (more than L): one digit.
    for (special, digits) in [(1usize, 4usize), (2, 2), (3, 2), (5, 1)] {
        for variant in VARIANTS {
            let params = bfv::BfvParametersBuilder::new(4096)
                .ciphertext_moduli_bits(&[40; 4])
                .special_moduli_bits(&vec![41; special])
                .plaintext_modulus(bfv::params::batching_prime(20, 4096).unwrap())
                .variant(variant)
                .allow_insecure(true)
                .build()
                .unwrap();
            assert_eq!(params.digit_count(), digits);
            let context = BfvContext::new(CpuBackend, &params).unwrap();
            let encoder = BatchEncoder::new(&params).unwrap();
            let t = params.plaintext_modulus();
            let slots = Slots { m: Modulus::new(t).unwrap() };
            let mut rng = StdRng::seed_from_u64(10);
            let a: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
            let b: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
            let sk = context.secret_key_from_seed(&seed(1)).unwrap();
            let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
            let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
            assert_eq!(rk.digits().len(), digits);
            let ca = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk, &seed(4)).unwrap();
            let cb = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &pk, &seed(5)).unwrap();
            let product = context.mul(&ca, &cb).unwrap();
            let before = context.noise_budget(&product, &sk).unwrap();
            let relin = context.relinearize(&product, &rk).unwrap();
            let after = context.noise_budget(&relin, &sk).unwrap();
            assert_eq!(encoder.decode(&context.decrypt(&relin, &sk).unwrap()).unwrap(), slots.mul(&a, &b));
            // P >= each digit's product, or nearly (3 x 41 bits against 3 x 40): key switching
            // costs at most a bit or two.
            assert!(after + 2 >= before, "{special} special primes, {variant:?}: {before} -> {after}");
        }
    }
}

#[test]
fn same_seeds_give_the_same_keys_and_ciphertexts() {
    let params = secure_4096(MulVariant::Hps, TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let pt = encoder.encode(&[1, 2, 3]).unwrap();
    let run = || {
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let ct = context.encrypt_with_seed(&pt, &pk, &seed(3)).unwrap();
        let seeded = context.encrypt_symmetric_with_seeds(&pt, &sk, &seed(4), &seed(5)).unwrap();
        (context.download(&ct).unwrap(), context.download(&context.expand(&seeded).unwrap()).unwrap())
    };
    let (first, second) = (run(), run());
    assert_eq!(first, second);
    // Another encryption seed gives another ciphertext of the same plaintext.
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let other = context.download(&context.encrypt_with_seed(&pt, &pk, &seed(9)).unwrap()).unwrap();
    assert_ne!(other, first.0);
    // The seeded ciphertext's c_1 is the uniform sample of its public seed.
    let seeded = context.encrypt_symmetric_with_seeds(&pt, &sk, &seed(4), &seed(5)).unwrap();
    let c1 = poly::Poly::<poly::Coeff>::sample_uniform(params.ring_q(), seeded.public_seed(), 0).unwrap();
    assert_eq!(second.1[1], c1);
}

fn other_params() -> Arc<BfvParameters> {
    Preset::Secure { log_degree: 12 }.builder().unwrap().plaintext_modulus(65537).build().unwrap()
}

/// Parameters of another ring (another special prime): keys belong to the ring, so key
/// mismatches are tested with these.
fn other_ring_params() -> Arc<BfvParameters> {
    Preset::Secure { log_degree: 12 }.builder().unwrap().special_moduli_bits(&[30]).build().unwrap()
}

#[test]
fn mismatched_parameters_sizes_and_values_are_errors() {
    let params = secure_4096(MulVariant::Hps, TransformKind::Ntt);
    let other = other_params();
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let other_context = BfvContext::new(CpuBackend, &other).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
    let t_sk = other_context.secret_key_from_seed(&seed(1)).unwrap();
    let t_pk = other_context.public_key_from_seed(&t_sk, &seed(2)).unwrap();
    let ring_context = BfvContext::new(CpuBackend, &other_ring_params()).unwrap();
    let other_sk = ring_context.secret_key_from_seed(&seed(1)).unwrap();
    let other_pk = ring_context.public_key_from_seed(&other_sk, &seed(2)).unwrap();
    let other_rk = ring_context.relin_key_from_seed(&other_sk, &seed(3)).unwrap();
    let pt = encoder.encode(&[7, 8, 9]).unwrap();
    let other_pt = bfv::CoefficientEncoder::new(&other).encode(&[1]).unwrap();
    let ct = context.encrypt_with_seed(&pt, &pk, &seed(4)).unwrap();
    let other_ct = other_context.encrypt_with_seed(&other_pt, &t_pk, &seed(4)).unwrap();
    // Keys belong to the ring, not to t: the same secret decrypts under either t.
    let under_other_t = other_context.encrypt_with_seed(&other_pt, &pk, &seed(5)).unwrap();
    assert_eq!(other_context.decrypt(&under_other_t, &sk).unwrap(), other_pt);
    let snapshot = context.download(&ct).unwrap();

    let mismatch = |result: Result<bfv::Ciphertext<CpuBackend>, BfvError>, what: &str| match result {
        Err(BfvError::ParameterMismatch { what: w, .. }) => assert_eq!(w, what),
        other => panic!("expected a {what} mismatch, got {other:?}"),
    };
    mismatch(context.add(&ct, &other_ct), "ciphertext");
    mismatch(context.sub(&other_ct, &ct), "ciphertext");
    mismatch(context.mul(&ct, &other_ct), "ciphertext");
    mismatch(context.negate(&other_ct), "ciphertext");
    mismatch(context.add_plain(&ct, &other_pt), "plaintext");
    mismatch(context.mul_plain(&ct, &other_pt), "plaintext");
    mismatch(context.encrypt_with_seed(&other_pt, &pk, &seed(4)), "plaintext");
    mismatch(context.encrypt_with_seed(&pt, &other_pk, &seed(4)), "public key");
    mismatch(context.relinearize(&context.mul(&ct, &ct).unwrap(), &other_rk), "relinearization key");
    assert!(matches!(context.decrypt(&ct, &other_sk), Err(BfvError::ParameterMismatch { what: "secret key", .. })));
    assert!(matches!(
        context.noise_budget(&other_ct, &sk),
        Err(BfvError::ParameterMismatch { what: "ciphertext", .. })
    ));
    assert!(matches!(context.public_key_from_seed(&other_sk, &seed(2)), Err(BfvError::ParameterMismatch { .. })));
    let mut target = context.duplicate(&ct).unwrap();
    assert!(matches!(context.add_assign(&mut target, &other_ct), Err(BfvError::ParameterMismatch { .. })));
    assert_eq!(context.download(&target).unwrap(), snapshot, "a failed add_assign changed its input");
    // Equal parameters built twice are the same parameters.
    let twin = BfvContext::new(CpuBackend, &secure_4096(MulVariant::Hps, TransformKind::Ntt)).unwrap();
    assert_eq!(encoder.decode(&twin.decrypt(&ct, &sk).unwrap()).unwrap()[..3], [7, 8, 9]);

    // Sizes.
    let product = context.mul(&ct, &ct).unwrap();
    let size = |result: Result<bfv::Ciphertext<CpuBackend>, BfvError>, expected_actual: usize| match result {
        Err(BfvError::InvalidCiphertextSize { actual, .. }) => assert_eq!(actual, expected_actual),
        other => panic!("expected a size error, got {other:?}"),
    };
    size(context.mul(&product, &ct), 3);
    size(context.mul(&ct, &product), 3);
    size(context.square(&product), 3);
    size(context.relinearize(&ct, &rk), 2);
    let host = context.download(&ct).unwrap();
    size(context.upload(&host[..1]), 1);
    let relin = context.relinearize(&product, &rk).unwrap();
    size(context.relinearize(&relin, &rk), 2);
    assert_eq!(context.download(&ct).unwrap(), snapshot, "failed operations changed their input");
    // Uploading polynomials of another ring fails.
    let foreign = other_context.download(&other_ct).unwrap();
    assert!(context.upload(&foreign).is_ok(), "same ring, other t: the polynomials are valid");
    let small = Preset::SpogBpavr { log_degree: 12 }.build().unwrap();
    let small_context = BfvContext::new(CpuBackend, &small).unwrap();
    assert!(matches!(small_context.upload(&host), Err(BfvError::Poly(poly::PolyError::ContextMismatch))));
}

/// Plaintexts kept on the backend: decryption to one gives `decrypt`'s plaintext; encryption
/// (public and secret key) and the plaintext operations give the ciphertexts of the host
/// plaintext bit for bit; uploads round-trip; plaintexts, keys and ciphertexts of other
/// parameters are refused.
#[test]
fn resident_plaintexts_match_host_plaintexts() {
    for variant in VARIANTS {
        let params = secure_4096(variant, TransformKind::Ntt);
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(11);
        let values: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let pt = encoder.encode(&values).unwrap();
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let resident = context.upload_plaintext(&pt).unwrap();
        assert_eq!(resident.to_plaintext().unwrap(), pt);
        let ct = context.encrypt_with_seed(&resident, &pk, &seed(3)).unwrap();
        assert_eq!(
            context.download(&ct).unwrap(),
            context.download(&context.encrypt_with_seed(&pt, &pk, &seed(3)).unwrap()).unwrap()
        );
        // Plaintext operations with either kind of operand: the same ciphertexts.
        let operand: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let host_operand = encoder.encode(&operand).unwrap();
        let resident_operand = context.upload_plaintext(&host_operand).unwrap();
        let same = |a: bfv::Ciphertext<CpuBackend>, b: bfv::Ciphertext<CpuBackend>, what: &str| {
            assert_eq!(context.download(&a).unwrap(), context.download(&b).unwrap(), "{variant:?}: {what}");
        };
        same(
            context.add_plain(&ct, &host_operand).unwrap(),
            context.add_plain(&ct, &resident_operand).unwrap(),
            "add_plain",
        );
        same(
            context.sub_plain(&ct, &host_operand).unwrap(),
            context.sub_plain(&ct, &resident_operand).unwrap(),
            "sub_plain",
        );
        same(
            context.mul_plain(&ct, &host_operand).unwrap(),
            context.mul_plain(&ct, &resident_operand).unwrap(),
            "mul_plain",
        );
        same(
            context
                .expand(&context.encrypt_symmetric_with_seeds(&host_operand, &sk, &seed(5), &seed(6)).unwrap())
                .unwrap(),
            context
                .expand(&context.encrypt_symmetric_with_seeds(&resident_operand, &sk, &seed(5), &seed(6)).unwrap())
                .unwrap(),
            "encrypt_symmetric",
        );
        let decrypted = context.decrypt_resident(&ct, &sk).unwrap();
        assert_eq!(decrypted.to_plaintext().unwrap(), context.decrypt(&ct, &sk).unwrap());
        assert_eq!(encoder.decode(&decrypted.to_plaintext().unwrap()).unwrap(), values, "{variant:?}");

        let other = other_params();
        let other_context = BfvContext::new(CpuBackend, &other).unwrap();
        let ring_context = BfvContext::new(CpuBackend, &other_ring_params()).unwrap();
        let other_sk = ring_context.secret_key_from_seed(&seed(1)).unwrap();
        let other_pk = ring_context.public_key_from_seed(&other_sk, &seed(2)).unwrap();
        let other_pt = bfv::CoefficientEncoder::new(&other).encode(&[1]).unwrap();
        let other_resident = other_context.upload_plaintext(&other_pt).unwrap();
        let mismatch = |what: &str, result: Result<(), BfvError>| match result {
            Err(BfvError::ParameterMismatch { what: w, .. }) => assert_eq!(w, what),
            other => panic!("expected a {what} mismatch, got {other:?}"),
        };
        mismatch("plaintext", context.upload_plaintext(&other_pt).map(drop));
        mismatch("plaintext", context.encrypt_with_seed(&other_resident, &pk, &seed(3)).map(drop));
        mismatch("public key", context.encrypt_with_seed(&resident, &other_pk, &seed(3)).map(drop));
        mismatch("secret key", context.decrypt_resident(&ct, &other_sk).map(drop));
        mismatch("plaintext", context.add_plain(&ct, &other_resident).map(drop));
        mismatch("plaintext", context.mul_plain(&ct, &other_resident).map(drop));
        let product = context.mul(&ct, &ct).unwrap();
        assert!(context.decrypt_resident(&product, &sk).is_ok(), "size 3 decrypts");
    }
}

/// The batch encoder with its transform on the backend: the same plaintext as `encode`, the
/// same slots as `decode`, a whole encode-encrypt-decrypt-decode pipeline without host
/// plaintexts, and typed errors for bad values, other parameters and a `t` without batching.
#[test]
fn batch_encoding_on_the_backend_matches_the_host_encoder() {
    for transform in TransformKind::ALL {
        let params = secure_4096(MulVariant::Behz, transform);
        let context = BfvContext::new(CpuBackend, &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let mut rng = StdRng::seed_from_u64(13);
        for count in [0usize, 1, 100, 4096] {
            let values: Vec<u64> = (0..count).map(|_| rng.gen_range(0..t)).collect();
            let resident = encoder.encode_resident(&context, &values).unwrap();
            let host = encoder.encode(&values).unwrap();
            assert_eq!(resident.to_plaintext().unwrap(), host, "{transform:?}, {count} values");
            let mut padded = values.clone();
            padded.resize(4096, 0);
            assert_eq!(encoder.decode_resident(&context, &resident).unwrap(), padded);
            assert_eq!(encoder.decode_resident(&context, &context.upload_plaintext(&host).unwrap()).unwrap(), padded);
        }
        // Encode, encrypt, multiply, decrypt and decode, the plaintexts never on the host.
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
        let a: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let b: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let ca = context.encrypt_with_seed(&encoder.encode_resident(&context, &a).unwrap(), &pk, &seed(4)).unwrap();
        let cb = context.encrypt_with_seed(&encoder.encode_resident(&context, &b).unwrap(), &pk, &seed(5)).unwrap();
        let product = context.mul_relin(&ca, &cb, &rk).unwrap();
        let slots = encoder.decode_resident(&context, &context.decrypt_resident(&product, &sk).unwrap()).unwrap();
        let expected: Vec<u64> =
            a.iter().zip(&b).map(|(&x, &y)| ((u128::from(x) * u128::from(y)) % u128::from(t)) as u64).collect();
        assert_eq!(slots, expected, "{transform:?}");
    }
    let params = secure_4096(MulVariant::Hps, TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    assert!(matches!(
        encoder.encode_resident(&context, &[0; 4097]),
        Err(BfvError::TooManyValues { max: 4096, actual: 4097, .. })
    ));
    assert!(matches!(encoder.encode_resident(&context, &[1, t]), Err(BfvError::PlaintextOutOfRange { index: 1, .. })));
    let other = other_params();
    let other_context = BfvContext::new(CpuBackend, &other).unwrap();
    assert!(matches!(
        encoder.encode_resident(&other_context, &[1]),
        Err(BfvError::ParameterMismatch { what: "batch encoder", .. })
    ));
    let other_resident =
        other_context.upload_plaintext(&bfv::CoefficientEncoder::new(&other).encode(&[1]).unwrap()).unwrap();
    assert!(matches!(
        encoder.decode_resident(&context, &other_resident),
        Err(BfvError::ParameterMismatch { what: "plaintext", .. })
    ));
    // t = 2 has no batching: the context has no plaintext ring, and the encoder cannot be made.
    let boolean = Preset::Secure { log_degree: 12 }.builder().unwrap().plaintext_modulus(2).build().unwrap();
    assert!(matches!(BatchEncoder::new(&boolean), Err(BfvError::BatchingUnsupported { .. })));
}

#[test]
fn zeroize_clears_a_polynomial() {
    use bfv::rlwe::RlweBackend;
    let params = secure_4096(MulVariant::Hps, TransformKind::Ntt);
    let mut p = poly::Poly::<poly::Coeff>::sample_uniform(params.ring_q(), &seed(1), 0).unwrap();
    assert!(p.as_slice().iter().any(|&v| v != 0));
    CpuBackend.zeroize(&mut p).unwrap();
    assert!(p.as_slice().iter().all(|&v| v == 0));
    assert_eq!(p.as_slice().len(), params.ring_q().poly_len());
}

#[test]
fn ciphertexts_travel_as_bytes() {
    let params = secure_4096(MulVariant::Behz, TransformKind::Dgt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let pt = encoder.encode(&[11, 22, 33]).unwrap();
    let ct = context.encrypt_with_seed(&pt, &pk, &seed(3)).unwrap();
    let product = context.mul(&ct, &ct).unwrap();
    for original in [&ct, &product] {
        let bytes = context.ciphertext_to_bytes(original).unwrap();
        let back = context.ciphertext_from_bytes(&bytes).unwrap();
        assert_eq!(context.download(&back).unwrap(), context.download(original).unwrap());
    }
    let seeded = context.encrypt_symmetric_with_seeds(&pt, &sk, &seed(4), &seed(5)).unwrap();
    let seeded_bytes = context.seeded_to_bytes(&seeded).unwrap();
    let full_bytes = context.ciphertext_to_bytes(&context.expand(&seeded).unwrap()).unwrap();
    assert!(seeded_bytes.len() < full_bytes.len() / 2 + 100, "{} vs {}", seeded_bytes.len(), full_bytes.len());
    let back = context.expand(&context.seeded_from_bytes(&seeded_bytes).unwrap()).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&back, &sk).unwrap()).unwrap()[..3], [11, 22, 33]);
    assert_eq!(context.ciphertext_to_bytes(&back).unwrap(), full_bytes);

    // Malformed input: errors, never panics.
    let bytes = context.ciphertext_to_bytes(&ct).unwrap();
    let malformed = |b: &[u8]| matches!(context.ciphertext_from_bytes(b), Err(BfvError::Malformed { .. }));
    assert!(malformed(&bytes[..bytes.len() - 1]));
    assert!(malformed(&[bytes.as_slice(), &[0]].concat()));
    assert!(malformed(b"not a ciphertext"));
    assert!(malformed(&[]));
    assert!(malformed(&seeded_bytes), "a seeded encoding is not a full ciphertext");
    let mut huge = bytes.clone();
    let count_offset = 8 + 1 + 1 + 4 + 4 + 8 * params.ciphertext_moduli().len() + 8;
    huge[count_offset..count_offset + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(malformed(&huge));
    let mut not_canonical = bytes.clone();
    let first_word = count_offset + 4;
    not_canonical[first_word..first_word + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        context.ciphertext_from_bytes(&not_canonical),
        Err(BfvError::Poly(poly::PolyError::CoefficientOutOfRange { .. }))
    ));
    let other = BfvContext::new(CpuBackend, &other_params()).unwrap();
    assert!(matches!(other.ciphertext_from_bytes(&bytes), Err(BfvError::ParameterMismatch { .. })));
    assert!(matches!(other.seeded_from_bytes(&seeded_bytes), Err(BfvError::ParameterMismatch { .. })));
}
