#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! DGT plan: products against a naive negacyclic convolution, the documented evaluation
//! points and ordering, round trips up to N = 2^17, tables, and errors.

use modarith::{GaussianInt, Modulus, generate_ntt_primes};
use poly::PolyError;
use poly::dgt::{DgtPlan, gaussian_pointwise_mul, gaussian_pointwise_mul_assign};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn modulus_for(bits: u32, degree: usize) -> Modulus {
    Modulus::new(generate_ntt_primes(bits, 2 * degree as u64, 1, &[]).unwrap()[0]).unwrap()
}

fn random_poly(rng: &mut StdRng, degree: usize, p: u64) -> Vec<u64> {
    (0..degree).map(|_| rng.gen_range(0..p)).collect()
}

/// `a * b mod (x^N + 1, p)` by the schoolbook formula over exact `u128` products.
fn naive_negacyclic(a: &[u64], b: &[u64], p: u64) -> Vec<u64> {
    let n = a.len();
    let p128 = p as u128;
    let mut c = vec![0u128; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let prod = x as u128 * y as u128 % p128;
            let k = i + j;
            if k < n {
                c[k] = (c[k] + prod) % p128;
            } else {
                c[k - n] = (c[k - n] + p128 - prod) % p128;
            }
        }
    }
    c.into_iter().map(|v| v as u64).collect()
}

fn dgt_product(plan: &DgtPlan, a: &[u64], b: &[u64]) -> Vec<u64> {
    let (mut fa, mut fb) = (a.to_vec(), b.to_vec());
    plan.forward_inplace(&mut fa).unwrap();
    plan.forward_inplace(&mut fb).unwrap();
    let mut fc = vec![0; a.len()];
    plan.pointwise_mul(&fa, &fb, &mut fc).unwrap();
    plan.inverse_inplace(&mut fc).unwrap();
    fc
}

fn bit_reverse(k: usize, bits: u32) -> usize {
    (0..bits).fold(0, |acc, b| (acc << 1) | ((k >> b) & 1))
}

#[test]
fn products_match_naive_convolution() {
    let mut rng = StdRng::seed_from_u64(1);
    for log_n in 2..=11 {
        let degree = 1usize << log_n;
        for bits in [30, 45, 62] {
            let m = modulus_for(bits, degree);
            let plan = DgtPlan::new(m, degree).unwrap();
            let a = random_poly(&mut rng, degree, m.value());
            let b = random_poly(&mut rng, degree, m.value());
            assert_eq!(
                dgt_product(&plan, &a, &b),
                naive_negacyclic(&a, &b, m.value()),
                "N = {degree}, p = {}",
                m.value()
            );
        }
    }
}

#[test]
fn products_of_extreme_values_match_naive_convolution() {
    // All coefficients p - 1 drive every lazy range to its limit.
    for log_n in [4, 8, 11] {
        let degree = 1usize << log_n;
        let m = modulus_for(62, degree);
        let plan = DgtPlan::new(m, degree).unwrap();
        let a = vec![m.value() - 1; degree];
        let mut b = vec![0; degree];
        b[degree - 1] = m.value() - 1;
        b[1] = 1;
        assert_eq!(dgt_product(&plan, &a, &a), naive_negacyclic(&a, &a, m.value()));
        assert_eq!(dgt_product(&plan, &a, &b), naive_negacyclic(&a, &b, m.value()));
    }
}

/// `eval_j = a(zeta_j)` in `Z_p[i]`, `zeta_j = h * g^bitrev(j)`, interleaved: the ordering
/// the documentation states, checked by evaluating the polynomial directly.
#[test]
fn forward_output_is_evaluation_at_documented_points() {
    let mut rng = StdRng::seed_from_u64(2);
    for log_n in 2..=7 {
        let degree = 1usize << log_n;
        let half = degree / 2;
        let m = modulus_for(50, degree);
        let plan = DgtPlan::new(m, degree).unwrap();
        let (h, g) = (plan.root_of_i(), plan.root_of_unity());
        let a = random_poly(&mut rng, degree, m.value());
        let mut eval = a.clone();
        plan.forward_inplace(&mut eval).unwrap();
        for j in 0..half {
            let g_power = m.pow(g, bit_reverse(j, log_n - 1) as u64);
            let zeta = m.gauss_mul(h, GaussianInt::new(g_power, 0));
            assert_eq!(m.gauss_pow(zeta, degree as u64), GaussianInt::new(m.value() - 1, 0));
            // Horner in Z_p[i].
            let value = a
                .iter()
                .rev()
                .fold(GaussianInt::default(), |acc, &c| m.gauss_add(m.gauss_mul(acc, zeta), GaussianInt::new(c, 0)));
            assert_eq!(GaussianInt::new(eval[2 * j], eval[2 * j + 1]), value, "N = {degree}, j = {j}");
        }
    }
}

