#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Key-switching building blocks against exact big-integer arithmetic: digits, ModUp (fast
//! and exact), gadget factors, ModDown (random and adversarial inputs), and a whole hybrid
//! key switch with a measured noise.

mod common;

use common::*;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use rns::{Extension, KeySwitchContext, RnsBase, RnsError};

const DEGREE: usize = 16;

/// (q primes, P primes, primes per digit).
fn contexts() -> Vec<KeySwitchContext> {
    let mut out = Vec::new();
    for (q_count, p_count, per_digit) in
        [(1usize, 1usize, 1usize), (3, 1, 1), (4, 2, 2), (5, 2, 2), (6, 3, 3), (5, 5, 5)]
    {
        let q = primes(60, DEGREE, q_count, &[]);
        let p = primes(61, DEGREE, p_count, &q);
        out.push(KeySwitchContext::new(DEGREE, &q, &p, per_digit).unwrap());
    }
    out
}

#[test]
fn digits_partition_q() {
    for ctx in contexts() {
        let k = ctx.q().len();
        let mut covered = Vec::new();
        for j in 0..ctx.num_digits() {
            covered.extend(ctx.digit_range(j).unwrap());
        }
        assert_eq!(covered, (0..k).collect::<Vec<_>>());
        assert!(matches!(ctx.digit_range(ctx.num_digits()), Err(RnsError::DigitOutOfRange { .. })));
    }
}

#[test]
fn mod_up_extends_each_digit() {
    let mut rng = rng(51);
    for ctx in contexts() {
        let q = ctx.q();
        let qp = ctx.q_p().unwrap();
        let input = random_poly(q, DEGREE, &mut rng);
        let a = q.reconstruct_poly(&input).unwrap();
        for j in 0..ctx.num_digits() {
            let range = ctx.digit_range(j).unwrap();
            let digit_base = RnsBase::new(&q.values()[range.clone()]).unwrap();
            let digit_product = big(digit_base.product());
            let digit = ctx.digit(&input, j).unwrap();
            assert_eq!(digit, &input[range.start * DEGREE..range.end * DEGREE]);
            let mut fast = vec![0u64; qp.len() * DEGREE];
            ctx.mod_up(&input, j, Extension::Fast, &mut fast).unwrap();
            let mut exact = vec![0u64; qp.len() * DEGREE];
            ctx.mod_up(&input, j, Extension::Exact, &mut exact).unwrap();
            let fast_values = qp.reconstruct_poly(&fast).unwrap();
            let exact_values = qp.reconstruct_poly_centered(&exact).unwrap();
            let mut overflow = 0usize;
            for index in 0..DEGREE {
                let d = big(&a[index]).mod_floor(&digit_product);
                // Fast: [a]_{Q_j} + u Q_j with 0 <= u < |D_j|.
                let (u, rest) = (big(&fast_values[index]) - &d).div_rem(&digit_product);
                assert!(rest.is_zero());
                let u = u.to_usize().unwrap();
                assert!(u < range.len());
                overflow += u;
                // Exact: the centered [a]_{Q_j}.
                let centered = if &d * 2 > digit_product { &d - &digit_product } else { d };
                assert_eq!(exact_values[index], centered);
            }
            println!(
                "ModUp k = {}, digit {j} of {} primes: fast overflow mean u = {:.2}",
                q.len(),
                range.len(),
                overflow as f64 / DEGREE as f64
            );
        }
        // All digits at once.
        let mut all = vec![0u64; ctx.num_digits() * qp.len() * DEGREE];
        ctx.mod_up_all(&input, Extension::Fast, &mut all).unwrap();
        for (j, chunk) in all.chunks_exact(qp.len() * DEGREE).enumerate() {
            let mut single = vec![0u64; qp.len() * DEGREE];
            ctx.mod_up(&input, j, Extension::Fast, &mut single).unwrap();
            assert_eq!(chunk, single);
        }
    }
}

