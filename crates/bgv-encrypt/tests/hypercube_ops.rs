//! Data movement on extension-field slots under BGV (`rlwe::hypercube_ops`, the body in
//! `common::hypercube`): rotations and shifts along good and bad dimensions, the Frobenius,
//! sums over all slots and replication, checked against the slots.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::hypercube::hypercube_session;
use poly::CpuBackend;

#[test]
fn rotations_shifts_sums_and_frobenius_on_extension_field_slots() {
    // Phi_1705, t = 2^8: dimensions of orders 30 and 2, both good.
    let params = common::phi_m::params(1705, &[60, 50, 50, 50], &[60], 256);
    hypercube_session(CpuBackend, &params, &[(0, 1), (0, 7), (0, -3), (1, 1)], true, 1);
    // x^1024 + 1 (m = 2048), t = 257: orders 64 (bad) and 2 (good).
    let params = common::small_params(10, &[60, 50, 50, 50], &[60], 257);
    hypercube_session(CpuBackend, &params, &[(0, 1), (0, 5), (0, -2), (1, 1)], false, 2);
}
