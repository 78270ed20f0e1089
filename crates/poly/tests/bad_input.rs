#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Absurd arguments to the ring layer's public helpers: typed errors at once or defined values,
//! never an allocation abort or an overflow.

use poly::RingKind;
use poly::bluestein::{bluestein_length, bluestein_primes};

#[test]
fn bluestein_helpers_take_any_argument() {
    // 2^40 primes of 50 bits that are 1 mod 2 m M cannot exist: refused before allocating.
    assert!(bluestein_primes(50, 63, 1 << 40).is_err());
    assert!(bluestein_primes(50, 63, usize::MAX).is_err());
    assert_eq!(bluestein_primes(50, 63, 2).unwrap().len(), 2);
    assert_eq!(bluestein_length(0), 1);
    assert_eq!(bluestein_length(63), 128);
    assert_eq!(bluestein_length(usize::MAX), 1 << (usize::BITS - 1));
}

#[test]
fn ring_indices_saturate() {
    assert_eq!(RingKind::NegacyclicPowerOfTwo { degree: usize::MAX }.index(), u64::MAX);
    assert_eq!(RingKind::NegacyclicPowerOfTwo { degree: 1 << 12 }.index(), 1 << 13);
}

#[test]
fn automorphism_checks_take_any_index() {
    // m = 0 is no ring's index: a typed error (or the identity), not a division by zero.
    assert!(RingKind::Cyclotomic { m: 0 }.check_automorphism(0).is_err());
    assert!(RingKind::Cyclotomic { m: 0 }.check_automorphism(3).is_err());
    assert!(RingKind::Cyclotomic { m: 0 }.check_automorphism(1).is_ok());
    assert!(RingKind::Cyclotomic { m: 1 }.check_automorphism(5).is_ok());
    assert!(RingKind::Cyclotomic { m: 15 }.check_automorphism(7).is_ok());
    assert!(RingKind::Cyclotomic { m: 15 }.check_automorphism(10).is_err());
    assert!(RingKind::NegacyclicPowerOfTwo { degree: 0 }.check_automorphism(4).is_err());
}

#[test]
fn padded_sampling_degree_saturates() {
    use poly::sampling::{MIN_SAMPLING_DEGREE, padded_sampling_degree};
    assert_eq!(padded_sampling_degree(0), MIN_SAMPLING_DEGREE);
    assert_eq!(padded_sampling_degree(100), 128);
    assert_eq!(padded_sampling_degree(1 << (usize::BITS - 1)), 1 << (usize::BITS - 1));
    assert_eq!(padded_sampling_degree(usize::MAX), 1 << (usize::BITS - 1));
}
