//! Golden vectors of BGV on the GPU: the same recorded hashes as the CPU reference
//! (tests/common/golden.rs), so GPU keys and ciphertexts stay bit-identical to the CPU's
//! across refactors. Needs feature `cuda`; skips, saying so, when no device is found.
#![cfg(feature = "cuda")]

// tests/common/golden.rs alone, without the rest of the shared test code (tests/common/mod.rs).
mod common {
    pub mod golden;
}

use common::golden;

#[test]
fn gpu_golden_vectors_are_unchanged() {
    let device = match hegpu_test_support::open_device_or_skip(0) {
        Ok(Some(device)) => device,
        Ok(None) => return,
        Err(error) => panic!("the GPU tests cannot run: {error}"),
    };
    golden::check(poly_cuda::GpuBackend::from_device(device));
}
