#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The `Poly<Coeff>` wrappers: equal to the slice operations, context checks, and a BFV
//! encrypt-multiply-decrypt round trip at N = 1024 with the ring contexts' real transforms
//! (DGT for BEHZ, NTT for HPS).

mod common;

use std::sync::Arc;

use common::*;
use num_bigint::BigInt;
use poly::{Coeff, Poly, RingContext, TransformKind};
use rand::Rng;
use rns::{BehzContext, Extension, HpsContext, KeySwitchContext, RnsError};

const DEGREE: usize = 1024;

fn ring(moduli: &[u64], kind: TransformKind) -> Arc<RingContext> {
    RingContext::new(DEGREE, moduli, kind).unwrap()
}

fn uniform(ring: &Arc<RingContext>, rng: &mut rand::rngs::StdRng) -> Poly<Coeff> {
    let data: Vec<u64> = ring
        .moduli()
        .iter()
        .flat_map(|m| (0..DEGREE).map(|_| rng.gen_range(0..m.value())).collect::<Vec<_>>())
        .collect();
    Poly::from_limbs(ring, data).unwrap()
}

fn signed(ring: &Arc<RingContext>, values: &[i64]) -> Poly<Coeff> {
    Poly::from_signed_coeffs(ring, values).unwrap()
}

fn mul(a: &Poly<Coeff>, b: &Poly<Coeff>) -> Poly<Coeff> {
    a.clone().forward().unwrap().mul(&b.clone().forward().unwrap()).unwrap().inverse().unwrap()
}

/// BFV: encrypt m1, m2 under a ternary secret, extend, tensor in the big ring, scale down,
/// decrypt; the result must be m1 m2 mod (x^N + 1, t).
fn bfv_round_trip(
    ring_q: &Arc<RingContext>,
    ring_big: &Arc<RingContext>,
    t: u64,
    extend: impl Fn(&Poly<Coeff>) -> Poly<Coeff>,
    scale_down: impl Fn(&Poly<Coeff>) -> Poly<Coeff>,
    decrypt: impl Fn(&Poly<Coeff>) -> Vec<u64>,
    seed: u64,
) {
    let mut rng = rng(seed);
    let q_big: BigInt = ring_q.moduli().iter().map(|m| BigInt::from(m.value())).product();
    let delta = &q_big / t;
    let secret: Vec<i64> = (0..DEGREE).map(|_| rng.gen_range(-1..=1)).collect();
    let s = signed(ring_q, &secret);
    let delta_residues: Vec<u64> = ring_q.moduli().iter().map(|m| mod_floor(&delta, m.value())).collect();
    let encrypt = |m: &[i64], rng: &mut rand::rngs::StdRng| {
        let a = uniform(ring_q, rng);
        let e: Vec<i64> = (0..DEGREE).map(|_| rng.gen_range(-8..=8)).collect();
        let body = signed(ring_q, m).scalar_mul_per_limb(&delta_residues).unwrap().add(&signed(ring_q, &e)).unwrap();
        (body.sub(&mul(&a, &s)).unwrap(), a)
    };
    let m1: Vec<i64> = (0..DEGREE).map(|_| rng.gen_range(0..t as i64)).collect();
    let m2: Vec<i64> = (0..DEGREE).map(|_| rng.gen_range(0..t as i64)).collect();
    let (a0, a1) = encrypt(&m1, &mut rng);
    let (b0, b1) = encrypt(&m2, &mut rng);
    let eval = |p: &Poly<Coeff>| extend(p).forward().unwrap();
    let (a0, a1, b0, b1) = (eval(&a0), eval(&a1), eval(&b0), eval(&b1));
    assert!(Arc::ptr_eq(a0.context(), ring_big));
    let c0 = a0.mul(&b0).unwrap().inverse().unwrap();
    let mut c1 = a0.mul(&b1).unwrap();
    c1.mul_add_assign(&a1, &b0).unwrap();
    let c1 = c1.inverse().unwrap();
    let c2 = a1.mul(&b1).unwrap().inverse().unwrap();
    let (d0, d1, d2) = (scale_down(&c0), scale_down(&c1), scale_down(&c2));
    let phase = d0.add(&mul(&d1, &s)).unwrap().add(&mul(&mul(&d2, &s), &s)).unwrap();
    let expected: Vec<u64> = negacyclic(
        &m1.iter().map(|&v| BigInt::from(v)).collect::<Vec<_>>(),
        &m2.iter().map(|&v| BigInt::from(v)).collect::<Vec<_>>(),
    )
    .iter()
    .map(|v| mod_floor(v, t))
    .collect();
    assert_eq!(decrypt(&phase), expected);
}

