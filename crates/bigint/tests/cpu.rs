//! The CPU reference against num-bigint: products, squares and batches of random and edge
//! operands (zero, one, all-ones limbs, carries that ripple through every limb) from one bit
//! to 2^24 bits; Barrett reduction and modular add/sub/mul/pow for random and edge moduli;
//! rejected inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bigint::{BarrettModulus, BigIntError, BigNat, MulShape, field};
use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn nat(x: &BigUint) -> BigNat {
    BigNat::from(x)
}

fn big(x: &BigNat) -> BigUint {
    BigUint::from(x)
}

fn ones(bits: u64) -> BigUint {
    (BigUint::one() << bits) - 1u32
}

/// Edge operands of about `bits` bits.
fn edges(bits: u64, rng: &mut ChaCha8Rng) -> Vec<BigUint> {
    let mut v =
        vec![BigUint::zero(), BigUint::one(), ones(bits), BigUint::one() << (bits - 1), ones(64), ones(bits / 2 + 1)];
    // All-ones limbs with a single zero bit in the middle: carries stop there.
    v.push(ones(bits) ^ (BigUint::one() << (bits / 2)));
    v.push((BigUint::one() << bits) + 1u32);
    v.push(rng.gen_biguint(bits));
    v
}

fn check_mul(a: &BigUint, b: &BigUint) {
    let got = bigint::mul(&nat(a), &nat(b)).unwrap();
    assert_eq!(big(&got), a * b, "{} x {} bits", a.bits(), b.bits());
}

#[test]
fn random_products_match_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x13);
    for case in 0..300 {
        let top = 1u64 << (4 + case % 12);
        let bits_a = rng.gen_range(1..=top);
        let other = rng.gen_range(1..=top);
        let bits_b = if case % 3 == 0 { bits_a } else { other };
        let (a, b) = (rng.gen_biguint(bits_a), rng.gen_biguint(bits_b));
        check_mul(&a, &b);
    }
}

#[test]
fn edge_products_match_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x14);
    for bits in [1u64, 2, 63, 64, 65, 127, 128, 1000, 4096, 65_536] {
        let set = edges(bits.max(2), &mut rng);
        for a in &set {
            for b in &set {
                check_mul(a, b);
            }
        }
    }
    // Carries through every limb: (2^N - 1)(2^N + 1) = 2^2N - 1 and (2^N - 1)^2.
    for bits in [1u64 << 18, 1 << 20] {
        check_mul(&ones(bits), &((BigUint::one() << bits) + 1u32));
        check_mul(&ones(bits), &ones(bits));
        check_mul(&ones(bits), &BigUint::one());
        check_mul(&ones(bits), &BigUint::zero());
    }
}

#[test]
fn large_products_up_to_2_24_bits() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x15);
    // 2^20: random; 2^24: one random product and one all-ones square (largest coefficients).
    let a = rng.gen_biguint(1 << 20);
    let b = rng.gen_biguint(1 << 20);
    check_mul(&a, &b);
    let a = rng.gen_biguint(1 << 24);
    let b = rng.gen_biguint((1 << 24) - 17);
    check_mul(&a, &b);
    let x = ones(1 << 24);
    assert_eq!(big(&bigint::square(&nat(&x)).unwrap()), &x * &x);
}

#[test]
fn squares_and_batches_match_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x16);
    for bits in [1u64, 64, 100, 5000, 1 << 16] {
        for a in edges(bits.max(2), &mut rng) {
            assert_eq!(big(&bigint::square(&nat(&a)).unwrap()), &a * &a);
        }
    }
    let pairs: Vec<(BigUint, BigUint)> = (0..8).map(|_| (rng.gen_biguint(3000), rng.gen_biguint(2000))).collect();
    let nat_pairs: Vec<(BigNat, BigNat)> = pairs.iter().map(|(a, b)| (nat(a), nat(b))).collect();
    let got = bigint::mul_batch(&nat_pairs).unwrap();
    for ((a, b), p) in pairs.iter().zip(&got) {
        assert_eq!(big(p), a * b);
    }
}

