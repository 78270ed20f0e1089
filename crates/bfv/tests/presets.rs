#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every preset on the CPU backend: key generation (secret, public and relinearization keys),
//! encryption, one multiplication with relinearization and decryption, checked against
//! plaintext arithmetic; and the squaring chains behind the documented depths
//! ([`Preset::depth`]) for the presets of `N <= 2^15`, whose chains the CPU can afford in CI
//! (about a minute each way on two cores, dev profile). The chains of the three `N = 2^16`
//! presets take five minutes or more each on a CPU: they run in `gpu.rs`, which checks every
//! preset's chain on a GPU.

mod common;

use bfv::{MulVariant, Preset};
use common::{chain_leaves_margin, multiply_once, preset_params, squaring_chain};
use poly::{CpuBackend, TransformKind};

fn degree(preset: Preset) -> usize {
    preset_params(preset, MulVariant::Hps, TransformKind::Ntt).degree()
}

/// One multiplication of every preset that `select` picks, under the preset's own variant and
/// transform and under the other variant (rotating the transform), so both variants run at every
/// size.
fn multiply_presets(select: impl Fn(usize) -> bool) {
    for (index, preset) in Preset::all().into_iter().enumerate() {
        if !select(degree(preset)) {
            continue;
        }
        let shipped = preset.builder().unwrap().allow_insecure(true).build().unwrap();
        let other = match shipped.variant() {
            MulVariant::Hps => MulVariant::Behz,
            MulVariant::Behz => MulVariant::Hps,
        };
        let rotated = TransformKind::ALL[index % TransformKind::ALL.len()];
        for (variant, transform) in [(shipped.variant(), shipped.transform()), (other, rotated)] {
            let start = std::time::Instant::now();
            let budget = multiply_once(CpuBackend, preset, variant, transform, index as u64);
            eprintln!(
                "{} {variant:?} {transform:?}: product decrypted, budget left {budget}, {:.1} s",
                preset.name(),
                start.elapsed().as_secs_f64()
            );
        }
    }
}

#[test]
fn every_preset_up_to_2_pow_14_multiplies_once() {
    multiply_presets(|n| n <= 1 << 14);
}

#[test]
fn every_preset_at_2_pow_15_multiplies_once() {
    multiply_presets(|n| n == 1 << 15);
}

#[test]
fn every_preset_at_2_pow_16_multiplies_once() {
    multiply_presets(|n| n == 1 << 16);
}

/// The squaring chain of each preset `select` picks leaves its documented depth a level of
/// margin (see `common::squaring_chain`).
fn chains_leave_a_margin(select: impl Fn(Preset) -> bool) {
    for preset in Preset::all().into_iter().filter(|preset| select(*preset)) {
        let start = std::time::Instant::now();
        let chain = squaring_chain(CpuBackend, preset);
        let documented = preset.depth().unwrap();
        eprintln!(
            "{}: squaring chain {chain}, documented depth {documented}, {:.1} s",
            preset.name(),
            start.elapsed().as_secs_f64()
        );
        assert!(
            chain_leaves_margin(chain, documented),
            "{}: chain {chain}, documented depth {documented}",
            preset.name()
        );
    }
}

#[test]
fn squaring_chains_leave_a_margin_up_to_2_pow_14() {
    chains_leave_a_margin(|preset| degree(preset) <= 1 << 14);
}

#[test]
fn squaring_chains_leave_a_margin_at_2_pow_15() {
    chains_leave_a_margin(|preset| degree(preset) == 1 << 15);
}