#[test]
fn behz_wrappers_multiply_with_the_dgt() {
    let q = primes(50, DEGREE, 3, &[]);
    let t = 257;
    let behz = BehzContext::with_generated_moduli(DEGREE, &q, t).unwrap();
    let ring_q = ring(&q, TransformKind::Dgt);
    let ring_big = ring(&behz.q_bsk().unwrap().values(), TransformKind::Dgt);
    // The wrappers equal the slice operations.
    let mut rng = rng(71);
    let x = uniform(&ring_q, &mut rng);
    let extended = behz.extend_poly(&x, &ring_big).unwrap();
    let mut bsk = vec![0u64; behz.bsk().len() * DEGREE];
    behz.extend_to_bsk(x.as_slice(), &mut bsk).unwrap();
    assert_eq!(extended.as_slice(), [x.as_slice(), &bsk].concat());
    let mut plain = vec![0u64; DEGREE];
    behz.decrypt_scale_round(x.as_slice(), &mut plain).unwrap();
    assert_eq!(behz.decrypt_poly(&x).unwrap(), plain);
    // Wrong contexts.
    assert!(matches!(
        behz.extend_poly(&x, &ring_q),
        Err(RnsError::ContextMismatch { what: "BEHZ extension output", .. })
    ));
    assert!(matches!(behz.decrypt_poly(&extended), Err(RnsError::ContextMismatch { .. })));
    assert!(matches!(behz.scale_down_poly(&x, &ring_q), Err(RnsError::ContextMismatch { .. })));
    bfv_round_trip(
        &ring_q,
        &ring_big,
        t,
        |p| behz.extend_poly(p, &ring_big).unwrap(),
        |p| behz.scale_down_poly(p, &ring_q).unwrap(),
        |p| behz.decrypt_poly(p).unwrap(),
        72,
    );
}

#[test]
fn hps_wrappers_multiply_with_the_ntt() {
    let q = primes(55, DEGREE, 3, &[]);
    let t = 1 << 16;
    let hps = HpsContext::with_generated_moduli(DEGREE, &q, t).unwrap();
    let ring_q = ring(&q, TransformKind::Ntt);
    let ring_big = ring(&hps.q_p().unwrap().values(), TransformKind::Ntt);
    let mut rng = rng(73);
    let x = uniform(&ring_q, &mut rng);
    let extended = hps.extend_poly(&x, &ring_big).unwrap();
    let mut p_part = vec![0u64; hps.p().len() * DEGREE];
    hps.extend_q_to_p(x.as_slice(), &mut p_part).unwrap();
    assert_eq!(extended.as_slice(), [x.as_slice(), &p_part].concat());
    assert!(matches!(
        hps.scale_down_poly(&x, &ring_q),
        Err(RnsError::ContextMismatch { what: "HPS scaling input", .. })
    ));
    let other_degree = RingContext::new(2 * DEGREE, &primes(55, 2 * DEGREE, 3, &[]), TransformKind::Ntt).unwrap();
    assert!(matches!(
        hps.decrypt_poly(&uniform_other(&other_degree)),
        Err(RnsError::ContextMismatch { actual_degree: 2048, .. })
    ));
    bfv_round_trip(
        &ring_q,
        &ring_big,
        t,
        |p| hps.extend_poly(p, &ring_big).unwrap(),
        |p| hps.scale_down_poly(p, &ring_q).unwrap(),
        |p| hps.decrypt_poly(p).unwrap(),
        74,
    );
}

fn uniform_other(ring: &Arc<RingContext>) -> Poly<Coeff> {
    Poly::zero(ring)
}

#[test]
fn key_switching_wrappers_equal_the_slice_operations() {
    let q = primes(50, DEGREE, 4, &[]);
    let p = primes(60, DEGREE, 2, &q);
    let ks = KeySwitchContext::new(DEGREE, &q, &p, 2).unwrap();
    let ring_q = ring(&q, TransformKind::Ntt);
    let ring_qp = ring(&ks.q_p().unwrap().values(), TransformKind::Ntt);
    let mut rng = rng(75);
    let x = uniform(&ring_q, &mut rng);
    for digit in 0..ks.num_digits() {
        let up = ks.mod_up_poly(&x, digit, Extension::Fast, &ring_qp).unwrap();
        let mut slice = vec![0u64; ring_qp.poly_len()];
        ks.mod_up(x.as_slice(), digit, Extension::Fast, &mut slice).unwrap();
        assert_eq!(up.as_slice(), slice);
        let down = ks.mod_down_poly(&up, &ring_q).unwrap();
        let mut slice_down = vec![0u64; ring_q.poly_len()];
        ks.mod_down(&slice, &mut slice_down).unwrap();
        assert_eq!(down.as_slice(), slice_down);
    }
    assert!(matches!(ks.mod_up_poly(&x, 0, Extension::Exact, &ring_q), Err(RnsError::ContextMismatch { .. })));
    assert!(matches!(ks.mod_down_poly(&x, &ring_q), Err(RnsError::ContextMismatch { what: "ModDown input", .. })));
}
