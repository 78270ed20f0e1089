//! Decryption's fused scale-and-round on the GPU (`GpuHps::decrypt_sum_poly`,
//! `GpuBehz::decrypt_sum_poly`: the kernel adds `c_0` itself; `decrypt_sum_resident`: the
//! same words left in device memory) against the CPU's
//! `decrypt_poly` of the sum `[a + b]_q`, word for word, over random degrees, prime counts,
//! plaintext moduli and inputs (random, and sums that wrap past `q_i` in every limb); the
//! staged download (`GpuDevice::download_words`) against the pageable one; and rejected
//! inputs of the wrong ring. The random cases are proptest's (`hegpu_test_support::gpu_cases`).
//!
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use hegpu_test_support::gpu_cases;

use std::sync::Arc;

use common::random_poly;
use gpu_cases::{Regressions, device};
use num_integer::Integer;
use poly::{Coeff, Poly, RingContext, TransformKind};
use poly_cuda::{DevicePoly, GpuContext};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rns::gpu::{GpuBehz, GpuDecryption, GpuHps, GpuRnsError};
use rns::{BehzContext, HpsContext, RnsBase, RnsError};

/// Committed failing cases of this file's random tests (see `gpu_cases`).
const REGRESSIONS: Regressions =
    Regressions { text: include_str!("gpu_decrypt.proptest-regressions"), source: file!() };

fn ring(degree: usize, primes: &[u64]) -> Arc<RingContext> {
    RingContext::new(degree, primes, TransformKind::Ntt).unwrap()
}

/// `[a + b]_q`, limb by limb, in u128.
fn sum_mod_q(ring: &Arc<RingContext>, a: &Poly<Coeff>, b: &Poly<Coeff>) -> Poly<Coeff> {
    let n = ring.degree();
    let values: Vec<u64> = a
        .as_slice()
        .iter()
        .zip(b.as_slice())
        .enumerate()
        .map(|(index, (&x, &y))| {
            let p = ring.moduli()[index / n].value();
            ((u128::from(x) + u128::from(y)) % u128::from(p)) as u64
        })
        .collect();
    Poly::from_limbs(ring, values).unwrap()
}

/// `b` with every residue in `[q_i - a_i, q_i)` where possible, so `a + b` wraps past `q_i`.
fn wrapping_partner(ring: &Arc<RingContext>, a: &Poly<Coeff>, rng: &mut StdRng) -> Poly<Coeff> {
    let n = ring.degree();
    let values: Vec<u64> = a
        .as_slice()
        .iter()
        .enumerate()
        .map(|(index, &x)| {
            let p = ring.moduli()[index / n].value();
            if x == 0 { rng.gen_range(0..p) } else { rng.gen_range(p - x..p) }
        })
        .collect();
    Poly::from_limbs(ring, values).unwrap()
}

/// 12 random cases: `N = 2^10..2^15`, 1..6 primes (1..16 from 2^14) of 30..60 bits, `t` small,
/// `2`, `65537` or of 32..40 bits; the addend random or chosen so that the sum wraps past `q_i`.
#[test]
fn fused_decryption_equals_the_cpu_on_the_sum() {
    let Some(device) = device() else { return };
    let strategy = (10u32..=15).prop_flat_map(|log_n| {
        let max_primes = if log_n >= 14 { 16usize } else { 6 };
        let t = prop_oneof![Just(2u64), Just(65537u64), 1u64 << 32..1 << 40, 3u64..1 << 30];
        (Just(1usize << log_n), 1..=max_primes, 30u32..=60, t, any::<bool>(), any::<u64>())
    });
    gpu_cases::check(12, REGRESSIONS, strategy, |(degree, k, bits, t, wrapping, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let q = modarith::generate_ntt_primes(bits, 2 * degree as u64, k, &[]).unwrap();
        let mut t = t;
        while !q.iter().all(|&p| p.gcd(&t) == 1) {
            t += 1;
        }
        let label = format!("N = {degree}, {k} primes of {bits} bits, t = {t}");
        let q_ring = ring(degree, &q);
        let q_gpu = GpuContext::new(&device, &q_ring).unwrap();
        let base = RnsBase::new(&q).unwrap();
        let a = Poly::from_limbs(&q_ring, random_poly(&base, degree, &mut rng)).unwrap();
        let b = if wrapping {
            wrapping_partner(&q_ring, &a, &mut rng)
        } else {
            Poly::from_limbs(&q_ring, random_poly(&base, degree, &mut rng)).unwrap()
        };
        let sum = sum_mod_q(&q_ring, &a, &b);
        let (a_gpu, b_gpu) = (DevicePoly::upload(&q_gpu, &a).unwrap(), DevicePoly::upload(&q_gpu, &b).unwrap());

        let hps = HpsContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuHps::new(&device, &hps).unwrap();
        let expected = hps.decrypt_poly(&sum).unwrap();
        assert_eq!(gpu.decrypt_sum_poly(&a_gpu, &b_gpu).unwrap(), expected, "{label}: HPS");
        let resident = gpu.decrypt_sum_resident(&a_gpu, &b_gpu).unwrap();
        assert_eq!(device.download_words(&resident).unwrap(), expected, "{label}: HPS, resident");

        let behz = BehzContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuBehz::new(&device, &behz).unwrap();
        let expected = behz.decrypt_poly(&sum).unwrap();
        assert_eq!(gpu.decrypt_sum_poly(&a_gpu, &b_gpu).unwrap(), expected, "{label}: BEHZ");
        let resident = gpu.decrypt_sum_resident(&a_gpu, &b_gpu).unwrap();
        assert_eq!(device.download_words(&resident).unwrap(), expected, "{label}: BEHZ, resident");
        // The inputs are untouched.
        assert_eq!(a_gpu.download().unwrap(), a, "{label}");
        assert_eq!(b_gpu.download().unwrap(), b, "{label}");
    });
}

