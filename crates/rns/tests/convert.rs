#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Base conversions against exact big-integer arithmetic: the fast conversion's `+u A` error
//! (bound and measured rate), the exact conversion's centered result and its fixed-point
//! window, Shenoy-Kumaresan's exact range.

mod common;

use common::*;
use modarith::Modulus;
use num_bigint::{BigInt, BigUint};
use num_traits::{ToPrimitive, Zero};
use rns::{BaseConverter, RnsBase, RnsError, ShenoyKumaresan};

const DEGREE: usize = 64;

/// (source, target) pairs: one to many primes, small and large primes.
fn pairs() -> Vec<(RnsBase, RnsBase)> {
    let mut out = Vec::new();
    for (from_bits, from_count, to_bits, to_count) in
        [(62, 1, 62, 2), (62, 3, 61, 4), (60, 6, 62, 6), (30, 4, 62, 3), (62, 5, 40, 2), (50, 12, 55, 13)]
    {
        let from = primes(from_bits, DEGREE, from_count, &[]);
        let to = primes(to_bits, DEGREE, to_count, &from);
        out.push((RnsBase::new(&from).unwrap(), RnsBase::new(&to).unwrap()));
    }
    out
}

/// `sum_i |x_i A~_i|_{a_i} A_i*` for one coefficient: the integer the fast conversion reduces.
fn fast_sum(base: &RnsBase, residues: &[u64]) -> BigUint {
    base.moduli()
        .iter()
        .enumerate()
        .map(|(i, m)| BigUint::from(m.mul(residues[i], base.punctured_inverses()[i])) * &base.punctured_products()[i])
        .sum()
}

#[test]
fn fast_conversion_is_x_plus_u_times_product_with_u_below_k() {
    let mut rng = rng(21);
    for (from, to) in pairs() {
        let converter = BaseConverter::new(&from, &to).unwrap();
        let input = random_poly(&from, DEGREE, &mut rng);
        let mut output = vec![0u64; to.len() * DEGREE];
        converter.fast_convert(&input, &mut output).unwrap();
        let values = from.reconstruct_poly(&input).unwrap();
        let mut histogram = vec![0usize; from.len()];
        for (index, x) in values.iter().enumerate() {
            let sum = fast_sum(&from, &residues_at(&input, from.len(), DEGREE, index));
            let u_big = (&sum - x) / from.product();
            assert_eq!(&u_big * from.product() + x, sum);
            let u = u_big.to_usize().unwrap();
            assert!(u < from.len(), "overflow {u} not below k = {}", from.len());
            histogram[u] += 1;
            assert_eq!(to.residues(&sum), residues_at(&output, to.len(), DEGREE, index));
        }
        let nonzero = DEGREE - histogram[0];
        let mean: f64 = histogram.iter().enumerate().map(|(u, &c)| (u * c) as f64).sum::<f64>() / DEGREE as f64;
        println!(
            "fast conversion k = {}: u != 0 for {nonzero}/{DEGREE} coefficients ({:.1}%), mean u = {mean:.2}, histogram {histogram:?}",
            from.len(),
            100.0 * nonzero as f64 / DEGREE as f64
        );
    }
}

/// The exact conversion's documented output: the centered representative, except in the
/// window `[A/2, A/2 + k A 2^-66)` where it is `x` itself.
fn check_exact(from: &RnsBase, to: &RnsBase, x: &BigUint, output: &[u64]) -> bool {
    let a = from.product();
    let centered = from.center(x.clone());
    // Compare residues: the target may be smaller than the source.
    if to.residues_signed(&centered) == output {
        return true;
    }
    let window_end = (a >> 1u32) + ((a * from.len()) >> 66u32) + 1u32;
    assert!(x * 2u32 > *a && *x < window_end, "x = {x} is outside the documented window");
    assert_eq!(to.residues(x), output);
    false
}

#[test]
fn exact_conversion_gives_the_centered_representative() {
    let mut rng = rng(22);
    for (from, to) in pairs() {
        let converter = BaseConverter::new(&from, &to).unwrap();
        let input = random_poly(&from, DEGREE, &mut rng);
        let mut output = vec![0u64; to.len() * DEGREE];
        converter.exact_convert(&input, &mut output).unwrap();
        let values = from.reconstruct_poly(&input).unwrap();
        let mut misses = 0;
        for (index, x) in values.iter().enumerate() {
            if !check_exact(&from, &to, x, &residues_at(&output, to.len(), DEGREE, index)) {
                misses += 1;
            }
        }
        assert_eq!(misses, 0, "uniform inputs hit the 2^-66 window");
    }
}

#[test]
fn exact_conversion_near_half_stays_within_the_window() {
    for (from, to) in pairs() {
        let a = from.product().clone();
        let half_down = &a >> 1u32; // (A - 1) / 2, the largest positive centered value
        let mut inputs = Vec::new();
        for d in 0..DEGREE as u64 / 2 {
            inputs.push(&half_down - d); // just below A/2: must stay positive
            inputs.push(&half_down + 1u32 + d); // just above A/2: -A/2 + ..., or x in the window
        }
        let data = from.decompose_poly(&inputs.iter().map(big).collect::<Vec<_>>());
        let mut output = vec![0u64; to.len() * DEGREE];
        BaseConverter::new(&from, &to).unwrap().exact_convert(&data, &mut output).unwrap();
        let mut misses = 0;
        for (index, x) in inputs.iter().enumerate() {
            if !check_exact(&from, &to, x, &residues_at(&output, to.len(), DEGREE, index)) {
                misses += 1;
            }
        }
        // Below 2^65 / k the window holds no integer; above, all these inputs are in it.
        let window_empty = a < (BigUint::from(1u8) << 65u32) / from.len();
        if window_empty {
            assert_eq!(misses, 0);
        }
        println!(
            "exact conversion k = {} ({} bits): {misses}/{} inputs next to A/2 returned x instead of x - A",
            from.len(),
            a.bits(),
            DEGREE / 2
        );
    }
}

