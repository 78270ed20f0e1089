//! GPU NTT against the CPU reference (`poly`'s `Poly::forward` / `Poly::inverse`), bit-exact,
//! over random degrees 2^10..2^17, 1..64 limbs, prime sizes and seeds. Skips, saying why,
//! when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice};
use rand::Rng;

use common::{device, first_difference, ring};

/// Forward on the GPU equals forward on the CPU; inverse on the GPU of that equals the input;
/// inverse on the GPU of random evaluations equals the CPU inverse.
fn check_round_trip(device: &Arc<GpuDevice>, ring: &Arc<RingContext>, values: Vec<u64>, label: &str) {
    let n = ring.degree();
    let gpu = GpuContext::new(device, ring).unwrap();
    let coeff = Poly::<Coeff>::from_limbs(ring, values.clone()).unwrap();

    let cpu_eval = coeff.clone().forward().unwrap();
    let gpu_eval = DevicePoly::upload(&gpu, &coeff).unwrap().forward().unwrap();
    let gpu_eval_values = gpu_eval.to_vec().unwrap();
    if let Some(diff) = first_difference(&gpu_eval_values, cpu_eval.as_slice(), n) {
        panic!("{label}: forward NTT differs from the CPU: {diff}");
    }

    let back = gpu_eval.inverse().unwrap().to_vec().unwrap();
    if let Some(diff) = first_difference(&back, &values, n) {
        panic!("{label}: GPU inverse(forward(a)) != a: {diff}");
    }

    // Random evaluations (not the image of the values above) through both inverses.
    let reversed: Vec<u64> = values.chunks_exact(n).flat_map(|limb| limb.iter().rev().copied()).collect();
    let eval = Poly::<Eval>::from_limbs(ring, reversed).unwrap();
    let cpu_coeff = eval.clone().inverse().unwrap();
    let gpu_coeff = DevicePoly::upload(&gpu, &eval).unwrap().inverse().unwrap().to_vec().unwrap();
    if let Some(diff) = first_difference(&gpu_coeff, cpu_coeff.as_slice(), n) {
        panic!("{label}: inverse NTT differs from the CPU: {diff}");
    }
}

#[test]
fn every_degree_matches_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("every_degree_matches_cpu", 0x5eed_0001);
    for log_n in 10..=17u32 {
        let limbs = rng.gen_range(1..=6);
        let bits = rng.gen_range(30..=61);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        let values = common::edge_values(&ring, &mut rng);
        check_round_trip(&device, &ring, values, &format!("N = 2^{log_n}, {limbs} limbs of {bits} bits"));
    }
}

#[test]
fn random_parameters_match_cpu() {
    let Some(device) = device() else { return };
    let base: u64 = std::env::var("POLY_CUDA_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_0002);
    for case in 0..10u64 {
        let mut rng = common::rng("random_parameters_match_cpu", base + case);
        let log_n = rng.gen_range(10..=17u32);
        // Keep each case at most 2^21 values so the CPU reference stays quick.
        let max_limbs = (64usize).min((1 << 21) >> log_n).max(1);
        let limbs = rng.gen_range(1..=max_limbs);
        // Enough bits for `limbs` primes = 1 mod 2N.
        let bits = rng.gen_range(log_n + 12..=61);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        let values = common::random_values(&ring, &mut rng);
        check_round_trip(&device, &ring, values, &format!("case {case}: N = 2^{log_n}, {limbs} limbs of {bits} bits"));
    }
}

#[test]
fn largest_shapes_match_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("largest_shapes_match_cpu", 0x5eed_0003);
    for (log_n, limbs) in [(17u32, 64usize), (16, 32), (12, 64)] {
        let ring = ring(log_n, limbs, 61, TransformKind::Ntt);
        let values = common::random_values(&ring, &mut rng);
        check_round_trip(&device, &ring, values, &format!("N = 2^{log_n}, {limbs} limbs"));
    }
}

#[test]
fn largest_primes_and_extreme_values() {
    // Primes just below 2^62 stress the lazy [0, 4p) range; all-(p-1) inputs maximise it.
    let Some(device) = device() else { return };
    for log_n in [10u32, 13, 16, 17] {
        let ring = ring(log_n, 3, 62, TransformKind::Ntt);
        let n = ring.degree();
        let mut values = Vec::with_capacity(ring.poly_len());
        for m in ring.moduli() {
            values.extend(std::iter::repeat_n(m.value() - 1, n));
        }
        check_round_trip(&device, &ring, values, &format!("N = 2^{log_n}, 62-bit primes, all p - 1"));
    }
}

#[test]
fn batches_transform_each_polynomial() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("batches_transform_each_polynomial", 0x5eed_0004);
    for log_n in [11u32, 15] {
        let ring = ring(log_n, 5, 50, TransformKind::Ntt);
        let gpu = GpuContext::new(&device, &ring).unwrap();
        let polys: Vec<Poly<Coeff>> = (0..3).map(|_| common::random_poly(&ring, &mut rng)).collect();
        let eval = DevicePolyBatch::upload(&gpu, &polys).unwrap().forward().unwrap();
        assert_eq!(eval.len(), 3);
        let gpu_eval = eval.download().unwrap();
        for (host, gpu_poly) in polys.iter().zip(&gpu_eval) {
            assert_eq!(gpu_poly, &host.clone().forward().unwrap(), "N = 2^{log_n}");
        }
        let back = DevicePolyBatch::upload(&gpu, &gpu_eval).unwrap().inverse().unwrap().download().unwrap();
        assert_eq!(back, polys, "N = 2^{log_n}");
    }
}

#[test]
fn products_through_the_gpu_ntt_are_negacyclic_convolutions() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("products_through_the_gpu_ntt", 0x5eed_0005);
    let ring = ring(10, 2, 40, TransformKind::Ntt);
    let gpu = GpuContext::new(&device, &ring).unwrap();
    let a: Poly<Coeff> = common::random_poly(&ring, &mut rng);
    let b: Poly<Coeff> = common::random_poly(&ring, &mut rng);
    let mut a_eval = DevicePoly::upload(&gpu, &a).unwrap().forward().unwrap();
    let b_eval = DevicePoly::upload(&gpu, &b).unwrap().forward().unwrap();
    a_eval.mul_assign(&b_eval).unwrap();
    let product = a_eval.inverse().unwrap().download().unwrap();
    assert_eq!(product, poly::reference::negacyclic_product(&a, &b).unwrap());
}
