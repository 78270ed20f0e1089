#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Random circuits up to each preset's documented depth on the CPU backend (see
//! `common/mod.rs` for the circuits). The circuits of the presets' rings of `N >= 2^15` and of
//! the deep seed sets at `N = 2^14` run in `#[ignore]`d tests (minutes on a CPU); `gpu.rs` runs
//! every preset with every variant and transform on a GPU, and `presets.rs` checks every preset
//! on the CPU with one multiplication (and the depth margin up to `N = 2^15`).

mod common;

use bfv::{MulVariant, Preset};
use common::{COMBINATIONS, preset_params, run_circuit};
use poly::{CpuBackend, TransformKind};

/// Runs a circuit of each preset's depth for the presets that `select` picks (by preset and
/// degree), with every variant/transform combination or one (rotating through them).
fn check_presets(select: impl Fn(&Preset, usize) -> bool, all_combinations: bool, width: usize) {
    for (index, preset) in Preset::all().into_iter().enumerate() {
        let degree = preset_params(preset, MulVariant::Hps, TransformKind::Ntt).degree();
        if !select(&preset, degree) {
            continue;
        }
        let depth = preset.depth().unwrap();
        let combinations: Vec<_> =
            if all_combinations { COMBINATIONS.to_vec() } else { vec![COMBINATIONS[index % COMBINATIONS.len()]] };
        for (variant, transform) in combinations {
            let params = preset_params(preset, variant, transform);
            let budget = run_circuit(CpuBackend, &params, depth, width, index as u64);
            eprintln!("{} {variant:?} {transform:?}: depth {depth}, budget left {budget}", preset.name());
        }
    }
}

/// The deep sets of the seeds at `N = 2^14` (31 and 47 levels).
fn is_deep_seed_set(preset: &Preset) -> bool {
    matches!(preset, Preset::SpogBvma { .. } | Preset::GpuFv { .. })
}

#[test]
fn presets_up_to_2_pow_13_every_variant_and_transform() {
    check_presets(|_, n| n <= 1 << 13, true, 2);
}

#[test]
fn presets_at_2_pow_14_one_combination_each() {
    check_presets(|preset, n| n == 1 << 14 && !is_deep_seed_set(preset), false, 2);
}

#[test]
#[ignore = "minutes on a CPU: every preset at N = 2^14 with every variant and transform, three ciphertexts wide"]
fn presets_at_2_pow_14_every_variant_and_transform() {
    check_presets(|_, n| n == 1 << 14, true, 3);
}

#[test]
#[ignore = "long on a CPU: the presets at N = 2^15 and 2^16"]
fn presets_at_2_pow_15_and_16() {
    check_presets(|_, n| n >= 1 << 15, false, 2);
}