#[test]
fn fused_decryption_rejects_an_addend_of_another_ring() {
    let Some(device) = device() else { return };
    let degree = 1 << 12;
    let q = modarith::generate_ntt_primes(50, 2 * degree as u64, 3, &[]).unwrap();
    let q_gpu = GpuContext::new(&device, &ring(degree, &q)).unwrap();
    let short_gpu = GpuContext::new(&device, &ring(degree, &q[..2])).unwrap();
    let input = DevicePoly::<Coeff>::zero(&q_gpu).unwrap();
    let short = DevicePoly::<Coeff>::zero(&short_gpu).unwrap();
    let is_context_error = |e: &GpuRnsError| matches!(e, GpuRnsError::Rns(RnsError::ContextMismatch { .. }));
    let hps = HpsContext::with_generated_moduli(degree, &q, 65537).unwrap();
    let gpu = GpuHps::new(&device, &hps).unwrap();
    assert!(gpu.decrypt_sum_poly(&input, &short).is_err_and(|e| is_context_error(&e)));
    assert!(gpu.decrypt_sum_poly(&short, &input).is_err_and(|e| is_context_error(&e)));
    let behz = BehzContext::with_generated_moduli(degree, &q, 65537).unwrap();
    let gpu = GpuBehz::new(&device, &behz).unwrap();
    assert!(gpu.decrypt_sum_poly(&input, &short).is_err_and(|e| is_context_error(&e)));
    assert!(gpu.decrypt_sum_resident(&input, &short).is_err_and(|e| is_context_error(&e)));
    assert!(gpu.decrypt_sum_resident(&short, &input).is_err_and(|e| is_context_error(&e)));
}

/// `collect_words` returns what a kernel wrote into the mapped staging buffer (here a device
/// copy into its address), refuses sizes past the staging limit, and passes `fill`'s error on.
#[test]
fn collected_words_are_what_the_device_wrote() {
    use poly_cuda::GpuError;
    use poly_cuda::cudarc::driver::DevicePtr;
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(12);
    for len in [1usize, 4096, 1 << 16, (1 << 16) + 3, 1 << 18] {
        let values: Vec<u64> = (0..len).map(|_| rng.r#gen()).collect();
        let buffer = device.stream().clone_htod(&values).unwrap();
        let collected = device
            .collect_words(len, |address| {
                let (source, _sync) = buffer.device_ptr(device.stream());
                // SAFETY: `address` maps `len` words of host memory; `source` holds `len` words.
                unsafe {
                    poly_cuda::cudarc::driver::result::memcpy_dtod_async(
                        address,
                        source,
                        len * 8,
                        device.stream().cu_stream(),
                    )
                }
                .map_err(|e| GpuError::driver("cuMemcpyDtoDAsync", e))
            })
            .unwrap();
        assert_eq!(collected, values, "{len} words");
    }
    let too_many = poly_cuda::raw::STAGING_MAX_WORDS + 1;
    let refused = device.collect_words(too_many, |_| Ok::<(), GpuError>(()));
    assert!(matches!(refused, Err(GpuError::Unsupported { .. })));
    let failed = device.collect_words(16, |_| Err(GpuError::WrongContext));
    assert!(matches!(failed, Err(GpuError::WrongContext)));
}

/// The staged download equals the pageable one, for sizes around the staging buffer's
/// growth steps and past its limit, and reuses the buffer across calls of different sizes.
#[test]
fn staged_downloads_equal_pageable_ones() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(11);
    let limit = poly_cuda::raw::STAGING_MAX_WORDS;
    for len in [1usize, 1000, 1 << 16, (1 << 16) + 1, 3 << 18, limit, limit + 1, 7, 1 << 17] {
        let values: Vec<u64> = (0..len).map(|_| rng.r#gen()).collect();
        let buffer = device.stream().clone_htod(&values).unwrap();
        assert_eq!(device.download_words(&buffer).unwrap(), values, "staged, {len} words");
        assert_eq!(device.download_words_pageable(&buffer).unwrap(), values, "pageable, {len} words");
    }
}