#[test]
fn forward_then_inverse_is_identity_up_to_2_pow_17() {
    let mut rng = StdRng::seed_from_u64(3);
    for log_n in 2..=17 {
        let degree = 1usize << log_n;
        for bits in [31, 62] {
            let m = modulus_for(bits, degree);
            let plan = DgtPlan::new(m, degree).unwrap();
            let a = random_poly(&mut rng, degree, m.value());
            let mut b = a.clone();
            plan.forward_inplace(&mut b).unwrap();
            assert!(b.iter().all(|&v| v < m.value()));
            assert_ne!(a, b);
            plan.inverse_inplace(&mut b).unwrap();
            assert_eq!(a, b, "N = {degree}, p = {}", m.value());
            // The other way round: any canonical vector is an evaluation vector.
            let e = random_poly(&mut rng, degree, m.value());
            let mut f = e.clone();
            plan.inverse_inplace(&mut f).unwrap();
            plan.forward_inplace(&mut f).unwrap();
            assert_eq!(e, f);
        }
    }
}

/// The DGT product equals the NTT product: both are the negacyclic product.
#[test]
fn products_match_ntt_products() {
    use poly::ntt::NttPlan;
    let mut rng = StdRng::seed_from_u64(4);
    for log_n in [10, 13] {
        let degree = 1usize << log_n;
        let m = modulus_for(60, degree);
        let dgt = DgtPlan::new(m, degree).unwrap();
        let ntt = NttPlan::new(m, degree).unwrap();
        let a = random_poly(&mut rng, degree, m.value());
        let b = random_poly(&mut rng, degree, m.value());
        let (mut fa, mut fb) = (a.clone(), b.clone());
        ntt.forward_inplace(&mut fa).unwrap();
        ntt.forward_inplace(&mut fb).unwrap();
        let mut fc: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| m.mul(x, y)).collect();
        ntt.inverse_inplace(&mut fc).unwrap();
        assert_eq!(dgt_product(&dgt, &a, &b), fc);
    }
}

#[test]
fn tables_are_consistent() {
    for log_n in [2u32, 5, 10] {
        let degree = 1usize << log_n;
        let half = degree / 2;
        let m = modulus_for(55, degree);
        let plan = DgtPlan::new(m, degree).unwrap();
        let (h, g) = (plan.root_of_i(), plan.root_of_unity());
        let p = m.value();
        assert_eq!(m.gauss_pow(h, half as u64), GaussianInt::new(0, 1));
        assert_eq!(m.pow(g, half as u64), 1);
        if half > 1 {
            assert_eq!(m.pow(g, half as u64 / 2), p - 1);
        }
        let half_inv = m.inv(half as u64).unwrap();
        let tables = [
            plan.twist_re(),
            plan.twist_im(),
            plan.inverse_twist_re(),
            plan.inverse_twist_im(),
            plan.twiddles(),
            plan.inverse_twiddles(),
        ];
        assert!(tables.iter().all(|t| t.len() == half));
        for n in 0..half {
            let twist = GaussianInt::new(plan.twist_re()[n], plan.twist_im()[n]);
            let inverse = GaussianInt::new(plan.inverse_twist_re()[n], plan.inverse_twist_im()[n]);
            assert_eq!(twist, m.gauss_pow(h, n as u64));
            assert_eq!(m.gauss_mul(twist, inverse), GaussianInt::new(half_inv, 0));
            assert_eq!(plan.twist_re_shoup()[n], m.shoup(twist.re));
            assert_eq!(plan.twist_im_shoup()[n], m.shoup(twist.im));
            assert_eq!(plan.inverse_twist_re_shoup()[n], m.shoup(inverse.re));
            assert_eq!(plan.inverse_twist_im_shoup()[n], m.shoup(inverse.im));
            assert_eq!(m.mul(plan.twiddles()[n], plan.inverse_twiddles()[n]), 1);
            assert_eq!(plan.twiddles_shoup()[n], m.shoup(plan.twiddles()[n]));
            assert_eq!(plan.inverse_twiddles_shoup()[n], m.shoup(plan.inverse_twiddles()[n]));
        }
        // Stage layout: entry m + t of the stage with partners m apart is g^(t K / (2m)).
        let mut half_width = 1;
        while half_width < half {
            for t in 0..half_width {
                let expected = m.pow(g, (t * half / (2 * half_width)) as u64);
                assert_eq!(plan.twiddles()[half_width + t], expected);
            }
            half_width *= 2;
        }
        assert_eq!(plan.twiddles()[0], 1);
    }
}

