//! Programmatic dependent launch against the CPU, word for word: long chains of transforms and
//! element-wise kernels queued back to back, nothing read until the end, so that every kernel
//! launched programmatically may start while the one before it is still running (the sums are
//! launched the ordinary way, so the chain mixes both). A kernel that touched its input before
//! `dependent_launch::wait_for_inputs` would read it half written. On an H100 the chain must
//! actually launch programmatically with the default tuning; a second device of the same
//! process, tuned with programmatic launches off, runs the same chains the ordinary way and
//! must match too. Skips, saying why, without a CUDA device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use poly::{Coeff, Eval, Poly, TransformKind};
use std::sync::Arc;

use poly_cuda::{DevicePoly, GpuContext, GpuDevice, GpuTuning};

use common::{device, random_poly, ring};

/// `rounds` times: `x <- inverse(forward(x) * f + g)`, then `x <- x + h` and an automorphism of
/// the evaluations in between, on the CPU and (queued without a wait) on the GPU: on the
/// default device, and on one tuned with programmatic launches off.
fn check_chain(log_n: u32, limbs: usize, bits: u32, rounds: usize) {
    let Some(device) = device() else { return };
    if device.name().contains("H100") {
        assert!(device.programmatic_launches(), "an H100 launches the transforms programmatically");
    }
    let mut ordinary = GpuTuning::default();
    ordinary.programmatic_launches = false;
    let ordinary = GpuDevice::with_tuning(0, ordinary).unwrap();
    assert!(!ordinary.programmatic_launches(), "the tuning turns programmatic launches off");
    for device in [device, ordinary] {
        check_chain_on(&device, log_n, limbs, bits, rounds);
    }
}

fn check_chain_on(device: &Arc<GpuDevice>, log_n: u32, limbs: usize, bits: u32, rounds: usize) {
    let programmatic = device.programmatic_launches();
    let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
    let gpu = GpuContext::new(device, &ring).unwrap();
    let mut rng = common::rng("programmatic_chains_match_the_cpu", u64::from(log_n));
    let x: Poly<Coeff> = random_poly(&ring, &mut rng);
    let f: Poly<Eval> = random_poly(&ring, &mut rng);
    let g: Poly<Eval> = random_poly(&ring, &mut rng);
    let h: Poly<Coeff> = random_poly(&ring, &mut rng);
    let (f_gpu, g_gpu, h_gpu) = (
        DevicePoly::upload(&gpu, &f).unwrap(),
        DevicePoly::upload(&gpu, &g).unwrap(),
        DevicePoly::upload(&gpu, &h).unwrap(),
    );

    let mut cpu = x.clone();
    let mut on_gpu = DevicePoly::upload(&gpu, &x).unwrap();
    for round in 0..rounds {
        let galois = 2 * (round as u64) + 3;
        let mut eval = cpu.forward().unwrap().automorphism_ntt(galois).unwrap();
        eval.mul_assign(&f).unwrap();
        eval.add_assign(&g).unwrap();
        cpu = eval.inverse().unwrap();
        cpu.add_assign(&h).unwrap();

        let mut eval = on_gpu.forward().unwrap().automorphism_ntt(galois).unwrap();
        eval.mul_assign(&f_gpu).unwrap();
        eval.add_assign(&g_gpu).unwrap();
        on_gpu = eval.inverse().unwrap();
        on_gpu.add_assign(&h_gpu).unwrap();
    }
    assert_eq!(
        on_gpu.to_vec().unwrap(),
        cpu.as_slice(),
        "N = 2^{log_n}, {limbs} limbs, programmatic {programmatic}: {rounds} rounds queued back to back differ from the CPU"
    );
}

#[test]
fn programmatic_chains_match_the_cpu_at_large_transforms() {
    // Two-pass transforms over many limbs, where the kernels fill the device and overlap most.
    check_chain(15, 16, 36, 12);
    check_chain(16, 8, 40, 6);
}

#[test]
fn programmatic_chains_match_the_cpu_at_small_transforms() {
    // Short kernels: the next one is queued long before the last one ends.
    check_chain(12, 3, 50, 40);
    check_chain(14, 8, 36, 20);
}
