//! BGV with a prime-power plaintext modulus `t = p^r` over extension-field slots, on both ring
//! kinds (`common::extension`): random circuits of additions, products, plaintext products,
//! rotations along the slots and the Frobenius, checked slot by slot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use poly::CpuBackend;

#[test]
fn bgv_circuits_over_extension_field_slots() {
    // x^1024 + 1 (m = 2048), t = 257^2: 128 slots of degree 8 over Z_{257^2}.
    let params = common::small_params(10, &[60, 50, 50, 50], &[60], 257 * 257);
    let (_, products) = common::extension::extension_circuit(CpuBackend, &params, &[257, 5, 2047, 25], 40, 1);
    assert!(products >= 2, "{products} products");
    // Phi_1705 (phi = 1200), t = 2^8: 60 slots of degree 20 over Z_256, as HElib's p = 2, r = 8.
    let params = common::phi_m::params(1705, &[60, 50, 50, 50], &[60], 256);
    let (_, products) = common::extension::extension_circuit(CpuBackend, &params, &[2, 4, 3, 1704], 40, 2);
    assert!(products >= 2, "{products} products");
}

/// Digit extraction's polynomial on slots of constants: `t = 2^8` over `Phi_1705` (degree 8),
/// `t = 97^2` over `x^1024 + 1` (16 slots of degree 64; degree 97).
#[test]
fn lowest_digits_of_constant_slots() {
    let params = common::phi_m::params(1705, &[60, 50, 50, 50, 50, 50], &[60], 256);
    common::extension::lowest_digits_of_constant_slots(CpuBackend, &params, 2, 8, 1);
    let params = common::small_params(10, &[60, 50, 50, 50, 50, 50, 50, 50, 50, 50], &[60], 97 * 97);
    common::extension::lowest_digits_of_constant_slots(CpuBackend, &params, 97, 2, 2);
}

#[test]
fn squarings_reach_the_estimated_depth_on_extension_field_slots() {
    let params = common::small_params(10, &[60, 50, 50, 50], &[60], 257 * 257);
    common::extension::squarings_to_depth(CpuBackend, &params, 3);
    let params = common::phi_m::params(1705, &[60, 50, 50, 50], &[60], 256);
    common::extension::squarings_to_depth(CpuBackend, &params, 4);
}

/// HElib's bootstrapping ring `m = 21845` with `p = 2` (1024 slots of `GF(2^16)`) and with
/// `t = 2^8`, six ciphertext primes: random circuits and squarings to the set's depth (seconds
/// in release: `cargo test --release -p bgv-encrypt --test extension_slots -- --ignored`).
#[test]
#[ignore = "HElib-sized ring: seconds in release, minutes in debug"]
fn squarings_reach_the_estimated_depth_at_helib_sizes() {
    for t in [2, 256] {
        let params = common::phi_m::params(21845, &[50; 6], &[55, 55], t);
        let (_, products) = common::extension::extension_circuit(CpuBackend, &params, &[2, 4, 3, 21844], 30, t);
        assert!(products >= 2, "{products} products");
        let squarings = common::extension::squarings_to_depth(CpuBackend, &params, t);
        eprintln!("m = 21845, t = {t}: {squarings} squarings (estimated depth {})", params.estimated_depth());
    }
}
