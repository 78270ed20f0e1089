//! Golden vectors on the CPU reference: keys and ciphertexts from fixed seeds hash to the
//! recorded values (tests/common/golden.rs). `tests/gpu_golden.rs` checks the same table on
//! the GPU.

#[path = "common/golden.rs"]
mod golden;

#[test]
fn cpu_golden_vectors_are_unchanged() {
    golden::check(poly::CpuBackend);
}
