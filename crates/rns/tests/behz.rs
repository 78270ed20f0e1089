#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BEHZ-BFV pieces against exact big-integer arithmetic: decryption's scale-and-round with
//! gamma (exact prediction, documented bound, measured error rate), the extension to B_sk
//! with the small Montgomery reduction, the fast floor, Shenoy-Kumaresan back to q, the whole
//! multiplication pipeline, and a BFV-style encrypt-multiply-decrypt round trip.

mod common;

use common::*;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use rand::Rng;
use rns::{BehzContext, BehzModuli, RnsBase, RnsError};

const DEGREE: usize = 32;

/// Contexts over several shapes of q, with t prime, a power of two, and composite.
fn contexts() -> Vec<BehzContext> {
    let mut out = Vec::new();
    for (bits, count, t) in [(62u32, 1usize, 2u64), (60, 2, 65537), (55, 3, 1 << 16), (50, 5, 3 * 5 * 7 * 11)] {
        let q = primes(bits, DEGREE, count, &[]);
        out.push(BehzContext::with_generated_moduli(DEGREE, &q, t).unwrap());
    }
    out
}

/// `sum_i |x_i s q~_i|_{q_i} q_i*` for one coefficient: the fast conversion of `|s x|_q`.
fn fast_sum_scaled(q: &RnsBase, residues: &[u64], scale: u64) -> BigUint {
    q.moduli()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let y = m.mul(m.mul(residues[i], m.reduce(scale)), q.punctured_inverses()[i]);
            BigUint::from(y) * &q.punctured_products()[i]
        })
        .sum()
}

/// The exact output BEHZ decryption must give for `x` (Algorithm 2, evaluated with integers).
fn behz_decrypt_reference(ctx: &BehzContext, residues: &[u64]) -> u64 {
    let q = ctx.q();
    let t = ctx.plain_modulus().value();
    let gamma = ctx.gamma().value();
    let x = big(&q.reconstruct(residues).unwrap());
    let q_big = big(q.product());
    let scaled = &x * (gamma as u128 * t as u128);
    // s = floor(gamma t x / q) - u, with u the fast conversion's overflow of |gamma t x|_q.
    let fast = fast_sum_gamma_t(q, residues, gamma, t);
    let reduced = scaled.mod_floor(&q_big);
    let u = (&fast - &reduced) / &q_big;
    assert!(u >= BigInt::zero() && u < BigInt::from(q.len()));
    let s = floor_div(&scaled, &q_big) - u;
    let s_gamma = s.mod_floor(&BigInt::from(gamma));
    let s_centered = if s_gamma > BigInt::from(gamma / 2) { s_gamma - gamma } else { s_gamma };
    let m = (s - s_centered) / gamma; // exact division
    mod_floor(&m, t)
}

/// The fast conversion of `|gamma t x|_q`, multiplying the scale in per limb (gamma t may
/// exceed a word).
fn fast_sum_gamma_t(q: &RnsBase, residues: &[u64], gamma: u64, t: u64) -> BigInt {
    let sum: BigUint = q
        .moduli()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let scale = m.mul(m.reduce(gamma), m.reduce(t));
            let y = m.mul(m.mul(residues[i], scale), q.punctured_inverses()[i]);
            BigUint::from(y) * &q.punctured_products()[i]
        })
        .sum();
    big(&sum)
}

/// Decryption with the given context on uniform inputs: equal to the exact prediction; equal
/// to `round(t x / q)` whenever `f >= -1/2 + k/gamma`, and one less otherwise. Returns
/// (errors, inputs inside the window, total).
fn check_decryption(ctx: &BehzContext, seed: u64, samples: usize) -> (usize, usize, usize) {
    let mut rng = rng(seed);
    let q = ctx.q();
    let t = ctx.plain_modulus().value();
    let gamma = ctx.gamma().value();
    let k = q.len();
    let q_big = big(q.product());
    let (mut errors, mut in_window, mut total) = (0, 0, 0);
    for _ in 0..samples.div_ceil(DEGREE) {
        let input = random_poly(q, DEGREE, &mut rng);
        let mut output = vec![0u64; DEGREE];
        ctx.decrypt_scale_round(&input, &mut output).unwrap();
        for (index, &got) in output.iter().enumerate() {
            let residues = residues_at(&input, k, DEGREE, index);
            assert_eq!(got, behz_decrypt_reference(ctx, &residues), "exact prediction");
            let x = big(&q.reconstruct(&residues).unwrap());
            let rounded = round_div(&(&x * t), &q_big);
            // f = t x / q - rounded in [-1/2, 1/2); the window is f < -1/2 + k/gamma, i.e.
            // gamma (2 t x - 2 q rounded + q) < 2 k q.
            let window = BigInt::from(gamma) * (2 * (&x * t) - 2 * (&q_big * &rounded) + &q_big) < &q_big * (2 * k);
            total += 1;
            if window {
                in_window += 1;
            }
            if got != mod_floor(&rounded, t) {
                assert!(window, "error outside the documented window");
                assert_eq!(got, mod_floor(&(rounded - 1), t));
                errors += 1;
            }
        }
    }
    (errors, in_window, total)
}

