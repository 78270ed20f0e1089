//! The modulus chain on the CPU reference (tests/common/levels.rs); `tests/gpu_levels.rs` runs
//! the same checks on the GPU and compares the switched ciphertexts with these.

// tests/common/levels.rs alone, without the rest of the shared test code (tests/common/mod.rs).
mod common {
    pub mod levels;
}

use common::levels;

#[test]
fn cpu_mod_switching_keeps_the_plaintext_and_moves_the_noise_as_theory_says() {
    let outputs = levels::run(poly::CpuBackend);
    assert!(outputs.iter().all(|set| !set.is_empty()));
}
