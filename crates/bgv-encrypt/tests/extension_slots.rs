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
