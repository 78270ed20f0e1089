#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! HPS-BFV pieces against exact big-integer arithmetic: exact extensions, decryption's and
//! multiplication's scale-and-round by t/q (random inputs, and adversarial inputs next to
//! the rounding boundary to exercise the fixed-point window), the multiplication pipeline,
//! and a BFV-style encrypt-multiply-decrypt round trip.

mod common;

use common::*;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use rand::Rng;
use rns::{HpsContext, RnsBase, RnsError};

const DEGREE: usize = 32;

fn contexts() -> Vec<HpsContext> {
    let mut out = Vec::new();
    for (bits, count, t) in
        [(62u32, 1usize, 2u64), (60, 2, 65537), (55, 3, 1 << 16), (50, 6, 3 * 5 * 7 * 11), (62, 4, (1 << 62) - 1)]
    {
        let q = primes(bits, DEGREE, count, &[]);
        out.push(HpsContext::with_generated_moduli(DEGREE, &q, t).unwrap());
    }
    out
}

/// Window check for a rounding `round(a / q)` computed with the `k 2^-66` fixed-point error:
/// returns whether `got` is the exact rounding; if not, asserts it is one less and that the
/// fractional part of `a / q` is in `[1/2, 1/2 + k 2^-66)`.
fn check_rounding(a: &BigInt, q: &BigInt, k: usize, got_is: impl Fn(&BigInt) -> bool) -> bool {
    let rounded = round_div(a, q);
    if got_is(&rounded) {
        return true;
    }
    assert!(got_is(&(&rounded - 1)), "result is neither round nor round - 1");
    // frac(a / q) - 1/2 = (2 (a mod q) - q) / (2q), in [0, k 2^-66).
    let excess: BigInt = 2 * a.mod_floor(q) - q;
    assert!(excess >= BigInt::from(0), "round - 1 below the half");
    assert!(excess * (BigInt::from(1u8) << 65u32) < q * k, "round - 1 outside the k 2^-66 window");
    false
}

#[test]
fn extensions_give_centered_representatives() {
    let mut rng = rng(41);
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let input = random_poly(q, DEGREE, &mut rng);
        let mut output = vec![0u64; p.len() * DEGREE];
        ctx.extend_q_to_p(&input, &mut output).unwrap();
        assert_eq!(output, p.decompose_poly(&q.reconstruct_poly_centered(&input).unwrap()));
        // P -> q on values that fit q's centered range (P is larger than q).
        let half: BigInt = big(q.product()) / 2;
        let values: Vec<BigInt> = (0..DEGREE).map(|_| random_in(&-half.clone(), &(&half + 1), &mut rng)).collect();
        let mut back = vec![0u64; q.len() * DEGREE];
        ctx.extend_p_to_q(&p.decompose_poly(&values), &mut back).unwrap();
        assert_eq!(back, q.decompose_poly(&values));
    }
}

#[test]
fn decryption_rounds_exactly_on_random_inputs() {
    let mut rng = rng(42);
    for ctx in contexts() {
        let q = ctx.q();
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        for _ in 0..16 {
            let input = random_poly(q, DEGREE, &mut rng);
            let mut output = vec![0u64; DEGREE];
            ctx.decrypt_scale_round(&input, &mut output).unwrap();
            let expected: Vec<u64> = q
                .reconstruct_poly(&input)
                .unwrap()
                .iter()
                .map(|x| mod_floor(&round_div(&(big(x) * t), &q_big), t))
                .collect();
            assert_eq!(output, expected);
        }
    }
}

/// Inputs with `t x mod q = (q + 1)/2 + d`: the fractional part of `t x / q` is just above
/// one half, inside the fixed-point window whenever `q > 2^65 / k`.
fn near_half_inputs(q: &RnsBase, t: u64, count: usize) -> Vec<BigUint> {
    let q_big = big(q.product());
    let t_inv = BigInt::from(t).modinv(&q_big).unwrap();
    (0..count as u64)
        .map(|d| {
            let target: BigInt = (&q_big + 1) / 2 + d;
            let x: BigInt = target * &t_inv;
            x.mod_floor(&q_big).to_biguint().unwrap()
        })
        .collect()
}