#[test]
fn shapes_keep_coefficients_below_p() {
    for bits in [1u64, 64, 1 << 10, 1 << 18, 1 << 20, 790_000, 1 << 24, 1 << 30] {
        let shape = MulShape::for_bits(bits, bits).unwrap();
        let d = shape.digits(bits);
        let max = (1u128 << shape.digit_bits()) - 1;
        assert!(u128::from(d) * max * max < u128::from(field::P), "{bits}: {shape:?}");
        assert!(2 * d - 1 <= shape.len() as u64);
        // One more bit per digit would overflow, or the digits are already 32 bits.
        let bigger = (1u128 << (shape.digit_bits() + 1)) - 1;
        let d2 = bits.div_ceil(u64::from(shape.digit_bits()) + 1);
        assert!(shape.digit_bits() == 32 || u128::from(d2) * bigger * bigger >= u128::from(field::P));
    }
    assert_eq!(MulShape::for_bits(1 << 20, 1 << 20).unwrap().log_n(), 17);
    assert!(matches!(MulShape::for_bits((1 << 30) + 1, 5), Err(BigIntError::TooLarge { .. })));
}

#[test]
fn products_by_a_word_match_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    for bits in [1u64, 63, 64, 65, 1000, 100_000] {
        for x in edges(bits, &mut rng) {
            for k in [0u64, 1, 2, 127 * 512, u64::MAX, rng.r#gen()] {
                assert_eq!(big(&nat(&x).mul_u64(k)), &x * k, "{bits} bits times {k}");
            }
        }
    }
}

#[test]
fn nat_conversions_shifts_and_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x17);
    for _ in 0..200 {
        let (bits_a, bits_b) = (rng.gen_range(0..700), rng.gen_range(0..700));
        let a = rng.gen_biguint(bits_a);
        let b = rng.gen_biguint(bits_b);
        let s = rng.gen_range(0..800);
        let (na, nb) = (nat(&a), nat(&b));
        assert_eq!(big(&na), a);
        assert_eq!(na.bits(), a.bits());
        assert_eq!(big(&na.shr(s)), &a >> s);
        assert_eq!(big(&na.shl(s)), &a << s);
        assert_eq!(big(&na.low_bits(s)), &a % (BigUint::one() << s));
        assert_eq!(big(&na.add(&nb)), &a + &b);
        assert_eq!(na.cmp(&nb), a.cmp(&b));
        match na.sub(&nb) {
            Ok(d) => assert_eq!(big(&d), &a - &b),
            Err(BigIntError::Negative) => assert!(a < b),
            Err(e) => panic!("{e}"),
        }
    }
}

fn moduli(rng: &mut ChaCha8Rng) -> Vec<BigUint> {
    let mut v = vec![BigUint::from(2u32), BigUint::from(3u32), BigUint::from(field::P), ones(64), ones(65)];
    for bits in [100u64, 1000, 4097, 20_000, 100_000] {
        v.push(ones(bits));
        v.push(BigUint::one() << (bits - 1));
        v.push((BigUint::one() << (bits - 1)) + 1u32);
        v.push(rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)));
    }
    v
}

