#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Property tests over random parameter sets (prime sizes 20 to 62 bits, 1 to 6 primes, any
//! plaintext modulus), each operation against exact big-integer arithmetic, and one test at
//! full size (N = 2^12, 32 and 64 primes).

mod common;

use common::*;
use num_bigint::BigInt;
use num_integer::Integer;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rns::{BaseConverter, BehzContext, Extension, HpsContext, KeySwitchContext, RnsBase};

const DEGREE: usize = 8;

fn q_primes(bits: u32, count: usize) -> Vec<u64> {
    primes(bits, DEGREE, count, &[])
}

proptest! {
    // Failures are saved to `tests/properties.proptest-regressions` (commit that file): they
    // are replayed first by every later run.
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn fast_and_exact_conversions(bits in 20u32..=62, count in 1usize..=6, to_bits in 20u32..=62, to_count in 1usize..=6, seed: u64) {
        let from = RnsBase::new(&q_primes(bits, count)).unwrap();
        let to = RnsBase::new(&primes(to_bits, DEGREE, to_count, &from.values())).unwrap();
        let converter = BaseConverter::new(&from, &to).unwrap();
        let mut rng = rng(seed);
        let input = random_poly(&from, DEGREE, &mut rng);
        let values = from.reconstruct_poly(&input).unwrap();
        let mut fast = vec![0u64; to.len() * DEGREE];
        converter.fast_convert(&input, &mut fast).unwrap();
        let mut exact = vec![0u64; to.len() * DEGREE];
        converter.exact_convert(&input, &mut exact).unwrap();
        let a = big(from.product());
        for (index, x) in values.iter().enumerate() {
            let got = residues_at(&fast, to.len(), DEGREE, index);
            let matches_some_u = (0..count).any(|u| to.residues_signed(&(big(x) + &a * u)) == got);
            prop_assert!(matches_some_u);
            prop_assert_eq!(to.residues_signed(&from.center(x.clone())), residues_at(&exact, to.len(), DEGREE, index));
        }
    }

    #[test]
    fn behz_steps(bits in 20u32..=62, count in 1usize..=5, t in 2u64..(1 << 20), seed: u64) {
        let q = q_primes(bits, count);
        prop_assume!(q.iter().all(|&p| p.gcd(&t) == 1));
        let ctx = BehzContext::with_generated_moduli(DEGREE, &q, t).unwrap();
        let (qb, bsk) = (ctx.q(), ctx.bsk());
        let q_big = big(qb.product());
        let mut rng = rng(seed);
        // Decryption: round(t x / q) mod t (gamma is 62 bits: the k/gamma window is empty
        // in practice).
        let input = random_poly(qb, DEGREE, &mut rng);
        let mut decrypted = vec![0u64; DEGREE];
        ctx.decrypt_scale_round(&input, &mut decrypted).unwrap();
        let expected: Vec<u64> = qb.reconstruct_poly(&input).unwrap().iter().map(|x| mod_floor(&round_div(&(big(x) * t), &q_big), t)).collect();
        prop_assert_eq!(decrypted, expected);
        // Extension: c' = x mod q, -q/2 < c' < q/2 + k q / m~.
        let mut extended = vec![0u64; bsk.len() * DEGREE];
        ctx.extend_to_bsk(&input, &mut extended).unwrap();
        for (c, x) in bsk.reconstruct_poly_centered(&extended).unwrap().iter().zip(qb.reconstruct_poly(&input).unwrap()) {
            prop_assert_eq!(c.mod_floor(&q_big), big(&x));
            let m_tilde = ctx.m_tilde().value();
            prop_assert!(c * 2 > -q_big.clone() && c * 2 * m_tilde < &q_big * (m_tilde + 2 * count as u64));
        }
        // Fast floor then Shenoy-Kumaresan on values below the tensor bound N q^2 / 2 that
        // the constructor checked: floor(t x/q) - u.
        let bound: BigInt = &q_big * &q_big * DEGREE / 2;
        let xs: Vec<BigInt> = (0..DEGREE).map(|_| random_in(&-bound.clone(), &bound, &mut rng)).collect();
        let q_bsk = ctx.q_bsk().unwrap();
        let mut floored = vec![0u64; bsk.len() * DEGREE];
        ctx.fast_floor(&q_bsk.decompose_poly(&xs), &mut floored).unwrap();
        let mut result = vec![0u64; qb.len() * DEGREE];
        ctx.bsk_to_q(&floored, &mut result).unwrap();
        for (index, x) in xs.iter().enumerate() {
            let got = residues_at(&result, qb.len(), DEGREE, index);
            let exact = floor_div(&(x * t), &q_big);
            prop_assert!((0..count as i64).any(|u| qb.residues_signed(&(&exact - u)) == got));
        }
    }

    #[test]
    fn hps_steps(bits in 20u32..=62, count in 1usize..=5, t in 2u64..(1 << 40), seed: u64) {
        let q = q_primes(bits, count);
        let ctx = HpsContext::with_generated_moduli(DEGREE, &q, t).unwrap();
        let (qb, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let q_big = big(qb.product());
        let mut rng = rng(seed);
        let input = random_poly(qb, DEGREE, &mut rng);
        let mut decrypted = vec![0u64; DEGREE];
        ctx.decrypt_scale_round(&input, &mut decrypted).unwrap();
        let expected: Vec<u64> = qb.reconstruct_poly(&input).unwrap().iter().map(|x| mod_floor(&round_div(&(big(x) * t), &q_big), t)).collect();
        prop_assert_eq!(decrypted, expected);
        let wide = random_poly(&qp, DEGREE, &mut rng);
        let mut scaled = vec![0u64; p.len() * DEGREE];
        ctx.scale_round_to_p(&wide, &mut scaled).unwrap();
        let expected: Vec<BigInt> = qp.reconstruct_poly(&wide).unwrap().iter().map(|x| round_div(&(big(x) * t), &q_big)).collect();
        prop_assert_eq!(scaled, p.decompose_poly(&expected));
    }

    #[test]
    fn key_switching_steps(bits in 20u32..=62, count in 1usize..=6, p_count in 1usize..=3, per_digit in 1usize..=6, seed: u64) {
        let per_digit = per_digit.min(count);
        let q = q_primes(bits, count);
        let p = primes(62, DEGREE, p_count, &q);
        let ctx = KeySwitchContext::new(DEGREE, &q, &p, per_digit).unwrap();
        let qp = ctx.q_p().unwrap();
        let mut rng = rng(seed);
        let input = random_poly(ctx.q(), DEGREE, &mut rng);
        let a = ctx.q().reconstruct_poly(&input).unwrap();
        for digit in 0..ctx.num_digits() {
            let range = ctx.digit_range(digit).unwrap();
            let digit_product = big(RnsBase::new(&q[range]).unwrap().product());
            let mut up = vec![0u64; qp.len() * DEGREE];
            ctx.mod_up(&input, digit, Extension::Exact, &mut up).unwrap();
            for (value, x) in qp.reconstruct_poly_centered(&up).unwrap().iter().zip(&a) {
                let d = big(x).mod_floor(&digit_product);
                let centered = if &d * 2 > digit_product { d - &digit_product } else { d };
                prop_assert_eq!(value, &centered);
            }
        }
        let wide = random_poly(&qp, DEGREE, &mut rng);
        let mut down = vec![0u64; ctx.q().len() * DEGREE];
        ctx.mod_down(&wide, &mut down).unwrap();
        let p_big = big(ctx.special_product());
        let expected: Vec<BigInt> = qp.reconstruct_poly(&wide).unwrap().iter().map(|x| round_div(&big(x), &p_big)).collect();
        prop_assert_eq!(down, ctx.q().decompose_poly(&expected));
    }
}

/// Full-size parameters: N = 2^12 with 32 primes of q (BEHZ, HPS) and 64 primes (conversion
/// and key switching), checked against big integers on every coefficient.
#[test]
fn full_size_parameters() {
    let degree = 1 << 12;
    let mut rng = rng(61);
    let q = primes(60, degree, 32, &[]);
    let behz = BehzContext::with_generated_moduli(degree, &q, 65537).unwrap();
    let hps = HpsContext::with_generated_moduli(degree, &q, 65537).unwrap();
    println!("N = 2^12, k = 32: |B| = {}, |P_mul| = {}", behz.b().len(), hps.p().len());
    let qb = behz.q();
    let q_big = big(qb.product());
    let input = random_poly(qb, degree, &mut rng);
    let values = qb.reconstruct_poly(&input).unwrap();
    let expected: Vec<u64> =
        values.iter().map(|x| mod_floor(&round_div(&(big(x) * 65537u64), &q_big), 65537)).collect();
    let mut out = vec![0u64; degree];
    behz.decrypt_scale_round(&input, &mut out).unwrap();
    assert_eq!(out, expected);
    hps.decrypt_scale_round(&input, &mut out).unwrap();
    assert_eq!(out, expected);
    let mut p_part = vec![0u64; hps.p().len() * degree];
    hps.extend_q_to_p(&input, &mut p_part).unwrap();
    assert_eq!(p_part, hps.p().decompose_poly(&qb.reconstruct_poly_centered(&input).unwrap()));

    let q64 = primes(61, degree, 64, &[]);
    let p = primes(62, degree, 4, &q64);
    let ks = KeySwitchContext::new(degree, &q64, &p, 4).unwrap();
    let input = random_poly(ks.q(), degree, &mut rng);
    let qp = ks.q_p().unwrap();
    let mut up = vec![0u64; qp.len() * degree];
    ks.mod_up(&input, 7, Extension::Fast, &mut up).unwrap();
    let digit_product = big(RnsBase::new(&q64[28..32]).unwrap().product());
    for (value, x) in qp.reconstruct_poly(&up).unwrap().iter().zip(ks.q().reconstruct_poly(&input).unwrap()) {
        let (u, rest) = (big(value) - big(&x).mod_floor(&digit_product)).div_rem(&digit_product);
        assert!(rest == BigInt::from(0) && u >= BigInt::from(0) && u < BigInt::from(4));
    }
    let mut down = vec![0u64; 64 * degree];
    ks.mod_down(&up, &mut down).unwrap();
    let p_big = big(ks.special_product());
    let expected: Vec<BigInt> = qp.reconstruct_poly(&up).unwrap().iter().map(|x| round_div(&big(x), &p_big)).collect();
    assert_eq!(down, ks.q().decompose_poly(&expected));
}
