//! Bootstrapping's first step on the CPU (`common::raise`): a ciphertext of `t = 9` at the
//! bottom of its chain raised to the plaintext space `3^8` at the top over `x^4096 + 1`, and one
//! of `t = 4` to `2^12` over `Phi_1705`, the message in the high digits of every coefficient.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use poly::CpuBackend;

#[test]
fn bottom_ciphertext_raised_with_the_message_in_the_high_digits() {
    let (_, largest) = common::raise::raised_to_the_top(CpuBackend);
    eprintln!("largest low-digit term |d|: {largest} (bound 3^6 / 2 = 364)");
}

#[test]
fn bottom_ciphertext_over_phi_m_raised_with_the_message_in_the_high_digits() {
    let (_, largest) = common::raise::raised_over_phi_m(CpuBackend);
    eprintln!("Phi_1705: largest low-digit term |d|: {largest} (bound 2^9 = 512)");
}
