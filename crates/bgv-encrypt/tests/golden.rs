//! Golden vectors of BGV on the CPU reference: keys and ciphertexts from fixed seeds hash to
//! the recorded values (tests/common/golden.rs). `tests/gpu_golden.rs` checks the same table on
//! the GPU.

// tests/common/golden.rs alone, without the rest of the shared test code (tests/common/mod.rs).
mod common {
    pub mod golden;
}

use common::golden;

#[test]
fn cpu_golden_vectors_are_unchanged() {
    golden::check(poly::CpuBackend);
}
