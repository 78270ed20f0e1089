#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `RnsBase` against exact big-integer arithmetic: products, punctured products and their
//! inverses, Garner reconstruction, decomposition, and errors.

mod common;

use common::*;
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};
use rand::Rng;
use rns::{RnsBase, RnsError};

fn bases() -> Vec<RnsBase> {
    let mut out = Vec::new();
    // Sizes from one prime to 20, prime sizes from 20 to 62 bits, mixed sizes.
    for (bits, count) in [(62, 1), (62, 3), (60, 5), (40, 4), (20, 2), (50, 20)] {
        out.push(RnsBase::new(&primes(bits, 16, count, &[])).unwrap());
    }
    let mut mixed = primes(62, 16, 2, &[]);
    mixed.extend(primes(30, 16, 2, &[]));
    mixed.extend(primes(45, 16, 2, &[]));
    out.push(RnsBase::new(&mixed).unwrap());
    out
}

#[test]
fn products_and_punctured_inverses_match_their_definitions() {
    for base in bases() {
        let expected: BigUint = base.moduli().iter().map(|m| BigUint::from(m.value())).product();
        assert_eq!(base.product(), &expected);
        for (i, m) in base.moduli().iter().enumerate() {
            let star = &base.punctured_products()[i];
            assert_eq!(star * m.value(), expected);
            let inverse = base.punctured_inverses()[i];
            assert!(inverse < m.value());
            assert_eq!((star * inverse) % m.value(), BigUint::one());
            assert_eq!(base.punctured_inverses_shoup()[i], m.shoup(inverse));
            let prefix: BigUint = base.moduli()[..i].iter().map(|x| BigUint::from(x.value())).product();
            assert_eq!((prefix * base.garner_inverses()[i]) % m.value(), BigUint::one());
        }
    }
}

#[test]
fn garner_reconstruction_inverts_residues() {
    let mut rng = rng(11);
    for base in bases() {
        let product = base.product().clone();
        let mut samples: Vec<BigUint> = (0..300).map(|_| random_below(&product, &mut rng)).collect();
        samples.extend([BigUint::zero(), BigUint::one(), &product - 1u32, &product >> 1u32, (&product >> 1u32) + 1u32]);
        for x in samples {
            let residues = base.residues(&x);
            assert_eq!(base.reconstruct(&residues).unwrap(), x);
            // Mixed-radix digits: in range and summing back to x.
            let digits = base.mixed_radix_digits(&residues).unwrap();
            let mut radix = BigUint::one();
            let mut sum = BigUint::zero();
            for (m, &d) in base.moduli().iter().zip(&digits) {
                assert!(d < m.value());
                sum += &radix * d;
                radix *= m.value();
            }
            assert_eq!(sum, x);
            // Centered: in (-M/2, M/2] and congruent.
            let centered = base.reconstruct_centered(&residues).unwrap();
            let m_big = big(&product);
            assert!(&centered * 2 > -m_big.clone() && &centered * 2 <= m_big);
            assert_eq!(base.residues_signed(&centered), residues);
        }
    }
}

#[test]
fn polynomial_decomposition_round_trips() {
    let mut rng = rng(12);
    for base in bases() {
        let degree = 32;
        let half: BigInt = big(base.product()) / 2;
        let coefficients: Vec<BigInt> =
            (0..degree).map(|_| random_in(&-half.clone(), &(&half + 1), &mut rng)).collect();
        let data = base.decompose_poly(&coefficients);
        assert_eq!(data.len(), base.len() * degree);
        assert_eq!(base.reconstruct_poly_centered(&data).unwrap(), coefficients);
        let data_uniform = random_poly(&base, degree, &mut rng);
        let values = base.reconstruct_poly(&data_uniform).unwrap();
        for (index, v) in values.iter().enumerate() {
            assert_eq!(base.residues(v), residues_at(&data_uniform, base.len(), degree, index));
        }
    }
}

#[test]
fn invalid_bases_and_inputs_are_rejected() {
    assert!(matches!(RnsBase::new(&[]), Err(RnsError::InvalidBaseSize { count: 0, .. })));
    let p = primes(40, 16, 3, &[]);
    assert!(matches!(
        RnsBase::new(&[p[0], p[1], p[0]]),
        Err(RnsError::DuplicateModulus { modulus, .. }) if modulus == p[0]
    ));
    assert!(matches!(RnsBase::new(&[p[0], 15]), Err(RnsError::Arith(_))));
    assert!(matches!(RnsBase::new(&[1u64 << 62 | 1]), Err(RnsError::Arith(_))));
    let a = RnsBase::new(&p[..2]).unwrap();
    let b = RnsBase::new(&p[1..]).unwrap();
    assert!(matches!(a.union(&b), Err(RnsError::DuplicateModulus { modulus, .. }) if modulus == p[1]));
    assert_eq!(a.union(&RnsBase::new(&p[2..]).unwrap()).unwrap().values(), p);
    assert!(matches!(a.reconstruct(&[1]), Err(RnsError::LengthMismatch { expected: 2, actual: 1, .. })));
    assert!(matches!(
        a.reconstruct(&[1, p[1]]),
        Err(RnsError::CoefficientOutOfRange { limb: 1, value, .. }) if value == p[1]
    ));
    assert!(matches!(a.reconstruct_poly(&[0, 0, 0]), Err(RnsError::LengthNotMultiple { actual: 3, limbs: 2, .. })));
    assert!(matches!(a.reconstruct_poly(&[]), Err(RnsError::LengthNotMultiple { .. })));
    let mut rng = rng(13);
    let mut data = random_poly(&a, 8, &mut rng);
    data[8 + 5] = p[1] + rng.gen_range(0..100);
    assert!(matches!(a.check_poly(&data, 8, "test"), Err(RnsError::CoefficientOutOfRange { limb: 1, index: 5, .. })));
    assert!(matches!(a.sub_base(1..3), Err(RnsError::InvalidParameter { .. })));
    // A degree whose product with the limb count overflows, and a zero degree, are length
    // errors (they overflowed, and `chunks_exact(0)` panicked, before).
    assert!(matches!(a.check_poly(&data, usize::MAX, "test"), Err(RnsError::LengthMismatch { .. })));
    assert!(matches!(a.check_poly(&data, usize::MAX / 2 + 1, "test"), Err(RnsError::LengthMismatch { .. })));
    assert!(matches!(a.check_poly(&[], 0, "test"), Err(RnsError::LengthMismatch { .. })));
}