#[test]
fn gadget_factors_recompose_p_times_a() {
    let mut rng = rng(52);
    for ctx in contexts() {
        let q = ctx.q();
        let qp = ctx.q_p().unwrap();
        let qp_big = qp.product();
        let p_big = ctx.special_product();
        let input = random_poly(q, DEGREE, &mut rng);
        let mut sum = vec![BigInt::zero(); DEGREE];
        for j in 0..ctx.num_digits() {
            let range = ctx.digit_range(j).unwrap();
            let digit_product: BigUint = q.values()[range].iter().map(|&m| BigUint::from(m)).product();
            let complement = q.product() / &digit_product;
            let inverse = big(&complement).modinv(&big(&digit_product)).unwrap();
            let expected = (big(p_big) * big(&complement) * inverse).mod_floor(&big(qp_big));
            let factor = ctx.gadget_factor(j).unwrap();
            assert_eq!(factor, qp.residues_signed(&expected));
            let mut extended = vec![0u64; qp.len() * DEGREE];
            ctx.mod_up(&input, j, Extension::Fast, &mut extended).unwrap();
            for (index, value) in qp.reconstruct_poly(&extended).unwrap().iter().enumerate() {
                sum[index] += big(value) * &expected;
            }
        }
        let a = q.reconstruct_poly(&input).unwrap();
        for (s, x) in sum.iter().zip(&a) {
            assert_eq!(s.mod_floor(&big(qp_big)), (big(p_big) * big(x)).mod_floor(&big(qp_big)));
        }
    }
}

#[test]
fn mod_down_rounds_the_division_by_p() {
    let mut rng = rng(53);
    for ctx in contexts() {
        let (q, p) = (ctx.q(), ctx.p());
        let qp = ctx.q_p().unwrap();
        let p_big = big(p.product());
        for _ in 0..8 {
            let input = random_poly(&qp, DEGREE, &mut rng);
            let mut output = vec![0u64; q.len() * DEGREE];
            ctx.mod_down(&input, &mut output).unwrap();
            let expected: Vec<BigInt> =
                qp.reconstruct_poly(&input).unwrap().iter().map(|x| round_div(&big(x), &p_big)).collect();
            assert_eq!(output, q.decompose_poly(&expected));
        }
        // Adversarial: x mod P just above P/2, inside the window when P > 2^65 / l.
        let half_up: BigInt = (&p_big + 1) / 2;
        let values: Vec<BigInt> = (0..DEGREE as u64)
            .map(|d| &half_up + d + &p_big * random_in(&BigInt::zero(), &big(q.product()), &mut rng))
            .collect();
        let mut output = vec![0u64; q.len() * DEGREE];
        ctx.mod_down(&qp.decompose_poly(&values), &mut output).unwrap();
        let mut misses = 0;
        for (index, x) in values.iter().enumerate() {
            let got = residues_at(&output, q.len(), DEGREE, index);
            let rounded = round_div(x, &p_big);
            if q.residues_signed(&rounded) != got {
                assert_eq!(q.residues_signed(&(rounded - 1)), got);
                misses += 1;
            }
        }
        if p.product() < &((BigUint::from(1u8) << 65u32) / p.len()) {
            assert_eq!(misses, 0);
        }
        println!("ModDown l = {}: {misses}/{DEGREE} inputs just above P/2 rounded down", p.len());
    }
}

