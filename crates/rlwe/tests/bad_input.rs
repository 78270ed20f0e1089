#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Plain-value helpers of the core given zero or huge degrees, counts or moduli: typed errors
//! or defined values, never a panic (the crates' tests build with overflow checks).

use poly::RingKind;
use rlwe::galois_key::{check_galois_element, galois_element_for_row_rotation, galois_element_for_row_swap};
use rlwe::slots::{SlotEncoder, batching_prime, center, reduce_signed};
use rlwe::{ModuliChoice, RlweParametersBuilder};

#[test]
fn galois_helpers_take_any_degree() {
    assert_eq!(galois_element_for_row_rotation(0, 5), 1);
    assert_eq!(galois_element_for_row_rotation(1, -3), 1);
    assert_eq!(galois_element_for_row_swap(0), 1);
    // Near the top of the range: defined values below 2N, odd.
    let huge = usize::MAX / 2;
    let g = galois_element_for_row_rotation(huge, 7);
    assert!(g % 2 == 1 && u128::from(g) < 2 * huge as u128);
    assert_eq!(galois_element_for_row_swap(usize::MAX), u64::MAX - 1);
    // No ring has this degree: a result, whichever (2N saturates), and no overflow.
    let _ = check_galois_element(RingKind::NegacyclicPowerOfTwo { degree: usize::MAX }, 3);
    assert!(check_galois_element(RingKind::NegacyclicPowerOfTwo { degree: 1 << 40 }, 3).is_ok());
    assert!(check_galois_element(RingKind::NegacyclicPowerOfTwo { degree: 0 }, 3).is_err());
    // The known values are unchanged: 3^1 and 3^-1 mod 2N at N = 8.
    assert_eq!(galois_element_for_row_rotation(8, 1), 3);
    assert_eq!(galois_element_for_row_rotation(8, -1), 11);
    assert_eq!(galois_element_for_row_swap(8), 15);
}

#[test]
fn slot_helpers_take_any_degree_and_modulus() {
    assert!(SlotEncoder::new(65537, 0).is_err());
    assert!(SlotEncoder::new(65537, usize::MAX).is_err());
    assert_eq!(center(7, 0), 7);
    assert_eq!(center(9, 7), 2);
    assert_eq!(center(6, 7), -1);
    assert!(batching_prime(20, usize::MAX).is_err());
    assert!(batching_prime(20, 0).is_err());
    assert_eq!(batching_prime(20, 1 << 12).unwrap() % (1 << 13), 1);
}

#[test]
fn digit_counts_take_any_level() {
    let params = RlweParametersBuilder::new(1 << 10)
        .ciphertext(ModuliChoice::Bits(vec![40, 40, 40]))
        .special(ModuliChoice::Bits(vec![50, 50]))
        .allow_insecure(true)
        .build()
        .unwrap();
    assert_eq!(params.digit_count_at_level(2), 2);
    assert_eq!(params.digit_count_at_level(usize::MAX), usize::MAX / 2 + 1);
}

#[test]
fn signed_values_reduce_modulo_any_modulus() {
    // t at and above 2^63: the bounds no longer fit an i64 (an overflow before).
    let t = 15_336_116_641_674_557_242;
    let half = (t / 2) as i64;
    assert_eq!(reduce_signed(&[-1, 0, half, 1 - half], t).unwrap(), vec![t - 1, 0, t / 2, t / 2 + 1]);
    assert!(reduce_signed(&[half + 1], t).is_err());
    assert!(reduce_signed(&[-half], t).is_err());
    assert_eq!(reduce_signed(&[i64::MIN + 1, i64::MAX], u64::MAX).unwrap(), vec![1 << 63, i64::MAX as u64]);
    assert!(reduce_signed(&[i64::MIN], u64::MAX).is_err());
    assert!(reduce_signed(&[0], 0).is_err());
    assert_eq!(reduce_signed(&[0], 1).unwrap(), vec![0]);
    assert_eq!(reduce_signed(&[-3, 3], 7).unwrap(), vec![4, 3]);
    assert!(reduce_signed(&[4], 7).is_err());
    assert!(reduce_signed(&[-4], 7).is_err());
    assert_eq!(reduce_signed(&[center(100_055_558_127_864, t)], t).unwrap(), vec![100_055_558_127_864]);
}

#[test]
fn cyclotomic_slots_refuse_unreduced_coefficients() {
    // t = 11 = 1 mod 5, not 1 mod 2M = 16: the direct evaluation, which now checks the range
    // as the transforms do (a debug assertion failed before, a wrong value in release).
    let slots = rlwe::slots::CyclotomicSlots::new(11, 5).unwrap();
    assert!(!slots.uses_bluestein());
    let error = slots.decode(&[5, 11, 0, 0]).unwrap_err();
    assert!(matches!(
        error,
        rlwe::slots::SlotError::Poly(poly::PolyError::CoefficientOutOfRange { index: 1, value: 11, modulus: 11, .. })
    ));
    let encoded = slots.encode(&[1, 2, 3, 4]).unwrap();
    assert_eq!(slots.decode(&encoded).unwrap(), vec![1, 2, 3, 4]);
}
