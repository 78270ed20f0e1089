//! The modulus chain on the CPU reference (tests/common/levels.rs); `tests/gpu_levels.rs` runs
//! the same checks on the GPU and compares the switched ciphertexts with these.

#[path = "common/levels.rs"]
mod levels;

#[test]
fn cpu_mod_switching_keeps_the_plaintext_and_moves_the_noise_as_theory_says() {
    let outputs = levels::run(poly::CpuBackend);
    assert!(outputs.iter().all(|set| !set.is_empty()));
}