#[test]
fn decryption_matches_exact_arithmetic() {
    for (seed, ctx) in contexts().iter().enumerate() {
        let (errors, in_window, total) = check_decryption(ctx, 100 + seed as u64, 512);
        println!(
            "BEHZ decryption k = {}, t = {}, gamma = {} (62 bits): {errors}/{total} differ from round(t x / q) ({in_window} in the k/gamma window)",
            ctx.q().len(),
            ctx.plain_modulus().value(),
            ctx.gamma().value()
        );
        assert_eq!(errors, 0);
    }
}

#[test]
fn decryption_error_rate_with_a_small_gamma() {
    // gamma = 257 makes the k/gamma window wide enough to measure: about k/gamma of uniform
    // inputs are in it, and some of those round down.
    let q = primes(60, DEGREE, 4, &[]);
    let generated = BehzContext::with_generated_moduli(DEGREE, &q, 65537).unwrap();
    let aux = BehzModuli {
        b: generated.b().values(),
        m_sk: generated.m_sk().value(),
        m_tilde: generated.m_tilde().value(),
        gamma: 257,
    };
    let ctx = BehzContext::new(DEGREE, &q, 3, &aux).unwrap();
    let (errors, in_window, total) = check_decryption(&ctx, 7, 8192);
    let rate = errors as f64 / total as f64;
    println!(
        "BEHZ decryption with gamma = 257, k = 4: error rate {rate:.4} ({errors}/{total}); window density {:.4} (k/gamma = {:.4})",
        in_window as f64 / total as f64,
        4.0 / 257.0
    );
    assert!(errors > 0 && errors <= in_window);
    assert!(rate < 2.0 * 4.0 / 257.0);
}

#[test]
fn extension_to_bsk_removes_the_overflow() {
    let mut rng = rng(31);
    for ctx in contexts() {
        let q = ctx.q();
        let bsk = ctx.bsk();
        let q_big = big(q.product());
        let m_tilde = ctx.m_tilde().value();
        let input = random_poly(q, DEGREE, &mut rng);
        let mut output = vec![0u64; bsk.len() * DEGREE];
        ctx.extend_to_bsk(&input, &mut output).unwrap();
        let extended = bsk.reconstruct_poly_centered(&output).unwrap();
        let values = q.reconstruct_poly(&input).unwrap();
        for (c, x) in extended.iter().zip(&values) {
            assert_eq!(c.mod_floor(&q_big), big(x), "c' = x mod q");
            // -q/2 < c' < q/2 + k q / m~.
            assert!(c * 2 > -q_big.clone());
            assert!(c * 2 * m_tilde < &q_big * (m_tilde + 2 * q.len() as u64));
        }
    }
}

#[test]
fn extension_with_a_small_m_tilde_stays_within_its_bound() {
    // A small m~ (BEHZ use 2^16 or 2^32; 31 here) makes the bound q (1/2 + k/m~) visibly
    // larger than q/2, and some outputs land above q/2.
    let q = primes(60, DEGREE, 5, &[]);
    let generated = BehzContext::with_generated_moduli(DEGREE, &q, 2).unwrap();
    let aux = BehzModuli {
        b: generated.b().values(),
        m_sk: generated.m_sk().value(),
        m_tilde: 31,
        gamma: generated.gamma().value(),
    };
    let ctx = BehzContext::new(DEGREE, &q, 2, &aux).unwrap();
    let mut rng = rng(32);
    let q_big = big(ctx.q().product());
    let (mut above_half, mut total) = (0, 0);
    for _ in 0..32 {
        let input = random_poly(ctx.q(), DEGREE, &mut rng);
        let mut output = vec![0u64; ctx.bsk().len() * DEGREE];
        ctx.extend_to_bsk(&input, &mut output).unwrap();
        for (c, x) in
            ctx.bsk().reconstruct_poly_centered(&output).unwrap().iter().zip(ctx.q().reconstruct_poly(&input).unwrap())
        {
            assert_eq!(c.mod_floor(&q_big), big(&x));
            assert!(c * 2 > -q_big.clone() && c * 2 * 31u64 < &q_big * (31u64 + 10));
            total += 1;
            if c * 2 > q_big {
                above_half += 1;
            }
        }
    }
    println!(
        "BEHZ S1 with m~ = 31, k = 5: {above_half}/{total} outputs above q/2 (the bound allows up to q/2 + 5q/31)"
    );
    assert!(above_half > 0);
}

