//! The plaintext records of the separate BGV over `Phi_m` that the one BGV replaced
//! (`common::recorded`), reproduced on the CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::recorded::{HELIB_RECORD, RECORDS, plaintext_record};
use poly::CpuBackend;

/// Every recorded ring with three primes, coefficient and slot encodings.
#[test]
fn old_bgv_plaintext_records_reproduce() {
    let mut wrong = Vec::new();
    for (m, t, slots, want) in RECORDS {
        let got = plaintext_record(CpuBackend, m, t, 3, slots);
        if got != want {
            wrong.push(format!("m = {m}, t = {t}, slots = {slots}: got {got:x}, recorded {want:x}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// HElib's `m = 21845` with four 50-bit primes and `t = 257`.
#[test]
fn old_bgv_plaintext_record_at_helib_size() {
    assert_eq!(plaintext_record(CpuBackend, 21845, 257, 4, false), HELIB_RECORD);
}
