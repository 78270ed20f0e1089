#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Hierarchical DGT: bit-exact equality with the DGT for every split at N = 2^10..2^13 and
//! for the default splits up to 2^17, round trips, products, tables, and errors.

use modarith::{Modulus, generate_ntt_primes};
use poly::PolyError;
use poly::dgt::DgtPlan;
use poly::hdgt::HdgtPlan;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn modulus_for(bits: u32, degree: usize) -> Modulus {
    Modulus::new(generate_ntt_primes(bits, 2 * degree as u64, 1, &[]).unwrap()[0]).unwrap()
}

fn random_poly(rng: &mut StdRng, degree: usize, p: u64) -> Vec<u64> {
    (0..degree).map(|_| rng.gen_range(0..p)).collect()
}

fn bit_reverse(k: usize, bits: u32) -> usize {
    (0..bits).fold(0, |acc, b| (acc << 1) | ((k >> b) & 1))
}

/// Forward equals the DGT's output; inverse equals the DGT's inverse, on fresh random data.
fn assert_matches_dgt(dgt: &DgtPlan, hdgt: &HdgtPlan, rng: &mut StdRng) {
    let (degree, p) = (dgt.degree(), dgt.modulus().value());
    let context = format!("N = {degree}, split {} x {}, p = {p}", hdgt.rows(), hdgt.cols());
    let a = random_poly(rng, degree, p);
    let (mut via_dgt, mut via_hdgt) = (a.clone(), a.clone());
    dgt.forward_inplace(&mut via_dgt).unwrap();
    hdgt.forward_inplace(&mut via_hdgt).unwrap();
    assert_eq!(via_dgt, via_hdgt, "forward, {context}");
    hdgt.inverse_inplace(&mut via_hdgt).unwrap();
    assert_eq!(via_hdgt, a, "round trip, {context}");

    let e = random_poly(rng, degree, p);
    let (mut via_dgt, mut via_hdgt) = (e.clone(), e.clone());
    dgt.inverse_inplace(&mut via_dgt).unwrap();
    hdgt.inverse_inplace(&mut via_hdgt).unwrap();
    assert_eq!(via_dgt, via_hdgt, "inverse, {context}");
}

#[test]
fn every_split_matches_dgt_for_small_degrees() {
    let mut rng = StdRng::seed_from_u64(10);
    for log_n in 2..=13u32 {
        let degree = 1usize << log_n;
        let half = degree / 2;
        for bits in [36, 62] {
            let m = modulus_for(bits, degree);
            let dgt = DgtPlan::new(m, degree).unwrap();
            for log_rows in 0..log_n {
                let rows = 1usize << log_rows;
                let hdgt = HdgtPlan::with_split(m, degree, rows, half / rows).unwrap();
                assert_matches_dgt(&dgt, &hdgt, &mut rng);
            }
        }
    }
}

#[test]
fn default_split_matches_dgt_up_to_2_pow_17() {
    let mut rng = StdRng::seed_from_u64(11);
    for log_n in 2..=17u32 {
        let degree = 1usize << log_n;
        let m = modulus_for(61, degree);
        let dgt = DgtPlan::new(m, degree).unwrap();
        let hdgt = HdgtPlan::new(m, degree).unwrap();
        // Square, or twice as many columns as rows.
        assert_eq!(hdgt.rows() * hdgt.cols(), degree / 2);
        assert!(hdgt.cols() == hdgt.rows() || hdgt.cols() == 2 * hdgt.rows(), "N = {degree}");
        assert_eq!(hdgt.dgt(), &dgt);
        assert_matches_dgt(&dgt, &hdgt, &mut rng);
    }
}

#[test]
fn extreme_values_match_dgt() {
    for log_n in [10u32, 13] {
        let degree = 1usize << log_n;
        let m = modulus_for(62, degree);
        let dgt = DgtPlan::new(m, degree).unwrap();
        for rows in [1, 8, degree / 4] {
            let hdgt = HdgtPlan::with_split(m, degree, rows, degree / 2 / rows).unwrap();
            let a = vec![m.value() - 1; degree];
            let (mut x, mut y) = (a.clone(), a.clone());
            dgt.forward_inplace(&mut x).unwrap();
            hdgt.forward_inplace(&mut y).unwrap();
            assert_eq!(x, y);
            hdgt.inverse_inplace(&mut y).unwrap();
            assert_eq!(y, a);
        }
    }
}