#[test]
fn fast_floor_is_floor_minus_overflow() {
    let mut rng = rng(33);
    for ctx in contexts() {
        let q = ctx.q();
        let bsk = ctx.bsk();
        let q_bsk = ctx.q_bsk().unwrap();
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        let input = random_poly(&q_bsk, DEGREE, &mut rng);
        let mut output = vec![0u64; bsk.len() * DEGREE];
        ctx.fast_floor(&input, &mut output).unwrap();
        let values = q_bsk.reconstruct_poly_centered(&input).unwrap();
        let mut overflows = 0;
        for (index, x) in values.iter().enumerate() {
            let q_residues = residues_at(&input, q.len(), DEGREE, index);
            let tx = x * t;
            let fast = big(&fast_sum_scaled(q, &q_residues, t));
            let u = (&fast - tx.mod_floor(&q_big)) / &q_big;
            let u_small = u.to_i64().unwrap();
            assert!((0..q.len() as i64).contains(&u_small));
            overflows += u_small.min(1) as usize;
            let expected = floor_div(&tx, &q_big) - u;
            assert_eq!(bsk.residues_signed(&expected), residues_at(&output, bsk.len(), DEGREE, index));
        }
        println!("BEHZ fast floor k = {}: overflow u != 0 for {overflows}/{DEGREE} coefficients", q.len());
    }
}

#[test]
fn bsk_to_q_is_exact_on_the_checked_range() {
    let mut rng = rng(34);
    for ctx in contexts() {
        let sk = ctx.shenoy_kumaresan();
        let (low, high) = sk.exact_range();
        let values: Vec<BigInt> = (0..DEGREE).map(|_| random_in(&low, &(&high + 1), &mut rng)).collect();
        let mut output = vec![0u64; ctx.q().len() * DEGREE];
        ctx.bsk_to_q(&ctx.bsk().decompose_poly(&values), &mut output).unwrap();
        assert_eq!(output, ctx.q().decompose_poly(&values));
    }
}

/// The multiplication pipeline S0-S4 on a tensor product, each step against big integers.
#[test]
fn multiplication_pipeline_matches_exact_arithmetic() {
    let mut rng = rng(35);
    for ctx in contexts() {
        let q = ctx.q();
        let bsk = ctx.bsk();
        let q_bsk = ctx.q_bsk().unwrap();
        let (k, n) = (q.len(), DEGREE);
        let t = ctx.plain_modulus().value();
        let q_big = big(q.product());
        // Two "ciphertexts" (a0, a1), (b0, b1), uniform over q.
        let polys: Vec<Vec<u64>> = (0..4).map(|_| random_poly(q, n, &mut rng)).collect();
        // S0 + S1, then the limbs over q u B_sk and the exact integers c'.
        let mut extended = Vec::new();
        let mut exact = Vec::new();
        for p in &polys {
            let mut out = vec![0u64; bsk.len() * n];
            ctx.extend_to_bsk(p, &mut out).unwrap();
            exact.push(bsk.reconstruct_poly_centered(&out).unwrap());
            extended.push([p.clone(), out].concat());
        }
        // S2: the tensor's middle term c1 = a0 b1 + a1 b0 (the largest), over q u B_sk.
        let tensor = ring_add(
            &q_bsk,
            n,
            &ring_mul(&q_bsk, n, &extended[0], &extended[3]),
            &ring_mul(&q_bsk, n, &extended[1], &extended[2]),
        );
        let tensor_exact: Vec<BigInt> =
            negacyclic(&exact[0], &exact[3]).iter().zip(negacyclic(&exact[1], &exact[2])).map(|(a, b)| a + b).collect();
        assert_eq!(q_bsk.reconstruct_poly_centered(&tensor).unwrap(), tensor_exact, "tensor fits q u B_sk");
        // S3 and S4.
        let mut floored = vec![0u64; bsk.len() * n];
        ctx.fast_floor(&tensor, &mut floored).unwrap();
        let mut result = vec![0u64; k * n];
        ctx.bsk_to_q(&floored, &mut result).unwrap();
        for (index, x) in tensor_exact.iter().enumerate() {
            let tx = x * t;
            let q_residues = residues_at(&tensor, k, n, index);
            let u = (big(&fast_sum_scaled(q, &q_residues, t)) - tx.mod_floor(&q_big)) / &q_big;
            let expected = floor_div(&tx, &q_big) - u;
            assert_eq!(q.residues_signed(&expected), residues_at(&result, k, n, index));
        }
    }
}

