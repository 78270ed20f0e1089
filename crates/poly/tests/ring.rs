#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Ring contexts and typed polynomials: products under every transform against the naive
//! convolution, transforms agreeing with each other, round trips at every degree,
//! automorphisms, and errors that leave inputs untouched.

use std::sync::Arc;

use modarith::{Modulus, generate_ntt_primes};
use poly::context::{MAX_DEGREE, MIN_DEGREE};
use poly::reference::negacyclic_product;
use poly::{Coeff, Eval, Poly, PolyError, RingContext, TransformKind};
use proptest::prelude::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

fn context(degree: usize, bits: u32, limbs: usize, transform: TransformKind) -> Arc<RingContext> {
    let moduli = generate_ntt_primes(bits, 2 * degree as u64, limbs, &[]).unwrap();
    RingContext::new(degree, &moduli, transform).unwrap()
}

fn random_poly(rng: &mut StdRng, ctx: &Arc<RingContext>) -> Poly<Coeff> {
    let mut data = Vec::with_capacity(ctx.poly_len());
    for m in ctx.moduli() {
        data.extend((0..ctx.degree()).map(|_| rng.gen_range(0..m.value())));
    }
    Poly::from_limbs(ctx, data).unwrap()
}

fn eval_product(a: &Poly<Coeff>, b: &Poly<Coeff>) -> Poly<Coeff> {
    let fa = a.clone().forward().unwrap();
    let fb = b.clone().forward().unwrap();
    fa.mul(&fb).unwrap().inverse().unwrap()
}

#[test]
fn products_match_naive_convolution_for_every_transform() {
    let mut rng = StdRng::seed_from_u64(1);
    for transform in TransformKind::ALL {
        for bits in [30, 50, 62] {
            let ctx = context(1024, bits, 3, transform);
            let (a, b) = (random_poly(&mut rng, &ctx), random_poly(&mut rng, &ctx));
            assert_eq!(eval_product(&a, &b), negacyclic_product(&a, &b).unwrap(), "{transform:?}, {bits} bits");
        }
    }
}

#[test]
fn products_of_extreme_values_match_naive_convolution() {
    for transform in TransformKind::ALL {
        let ctx = context(1024, 62, 2, transform);
        let data: Vec<u64> = ctx.moduli().iter().flat_map(|m| vec![m.value() - 1; 1024]).collect();
        let a = Poly::<Coeff>::from_limbs(&ctx, data).unwrap();
        assert_eq!(eval_product(&a, &a), negacyclic_product(&a, &a).unwrap(), "{transform:?}");
    }
}

/// NTT, DGT and HDGT give the same ring products at every degree up to 2^17.
#[test]
fn transforms_agree_on_products_up_to_2_pow_17() {
    let mut rng = StdRng::seed_from_u64(2);
    for log_n in 10..=17u32 {
        let n = 1usize << log_n;
        let moduli = generate_ntt_primes(55, 2 * n as u64, 2, &[]).unwrap();
        let contexts: Vec<_> = TransformKind::ALL.iter().map(|&t| RingContext::new(n, &moduli, t).unwrap()).collect();
        let a = random_poly(&mut rng, &contexts[0]).into_vec();
        let b = random_poly(&mut rng, &contexts[0]).into_vec();
        let products: Vec<Vec<u64>> = contexts
            .iter()
            .map(|ctx| {
                let pa = Poly::<Coeff>::from_slice(ctx, &a).unwrap();
                let pb = Poly::<Coeff>::from_slice(ctx, &b).unwrap();
                eval_product(&pa, &pb).into_vec()
            })
            .collect();
        assert_eq!(products[0], products[1], "NTT vs DGT at N = 2^{log_n}");
        assert_eq!(products[1], products[2], "DGT vs HDGT at N = 2^{log_n}");
    }
}

/// DGT and HDGT contexts produce identical evaluation vectors; the NTT's differ.
#[test]
fn dgt_and_hdgt_evaluations_are_identical() {
    let mut rng = StdRng::seed_from_u64(3);
    let n = 4096;
    let moduli = generate_ntt_primes(50, 2 * n as u64, 3, &[]).unwrap();
    let dgt = RingContext::new(n, &moduli, TransformKind::Dgt).unwrap();
    let hdgt = RingContext::new(n, &moduli, TransformKind::HierarchicalDgt).unwrap();
    let ntt = RingContext::new(n, &moduli, TransformKind::Ntt).unwrap();
    let a = random_poly(&mut rng, &dgt).into_vec();
    let on = |ctx: &Arc<RingContext>| Poly::<Coeff>::from_slice(ctx, &a).unwrap().forward().unwrap().into_vec();
    assert_eq!(on(&dgt), on(&hdgt));
    assert_ne!(on(&dgt), on(&ntt));
}