#[test]
fn barrett_reduction_and_modular_ops_match_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x18);
    for m in moduli(&mut rng) {
        let k = m.bits();
        let modulus = BarrettModulus::new(&nat(&m)).unwrap();
        assert_eq!(big(modulus.mu()), (BigUint::one() << (2 * k)) / &m);
        let mut inputs = vec![BigUint::zero(), &m - 1u32, m.clone(), &m * &m - 1u32, ones(2 * k), &m * 2u32];
        inputs.extend((0..4).map(|_| rng.gen_biguint(2 * k)));
        for t in &inputs {
            assert_eq!(big(&modulus.reduce(&nat(t)).unwrap()), t % &m, "t mod m, m of {k} bits");
        }
        for _ in 0..3 {
            let a = rng.gen_biguint_below(&m);
            let b = rng.gen_biguint_below(&m);
            for (x, y) in [(&a, &b), (&(&m - 1u32), &(&m - 1u32)), (&BigUint::zero(), &b)] {
                let (nx, ny) = (nat(x), nat(y));
                assert_eq!(big(&modulus.mul_mod(&nx, &ny).unwrap()), (x * y) % &m);
                assert_eq!(big(&modulus.add_mod(&nx, &ny).unwrap()), (x + y) % &m);
                assert_eq!(big(&modulus.sub_mod(&nx, &ny).unwrap()), (x + &m - y) % &m);
                assert_eq!(big(&modulus.square_mod(&nx).unwrap()), (x * x) % &m);
            }
        }
        let e = rng.gen_biguint(70);
        let a = rng.gen_biguint_below(&m);
        assert_eq!(big(&modulus.pow_mod(&nat(&a), &nat(&e)).unwrap()), a.modpow(&e, &m));
    }
}

#[test]
fn barrett_at_the_gentry_halevi_size() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x19);
    let m = rng.gen_biguint(790_000) | (BigUint::one() << 789_999u64) | BigUint::one();
    let modulus = BarrettModulus::new(&nat(&m)).unwrap();
    let (a, b) = (rng.gen_biguint_below(&m), rng.gen_biguint_below(&m));
    assert_eq!(big(&modulus.mul_mod(&nat(&a), &nat(&b)).unwrap()), (&a * &b) % &m);
    let top = &m - 1u32;
    assert_eq!(big(&modulus.mul_mod(&nat(&top), &nat(&top)).unwrap()), (&top * &top) % &m);
}

#[test]
fn bad_inputs_are_typed_errors() {
    assert!(matches!(BarrettModulus::new(&BigNat::zero()), Err(BigIntError::BadModulus)));
    assert!(matches!(BarrettModulus::new(&BigNat::from_u64(1)), Err(BigIntError::BadModulus)));
    let m = BarrettModulus::new(&BigNat::from_u64(1000)).unwrap();
    let big_a = BigNat::from_u64(1000);
    assert!(matches!(m.mul_mod(&big_a, &BigNat::from_u64(3)), Err(BigIntError::NotReduced { what: "a", .. })));
    assert!(matches!(m.add_mod(&BigNat::from_u64(3), &big_a), Err(BigIntError::NotReduced { what: "b", .. })));
    assert!(matches!(m.sub_mod(&big_a, &big_a), Err(BigIntError::NotReduced { .. })));
    assert!(matches!(m.reduce(&BigNat::from_u64(1 << 20)), Err(BigIntError::ReductionInputTooLarge { .. })));
    let huge = BigNat::power_of_two(1 << 30);
    assert!(matches!(bigint::mul(&huge, &BigNat::from_u64(3)), Err(BigIntError::TooLarge { .. })));
    let shape = MulShape::for_bits(64, 64).unwrap();
    assert!(matches!(
        bigint::mul::mul_in_shape(&BigNat::power_of_two(1000), &BigNat::from_u64(3), shape),
        Err(BigIntError::TooLarge { .. })
    ));
}

/// Digit positions past `2^64` bits and digit widths past a word: zero digits, no overflow.
#[test]
fn split_digits_takes_any_offset() {
    assert_eq!(bigint::mul::split_digits(&[1], u64::MAX, 32, 2, 2), vec![0, 0]);
    assert_eq!(bigint::mul::split_digits(&[u64::MAX], 0, 32, 2, 3), vec![u64::from(u32::MAX), u64::from(u32::MAX), 0]);
    assert_eq!(bigint::mul::extract_bits(&[u64::MAX, 1], 63, u32::MAX), 3);
}