#[test]
fn shenoy_kumaresan_is_exact_on_its_range() {
    let mut rng = rng(23);
    for (b, q) in pairs() {
        let m_sk = Modulus::new(primes(61, DEGREE, 1, &[b.values(), q.values()].concat())[0]).unwrap();
        let sk = ShenoyKumaresan::new(&b, m_sk, &q).unwrap();
        assert_eq!(sk.max_lambda(), m_sk.value() / 2 - b.len() as u64);
        let (low, high) = sk.exact_range();
        let bsk = b.union(&RnsBase::from_moduli(vec![m_sk]).unwrap()).unwrap();
        let mut values: Vec<BigInt> = (0..DEGREE - 8).map(|_| random_in(&low, &(&high + 1), &mut rng)).collect();
        // Edges of the range and small values.
        values.extend([
            low.clone(),
            &low + 1,
            high.clone(),
            &high - 1,
            BigInt::zero(),
            BigInt::from(-1),
            one(),
            big(b.product()),
        ]);
        let input = bsk.decompose_poly(&values);
        let mut output = vec![0u64; q.len() * DEGREE];
        sk.convert(&input, &mut output).unwrap();
        assert_eq!(output, q.decompose_poly(&values));
    }
}

#[test]
fn shenoy_kumaresan_fails_outside_its_range() {
    // A tiny redundant modulus makes the range small enough to step out of.
    let b = RnsBase::new(&primes(40, DEGREE, 3, &[])).unwrap();
    let q = RnsBase::new(&primes(50, DEGREE, 2, &[])).unwrap();
    let m_sk = Modulus::new(17).unwrap();
    let sk = ShenoyKumaresan::new(&b, m_sk, &q).unwrap();
    assert_eq!(sk.max_lambda(), 5);
    let bsk = b.union(&RnsBase::from_moduli(vec![m_sk]).unwrap()).unwrap();
    let mut rng = rng(24);
    let (low, high) = sk.exact_range();
    let inside: Vec<BigInt> = (0..DEGREE).map(|_| random_in(&low, &(&high + 1), &mut rng)).collect();
    let mut output = vec![0u64; q.len() * DEGREE];
    sk.convert(&bsk.decompose_poly(&inside), &mut output).unwrap();
    assert_eq!(output, q.decompose_poly(&inside));
    let m = big(b.product());
    let outside: Vec<BigInt> = (0..DEGREE).map(|_| random_in(&(&m * 9), &(&m * 10), &mut rng)).collect();
    sk.convert(&bsk.decompose_poly(&outside), &mut output).unwrap();
    assert_ne!(output, q.decompose_poly(&outside));
}

#[test]
fn conversion_errors_leave_the_output_untouched() {
    let p = primes(50, DEGREE, 5, &[]);
    let from = RnsBase::new(&p[..2]).unwrap();
    let to = RnsBase::new(&p[2..4]).unwrap();
    assert!(matches!(
        BaseConverter::new(&from, &RnsBase::new(&p[1..3]).unwrap()),
        Err(RnsError::DuplicateModulus { modulus, .. }) if modulus == p[1]
    ));
    let converter = BaseConverter::new(&from, &to).unwrap();
    let mut rng = rng(25);
    let input = random_poly(&from, 8, &mut rng);
    let sentinel = vec![7u64; 16];
    let mut output = sentinel.clone();
    assert!(matches!(
        converter.fast_convert(&input[..15], &mut output),
        Err(RnsError::LengthNotMultiple { actual: 15, limbs: 2, .. })
    ));
    assert!(matches!(
        converter.exact_convert(&input, &mut output[..15]),
        Err(RnsError::LengthMismatch { expected: 16, actual: 15, .. })
    ));
    let mut bad = input.clone();
    bad[3] = p[0];
    assert!(matches!(
        converter.fast_convert(&bad, &mut output),
        Err(RnsError::CoefficientOutOfRange { limb: 0, index: 3, .. })
    ));
    assert!(converter.exact_convert(&bad, &mut output).is_err());
    assert_eq!(output, sentinel);
    // Shenoy-Kumaresan: m_sk too small, clashing, bad lengths and values.
    assert!(matches!(
        ShenoyKumaresan::new(&from, Modulus::new(5).unwrap(), &to),
        Err(RnsError::ModulusTooSmall { name: "m_sk", value: 5, minimum: 6 })
    ));
    assert!(ShenoyKumaresan::new(&from, Modulus::new(p[2]).unwrap(), &to).is_err());
    let m_sk = Modulus::new(p[4]).unwrap();
    let sk = ShenoyKumaresan::new(&from, m_sk, &to).unwrap();
    let mut sk_input = random_poly(&from.union(&RnsBase::new(&[p[4]]).unwrap()).unwrap(), 8, &mut rng);
    assert!(matches!(sk.convert(&sk_input[..20], &mut output), Err(RnsError::LengthNotMultiple { .. })));
    sk_input[16 + 2] = p[4];
    assert!(matches!(
        sk.convert(&sk_input, &mut output),
        Err(RnsError::CoefficientOutOfRange { limb: 2, index: 2, .. })
    ));
    assert_eq!(output, sentinel);
}
