//! Device sampling against the CPU reference (`poly::sampling`), bit-exact: the device ChaCha20
//! block function against RFC 8439 and `poly::sampling::chacha20_block`, and every distribution
//! over fixed shapes and random ones (proptest, `common::gpu_cases`: degrees 2^10..2^17, 1..64
//! limbs, prime sizes, transforms, seeds and polynomial indices). Skips, saying
//! why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::sampling::{Distribution, MAX_POLY_INDEX, chacha20_block};
use poly::{Backend, Coeff, CpuBackend, Eval, Poly, PolyError, Representation, RingContext, Seed, TransformKind};
use poly_cuda::sampling::chacha20_keystream;
use poly_cuda::{DevicePoly, GpuBackend, GpuContext, GpuDevice, GpuError};

use common::gpu_cases::{self, Regressions};
use common::{device, first_difference, ring};
use proptest::prelude::*;

fn test_seed(tag: u8) -> Seed {
    Seed::from(core::array::from_fn(|k| (k as u8).wrapping_mul(37).wrapping_add(tag)))
}

/// RFC 8439 section 2.3.2 (key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block count
/// 1) is block `1 | 0x09000000 << 32` of stream `0x4a000000` in the djb layout.
#[test]
fn device_block_function_matches_rfc8439() {
    let Some(device) = device() else { return };
    let seed = Seed::from(core::array::from_fn(|k| k as u8));
    let words = chacha20_keystream(&device, &seed, 0x4a00_0000, 1 | (0x0900_0000 << 32), 1).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let expected = "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
                    d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e";
    let expected: Vec<u8> =
        (0..expected.len()).step_by(2).map(|k| u8::from_str_radix(&expected[k..k + 2], 16).unwrap()).collect();
    assert_eq!(bytes, expected);
}

/// The device keystream equals `rand_chacha`'s block by block, across counter carries into the
/// high word and the wrap at 2^64.
#[test]
fn device_keystream_matches_cpu_blocks() {
    let Some(device) = device() else { return };
    let ranges: [(u64, usize); 4] = [(0, 4096), (0xffff_fff0, 64), (u64::MAX - 5, 12), (0x1234_5678_9abc_def0, 300)];
    let streams = [
        0,
        Distribution::Uniform.stream_id(7).unwrap(),
        Distribution::CenteredBinomial.stream_id(MAX_POLY_INDEX).unwrap(),
        u64::MAX,
    ];
    for tag in 0..3 {
        let seed = test_seed(tag);
        for &stream in &streams {
            for &(first, count) in &ranges {
                let gpu = chacha20_keystream(&device, &seed, stream, first, count).unwrap();
                assert_eq!(gpu.len(), 16 * count);
                for b in 0..count {
                    let counter = first.wrapping_add(b as u64);
                    assert_eq!(
                        gpu[16 * b..16 * b + 16],
                        chacha20_block(&seed, stream, counter),
                        "seed {tag}, stream {stream:#x}, block {counter:#x}"
                    );
                }
            }
        }
    }
    assert!(chacha20_keystream(&device, &test_seed(0), 0, 0, 0).unwrap().is_empty());
}

/// (log N, limbs, prime bits) covering small and large degrees, one and 64 limbs, and prime
/// sizes from 30 to 61 bits; the last two give the ternary and binomial kernels rows of several
/// limbs with a shorter last row (50 limbs in rows of 7, 35 in rows of 9).
const SHAPES: [(u32, usize, u32); 9] = [
    (10, 1, 30),
    (10, 64, 61),
    (11, 3, 50),
    (13, 5, 40),
    (14, 2, 61),
    (16, 7, 55),
    (17, 4, 61),
    (16, 50, 55),
    (17, 35, 60),
];
const INDICES: [u64; 3] = [0, 1, MAX_POLY_INDEX];

fn check<R: Representation>(label: &str, ring: &RingContext, gpu: &DevicePoly<R>, cpu: &Poly<R>) {
    let gpu_values = gpu.to_vec().unwrap();
    if let Some(diff) = first_difference(&gpu_values, cpu.as_slice(), ring.degree()) {
        panic!("{label}: device sample differs from the CPU: {diff}");
    }
}

fn for_each_shape(device: &Arc<GpuDevice>, mut body: impl FnMut(&str, &Arc<RingContext>, &GpuContext, &Seed, u64)) {
    for (shape, &(log_n, limbs, bits)) in SHAPES.iter().enumerate() {
        // Sampling does not depend on the transform; both kinds of context are exercised.
        let transform = if shape % 2 == 0 { TransformKind::Ntt } else { TransformKind::Dgt };
        let ring = ring(log_n, limbs, bits, transform);
        let gpu = GpuContext::new(device, &ring).unwrap();
        for (k, &index) in INDICES.iter().enumerate() {
            let seed = test_seed((shape * INDICES.len() + k) as u8);
            let label = format!("N = 2^{log_n}, {limbs} limbs of {bits} bits, index {index:#x}");
            body(&label, &ring, &gpu, &seed, index);
        }
    }
}

#[test]
fn uniform_matches_cpu() {
    let Some(device) = device() else { return };
    for_each_shape(&device, |label, ring, gpu, seed, index| {
        let cpu = Poly::<Coeff>::sample_uniform(ring, seed, index).unwrap();
        check(label, ring, &DevicePoly::<Coeff>::sample_uniform(gpu, seed, index).unwrap(), &cpu);
        let cpu = Poly::<Eval>::sample_uniform(ring, seed, index).unwrap();
        check(label, ring, &DevicePoly::<Eval>::sample_uniform(gpu, seed, index).unwrap(), &cpu);
    });
}

