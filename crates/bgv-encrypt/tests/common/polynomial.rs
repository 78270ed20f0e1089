//! Polynomials evaluated on ciphertexts (`Evaluator::evaluate_polynomial`, Paterson-Stockmeyer),
//! generic over the scheme and the backend: each checked slot by slot against the plaintext
//! polynomial (Horner's rule modulo `t`); the words of every result returned for the GPU = CPU
//! comparison.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use poly::Seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::polynomial_eval::PolynomialPlan;
use rlwe::{Evaluator, RlweBackend, SchemeParameters, SlotEncoding};

use super::api::random_slots;

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// The polynomials of the session over `Z_t`: a constant, linear, quadratic, degree 7 and 15
/// (a power of two minus one: baby and giant steps meet), 20 with zeros among its
/// coefficients, and `x^16` alone (one squaring chain, no linear combination).
pub fn session_polynomials(t: u64, rng: &mut StdRng) -> Vec<Vec<u64>> {
    let mut random = |degree: usize, zeros: bool| -> Vec<u64> {
        (0..=degree).map(|i| if zeros && i % 3 == 1 { 0 } else { rng.gen_range(1..t) }).collect()
    };
    let mut monomial = vec![0u64; 17];
    monomial[16] = 1;
    vec![
        vec![t - 5],
        random(1, false),
        random(2, false),
        random(7, false),
        random(15, false),
        random(20, true),
        monomial,
    ]
}

/// Each of [`session_polynomials`] evaluated on an encryption of random slots; checks every
/// slot and the products' depth against the plan (BGV: the levels spent); returns the words.
pub fn polynomial_session<B, P, S>(scheme: &S, rng_seed: u64) -> Vec<Vec<u64>>
where
    B: RlweBackend,
    P: SchemeParameters,
    S: Evaluator<B, Ciphertext = rlwe::Ciphertext<P, B>, Plaintext = rlwe::Plaintext<P>>,
{
    let core = scheme.core();
    let backend = core.backend();
    let degree = core.params().degree();
    let secret = core.secret_key_from_seed(&seed(1)).unwrap();
    let public = core.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = core.relinearization_key_from_seed(&secret, &seed(3)).unwrap();
    let encoder = scheme.batch_encoder().unwrap();
    let t = scheme.plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let x = random_slots(&mut rng, degree, t);
    let cx = scheme.encrypt_with_seed(&encoder.encode_slots(&x).unwrap(), &public, &seed(4)).unwrap();
    let mut out = Vec::new();
    for coefficients in session_polynomials(t, &mut rng) {
        let plan = PolynomialPlan::new(&coefficients, t).unwrap();
        let result = scheme.evaluate_polynomial(&cx, &coefficients, &relin).unwrap();
        let got = encoder.decode_slots(&scheme.decrypt_checked(&result, &secret).unwrap()).unwrap();
        let want: Vec<u64> = x.iter().map(|&v| plan.evaluate_plain(v)).collect();
        assert_eq!(got, want, "degree {}", plan.degree());
        // Never deeper than ceil(log2(d + 1)) + 1 products (BGV spends a level on each).
        let bound = if plan.degree() == 0 { 0 } else { (plan.degree() + 1).next_power_of_two().ilog2() as usize + 1 };
        assert!(
            scheme.level(&cx) - scheme.level(&result) <= bound,
            "degree {}: {} levels spent",
            plan.degree(),
            scheme.level(&cx) - scheme.level(&result)
        );
        out.extend(result.polys().iter().map(|p| backend.download(p).unwrap().as_slice().to_vec()));
    }
    out
}