/// Encrypt two plaintexts in BFV, multiply with the BEHZ pipeline (no relinearization: a
/// three-component result), decrypt with BEHZ decryption: the negacyclic product mod t.
#[test]
fn bfv_multiplication_round_trip() {
    let mut rng = rng(36);
    for (bits, count, t) in [(60u32, 3usize, 257u64), (55, 4, 1 << 10)] {
        let q_primes = primes(bits, DEGREE, count, &[]);
        let ctx = BehzContext::with_generated_moduli(DEGREE, &q_primes, t).unwrap();
        let q = ctx.q();
        let q_bsk = ctx.q_bsk().unwrap();
        let (k, n) = (q.len(), DEGREE);
        let q_big = big(q.product());
        let delta = &q_big / t;
        let secret = random_small(n, 1, &mut rng);
        let secret_q = q.decompose_poly(&secret);
        let encrypt = |m: &[BigInt], rng: &mut rand::rngs::StdRng| {
            let a = random_poly(q, n, rng);
            let e = random_small(n, 8, rng);
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
        let m1: Vec<BigInt> = (0..n).map(|_| BigInt::from(rng.gen_range(0..t))).collect();
        let m2: Vec<BigInt> = (0..n).map(|_| BigInt::from(rng.gen_range(0..t))).collect();
        let (a0, a1) = encrypt(&m1, &mut rng);
        let (b0, b1) = encrypt(&m2, &mut rng);
        let extend = |p: &[u64]| {
            let mut out = vec![0u64; ctx.bsk().len() * n];
            ctx.extend_to_bsk(p, &mut out).unwrap();
            [p.to_vec(), out].concat()
        };
        let (a0x, a1x, b0x, b1x) = (extend(&a0), extend(&a1), extend(&b0), extend(&b1));
        let c0 = ring_mul(&q_bsk, n, &a0x, &b0x);
        let c1 = ring_add(&q_bsk, n, &ring_mul(&q_bsk, n, &a0x, &b1x), &ring_mul(&q_bsk, n, &a1x, &b0x));
        let c2 = ring_mul(&q_bsk, n, &a1x, &b1x);
        let scale = |c: &[u64]| {
            let mut floored = vec![0u64; ctx.bsk().len() * n];
            ctx.fast_floor(c, &mut floored).unwrap();
            let mut out = vec![0u64; k * n];
            ctx.bsk_to_q(&floored, &mut out).unwrap();
            out
        };
        let (d0, d1, d2) = (scale(&c0), scale(&c1), scale(&c2));
        // Decrypt: d0 + d1 s + d2 s^2, then scale-and-round.
        let s2 = ring_mul(q, n, &secret_q, &secret_q);
        let phase = ring_add(q, n, &ring_add(q, n, &d0, &ring_mul(q, n, &d1, &secret_q)), &ring_mul(q, n, &d2, &s2));
        let mut decrypted = vec![0u64; n];
        ctx.decrypt_scale_round(&phase, &mut decrypted).unwrap();
        let expected: Vec<u64> = negacyclic(&m1, &m2).iter().map(|v| mod_floor(v, t)).collect();
        assert_eq!(decrypted, expected, "q = {count} x {bits} bits, t = {t}");
        // The noise left: |phase - Delta m| well below Delta / 2.
        let noise: Vec<BigInt> = q
            .reconstruct_poly_centered(&phase)
            .unwrap()
            .iter()
            .zip(&expected)
            .map(|(p, &m)| {
                let r = (p - &delta * m).mod_floor(&q_big);
                if &r * 2 > q_big { r - &q_big } else { r }
            })
            .collect();
        let noise_bits = max_abs(&noise).bits();
        println!("BEHZ BFV product: noise {noise_bits} bits of Delta's {} bits", delta.bits());
        assert!(noise_bits + 1 < delta.bits());
    }
}

#[test]
fn invalid_parameters_and_inputs_are_rejected() {
    let q = primes(60, DEGREE, 2, &[]);
    let ctx = BehzContext::with_generated_moduli(DEGREE, &q, 65537).unwrap();
    let aux = BehzModuli {
        b: ctx.b().values(),
        m_sk: ctx.m_sk().value(),
        m_tilde: ctx.m_tilde().value(),
        gamma: ctx.gamma().value(),
    };
    // Degree, t, gamma, duplicates.
    assert!(matches!(BehzContext::new(24, &q, 2, &aux), Err(RnsError::InvalidParameter { name: "degree", .. })));
    assert!(matches!(BehzContext::new(DEGREE, &q, 1, &aux), Err(RnsError::InvalidParameter { .. })));
    assert!(matches!(
        BehzContext::new(DEGREE, &q, 3 * q[0], &aux),
        Err(RnsError::NotCoprime { other_name: "q_i", .. })
    ));
    assert!(matches!(
        BehzContext::new(DEGREE, &q, aux.gamma, &aux),
        Err(RnsError::NotCoprime { other_name: "gamma", .. })
    ));
    let small_gamma = BehzModuli { gamma: 3, ..aux.clone() };
    assert!(matches!(
        BehzContext::new(DEGREE, &q, 2, &small_gamma),
        Err(RnsError::ModulusTooSmall { name: "gamma", value: 3, minimum: 5 })
    ));
    let clash = BehzModuli { m_tilde: q[1], ..aux.clone() };
    assert!(matches!(BehzContext::new(DEGREE, &q, 2, &clash), Err(RnsError::DuplicateModulus { .. })));
    // B too small for the tensor, and for the floor result (large t).
    let short_b = BehzModuli { b: aux.b[..1].to_vec(), ..aux.clone() };
    assert!(matches!(BehzContext::new(DEGREE, &q, 2, &short_b), Err(RnsError::BaseTooSmall { .. })));
    let big_t = BehzContext::new(DEGREE, &q, (1 << 62) - 1, &aux);
    assert!(matches!(big_t, Err(RnsError::BaseTooSmall { .. })), "{big_t:?}");
    // Inputs: lengths and ranges; the output is untouched.
    let mut rng = rng(37);
    let input = random_poly(ctx.q(), DEGREE, &mut rng);
    let sentinel = vec![5u64; ctx.bsk().len() * DEGREE];
    let mut output = sentinel.clone();
    assert!(matches!(ctx.extend_to_bsk(&input[1..], &mut output), Err(RnsError::LengthMismatch { .. })));
    let mut bad = input.clone();
    bad[DEGREE + 3] = q[1];
    assert!(matches!(
        ctx.extend_to_bsk(&bad, &mut output),
        Err(RnsError::CoefficientOutOfRange { limb: 1, index: 3, .. })
    ));
    assert!(matches!(ctx.fast_floor(&input, &mut output), Err(RnsError::LengthMismatch { .. })));
    assert!(matches!(
        ctx.decrypt_scale_round(&bad, &mut output[..DEGREE]),
        Err(RnsError::CoefficientOutOfRange { .. })
    ));
    assert!(matches!(ctx.bsk_to_q(&output, &mut [0u64; 3]), Err(RnsError::LengthMismatch { .. })));
    assert_eq!(output, sentinel);
}

#[test]
fn s0_and_s1_separately_compose_to_the_extension() {
    let mut rng = rng(38);
    for ctx in contexts() {
        let (q, bsk, n) = (ctx.q(), ctx.bsk(), DEGREE);
        let m_tilde = ctx.m_tilde().value();
        let bsk_mtilde = bsk.union(&RnsBase::new(&[m_tilde]).unwrap()).unwrap();
        let input = random_poly(q, n, &mut rng);
        // S0 against the big-integer fast conversion of |m~ x|_q.
        let mut s0 = vec![0u64; bsk_mtilde.len() * n];
        ctx.fast_convert_to_bsk_mtilde(&input, &mut s0).unwrap();
        for index in 0..n {
            let sum = fast_sum_scaled(q, &residues_at(&input, q.len(), n, index), m_tilde);
            assert_eq!(bsk_mtilde.residues(&sum), residues_at(&s0, bsk_mtilde.len(), n, index));
        }
        // S1 after S0 is the fused extension.
        let mut s1 = vec![0u64; bsk.len() * n];
        ctx.small_montgomery_reduce(&s0, &mut s1).unwrap();
        let mut fused = vec![0u64; bsk.len() * n];
        ctx.extend_to_bsk(&input, &mut fused).unwrap();
        assert_eq!(s1, fused);
        // S1 on arbitrary input: (c'' + q r) / m~ with r = [-c'' q^-1]_{m~}, exactly.
        let arbitrary = random_poly(&bsk_mtilde, n, &mut rng);
        ctx.small_montgomery_reduce(&arbitrary, &mut s1).unwrap();
        let q_big = big(q.product());
        let m_tilde_big = BigInt::from(m_tilde);
        let q_inv = q_big.modinv(&m_tilde_big).unwrap();
        for (index, c) in bsk_mtilde.reconstruct_poly(&arbitrary).unwrap().iter().enumerate() {
            let c = big(c);
            let r = (-&c * &q_inv).mod_floor(&m_tilde_big);
            let r = if &r * 2 > m_tilde_big { r - &m_tilde_big } else { r };
            let (quotient, rest) = (&c + &q_big * r).div_rem(&m_tilde_big);
            assert!(rest.is_zero());
            assert_eq!(bsk.residues_signed(&quotient), residues_at(&s1, bsk.len(), n, index));
        }
        let mut bad = arbitrary.clone();
        bad[bsk.len() * n] = m_tilde;
        assert!(matches!(
            ctx.small_montgomery_reduce(&bad, &mut s1),
            Err(RnsError::CoefficientOutOfRange { limb, .. }) if limb == bsk.len()
        ));
    }
}

#[test]
fn tables_match_their_definitions() {
    for ctx in contexts() {
        let (q, bsk) = (ctx.q(), ctx.bsk());
        let tables = ctx.tables();
        let t = ctx.plain_modulus().value();
        let (gamma, m_tilde) = (ctx.gamma().value(), ctx.m_tilde().value());
        let q_big = big(q.product());
        for (i, m) in q.moduli().iter().enumerate() {
            let p = BigInt::from(m.value());
            let q_tilde = BigInt::from(q.punctured_inverses()[i]);
            let check = |value: u64, shoup: u64, expected: BigInt| {
                assert_eq!(BigInt::from(value), expected.mod_floor(&p));
                assert_eq!(shoup, m.shoup(value));
            };
            check(tables.dec_scale[i], tables.dec_scale_shoup[i], &q_tilde * gamma * t);
            check(tables.mtilde_scale[i], tables.mtilde_scale_shoup[i], &q_tilde * m_tilde);
            check(tables.t_scale[i], tables.t_scale_shoup[i], &q_tilde * t);
            let q_i_inv_t = p.modinv(&BigInt::from(t)).unwrap();
            assert_eq!(BigInt::from(tables.dec_row_t[i]), (-q_i_inv_t).mod_floor(&BigInt::from(t)));
            let q_i_inv_gamma = p.modinv(&BigInt::from(gamma)).unwrap();
            assert_eq!(BigInt::from(tables.dec_row_gamma[i]), (-q_i_inv_gamma).mod_floor(&BigInt::from(gamma)));
        }
        assert_eq!(BigInt::from(tables.gamma_inv_t.0), BigInt::from(gamma).modinv(&BigInt::from(t)).unwrap());
        assert_eq!(
            BigInt::from(tables.neg_q_inv_mtilde.0),
            (-q_big.modinv(&BigInt::from(m_tilde)).unwrap()).mod_floor(&BigInt::from(m_tilde))
        );
        for (j, m) in bsk.moduli().iter().enumerate() {
            let p = BigInt::from(m.value());
            assert_eq!(BigInt::from(tables.q_mod_bsk[j]), q_big.mod_floor(&p));
            assert_eq!(BigInt::from(tables.mtilde_inv_bsk[j]), BigInt::from(m_tilde).modinv(&p).unwrap());
            let q_inv = q_big.modinv(&p).unwrap();
            assert_eq!(BigInt::from(tables.q_inv_bsk[j]), q_inv);
            assert_eq!(BigInt::from(tables.t_q_inv_bsk[j]), (q_inv * t).mod_floor(&p));
            assert_eq!(tables.t_q_inv_bsk_shoup[j], m.shoup(tables.t_q_inv_bsk[j]));
        }
    }
}
