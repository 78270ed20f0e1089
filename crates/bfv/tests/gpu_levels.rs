//! The modulus chain on the GPU: the checks of tests/common/levels.rs, and every switched
//! ciphertext equal, word for word, to the CPU reference's. Needs feature `cuda`; skips,
//! saying so, when no device is found.
#![cfg(feature = "cuda")]

// tests/common/levels.rs alone, without the rest of the shared test code (tests/common/mod.rs).
mod common {
    pub mod levels;
}

use common::levels;

#[test]
fn gpu_mod_switching_equals_the_cpu() {
    let device = match hegpu_test_support::open_device_or_skip(0) {
        Ok(Some(device)) => device,
        Ok(None) => return,
        Err(error) => panic!("the GPU tests cannot run: {error}"),
    };
    let gpu = levels::run(poly_cuda::GpuBackend::from_device(device));
    let cpu = levels::run(poly::CpuBackend);
    assert_eq!(gpu, cpu, "switched ciphertexts differ between GPU and CPU");
}