#[test]
fn decryption_next_to_one_half_stays_within_the_window() {
    for ctx in contexts() {
        let q = ctx.q();
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        let xs = near_half_inputs(q, t, DEGREE);
        let input = q.decompose_poly(&xs.iter().map(big).collect::<Vec<_>>());
        let mut output = vec![0u64; DEGREE];
        ctx.decrypt_scale_round(&input, &mut output).unwrap();
        let mut misses = 0;
        for (x, &got) in xs.iter().zip(&output) {
            if !check_rounding(&(big(x) * t), &q_big, q.len(), |r| mod_floor(r, t) == got) {
                misses += 1;
            }
        }
        if q.product() < &((BigUint::from(1u8) << 65u32) / q.len()) {
            assert_eq!(misses, 0, "the window is empty below 2^65 / k");
        }
        println!(
            "HPS decryption k = {} ({} bits): {misses}/{DEGREE} inputs just above a half rounded down",
            q.len(),
            q.product().bits()
        );
    }
}

#[test]
fn scaling_into_p_rounds_exactly_on_random_inputs() {
    let mut rng = rng(43);
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        for _ in 0..8 {
            let input = random_poly(&qp, DEGREE, &mut rng);
            let mut output = vec![0u64; p.len() * DEGREE];
            ctx.scale_round_to_p(&input, &mut output).unwrap();
            let expected: Vec<BigInt> =
                qp.reconstruct_poly(&input).unwrap().iter().map(|x| round_div(&(big(x) * t), &q_big)).collect();
            assert_eq!(output, p.decompose_poly(&expected));
        }
    }
}

#[test]
fn scaling_into_p_next_to_one_half_stays_within_the_window() {
    let mut rng = rng(44);
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        // x = (value with t x mod q just above q/2) + q * (random multiple), reduced mod qP.
        let qp_big = big(qp.product());
        let xs: Vec<BigInt> = near_half_inputs(q, t, DEGREE)
            .iter()
            .map(|x| (big(x) + &q_big * random_in(&BigInt::from(0), &big(p.product()), &mut rng)).mod_floor(&qp_big))
            .collect();
        let mut output = vec![0u64; p.len() * DEGREE];
        ctx.scale_round_to_p(&qp.decompose_poly(&xs), &mut output).unwrap();
        let mut misses = 0;
        for (index, x) in xs.iter().enumerate() {
            let got = residues_at(&output, p.len(), DEGREE, index);
            if !check_rounding(&(x * t), &q_big, q.len(), |r| p.residues_signed(r) == got) {
                misses += 1;
            }
        }
        println!("HPS scaling k = {}: {misses}/{DEGREE} inputs just above a half rounded down", q.len());
    }
}

#[test]
fn multiplication_pipeline_matches_exact_rounding() {
    let mut rng = rng(45);
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let (k, n) = (q.len(), DEGREE);
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        let polys: Vec<Vec<u64>> = (0..4).map(|_| random_poly(q, n, &mut rng)).collect();
        let extended: Vec<Vec<u64>> = polys
            .iter()
            .map(|poly| {
                let mut out = vec![0u64; p.len() * n];
                ctx.extend_q_to_p(poly, &mut out).unwrap();
                [poly.clone(), out].concat()
            })
            .collect();
        let centered: Vec<Vec<BigInt>> = polys.iter().map(|poly| q.reconstruct_poly_centered(poly).unwrap()).collect();
        // c1 = a0 b1 + a1 b0 over q u P, exactly as integers.
        let tensor = ring_add(
            &qp,
            n,
            &ring_mul(&qp, n, &extended[0], &extended[3]),
            &ring_mul(&qp, n, &extended[1], &extended[2]),
        );
        let tensor_exact: Vec<BigInt> = negacyclic(&centered[0], &centered[3])
            .iter()
            .zip(negacyclic(&centered[1], &centered[2]))
            .map(|(a, b)| a + b)
            .collect();
        assert_eq!(qp.reconstruct_poly_centered(&tensor).unwrap(), tensor_exact);
        let mut scaled = vec![0u64; p.len() * n];
        ctx.scale_round_to_p(&tensor, &mut scaled).unwrap();
        let mut result = vec![0u64; k * n];
        ctx.extend_p_to_q(&scaled, &mut result).unwrap();
        let expected: Vec<BigInt> = tensor_exact.iter().map(|x| round_div(&(x * t), &q_big)).collect();
        assert_eq!(result, q.decompose_poly(&expected));
    }
}