#[test]
fn ternary_matches_cpu() {
    let Some(device) = device() else { return };
    for_each_shape(&device, |label, ring, gpu, seed, index| {
        let cpu = Poly::sample_ternary(ring, seed, index).unwrap();
        check(label, ring, &DevicePoly::sample_ternary(gpu, seed, index).unwrap(), &cpu);
    });
}

#[test]
fn cbd_matches_cpu() {
    let Some(device) = device() else { return };
    for_each_shape(&device, |label, ring, gpu, seed, index| {
        let cpu = Poly::sample_cbd(ring, seed, index).unwrap();
        check(label, ring, &DevicePoly::sample_cbd(gpu, seed, index).unwrap(), &cpu);
    });
}

/// Committed failing cases of this file's random tests (see `common::gpu_cases`).
const REGRESSIONS: Regressions = Regressions { text: include_str!("sampling.proptest-regressions"), source: file!() };

/// 16 random cases of every distribution: `N = 2^10..2^17` (at most 2^21 values), prime sizes,
/// every transform, random seeds and polynomial indices (the extremes more often).
#[test]
fn random_shapes_sample_like_cpu() {
    let Some(device) = device() else { return };
    let strategy = (10u32..=17).prop_flat_map(|log_n| {
        let max_limbs = 64usize.min((1 << 21) >> log_n).max(1);
        let transform =
            prop_oneof![Just(TransformKind::Ntt), Just(TransformKind::Dgt), Just(TransformKind::HierarchicalDgt)];
        let index = prop_oneof![1 => Just(0), 1 => Just(MAX_POLY_INDEX), 4 => 0..=MAX_POLY_INDEX];
        (Just(log_n), 1..=max_limbs, log_n + 12..=61, transform, any::<[u8; 32]>(), index)
    });
    gpu_cases::check(16, REGRESSIONS, strategy, |(log_n, limbs, bits, transform, seed, index)| {
        let ring = ring(log_n, limbs, bits, transform);
        let gpu = GpuContext::new(&device, &ring).unwrap();
        let seed = Seed::from(seed);
        let label = format!("{} N = 2^{log_n}, {limbs} limbs of {bits} bits, index {index:#x}", transform.name());
        let cpu = Poly::<Coeff>::sample_uniform(&ring, &seed, index).unwrap();
        check(&label, &ring, &DevicePoly::<Coeff>::sample_uniform(&gpu, &seed, index).unwrap(), &cpu);
        let cpu = Poly::<Eval>::sample_uniform(&ring, &seed, index).unwrap();
        check(&label, &ring, &DevicePoly::<Eval>::sample_uniform(&gpu, &seed, index).unwrap(), &cpu);
        let cpu = Poly::sample_ternary(&ring, &seed, index).unwrap();
        check(&label, &ring, &DevicePoly::sample_ternary(&gpu, &seed, index).unwrap(), &cpu);
        let cpu = Poly::sample_cbd(&ring, &seed, index).unwrap();
        check(&label, &ring, &DevicePoly::sample_cbd(&gpu, &seed, index).unwrap(), &cpu);
    });
}

/// Through the `Backend` trait: the GPU backend's samples equal the CPU backend's.
#[test]
fn backends_sample_the_same_polynomials() {
    let Some(device) = device() else { return };
    let ring = ring(12, 3, 58, TransformKind::Ntt);
    let (cpu, gpu) = (CpuBackend, GpuBackend::from_device(Arc::clone(&device)));
    let (cpu_context, gpu_context) = (cpu.context(&ring).unwrap(), gpu.context(&ring).unwrap());
    let seed = test_seed(99);
    for index in [3, 4] {
        let a: Poly<Eval> = cpu.sample_uniform(&cpu_context, &seed, index).unwrap();
        let b: DevicePoly<Eval> = gpu.sample_uniform(&gpu_context, &seed, index).unwrap();
        check("backend uniform", &ring, &b, &a);
        let a = cpu.sample_ternary(&cpu_context, &seed, index).unwrap();
        check("backend ternary", &ring, &gpu.sample_ternary(&gpu_context, &seed, index).unwrap(), &a);
        let a = cpu.sample_cbd(&cpu_context, &seed, index).unwrap();
        check("backend cbd", &ring, &gpu.sample_cbd(&gpu_context, &seed, index).unwrap(), &a);
    }
}

#[test]
fn bad_poly_index_is_rejected() {
    let Some(device) = device() else { return };
    let ring = ring(10, 2, 40, TransformKind::Ntt);
    let gpu = GpuContext::new(&device, &ring).unwrap();
    let seed = test_seed(1);
    let is_index_error = |e: GpuError| matches!(e, GpuError::Poly(PolyError::InvalidParameter { name: "poly_index", value, .. }) if value == MAX_POLY_INDEX + 1);
    assert!(is_index_error(DevicePoly::<Coeff>::sample_uniform(&gpu, &seed, MAX_POLY_INDEX + 1).unwrap_err()));
    assert!(is_index_error(DevicePoly::sample_ternary(&gpu, &seed, MAX_POLY_INDEX + 1).unwrap_err()));
    assert!(is_index_error(DevicePoly::sample_cbd(&gpu, &seed, MAX_POLY_INDEX + 1).unwrap_err()));
}