/// A whole hybrid key switch from s' to s: keys ksk_j = (-a_j s + e_j + g_j s', a_j) over
/// q u P; (c0, c1) = ModDown(sum_j ModUp(d_j) ksk_j) satisfies c0 + c1 s = d s' + small.
#[test]
fn hybrid_key_switch_round_trip() {
    let mut rng = rng(54);
    for extension in [Extension::Fast, Extension::Exact] {
        for ctx in contexts() {
            let (q, n) = (ctx.q(), DEGREE);
            let qp = ctx.q_p().unwrap();
            let s = random_small(n, 1, &mut rng);
            let s_new = random_small(n, 1, &mut rng);
            let (s_qp, s_new_qp) = (qp.decompose_poly(&s), qp.decompose_poly(&s_new));
            let error_bound = 8i64;
            let d = random_poly(q, n, &mut rng);
            let mut acc0 = vec![0u64; qp.len() * n];
            let mut acc1 = vec![0u64; qp.len() * n];
            let mut max_digit = BigInt::zero();
            for j in 0..ctx.num_digits() {
                let a_j = random_poly(&qp, n, &mut rng);
                let e_j = qp.decompose_poly(&random_small(n, error_bound, &mut rng));
                let factor = ctx.gadget_factor(j).unwrap();
                let g_s_new: Vec<u64> =
                    s_new_qp.iter().enumerate().map(|(idx, &x)| qp.moduli()[idx / n].mul(x, factor[idx / n])).collect();
                let minus_a_s: Vec<u64> = ring_mul(&qp, n, &a_j, &s_qp)
                    .iter()
                    .enumerate()
                    .map(|(idx, &x)| qp.moduli()[idx / n].neg(x))
                    .collect();
                let key0 = ring_add(&qp, n, &ring_add(&qp, n, &minus_a_s, &e_j), &g_s_new);
                let mut up = vec![0u64; qp.len() * n];
                ctx.mod_up(&d, j, extension, &mut up).unwrap();
                max_digit = max_digit.max(max_abs(&qp.reconstruct_poly_centered(&up).unwrap()));
                acc0 = ring_add(&qp, n, &acc0, &ring_mul(&qp, n, &up, &key0));
                acc1 = ring_add(&qp, n, &acc1, &ring_mul(&qp, n, &up, &a_j));
            }
            let mut c0 = vec![0u64; q.len() * n];
            let mut c1 = vec![0u64; q.len() * n];
            ctx.mod_down(&acc0, &mut c0).unwrap();
            ctx.mod_down(&acc1, &mut c1).unwrap();
            let phase = ring_add(q, n, &c0, &ring_mul(q, n, &c1, &q.decompose_poly(&s)));
            let target = ring_mul(q, n, &d, &q.decompose_poly(&s_new));
            let difference: Vec<u64> =
                phase.iter().zip(&target).enumerate().map(|(idx, (&x, &y))| q.moduli()[idx / n].sub(x, y)).collect();
            let noise = max_abs(&q.reconstruct_poly_centered(&difference).unwrap());
            // Bound: sum_j |ModUp(d_j)| N |e| / P + the two roundings (1/2 + N |s| / 2) + slack.
            let p_big = big(ctx.special_product());
            let bound: BigInt = (BigInt::from(ctx.num_digits() * n) * &max_digit * error_bound) / &p_big + n as u64 + 2;
            println!(
                "key switch {:?}, k = {}, l = {}, {} digits: noise {noise} (bound {bound})",
                extension,
                q.len(),
                ctx.p().len(),
                ctx.num_digits()
            );
            assert!(noise <= bound);
        }
    }
}

#[test]
fn invalid_parameters_and_inputs_are_rejected() {
    let q = primes(60, DEGREE, 3, &[]);
    let p = primes(61, DEGREE, 1, &q);
    assert!(matches!(KeySwitchContext::new(DEGREE, &q, &[q[2]], 1), Err(RnsError::DuplicateModulus { .. })));
    assert!(matches!(KeySwitchContext::new(DEGREE, &q, &p, 0), Err(RnsError::InvalidParameter { .. })));
    assert!(matches!(KeySwitchContext::new(DEGREE, &q, &p, 4), Err(RnsError::InvalidParameter { .. })));
    let ctx = KeySwitchContext::new(DEGREE, &q, &p, 2).unwrap();
    assert_eq!(ctx.num_digits(), 2);
    let mut rng = rng(55);
    let input = random_poly(ctx.q(), DEGREE, &mut rng);
    let sentinel = vec![3u64; 4 * DEGREE];
    let mut output = sentinel.clone();
    assert!(matches!(
        ctx.mod_up(&input, 2, Extension::Fast, &mut output),
        Err(RnsError::DigitOutOfRange { digit: 2, count: 2 })
    ));
    assert!(matches!(ctx.mod_up(&input, 0, Extension::Fast, &mut output[1..]), Err(RnsError::LengthMismatch { .. })));
    let mut bad = input.clone();
    bad[2 * DEGREE] = q[2];
    assert!(matches!(
        ctx.mod_up(&bad, 0, Extension::Exact, &mut output),
        Err(RnsError::CoefficientOutOfRange { limb: 2, .. })
    ));
    assert!(matches!(ctx.mod_down(&input, &mut output[..3 * DEGREE]), Err(RnsError::LengthMismatch { .. })));
    let mut bad_qp = random_poly(&ctx.q_p().unwrap(), DEGREE, &mut rng);
    bad_qp[3 * DEGREE + 1] = p[0];
    assert!(matches!(ctx.mod_down(&bad_qp, &mut output[..3 * DEGREE]), Err(RnsError::CoefficientOutOfRange { .. })));
    assert_eq!(output, sentinel);
}