#[test]
fn bfv_multiplication_round_trip() {
    let mut rng = rng(46);
    for (bits, count, t) in [(60u32, 3usize, 257u64), (55, 4, 1 << 10)] {
        let q_primes = primes(bits, DEGREE, count, &[]);
        let ctx = HpsContext::with_generated_moduli(DEGREE, &q_primes, t).unwrap();
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let (k, n) = (q.len(), DEGREE);
        let q_big = big(q.product());
        let delta = &q_big / t;
        let secret = random_small(n, 1, &mut rng);
        let secret_q = q.decompose_poly(&secret);
        let mut encrypt = |m: &[BigInt]| {
            let a = random_poly(q, n, &mut rng);
            let e = random_small(n, 8, &mut rng);
            let body: Vec<BigInt> = m.iter().zip(&e).map(|(mi, ei)| &delta * mi + ei).collect();
            let a_s = ring_mul(q, n, &a, &secret_q);
            let c0: Vec<u64> = q
                .decompose_poly(&body)
                .iter()
                .zip(&a_s)
                .enumerate()
                .map(|(idx, (&x, &y))| q.moduli()[idx / n].sub(x, y))
                .collect();
            (c0, a)
        };
        let mut plain_rng = common::rng(47);
        let m1: Vec<BigInt> = (0..n).map(|_| BigInt::from(plain_rng.gen_range(0..t))).collect();
        let m2: Vec<BigInt> = (0..n).map(|_| BigInt::from(plain_rng.gen_range(0..t))).collect();
        let (a0, a1) = encrypt(&m1);
        let (b0, b1) = encrypt(&m2);
        let extend = |poly: &[u64]| {
            let mut out = vec![0u64; p.len() * n];
            ctx.extend_q_to_p(poly, &mut out).unwrap();
            [poly.to_vec(), out].concat()
        };
        let (a0x, a1x, b0x, b1x) = (extend(&a0), extend(&a1), extend(&b0), extend(&b1));
        let scale = |c: &[u64]| {
            let mut scaled = vec![0u64; p.len() * n];
            ctx.scale_round_to_p(c, &mut scaled).unwrap();
            let mut out = vec![0u64; k * n];
            ctx.extend_p_to_q(&scaled, &mut out).unwrap();
            out
        };
        let d0 = scale(&ring_mul(&qp, n, &a0x, &b0x));
        let d1 = scale(&ring_add(&qp, n, &ring_mul(&qp, n, &a0x, &b1x), &ring_mul(&qp, n, &a1x, &b0x)));
        let d2 = scale(&ring_mul(&qp, n, &a1x, &b1x));
        let s2 = ring_mul(q, n, &secret_q, &secret_q);
        let phase = ring_add(q, n, &ring_add(q, n, &d0, &ring_mul(q, n, &d1, &secret_q)), &ring_mul(q, n, &d2, &s2));
        let mut decrypted = vec![0u64; n];
        ctx.decrypt_scale_round(&phase, &mut decrypted).unwrap();
        let expected: Vec<u64> = negacyclic(&m1, &m2).iter().map(|v| mod_floor(v, t)).collect();
        assert_eq!(decrypted, expected, "q = {count} x {bits} bits, t = {t}");
    }
}

