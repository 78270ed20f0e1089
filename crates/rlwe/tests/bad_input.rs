#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Plain-value helpers of the core given zero or huge degrees, counts or moduli: typed errors
//! or defined values, never a panic (the crates' tests build with overflow checks).

use poly::RingKind;
use rlwe::galois_key::{check_galois_element, galois_element_for_row_rotation, galois_element_for_row_swap};
use rlwe::slots::{SlotEncoder, batching_prime, center};
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
