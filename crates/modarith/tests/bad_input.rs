#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Absurd arguments to the public functions give typed errors at once, not an allocation abort
//! or a long search.

use modarith::{ModArithError, generate_ntt_primes, primes_one_mod};

#[test]
fn a_count_beyond_the_candidates_is_refused_at_once() {
    // 2^26 candidates p = 1 mod 2^13 of 40 bits: 2^40 primes cannot exist.
    let error = generate_ntt_primes(40, 8192, 1 << 40, &[]).unwrap_err();
    assert!(matches!(error, ModArithError::NotEnoughPrimes { requested, found: 0, .. } if requested == 1 << 40));
    assert!(matches!(primes_one_mod(50, 63 * 2 * 128, usize::MAX, &[]), Err(ModArithError::NotEnoughPrimes { .. })));
    // A step or size that leaves no candidate, and the general search against the NTT one.
    assert!(primes_one_mod(10, 1 << 10, 1, &[]).is_err());
    assert!(primes_one_mod(63, 2, 1, &[]).is_err());
    assert!(primes_one_mod(30, 0, 1, &[]).is_err());
    assert_eq!(primes_one_mod(40, 8192, 3, &[]).unwrap(), generate_ntt_primes(40, 8192, 3, &[]).unwrap());
    let odd_step = primes_one_mod(50, 3 * 5 * 7 * 2, 4, &[]).unwrap();
    assert!(odd_step.iter().all(|&p| p % 210 == 1 && modarith::is_prime(p) && p >> 49 == 1));
}

#[test]
fn signed_gaussian_parts_at_the_ends_of_the_range() {
    use modarith::SignedGaussianInt;
    // -i64::MIN and i64::MIN^2 + i64::MIN^2 do not fit: saturated, not an overflow.
    let low = SignedGaussianInt::new(i64::MIN, i64::MIN);
    assert_eq!(low.conj(), SignedGaussianInt::new(i64::MIN, i64::MAX));
    assert_eq!(low.norm(), i128::MAX);
    let high = SignedGaussianInt::new(i64::MAX, i64::MIN + 1);
    assert_eq!(high.conj(), SignedGaussianInt::new(i64::MAX, i64::MAX));
    assert_eq!(high.norm(), 2 * (i128::from(i64::MAX) * i128::from(i64::MAX)));
    assert_eq!(SignedGaussianInt::new(3, -4).conj(), SignedGaussianInt::new(3, 4));
    assert_eq!(SignedGaussianInt::new(3, -4).norm(), 25);
}