/// A product computed entirely through the HDGT equals the schoolbook negacyclic product.
#[test]
fn products_match_naive_convolution() {
    let mut rng = StdRng::seed_from_u64(12);
    for log_n in [4u32, 7, 10] {
        let degree = 1usize << log_n;
        let m = modulus_for(50, degree);
        let p = m.value();
        let hdgt = HdgtPlan::new(m, degree).unwrap();
        let a = random_poly(&mut rng, degree, p);
        let b = random_poly(&mut rng, degree, p);
        let mut expected = vec![0u64; degree];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                let prod = m.mul(x, y);
                let k = (i + j) % degree;
                expected[k] = if i + j < degree { m.add(expected[k], prod) } else { m.sub(expected[k], prod) };
            }
        }
        let (mut fa, mut fb) = (a.clone(), b.clone());
        hdgt.forward_inplace(&mut fa).unwrap();
        hdgt.forward_inplace(&mut fb).unwrap();
        let mut fc = vec![0; degree];
        hdgt.pointwise_mul(&fa, &fb, &mut fc).unwrap();
        hdgt.inverse_inplace(&mut fc).unwrap();
        assert_eq!(fc, expected, "N = {degree}");
    }
}

#[test]
fn step_twiddles_follow_documented_formula() {
    let degree = 1 << 9;
    let m = modulus_for(45, degree);
    for rows in [1usize, 2, 16, 256] {
        let cols = degree / 2 / rows;
        let hdgt = HdgtPlan::with_split(m, degree, rows, cols).unwrap();
        let g = hdgt.dgt().root_of_unity();
        let log_rows = rows.trailing_zeros();
        assert_eq!(hdgt.step_twiddles().len(), degree / 2);
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                let w = hdgt.step_twiddles()[i];
                assert_eq!(w, m.pow(g, (bit_reverse(r, log_rows) * c) as u64));
                assert_eq!(m.mul(w, hdgt.inverse_step_twiddles()[i]), 1);
                assert_eq!(hdgt.step_twiddles_shoup()[i], m.shoup(w));
                assert_eq!(hdgt.inverse_step_twiddles_shoup()[i], m.shoup(hdgt.inverse_step_twiddles()[i]));
            }
        }
    }
}

#[test]
fn rejects_invalid_splits_and_inputs() {
    let degree = 1 << 10;
    let m = modulus_for(40, degree);
    for (rows, cols, reason) in [
        (3, 512, "rows and columns must be powers of two"),
        (512, 3, "rows and columns must be powers of two"),
        (0, 512, "rows and columns must be powers of two"),
        (16, 16, "rows * columns must equal N/2"),
        (32, 32, "rows * columns must equal N/2"),
        (1 << 40, 1 << 40, "rows * columns must equal N/2"),
    ] {
        assert_eq!(
            HdgtPlan::with_split(m, degree, rows, cols),
            Err(PolyError::InvalidSplit { rows, cols, degree, reason })
        );
    }
    assert!(matches!(HdgtPlan::new(m, 3), Err(PolyError::InvalidDegree { degree: 3, .. })));
    assert!(matches!(HdgtPlan::with_split(m, 1 << 18, 512, 256), Err(PolyError::InvalidDegree { .. })));

    let hdgt = HdgtPlan::new(m, degree).unwrap();
    let p = m.value();
    let mut a = vec![1u64; degree];
    a[100] = u64::MAX;
    let before = a.clone();
    let expected = PolyError::CoefficientOutOfRange { limb: 0, index: 100, value: u64::MAX, modulus: p };
    assert_eq!(hdgt.forward_inplace(&mut a), Err(expected.clone()));
    assert_eq!(hdgt.inverse_inplace(&mut a), Err(expected));
    assert_eq!(a, before);
    let mut short = vec![0u64; degree / 2];
    assert_eq!(
        hdgt.forward_inplace(&mut short),
        Err(PolyError::LengthMismatch { expected: degree, actual: degree / 2 })
    );
    assert_eq!(
        hdgt.inverse_inplace(&mut short),
        Err(PolyError::LengthMismatch { expected: degree, actual: degree / 2 })
    );
}
