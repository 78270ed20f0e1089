#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Bootstrapping's first step under BFV on the CPU (`common::raise`): a ciphertext of `t = 9`
//! after a product raised with the bootstrapping key to `3^8`, the message in the high digits
//! of every coefficient, with HPS and BEHZ.

mod common;

use bfv::MulVariant;
use poly::CpuBackend;

#[test]
fn product_raised_with_the_message_in_the_high_digits() {
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        let (_, largest) = common::raise::raised_with_the_key(CpuBackend, variant);
        eprintln!("{variant:?}: largest low-digit term |d| = {largest} (bound 3^6 / 2 = 364)");
    }
}