#[test]
fn forward_then_inverse_is_identity_at_every_degree() {
    let mut rng = StdRng::seed_from_u64(4);
    for log_n in 10..=17u32 {
        for transform in TransformKind::ALL {
            let ctx = context(1 << log_n, 60, 2, transform);
            let a = random_poly(&mut rng, &ctx);
            let eval: Poly<Eval> = a.clone().forward().unwrap();
            assert_ne!(eval.as_slice(), a.as_slice());
            assert_eq!(eval.inverse().unwrap(), a, "{transform:?} at N = 2^{log_n}");
        }
    }
}

/// The NTT context's evaluation vector is limb by limb the plan's documented order.
#[test]
fn ntt_context_evaluations_follow_the_plan() {
    let mut rng = StdRng::seed_from_u64(5);
    let ctx = context(1024, 40, 2, TransformKind::Ntt);
    let a = random_poly(&mut rng, &ctx);
    let eval = a.clone().forward().unwrap();
    for i in 0..2 {
        let mut limb = a.limb(i).unwrap().to_vec();
        ctx.plan(i).unwrap().forward_inplace(&mut limb).unwrap();
        assert_eq!(eval.limb(i).unwrap(), &limb[..]);
        let plan = ctx.plan(i).unwrap().as_ntt().unwrap();
        let m = plan.modulus();
        // Spot-check evaluation j = 3 against Horner at psi^(2 bitrev(3) + 1).
        let point = m.pow(plan.psi(), 2 * poly::ntt::bit_reverse(3, 10) as u64 + 1);
        let direct = a.limb(i).unwrap().iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, point), c));
        assert_eq!(eval.limb(i).unwrap()[3], direct);
    }
    assert!(ctx.plan(2).is_none());
}

#[test]
fn elementwise_operations_match_scalar_arithmetic() {
    let mut rng = StdRng::seed_from_u64(6);
    let ctx = context(1024, 61, 3, TransformKind::Ntt);
    let (a, b) = (random_poly(&mut rng, &ctx), random_poly(&mut rng, &ctx));
    let sum = a.add(&b).unwrap();
    let diff = a.sub(&b).unwrap();
    let neg = a.neg();
    let scalar = u64::MAX - 12345;
    let scaled = a.scalar_mul(scalar);
    let per_limb: Vec<u64> = ctx.moduli().iter().map(|m| rng.gen_range(0..m.value())).collect();
    let scaled_per_limb = a.scalar_mul_per_limb(&per_limb).unwrap();
    for (i, m) in ctx.moduli().iter().enumerate() {
        let p = m.value() as u128;
        for j in 0..1024 {
            let (x, y) = (a.limb(i).unwrap()[j] as u128, b.limb(i).unwrap()[j] as u128);
            assert_eq!(sum.limb(i).unwrap()[j] as u128, (x + y) % p);
            assert_eq!(diff.limb(i).unwrap()[j] as u128, (x + p - y) % p);
            assert_eq!(neg.limb(i).unwrap()[j] as u128, (p - x) % p);
            assert_eq!(scaled.limb(i).unwrap()[j] as u128, x * (scalar as u128 % p) % p);
            assert_eq!(scaled_per_limb.limb(i).unwrap()[j] as u128, x * per_limb[i] as u128 % p);
        }
    }
    // In-place variants agree with the out-of-place ones.
    let mut c = a.clone();
    c.add_assign(&b).unwrap();
    assert_eq!(c, sum);
    c.sub_assign(&b).unwrap();
    assert_eq!(c, a);
    c.neg_assign();
    assert_eq!(c, neg);
    let mut d = a.clone();
    d.scalar_mul_assign(scalar);
    assert_eq!(d, scaled);
}

