#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Digit removal under BFV on the CPU (`common::digits`): two digits of `Z_{31^3}` removed in
//! every slot, with HPS and BEHZ.

mod common;

use bfv::MulVariant;
use poly::CpuBackend;

#[test]
fn two_digits_removed_on_extension_field_slots() {
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        common::digits::two_digits_removed(CpuBackend, variant);
    }
}
