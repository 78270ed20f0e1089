#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The NTT against direct evaluation and the naive negacyclic convolution.

use modarith::{Modulus, generate_ntt_primes};
use poly::ntt::{NttPlan, bit_reverse};
use proptest::prelude::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// `a(x)` by Horner's rule.
fn evaluate(m: &Modulus, a: &[u64], x: u64) -> u64 {
    a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c))
}

/// Negacyclic product by the schoolbook rule, with exact u128 accumulation.
fn naive_negacyclic(p: u64, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len();
    let mut acc = vec![0u128; n];
    let mut neg = vec![0u128; n];
    for i in 0..n {
        for j in 0..n {
            let prod = (a[i] as u128 * b[j] as u128) % p as u128;
            if i + j < n {
                acc[i + j] += prod;
            } else {
                neg[i + j - n] += prod;
            }
        }
    }
    (0..n).map(|k| ((acc[k] % p as u128 + p as u128 - neg[k] % p as u128) % p as u128) as u64).collect()
}

fn random_vec(rng: &mut StdRng, n: usize, p: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..p)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn forward_is_evaluation_in_bit_reversed_order(log_n in 4u32..=10, bits in 20u32..=62, seed: u64) {
        let n = 1usize << log_n;
        let p = generate_ntt_primes(bits.max(log_n + 3), 2 * n as u64, 1, &[]).unwrap()[0];
        let m = Modulus::new(p).unwrap();
        let plan = NttPlan::new(m, n).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_vec(&mut rng, n, p);
        let mut out = a.clone();
        plan.forward_inplace(&mut out).unwrap();
        for (j, &o) in out.iter().enumerate() {
            let point = m.pow(plan.psi(), 2 * bit_reverse(j, log_n) as u64 + 1);
            prop_assert_eq!(o, evaluate(&m, &a, point), "j = {}", j);
        }
    }

    #[test]
    fn inverse_undoes_forward(log_n in 1u32..=17, bits in 30u32..=62, seed: u64) {
        let n = 1usize << log_n;
        let p = generate_ntt_primes(bits, 2 * n as u64, 1, &[]).unwrap()[0];
        let plan = NttPlan::new(Modulus::new(p).unwrap(), n).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_vec(&mut rng, n, p);
        let mut b = a.clone();
        plan.forward_inplace(&mut b).unwrap();
        prop_assert!(b.iter().all(|&v| v < p));
        plan.inverse_inplace(&mut b).unwrap();
        prop_assert_eq!(b, a);
    }

    #[test]
    fn pointwise_product_is_negacyclic_convolution(log_n in 1u32..=8, bits in 20u32..=62, seed: u64) {
        let n = 1usize << log_n;
        let p = generate_ntt_primes(bits.max(log_n + 3), 2 * n as u64, 1, &[]).unwrap()[0];
        let m = Modulus::new(p).unwrap();
        let plan = NttPlan::new(m, n).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let (a, b) = (random_vec(&mut rng, n, p), random_vec(&mut rng, n, p));
        let (mut fa, mut fb) = (a.clone(), b.clone());
        plan.forward_inplace(&mut fa).unwrap();
        plan.forward_inplace(&mut fb).unwrap();
        let mut c: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| m.mul(x, y)).collect();
        plan.inverse_inplace(&mut c).unwrap();
        prop_assert_eq!(c, naive_negacyclic(p, &a, &b));
    }
}

/// Extreme values (all p - 1) exercise the lazy-reduction bounds at the largest primes.
#[test]
fn extreme_inputs_at_62_bits() {
    for log_n in [1u32, 5, 10, 12] {
        let n = 1usize << log_n;
        for p in generate_ntt_primes(62, 2 * n as u64, 3, &[]).unwrap() {
            let m = Modulus::new(p).unwrap();
            let plan = NttPlan::new(m, n).unwrap();
            let a = vec![p - 1; n];
            let mut fa = a.clone();
            plan.forward_inplace(&mut fa).unwrap();
            if n <= 1024 {
                for (j, &o) in fa.iter().enumerate() {
                    let point = m.pow(plan.psi(), 2 * bit_reverse(j, log_n) as u64 + 1);
                    assert_eq!(o, evaluate(&m, &a, point));
                }
            }
            let mut sq: Vec<u64> = fa.iter().map(|&x| m.mul(x, x)).collect();
            plan.inverse_inplace(&mut sq).unwrap();
            if n <= 1024 {
                assert_eq!(sq, naive_negacyclic(p, &a, &a));
            }
            plan.inverse_inplace(&mut fa).unwrap();
            assert_eq!(fa, a);
        }
    }
}

#[test]
fn random_products_at_degree_1024_several_primes() {
    let n = 1024;
    let mut rng = StdRng::seed_from_u64(0x5eed);
    for p in generate_ntt_primes(55, 2 * n as u64, 3, &[]).unwrap() {
        let m = Modulus::new(p).unwrap();
        let plan = NttPlan::new(m, n).unwrap();
        let (a, b) = (random_vec(&mut rng, n, p), random_vec(&mut rng, n, p));
        let (mut fa, mut fb) = (a.clone(), b.clone());
        plan.forward_inplace(&mut fa).unwrap();
        plan.forward_inplace(&mut fb).unwrap();
        let mut c: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| m.mul(x, y)).collect();
        plan.inverse_inplace(&mut c).unwrap();
        assert_eq!(c, naive_negacyclic(p, &a, &b));
    }
}