#[test]
fn eval_mul_add_assign_is_mul_then_add() {
    let mut rng = StdRng::seed_from_u64(7);
    for transform in TransformKind::ALL {
        let ctx = context(1024, 50, 2, transform);
        let [a, b, c] = [0; 3].map(|_| random_poly(&mut rng, &ctx).forward().unwrap());
        let mut acc = c.clone();
        acc.mul_add_assign(&a, &b).unwrap();
        assert_eq!(acc, c.add(&a.mul(&b).unwrap()).unwrap());
        let mut prod = a.clone();
        prod.mul_assign(&b).unwrap();
        assert_eq!(prod, a.mul(&b).unwrap());
    }
}

#[test]
fn from_signed_coeffs_reduces_into_every_limb() {
    let ctx = context(1024, 40, 3, TransformKind::Ntt);
    let coeffs: Vec<i64> = (0..1024).map(|j| if j % 3 == 0 { -(j as i64) * 1_000_003 } else { j as i64 }).collect();
    let a = Poly::<Coeff>::from_signed_coeffs(&ctx, &coeffs).unwrap();
    for (i, m) in ctx.moduli().iter().enumerate() {
        for (j, &c) in coeffs.iter().enumerate() {
            let p = m.value() as i128;
            assert_eq!(a.limb(i).unwrap()[j] as i128, (c as i128).rem_euclid(p));
        }
    }
    assert_eq!(
        Poly::<Coeff>::from_signed_coeffs(&ctx, &coeffs[..10]),
        Err(PolyError::LengthMismatch { expected: 1024, actual: 10 })
    );
}

