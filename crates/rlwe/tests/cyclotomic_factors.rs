//! The factors of `Phi_m` modulo `p^r` (`rlwe::cyclotomic_factors`) against exact arithmetic:
//! their product is `Phi_m` modulo `p^r` (big-integer schoolbook products), each is monic of
//! degree `ord_m(p)`, reduces modulo `p` to the factors for `r = 1`, and (small cases) has no
//! factor of lower degree modulo `p` (every monic polynomial of degree up to `d/2` tried).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_bigint::BigInt;
use rlwe::cyclotomic_factors::cyclotomic_factors;

fn product_mod(a: &[BigInt], b: &[BigInt], n: &BigInt) -> Vec<BigInt> {
    let mut out = vec![BigInt::from(0); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out.into_iter().map(|c| ((c % n) + n) % n).collect()
}

/// Whether `divisor` (monic) divides `a` modulo the prime `p` (long division).
fn divides(a: &[u64], divisor: &[u64], p: u64) -> bool {
    let mut r: Vec<u64> = a.to_vec();
    let d = divisor.len() - 1;
    while r.len() > d {
        let top = r.pop().unwrap();
        let shift = r.len() - d;
        for (i, &c) in divisor[..d].iter().enumerate() {
            r[shift + i] = (r[shift + i] + p - top * c % p) % p;
        }
    }
    r.iter().all(|&c| c == 0)
}

#[test]
fn factors_multiply_to_phi_m_and_lift_the_factors_mod_p() {
    for (m, p, r) in [
        (31u64, 2u64, 1u32),
        (31, 2, 8),
        (15, 2, 3),
        (21, 2, 4),
        (105, 2, 2),
        (91, 3, 2),
        (4369, 2, 1),
        (64, 17, 3),
        (1705, 257, 1),
    ] {
        let factors = cyclotomic_factors(m, p, r).unwrap();
        let n = p.pow(r);
        let phi = poly::cyclotomic::euler_phi(m) as usize;
        assert_eq!(factors.factors.len() * factors.degree, phi, "m = {m}, p = {p}");
        let modulus = BigInt::from(n);
        let mut product = vec![BigInt::from(1)];
        for f in &factors.factors {
            assert_eq!(f.len(), factors.degree + 1);
            assert_eq!(f[factors.degree], 1 % n, "monic");
            let f: Vec<BigInt> = f.iter().map(|&c| BigInt::from(c)).collect();
            product = product_mod(&product, &f, &modulus);
        }
        let phi_m: Vec<BigInt> = poly::cyclotomic::cyclotomic_polynomial(m)
            .unwrap()
            .into_iter()
            .map(|c| ((BigInt::from(c) % &modulus) + &modulus) % &modulus)
            .collect();
        assert_eq!(product, phi_m, "m = {m}, p = {p}, r = {r}");
        if r > 1 {
            let base = cyclotomic_factors(m, p, 1).unwrap();
            let reduced: Vec<Vec<u64>> = factors.factors.iter().map(|f| f.iter().map(|&c| c % p).collect()).collect();
            assert_eq!(reduced, base.factors, "m = {m}: the lift reduces to the factors mod p");
        }
    }
}

#[test]
fn factors_have_no_factor_of_lower_degree_mod_p() {
    for (m, p) in [(31u64, 2u64), (15, 2), (21, 2), (91, 3), (63, 2)] {
        let factors = cyclotomic_factors(m, p, 1).unwrap();
        let d = factors.degree;
        for f in &factors.factors {
            for degree in 1..=d / 2 {
                // Every monic polynomial of `degree` over GF(p).
                for index in 0..p.pow(degree as u32) {
                    let mut candidate: Vec<u64> = (0..degree).map(|i| index / p.pow(i as u32) % p).collect();
                    candidate.push(1);
                    assert!(!divides(f, &candidate, p), "m = {m}: {candidate:?} divides {f:?}");
                }
            }
        }
    }
}