#[test]
fn rejects_bad_parameters() {
    let m = modulus_for(40, 1 << 11);
    for degree in [0usize, 1, 2, 3, 1000, 1 << 18] {
        assert!(matches!(DgtPlan::new(m, degree), Err(PolyError::InvalidDegree { degree: d, .. }) if d == degree));
    }
    // generate_ntt_primes(.., 2^11, ..) gives the largest such prime; find one that is not
    // 1 mod 2^12 so N = 2^11 must be refused.
    let q = generate_ntt_primes(40, 1 << 11, 4, &[]).unwrap().into_iter().find(|q| q % (1 << 12) != 1).unwrap();
    let mq = Modulus::new(q).unwrap();
    assert_eq!(
        DgtPlan::new(mq, 1 << 11),
        Err(PolyError::InvalidModulus { modulus: q, degree: 1 << 11, reason: "must be 1 mod 2N" })
    );
    assert!(DgtPlan::new(mq, 1 << 10).is_ok());
}

#[test]
fn bad_input_is_left_untouched() {
    let degree = 16;
    let m = modulus_for(30, degree);
    let p = m.value();
    let plan = DgtPlan::new(m, degree).unwrap();
    let mut a: Vec<u64> = (0..degree as u64).collect();
    a[7] = p;
    let before = a.clone();
    let out_of_range = PolyError::CoefficientOutOfRange { limb: 0, index: 7, value: p, modulus: p };
    assert_eq!(plan.forward_inplace(&mut a), Err(out_of_range.clone()));
    assert_eq!(a, before);
    assert_eq!(plan.inverse_inplace(&mut a), Err(out_of_range.clone()));
    assert_eq!(a, before);
    for len in [0, degree - 1, degree + 1, 2 * degree] {
        let mut wrong = vec![0u64; len];
        let expected = PolyError::LengthMismatch { expected: degree, actual: len };
        assert_eq!(plan.forward_inplace(&mut wrong), Err(expected.clone()));
        assert_eq!(plan.inverse_inplace(&mut wrong), Err(expected));
        assert!(wrong.iter().all(|&v| v == 0));
    }

    // Pointwise products: lengths and ranges checked, output untouched on error.
    let good = vec![1u64; degree];
    let mut out = vec![5u64; degree];
    assert_eq!(plan.pointwise_mul(&before, &good, &mut out), Err(out_of_range.clone()));
    assert_eq!(
        plan.pointwise_mul(&good, &good[1..], &mut out),
        Err(PolyError::LengthMismatch { expected: degree, actual: degree - 1 })
    );
    assert_eq!(
        plan.pointwise_mul(&good, &good, &mut out[1..]),
        Err(PolyError::LengthMismatch { expected: degree, actual: degree - 1 })
    );
    assert!(out.iter().all(|&v| v == 5));
    let mut odd = vec![1u64; 3];
    assert!(matches!(
        gaussian_pointwise_mul_assign(&m, &mut odd, &[1, 1, 1]),
        Err(PolyError::InvalidParameter { value: 3, .. })
    ));
    let mut acc = before.clone();
    assert_eq!(
        gaussian_pointwise_mul_assign(&m, &mut acc, &good),
        Err(PolyError::CoefficientOutOfRange { limb: 0, index: 7, value: p, modulus: p })
    );
    assert_eq!(acc, before);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The pointwise product is Gaussian multiplication, element by element.
    #[test]
    fn pointwise_mul_is_gaussian_product(bits in 30u32..=62, seed: u64, len in 1usize..64) {
        let m = modulus_for(bits, 1024);
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_poly(&mut rng, 2 * len, m.value());
        let b = random_poly(&mut rng, 2 * len, m.value());
        let mut out = vec![0; 2 * len];
        gaussian_pointwise_mul(&m, &a, &b, &mut out).unwrap();
        let mut acc = a.clone();
        gaussian_pointwise_mul_assign(&m, &mut acc, &b).unwrap();
        prop_assert_eq!(&acc, &out);
        for j in 0..len {
            let expect = m.gauss_mul(GaussianInt::new(a[2 * j], a[2 * j + 1]), GaussianInt::new(b[2 * j], b[2 * j + 1]));
            prop_assert_eq!(GaussianInt::new(out[2 * j], out[2 * j + 1]), expect);
        }
    }

    #[test]
    fn random_products_match_naive(bits in 30u32..=62, log_n in 2u32..=8, seed: u64) {
        let degree = 1usize << log_n;
        let m = modulus_for(bits, degree);
        let plan = DgtPlan::new(m, degree).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_poly(&mut rng, degree, m.value());
        let b = random_poly(&mut rng, degree, m.value());
        prop_assert_eq!(dgt_product(&plan, &a, &b), naive_negacyclic(&a, &b, m.value()));
    }
}