/// Evaluates limb `i` of `a` at `x` by Horner's rule.
fn evaluate(m: &Modulus, limb: &[u64], x: u64) -> u64 {
    limb.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// `aut_g(a)(z) = a(z^g)` at a primitive 2N-th root `z`: the definition, independent of
    /// the index formula.
    #[test]
    fn automorphism_substitutes_x_to_the_g(seed: u64, g in 0u64..(1 << 20)) {
        let g = 2 * g + 1;
        let ctx = context(1024, 45, 2, TransformKind::Ntt);
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_poly(&mut rng, &ctx);
        let image = a.automorphism(g).unwrap();
        for (i, m) in ctx.moduli().iter().enumerate() {
            let psi = ctx.plan(i).unwrap().as_ntt().unwrap().psi();
            for z in [psi, m.pow(psi, 5), m.pow(psi, 2047)] {
                prop_assert_eq!(evaluate(m, image.limb(i).unwrap(), z), evaluate(m, a.limb(i).unwrap(), m.pow(z, g)));
            }
        }
    }

    #[test]
    fn automorphisms_compose_and_are_ring_homomorphisms(
        seed: u64,
        g in 0u64..4096,
        h in 0u64..4096,
        transform in prop::sample::select(TransformKind::ALL.to_vec()),
    ) {
        let (g, h) = (2 * g + 1, 2 * h + 1);
        let ctx = context(1024, 50, 2, transform);
        let mut rng = StdRng::seed_from_u64(seed);
        let (a, b) = (random_poly(&mut rng, &ctx), random_poly(&mut rng, &ctx));
        let composed = a.automorphism(g).unwrap().automorphism(h).unwrap();
        prop_assert_eq!(&composed, &a.automorphism(g * h % 2048).unwrap());
        let product = eval_product(&a, &b);
        let image_of_product = product.automorphism(g).unwrap();
        let product_of_images = eval_product(&a.automorphism(g).unwrap(), &b.automorphism(g).unwrap());
        prop_assert_eq!(image_of_product, product_of_images);
        // Additive too, and the identity is x -> x^1 (also x^(2N+1)).
        prop_assert_eq!(a.add(&b).unwrap().automorphism(g).unwrap(),
            a.automorphism(g).unwrap().add(&b.automorphism(g).unwrap()).unwrap());
        prop_assert_eq!(&a.automorphism(1).unwrap(), &a);
        prop_assert_eq!(&a.automorphism(2049).unwrap(), &a);
    }

    #[test]
    fn random_products_match_naive_at_small_cost(
        seed: u64,
        bits in 30u32..=62,
        limbs in 1usize..=3,
        transform in prop::sample::select(TransformKind::ALL.to_vec()),
    ) {
        let ctx = context(1024, bits, limbs, transform);
        let mut rng = StdRng::seed_from_u64(seed);
        let (a, b) = (random_poly(&mut rng, &ctx), random_poly(&mut rng, &ctx));
        prop_assert_eq!(eval_product(&a, &b), negacyclic_product(&a, &b).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// On NTT evaluations the automorphism is the permutation of `automorphism_ntt`: it equals
    /// transforming back, mapping the coefficients and transforming again, for any odd `g`
    /// (beyond 2N too); the backend's `automorphism_eval` equals it in every transform.
    #[test]
    fn automorphism_on_evaluations_equals_the_coefficient_map(
        seed: u64,
        g in 0u64..(1 << 20),
        log_n in 10u32..=12,
        transform in prop::sample::select(TransformKind::ALL.to_vec()),
    ) {
        use poly::Backend;
        let g = 2 * g + 1;
        let ctx = context(1 << log_n, 50, 2, transform);
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_poly(&mut rng, &ctx);
        let expected = a.automorphism(g).unwrap().forward().unwrap();
        let evaluations = a.forward().unwrap();
        let backend = poly::CpuBackend;
        prop_assert_eq!(&backend.automorphism_eval(&evaluations, g).unwrap(), &expected);
        if transform == TransformKind::Ntt {
            prop_assert_eq!(&evaluations.automorphism_ntt(g).unwrap(), &expected);
        } else {
            prop_assert_eq!(evaluations.automorphism_ntt(g).unwrap_err(), poly::PolyError::ContextMismatch);
        }
        prop_assert!(evaluations.automorphism_ntt(g + 1).is_err());
    }
}

#[test]
fn monomial_automorphism_follows_the_index_rule() {
    let ctx = context(1024, 40, 1, TransformKind::Ntt);
    let p = ctx.moduli()[0].value();
    for (j, g, target, negated) in
        [(1usize, 3u64, 3usize, false), (700, 3, 2100 - 2048, false), (400, 3, 1200 - 1024, true)]
    {
        let mut data = vec![0u64; 1024];
        data[j] = 7;
        let image = Poly::<Coeff>::from_limbs(&ctx, data).unwrap().automorphism(g).unwrap();
        let mut expected = vec![0u64; 1024];
        expected[target] = if negated { p - 7 } else { 7 };
        assert_eq!(image.as_slice(), &expected[..], "x^{j} -> x^({j} * {g})");
    }
}

#[test]
fn context_validation_errors_name_the_offending_value() {
    let good = generate_ntt_primes(50, 2048, 3, &[]).unwrap();
    let kind = TransformKind::Ntt;
    assert!(matches!(RingContext::new(1000, &good, kind), Err(PolyError::InvalidDegree { degree: 1000, .. })));
    assert!(matches!(RingContext::new(512, &good, kind), Err(PolyError::InvalidDegree { degree: 512, .. })));
    assert!(matches!(
        RingContext::new(MAX_DEGREE * 2, &good, kind),
        Err(PolyError::InvalidDegree { degree, .. }) if degree == MAX_DEGREE * 2
    ));
    assert!(matches!(
        RingContext::new(MIN_DEGREE, &[], kind),
        Err(PolyError::InvalidModulusCount { count: 0, max: 128 })
    ));
    let many = generate_ntt_primes(50, 2048, 129, &[]).unwrap();
    assert!(matches!(
        RingContext::new(1024, &many, kind),
        Err(PolyError::InvalidModulusCount { count: 129, max: 128 })
    ));
    assert!(RingContext::new(1024, &many[..128], kind).is_ok());
    assert_eq!(
        RingContext::new(1024, &[good[0], good[1], good[0]], kind).unwrap_err(),
        PolyError::DuplicateModulus { modulus: good[0] }
    );
    // A prime that is 1 mod 1024 but not 1 mod 2048.
    let wrong_congruence = generate_ntt_primes(50, 1024, 8, &[]).unwrap().into_iter().find(|p| p % 2048 != 1).unwrap();
    assert!(matches!(
        RingContext::new(1024, &[good[0], wrong_congruence], kind),
        Err(PolyError::InvalidModulus { modulus, degree: 1024, .. }) if modulus == wrong_congruence
    ));
    // A composite that is 1 mod 2N.
    let composite = ((1u64 << 29)..).map(|k| k * 2048 + 1).find(|&c| !modarith::is_prime(c)).unwrap();
    assert!(matches!(
        RingContext::new(1024, &[composite], kind),
        Err(PolyError::Arith(modarith::ModArithError::NotPrime { value })) if value == composite
    ));
    // Too large: 1 mod 2N but above 2^62.
    let huge = (1u64 << 63) + 1;
    assert!(matches!(RingContext::new(1024, &[huge], kind), Err(PolyError::Arith(_))));
}

#[test]
fn contexts_are_compatible_only_with_the_same_ring_and_transform() {
    let moduli = generate_ntt_primes(50, 2048, 2, &[]).unwrap();
    let a = RingContext::new(1024, &moduli, TransformKind::Ntt).unwrap();
    let b = RingContext::new(1024, &moduli, TransformKind::Ntt).unwrap();
    let c = RingContext::new(1024, &moduli, TransformKind::Dgt).unwrap();
    let d = RingContext::new(1024, &moduli[..1], TransformKind::Ntt).unwrap();
    let e = RingContext::new(1024, &[moduli[1], moduli[0]], TransformKind::Ntt).unwrap();
    assert_ne!(a.id(), b.id());
    assert!(a.is_compatible(&a) && a.is_compatible(&b));
    assert!(!a.is_compatible(&c) && !a.is_compatible(&d) && !a.is_compatible(&e));
    assert_eq!((a.degree(), a.num_limbs(), a.poly_len(), a.transform()), (1024, 2, 2048, TransformKind::Ntt));
    assert_eq!(a.moduli().iter().map(|m| m.value()).collect::<Vec<_>>(), moduli);
    assert!(c.plans().iter().all(|p| p.kind() == TransformKind::Dgt && p.as_dgt().is_some()));
}

#[test]
fn bad_input_errors_and_leaves_data_untouched() {
    let mut rng = StdRng::seed_from_u64(8);
    let ctx = context(1024, 40, 2, TransformKind::Ntt);
    let other = context(1024, 41, 2, TransformKind::Ntt);
    let dgt = context(1024, 40, 2, TransformKind::Dgt);

    // Lengths and ranges.
    assert_eq!(
        Poly::<Coeff>::from_limbs(&ctx, vec![0; 2047]),
        Err(PolyError::LengthMismatch { expected: 2048, actual: 2047 })
    );
    let q1 = ctx.moduli()[1].value();
    let mut data = vec![0u64; 2048];
    data[1024 + 17] = q1 + 5;
    assert_eq!(
        Poly::<Eval>::from_slice(&ctx, &data),
        Err(PolyError::CoefficientOutOfRange { limb: 1, index: 17, value: q1 + 5, modulus: q1 })
    );

    // Context mismatches, in place and out of place, leave the receiver untouched.
    let a = random_poly(&mut rng, &ctx);
    let b = random_poly(&mut rng, &other);
    let c = random_poly(&mut rng, &dgt);
    let mut target = a.clone();
    assert_eq!(target.add_assign(&b), Err(PolyError::ContextMismatch));
    assert_eq!(target.sub_assign(&c), Err(PolyError::ContextMismatch));
    assert_eq!(target, a);
    assert_eq!(a.add(&b), Err(PolyError::ContextMismatch));
    assert_eq!(a.sub(&b), Err(PolyError::ContextMismatch));
    let (fa, fc) = (a.clone().forward().unwrap(), c.clone().forward().unwrap());
    let mut ftarget = fa.clone();
    assert_eq!(ftarget.mul_assign(&fc), Err(PolyError::ContextMismatch));
    assert_eq!(ftarget.mul_add_assign(&fa, &fc), Err(PolyError::ContextMismatch));
    assert_eq!(ftarget, fa);
    assert_eq!(poly::reference::negacyclic_product(&a, &b), Err(PolyError::ContextMismatch));

    // Per-limb scalars: count and range.
    let mut target = a.clone();
    assert_eq!(target.scalar_mul_per_limb_assign(&[1]), Err(PolyError::LengthMismatch { expected: 2, actual: 1 }));
    let q0 = ctx.moduli()[0].value();
    assert_eq!(
        target.scalar_mul_per_limb_assign(&[q0, 1]),
        Err(PolyError::CoefficientOutOfRange { limb: 0, index: 0, value: q0, modulus: q0 })
    );
    assert_eq!(target, a);

    // Even automorphism exponents.
    assert_eq!(a.automorphism(4), Err(PolyError::InvalidAutomorphism { exponent: 4, degree: 1024 }));
    assert_eq!(a.automorphism(0), Err(PolyError::InvalidAutomorphism { exponent: 0, degree: 1024 }));

    // Accessors past the end.
    assert!(a.limb(2).is_none());
    assert_eq!(a.limbs().count(), 2);
}