#[test]
fn invalid_parameters_and_inputs_are_rejected() {
    let q = primes(60, DEGREE, 2, &[]);
    let ctx = HpsContext::with_generated_moduli(DEGREE, &q, 65537).unwrap();
    let p = ctx.p().values();
    assert!(matches!(HpsContext::new(DEGREE, &q, &[q[0]], 2), Err(RnsError::DuplicateModulus { .. })));
    assert!(matches!(HpsContext::new(DEGREE, &q, &p[..1], 2), Err(RnsError::BaseTooSmall { .. })));
    assert!(matches!(HpsContext::new(DEGREE, &q, &p, 0), Err(RnsError::InvalidParameter { .. })));
    assert!(matches!(HpsContext::new(3, &q, &p, 2), Err(RnsError::InvalidParameter { name: "degree", .. })));
    let mut rng = rng(48);
    let input = random_poly(ctx.q(), DEGREE, &mut rng);
    let sentinel = vec![9u64; ctx.p().len() * DEGREE];
    let mut output = sentinel.clone();
    assert!(matches!(ctx.extend_q_to_p(&input, &mut output[1..]), Err(RnsError::LengthMismatch { .. })));
    let mut bad = input.clone();
    bad[DEGREE - 1] = q[0];
    assert!(matches!(ctx.extend_q_to_p(&bad, &mut output), Err(RnsError::CoefficientOutOfRange { limb: 0, .. })));
    assert!(matches!(
        ctx.decrypt_scale_round(&bad, &mut output[..DEGREE]),
        Err(RnsError::CoefficientOutOfRange { .. })
    ));
    assert!(matches!(ctx.scale_round_to_p(&input, &mut output), Err(RnsError::LengthMismatch { .. })));
    assert_eq!(output, sentinel);
}

#[test]
fn tables_match_their_definitions() {
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let tables = ctx.tables();
        let t = BigInt::from(ctx.plain_modulus().value());
        let p_big = big(p.product());
        let two_128 = BigInt::from(1u8) << 128u32;
        let k = q.len();
        for (i, m) in q.moduli().iter().enumerate() {
            let q_i = BigInt::from(m.value());
            // Decryption: t q~_i / q_i = omega + theta.
            let numerator = &t * q.punctured_inverses()[i];
            let (omega, rest) = numerator.div_rem(&q_i);
            assert_eq!(BigInt::from(tables.dec_integer[i]), omega.mod_floor(&t));
            let fraction = (BigInt::from(tables.dec_fraction_hi[i]) << 64u32) + tables.dec_fraction_lo[i];
            assert_eq!(fraction, (&rest * &two_128) / &q_i);
            // Multiplication: t P Q~_i / q_i.
            let numerator = &t * &p_big * qp.punctured_inverses()[i];
            let (omega, rest) = numerator.div_rem(&q_i);
            for (j, pj) in p.moduli().iter().enumerate() {
                let value = tables.mul_integer[j * k + i];
                assert_eq!(BigInt::from(value), omega.mod_floor(&BigInt::from(pj.value())));
                assert_eq!(tables.mul_integer_shoup[j * k + i], pj.shoup(value));
            }
            let fraction = (BigInt::from(tables.mul_fraction_hi[i]) << 64u32) + tables.mul_fraction_lo[i];
            assert_eq!(fraction, (&rest * &two_128) / &q_i);
        }
        for (j, pj) in p.moduli().iter().enumerate() {
            let p_j = BigInt::from(pj.value());
            let expected = &t * qp.punctured_inverses()[k + j] * (&p_big / &p_j);
            assert_eq!(BigInt::from(tables.mul_own[j]), expected.mod_floor(&p_j));
        }
    }
}
