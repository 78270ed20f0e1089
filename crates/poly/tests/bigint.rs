#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Exact big-integer checks: integer polynomials with coefficients far wider than one prime,
//! multiplied through the RNS representation and every transform, against the exact
//! negacyclic convolution over Z; and CRT reconstruction round trips.

use std::sync::Arc;

use modarith::generate_ntt_primes;
use num_bigint::{BigInt, BigUint, Sign};
use poly::reference::{
    crt_reconstruct, crt_reconstruct_centered, modulus_product, negacyclic_convolution, negacyclic_convolution_bigint,
    poly_from_bigint,
};
use poly::{Coeff, Poly, PolyError, RingContext, TransformKind};
use proptest::prelude::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A uniformly random signed integer of magnitude below `2^bits`.
fn random_bigint(rng: &mut StdRng, bits: u64) -> BigInt {
    let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.r#gen()).collect();
    let magnitude =
        BigUint::from_slice(&words.iter().flat_map(|w| [*w as u32, (*w >> 32) as u32]).collect::<Vec<u32>>())
            >> (64 * bits.div_ceil(64) - bits);
    BigInt::from_biguint(if rng.r#gen() { Sign::Plus } else { Sign::Minus }, magnitude)
}

fn ring(degree: usize, bits: u32, limbs: usize, transform: TransformKind) -> Arc<RingContext> {
    let moduli = generate_ntt_primes(bits, 2 * degree as u64, limbs, &[]).unwrap();
    RingContext::new(degree, &moduli, transform).unwrap()
}

/// 80-bit coefficients at N = 1024: the exact product has coefficients below 2^170, inside
/// (-Q/2, Q/2] for Q the product of three 60-bit primes, so the CRT lift is exact.
#[test]
fn rns_products_of_wide_integer_polynomials_are_exact() {
    let mut rng = StdRng::seed_from_u64(11);
    let n = 1024;
    for transform in TransformKind::ALL {
        let ctx = ring(n, 60, 3, transform);
        let a: Vec<BigInt> = (0..n).map(|_| random_bigint(&mut rng, 80)).collect();
        let b: Vec<BigInt> = (0..n).map(|_| random_bigint(&mut rng, 80)).collect();
        let exact = negacyclic_convolution_bigint(&a, &b).unwrap();
        let q = BigInt::from(modulus_product(&ctx));
        assert!(exact.iter().all(|c| c.magnitude() * 2u32 < *q.magnitude()), "test bound violated");

        let pa = poly_from_bigint(&ctx, &a).unwrap().forward().unwrap();
        let pb = poly_from_bigint(&ctx, &b).unwrap().forward().unwrap();
        let product = pa.mul(&pb).unwrap().inverse().unwrap();
        assert_eq!(crt_reconstruct_centered(&product).unwrap(), exact, "{transform:?}");
    }
}

/// Two 62-bit limbs, 55-bit coefficients, N = 2048: products below 2^121 < Q/2 (about 2^123).
#[test]
fn rns_products_are_exact_with_two_limbs() {
    let mut rng = StdRng::seed_from_u64(12);
    let n = 2048;
    let ctx = ring(n, 62, 2, TransformKind::Ntt);
    let a: Vec<BigInt> = (0..n).map(|_| random_bigint(&mut rng, 55)).collect();
    let b: Vec<BigInt> = (0..n).map(|_| random_bigint(&mut rng, 55)).collect();
    let exact = negacyclic_convolution_bigint(&a, &b).unwrap();
    let q = BigInt::from(modulus_product(&ctx));
    assert!(exact.iter().all(|c| c.magnitude() * 2u32 < *q.magnitude()), "test bound violated");
    let pa = poly_from_bigint(&ctx, &a).unwrap().forward().unwrap();
    let pb = poly_from_bigint(&ctx, &b).unwrap().forward().unwrap();
    assert_eq!(crt_reconstruct_centered(&pa.mul(&pb).unwrap().inverse().unwrap()).unwrap(), exact);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Reduce into the limbs, then CRT back: the identity on (-Q/2, Q/2] and on [0, Q).
    #[test]
    fn crt_reconstruction_round_trips(seed: u64, limbs in 1usize..=5, bits in 30u32..=62) {
        let mut rng = StdRng::seed_from_u64(seed);
        let ctx = ring(1024, bits, limbs, TransformKind::Ntt);
        let q = modulus_product(&ctx);
        let width = q.bits() - 2; // 2^(bits - 2) <= Q/2: magnitudes stay inside (-Q/2, Q/2]
        let coeffs: Vec<BigInt> = (0..1024).map(|_| random_bigint(&mut rng, width)).collect();
        let p = poly_from_bigint(&ctx, &coeffs).unwrap();
        prop_assert_eq!(crt_reconstruct_centered(&p).unwrap(), coeffs.clone());
        let unsigned = crt_reconstruct(&p).unwrap();
        let qi = BigInt::from(q.clone());
        for (u, c) in unsigned.iter().zip(&coeffs) {
            prop_assert!(*u < q);
            prop_assert_eq!(BigInt::from(u.clone()), ((c % &qi) + &qi) % &qi);
        }
    }

    /// The modular schoolbook convolution agrees with the integer one reduced mod p.
    #[test]
    fn modular_convolution_matches_integer_convolution(seed: u64, log_n in 1u32..=7, bits in 20u32..=62) {
        let mut rng = StdRng::seed_from_u64(seed);
        let n = 1usize << log_n;
        let p = generate_ntt_primes(bits, 2 * n as u64, 1, &[]).unwrap()[0];
        let m = modarith::Modulus::new(p).unwrap();
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
        let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
        let big = |v: &[u64]| v.iter().map(|&x| BigInt::from(x)).collect::<Vec<_>>();
        let exact = negacyclic_convolution_bigint(&big(&a), &big(&b)).unwrap();
        let pb = BigInt::from(p);
        let expected: Vec<u64> =
            exact.iter().map(|c| u64::try_from(((c % &pb) + &pb) % &pb).unwrap()).collect();
        prop_assert_eq!(negacyclic_convolution(&m, &a, &b).unwrap(), expected);
    }
}

#[test]
fn reference_helpers_reject_bad_input() {
    let m = modarith::Modulus::new(97).unwrap();
    assert_eq!(negacyclic_convolution(&m, &[1, 2], &[1]), Err(PolyError::LengthMismatch { expected: 2, actual: 1 }));
    assert_eq!(
        negacyclic_convolution(&m, &[1, 2], &[1, 97]),
        Err(PolyError::CoefficientOutOfRange { limb: 0, index: 1, value: 97, modulus: 97 })
    );
    assert!(negacyclic_convolution_bigint(&[BigInt::from(1)], &[]).is_err());
    let ctx = ring(1024, 40, 1, TransformKind::Ntt);
    assert_eq!(
        poly_from_bigint(&ctx, &[BigInt::from(1)]).map(Poly::<Coeff>::into_vec),
        Err(PolyError::LengthMismatch { expected: 1024, actual: 1 })
    );
}

/// The centered lift covers exactly `[-(Q-1)/2, (Q-1)/2]` (Q is odd).
#[test]
fn centered_lift_reaches_both_ends() {
    let ctx = ring(1024, 50, 2, TransformKind::Ntt);
    let half = BigInt::from((modulus_product(&ctx) - 1u32) >> 1u32);
    let mut coeffs = vec![BigInt::from(0); 1024];
    coeffs[0] = half.clone();
    coeffs[1] = -half.clone();
    coeffs[2] = &half + 1; // wraps to -(Q-1)/2
    let lifted = crt_reconstruct_centered(&poly_from_bigint(&ctx, &coeffs).unwrap()).unwrap();
    assert_eq!(lifted[0], half);
    assert_eq!(lifted[1], -half.clone());
    assert_eq!(lifted[2], -half);
}
