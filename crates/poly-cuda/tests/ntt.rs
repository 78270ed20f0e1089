//! GPU NTT against the CPU reference (`poly`'s `Poly::forward` / `Poly::inverse`), bit-exact:
//! random cases (proptest, `common::gpu_cases`: degrees 2^10..2^17, 1..64 limbs, prime sizes,
//! data) and fixed edge cases (every degree, the largest shapes and primes); the same for the
//! fused entry points `DevicePoly::forward_to_new`, `DevicePoly::inverse_to_new`, `DevicePoly::inverse_of_product`,
//! `DevicePoly::inverse_of_mul_add` and `DevicePoly::inverse_of_mul_add_scaled` (and their DGT fallbacks). Skips,
//! saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::{Coeff, Eval, Poly, PolyError, RingContext, TransformKind};
use poly_cuda::raw::InverseScale;
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice, GpuError, GpuTuning, NttSplit};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::gpu_cases::{self, Regressions};
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

/// Committed failing cases of this file's random tests (see `common::gpu_cases`).
const REGRESSIONS: Regressions = Regressions { text: include_str!("ntt.proptest-regressions"), source: file!() };

/// A random ring shape: `(log N, limbs, prime bits, data seed)` with `N = 2^10..2^17`, at most
/// 2^21 values (so the CPU reference stays quick) and enough bits for `limbs` primes `1 mod 2N`.
fn random_shape() -> impl Strategy<Value = (u32, usize, u32, u64)> {
    (10u32..=17).prop_flat_map(|log_n| {
        let max_limbs = 64usize.min((1 << 21) >> log_n).max(1);
        (Just(log_n), 1..=max_limbs, log_n + 12..=61, any::<u64>())
    })
}

/// 16 random cases.
#[test]
fn random_parameters_match_cpu() {
    let Some(device) = device() else { return };
    gpu_cases::check(16, REGRESSIONS, random_shape(), |(log_n, limbs, bits, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        let values = common::random_values(&ring, &mut rng);
        check_round_trip(&device, &ring, values, &format!("N = 2^{log_n}, {limbs} limbs of {bits} bits"));
    });
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

/// Panics with the first difference unless `gpu == cpu`.
fn assert_words_equal(gpu: &[u64], cpu: &[u64], n: usize, what: &str) {
    if let Some(diff) = first_difference(gpu, cpu, n) {
        panic!("{what}: {diff}");
    }
}

/// The fused entry points against the CPU and the unfused GPU sequence, word for word:
/// `forward_to_new` equals `Poly::forward` and the in-place GPU forward and leaves its input as
/// it was, `inverse_to_new` equals `Poly::inverse` and leaves its input as it was;
/// `inverse_of_product` equals the CPU product then inverse and the GPU's `mul_assign`
/// then `inverse`, and leaves its factor as it was; `inverse_of_mul_add` equals the CPU
/// multiply-add then inverse and the GPU's copy, `mul_add_assign`, `inverse`, and leaves its
/// three inputs as they were; `inverse_of_mul_add_scaled` equals that times each limb's factor
/// (0..p, p - 1, 1), and refuses a scale of another context and bad factors. Inputs: `edge_values` (0, 1, p-1, p-2
/// planted among random values) for one operand, uniform values for the other.
fn check_fused(device: &Arc<GpuDevice>, ring: &Arc<RingContext>, rng: &mut StdRng, label: &str) {
    let n = ring.degree();
    let gpu = GpuContext::new(device, ring).unwrap();

    let values = common::edge_values(ring, rng);
    let coeff = Poly::<Coeff>::from_limbs(ring, values.clone()).unwrap();
    let input = DevicePoly::upload(&gpu, &coeff).unwrap();
    let fused = input.forward_to_new().unwrap().to_vec().unwrap();
    assert_words_equal(
        &fused,
        coeff.clone().forward().unwrap().as_slice(),
        n,
        &format!("{label}: forward_to_new vs CPU"),
    );
    let in_place = input.duplicate().unwrap().forward().unwrap().to_vec().unwrap();
    assert_words_equal(&fused, &in_place, n, &format!("{label}: forward_to_new vs in-place GPU forward"));
    assert_words_equal(&input.to_vec().unwrap(), &values, n, &format!("{label}: forward_to_new changed its input"));

    let eval = Poly::<Eval>::from_limbs(ring, values.clone()).unwrap();
    let input = DevicePoly::upload(&gpu, &eval).unwrap();
    let fused = input.inverse_to_new().unwrap().to_vec().unwrap();
    assert_words_equal(
        &fused,
        eval.clone().inverse().unwrap().as_slice(),
        n,
        &format!("{label}: inverse_to_new vs CPU"),
    );
    assert_words_equal(&input.to_vec().unwrap(), &values, n, &format!("{label}: inverse_to_new changed its input"));

    let a = Poly::<Eval>::from_limbs(ring, common::random_values(ring, rng)).unwrap();
    let b = Poly::<Eval>::from_limbs(ring, common::edge_values(ring, rng)).unwrap();
    let cpu = a.mul(&b).unwrap().inverse().unwrap();
    let factor = DevicePoly::upload(&gpu, &b).unwrap();
    let fused = DevicePoly::upload(&gpu, &a).unwrap().inverse_of_product(&factor).unwrap().to_vec().unwrap();
    assert_words_equal(&fused, cpu.as_slice(), n, &format!("{label}: inverse_of_product vs CPU product, inverse"));
    let mut unfused = DevicePoly::upload(&gpu, &a).unwrap();
    unfused.mul_assign(&factor).unwrap();
    let unfused = unfused.inverse().unwrap().to_vec().unwrap();
    assert_words_equal(&fused, &unfused, n, &format!("{label}: inverse_of_product vs GPU mul_assign, inverse"));
    assert_words_equal(&factor.to_vec().unwrap(), b.as_slice(), n, &format!("{label}: factor changed"));

    let c = Poly::<Eval>::from_limbs(ring, common::edge_values(ring, rng)).unwrap();
    let mut cpu = c.clone();
    cpu.mul_add_assign(&a, &b).unwrap();
    let cpu = cpu.inverse().unwrap();
    let (addend, source) = (DevicePoly::upload(&gpu, &c).unwrap(), DevicePoly::upload(&gpu, &a).unwrap());
    let fused = addend.inverse_of_mul_add(&source, &factor).unwrap().to_vec().unwrap();
    assert_words_equal(&fused, cpu.as_slice(), n, &format!("{label}: inverse_of_mul_add vs CPU mul_add, inverse"));
    let mut unfused = addend.duplicate().unwrap();
    unfused.mul_add_assign(&source, &factor).unwrap();
    let unfused = unfused.inverse().unwrap().to_vec().unwrap();
    assert_words_equal(&fused, &unfused, n, &format!("{label}: inverse_of_mul_add vs GPU mul_add_assign, inverse"));
    for (poly, host, what) in [(&addend, &c, "addend"), (&source, &a, "source"), (&factor, &b, "factor")] {
        assert_words_equal(&poly.to_vec().unwrap(), host.as_slice(), n, &format!("{label}: {what} changed"));
    }

    // Scaled: limb i times f_i (1, p - 1 and random factors), against the CPU's words times f_i.
    let factors: Vec<u64> = ring
        .moduli()
        .iter()
        .enumerate()
        .map(|(i, m)| match i % 3 {
            0 => rng.gen_range(0..m.value()),
            1 => m.value() - 1,
            _ => 1,
        })
        .collect();
    let scale = InverseScale::new(&gpu, &factors).unwrap();
    let mut scaled_cpu = cpu.as_slice().to_vec();
    for ((limb, f), m) in scaled_cpu.chunks_exact_mut(n).zip(&factors).zip(ring.moduli()) {
        for x in limb {
            *x = (u128::from(*x) * u128::from(*f) % u128::from(m.value())) as u64;
        }
    }
    let scaled = addend.inverse_of_mul_add_scaled(&source, &factor, &scale).unwrap().to_vec().unwrap();
    assert_words_equal(&scaled, &scaled_cpu, n, &format!("{label}: inverse_of_mul_add_scaled vs CPU, times f_i"));
    let other = GpuContext::new(device, ring).unwrap();
    assert!(
        matches!(
            DevicePoly::upload(&other, &c).unwrap().inverse_of_mul_add_scaled(
                &DevicePoly::upload(&other, &a).unwrap(),
                &DevicePoly::upload(&other, &b).unwrap(),
                &scale
            ),
            Err(GpuError::WrongContext)
        ),
        "{label}: a scale of another context is refused"
    );
    let mut too_big = factors.clone();
    too_big[0] = ring.moduli()[0].value();
    assert!(InverseScale::new(&gpu, &too_big).is_err(), "{label}: a factor not below its prime is refused");
    assert!(InverseScale::new(&gpu, &factors[1..]).is_err(), "{label}: a factor short is refused");
}

#[test]
fn fused_entry_points_match_cpu_at_every_degree() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("fused_entry_points_match_cpu_at_every_degree", 0x5eed_0101);
    for log_n in 10..=17u32 {
        let limbs = rng.gen_range(1..=6);
        let bits = rng.gen_range(30..=61);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        check_fused(&device, &ring, &mut rng, &format!("N = 2^{log_n}, {limbs} limbs of {bits} bits"));
    }
}

/// 16 random cases, over every transform (DGT and HDGT rings take the unfused fallbacks).
#[test]
fn fused_entry_points_random_parameters_match_cpu() {
    let Some(device) = device() else { return };
    let transform = prop_oneof![
        2 => Just(TransformKind::Ntt),
        1 => Just(TransformKind::Dgt),
        1 => Just(TransformKind::HierarchicalDgt)
    ];
    gpu_cases::check(16, REGRESSIONS, (random_shape(), transform), |((log_n, limbs, bits, seed), transform)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let ring = ring(log_n, limbs, bits, transform);
        let label = format!("{} N = 2^{log_n}, {limbs} limbs of {bits} bits", transform.name());
        check_fused(&device, &ring, &mut rng, &label);
    });
}

#[test]
fn fused_entry_points_on_single_block_and_two_pass_launches() {
    // With the default knobs (src/ntt/schedule.rs), N <= 2^11 launches of at most 2^15 points run one
    // single-block kernel per limb and larger ones two passes (radix-4 contiguous pass up to
    // 2^15 points, radix 8 above; medium launches, up to 3 x 2^17 points for the strided pass
    // and 2^18 for the contiguous one, take radix 4 with narrower blocks): each shape below
    // sits on one side of those thresholds.
    let Some(device) = device() else { return };
    let mut rng = common::rng("fused_entry_points_on_single_block_and_two_pass_launches", 0x5eed_0103);
    let shapes =
        [(10u32, 1usize), (10, 32), (10, 33), (10, 64), (11, 16), (11, 17), (12, 8), (12, 9), (13, 4), (13, 5)]
            .into_iter()
            .chain([(14, 8), (14, 16), (14, 17), (14, 24), (14, 25), (15, 12), (16, 4)]);
    for (log_n, limbs) in shapes {
        let bits = rng.gen_range(40..=61);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        check_fused(&device, &ring, &mut rng, &format!("N = 2^{log_n}, {limbs} limbs of {bits} bits"));
    }
}

/// The NTT choices a device may be tuned to, besides the defaults: every pass in radix 8 (no
/// radix-4, medium or single-block launch shapes) with other splits; radix 4 and the medium
/// shapes at every size where they exist; single-block transforms up to `N = 2^12`.
fn alternative_ntt_tunings() -> Vec<(&'static str, GpuTuning)> {
    let mut radix_8 = GpuTuning::default();
    radix_8.ntt.strided_log_radix = Some(3);
    radix_8.ntt.contiguous_log_radix = Some(3);
    radix_8.ntt.small_launch_points = 0;
    radix_8.ntt.single_launch_points = 0;
    radix_8.ntt.medium_launch_points = 0;
    radix_8.ntt.medium_contiguous_launch_points = 0;
    radix_8.ntt.mul_add_medium_launch_points = 0;
    radix_8.ntt.short_strided_launch_points = 0;
    radix_8.ntt.splits = vec![
        NttSplit { log_n: 14, strided: 6, contiguous: 8 },
        NttSplit { log_n: 15, strided: 7, contiguous: 8 },
        NttSplit { log_n: 16, strided: 8, contiguous: 8 },
    ];
    let mut narrow = GpuTuning::default();
    narrow.ntt.small_launch_points = 1 << 20;
    narrow.ntt.medium_launch_points = usize::MAX;
    narrow.ntt.medium_contiguous_launch_points = usize::MAX;
    narrow.ntt.short_strided_launch_points = usize::MAX;
    let mut single = GpuTuning::default();
    single.ntt.single_pass_max_log_n = Some(12);
    vec![("radix 8, other splits", radix_8), ("radix 4 and medium shapes", narrow), ("single-block passes", single)]
}

/// Devices of this process tuned to each of [`alternative_ntt_tunings`] give the CPU's values,
/// word for word, for the transforms and the fused entry points, at every degree and at launch
/// sizes on both sides of the default thresholds (the default device runs the same shapes in
/// the tests above).
#[test]
fn tuned_transforms_match_cpu() {
    let Some(_default) = device() else { return };
    let mut rng = common::rng("tuned_transforms_match_cpu", 0x5eed_0107);
    for (name, tuning) in alternative_ntt_tunings() {
        let tuned = GpuDevice::with_tuning(0, tuning).unwrap();
        let shapes =
            (10..=17u32).map(|log_n| (log_n, 3usize)).chain([(11, 17), (12, 9), (14, 8), (14, 25), (15, 16), (16, 4)]);
        for (log_n, limbs) in shapes {
            let bits = rng.gen_range(40..=61);
            let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
            let label = format!("{name}: N = 2^{log_n}, {limbs} limbs of {bits} bits");
            let values = common::edge_values(&ring, &mut rng);
            check_round_trip(&tuned, &ring, values, &label);
            check_fused(&tuned, &ring, &mut rng, &label);
        }
    }
}

/// The FP64 butterflies (`NttTuning::fp64_butterflies`, taken by rings whose primes are below
/// `2^FP64_NTT_MAX_PRIME_BITS`) give the CPU's words, and so the integer pipe's: at every degree,
/// at launch sizes on both sides of the shape thresholds, with primes of 20 to 43 bits (the
/// largest just below the bound, where the values in the butterflies come nearest to 2^47) and
/// all-(p - 1) or random values; the integer pipe on the same rings for comparison.
#[test]
fn fp64_butterflies_match_cpu() {
    let Some(default) = device() else { return };
    let mut integer = GpuTuning::default();
    integer.ntt.fp64_butterflies = false;
    let integer = GpuDevice::with_tuning(0, integer).unwrap();
    assert!(GpuTuning::default().ntt.fp64_butterflies);
    let mut rng = common::rng("fp64_butterflies_match_cpu", 0x5eed_0f64);
    let shapes = (10..=17u32).map(|log_n| (log_n, 3usize)).chain([
        (11, 17),
        (12, 9),
        (14, 8),
        (14, 25),
        (15, 16),
        (16, 4),
        (16, 32),
        (17, 12),
    ]);
    for (log_n, limbs) in shapes {
        for bits in [rng.gen_range(log_n + 10..=42), poly_cuda::FP64_NTT_MAX_PRIME_BITS] {
            let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
            assert!(ring.moduli().iter().all(|m| m.value() < 1 << poly_cuda::FP64_NTT_MAX_PRIME_BITS));
            let n = ring.degree();
            let top: Vec<u64> = ring.moduli().iter().flat_map(|m| std::iter::repeat_n(m.value() - 1, n)).collect();
            for (pipe, device) in [("FP64", &default), ("integer", &integer)] {
                let label = format!("{pipe}: N = 2^{log_n}, {limbs} limbs of {bits} bits");
                check_round_trip(device, &ring, common::edge_values(&ring, &mut rng), &label);
                check_round_trip(device, &ring, top.clone(), &format!("{label}, all p - 1"));
                check_fused(device, &ring, &mut rng, &label);
            }
        }
    }
}

#[test]
fn fused_entry_points_with_largest_primes_and_values() {
    // Primes just below 2^62 and all-(p-1) operands: the largest lazy values in the butterflies
    // and the largest Barrett products.
    let Some(device) = device() else { return };
    for log_n in [10u32, 12, 16, 17] {
        let ring = ring(log_n, 3, 62, TransformKind::Ntt);
        let n = ring.degree();
        let gpu = GpuContext::new(&device, &ring).unwrap();
        let mut values = Vec::with_capacity(ring.poly_len());
        for m in ring.moduli() {
            values.extend(std::iter::repeat_n(m.value() - 1, n));
        }
        let coeff = Poly::<Coeff>::from_limbs(&ring, values.clone()).unwrap();
        let fused = DevicePoly::upload(&gpu, &coeff).unwrap().forward_to_new().unwrap().to_vec().unwrap();
        assert_words_equal(&fused, coeff.forward().unwrap().as_slice(), n, &format!("N = 2^{log_n}: forward_to_new"));
        let eval = Poly::<Eval>::from_limbs(&ring, values).unwrap();
        let cpu = eval.mul(&eval).unwrap().inverse().unwrap();
        let factor = DevicePoly::upload(&gpu, &eval).unwrap();
        let gpu_product = DevicePoly::upload(&gpu, &eval).unwrap().inverse_of_product(&factor).unwrap();
        assert_words_equal(&gpu_product.to_vec().unwrap(), cpu.as_slice(), n, &format!("N = 2^{log_n}: product"));
        // (p-1) + (p-1)^2 = p (p-1) = 0: the largest sum before its reduction.
        let mut cpu = eval.clone();
        cpu.mul_add_assign(&eval, &eval).unwrap();
        let cpu = cpu.inverse().unwrap();
        let gpu_mul_add = factor.inverse_of_mul_add(&factor, &factor).unwrap();
        assert_words_equal(&gpu_mul_add.to_vec().unwrap(), cpu.as_slice(), n, &format!("N = 2^{log_n}: mul-add"));
    }
}

#[test]
fn fused_entry_points_fall_back_in_dgt_contexts() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("fused_entry_points_fall_back_in_dgt_contexts", 0x5eed_0104);
    for transform in [TransformKind::Dgt, TransformKind::HierarchicalDgt] {
        for log_n in [11u32, 13] {
            let limbs = rng.gen_range(1..=4);
            let ring = ring(log_n, limbs, 55, transform);
            check_fused(&device, &ring, &mut rng, &format!("{} N = 2^{log_n}, {limbs} limbs", transform.name()));
        }
    }
}

#[test]
fn fused_decryption_steps_give_negacyclic_products() {
    // c_1 s as decryption computes it: c_1 forward out of place (c_1 kept), then the inverse of
    // the product with s in evaluation form.
    let Some(device) = device() else { return };
    let mut rng = common::rng("fused_decryption_steps_give_negacyclic_products", 0x5eed_0105);
    for (log_n, limbs) in [(10u32, 2usize), (10, 40), (12, 3)] {
        let ring = ring(log_n, limbs, 50, TransformKind::Ntt);
        let gpu = GpuContext::new(&device, &ring).unwrap();
        let c1: Poly<Coeff> = common::random_poly(&ring, &mut rng);
        let s: Poly<Coeff> = common::random_poly(&ring, &mut rng);
        let c1_gpu = DevicePoly::upload(&gpu, &c1).unwrap();
        let s_eval = DevicePoly::upload(&gpu, &s).unwrap().forward().unwrap();
        let product = c1_gpu.forward_to_new().unwrap().inverse_of_product(&s_eval).unwrap().download().unwrap();
        assert_eq!(product, poly::reference::negacyclic_product(&c1, &s).unwrap(), "N = 2^{log_n}, {limbs} limbs");
        assert_eq!(c1_gpu.download().unwrap(), c1, "N = 2^{log_n}: c_1 changed");
    }
}

#[test]
fn inverse_of_product_rejects_foreign_factors() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("inverse_of_product_rejects_foreign_factors", 0x5eed_0106);
    let ring_a = ring(11, 3, 50, TransformKind::Ntt);
    let gpu = GpuContext::new(&device, &ring_a).unwrap();
    let a: Poly<Eval> = common::random_poly(&ring_a, &mut rng);

    // Incompatible rings on the same device: other limbs, other transform.
    for other_ring in [ring(11, 2, 50, TransformKind::Ntt), ring(11, 3, 50, TransformKind::Dgt)] {
        let other_gpu = GpuContext::new(&device, &other_ring).unwrap();
        let b: Poly<Eval> = common::random_poly(&other_ring, &mut rng);
        let factor = DevicePoly::upload(&other_gpu, &b).unwrap();
        let error = DevicePoly::upload(&gpu, &a).unwrap().inverse_of_product(&factor).unwrap_err();
        assert_eq!(error, GpuError::Poly(PolyError::ContextMismatch), "{}", other_ring.transform().name());
        assert_eq!(factor.download().unwrap(), b, "factor changed on error");
    }

    // The same ring on another device handle (its own CUDA context object).
    let other_device = GpuDevice::new(0).unwrap();
    let other_gpu = GpuContext::new(&other_device, &ring_a).unwrap();
    let b: Poly<Eval> = common::random_poly(&ring_a, &mut rng);
    let factor = DevicePoly::upload(&other_gpu, &b).unwrap();
    let error = DevicePoly::upload(&gpu, &a).unwrap().inverse_of_product(&factor).unwrap_err();
    assert_eq!(error, GpuError::WrongContext);
    assert_eq!(factor.download().unwrap(), b, "factor changed on error");

    // A compatible ring of another context on the same device is accepted.
    let twin = GpuContext::new(&device, &ring(11, 3, 50, TransformKind::Ntt)).unwrap();
    let factor = DevicePoly::upload(&twin, &b).unwrap();
    let product = DevicePoly::upload(&gpu, &a).unwrap().inverse_of_product(&factor).unwrap().download().unwrap();
    assert_eq!(product.as_slice(), a.mul(&b).unwrap().inverse().unwrap().as_slice());
}

/// `DevicePolyBatch::forward_extending_limbs` (the ModUp of one-prime digits loaded by the
/// forward transform's first pass) against the CPU: each digit's limb extended to `q u P` by
/// plain integer arithmetic (centered or not), then `Poly::forward`. Shapes that take the
/// single-block kernels (N = 2^10, 2^11) and the strided ones of every radix; special primes
/// larger and smaller than `q`'s; values at `p_s / 2`, `p_s / 2 + 1`, 0 and `p_s - 1`.
#[test]
fn forward_of_one_prime_digit_extension_matches_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(21);
    let shapes = [
        (10, 3, 50, 1, 61),
        (11, 4, 40, 1, 60),
        (12, 3, 60, 1, 40),
        (13, 5, 55, 2, 58),
        (14, 8, 59, 1, 61),
        (16, 6, 45, 1, 60),
    ];
    for (log_n, q_count, q_bits, p_count, p_bits) in shapes {
        let n = 1usize << log_n;
        let q = modarith::generate_ntt_primes(q_bits, 2 * n as u64, q_count, &[]).unwrap();
        let p = modarith::generate_ntt_primes(p_bits, 2 * n as u64, p_count, &q).unwrap();
        let all = [q.clone(), p].concat();
        let ring_q = RingContext::new(n, &q, TransformKind::Ntt).unwrap();
        let ring_qp = RingContext::new(n, &all, TransformKind::Ntt).unwrap();
        let (gpu_q, gpu_qp) = (GpuContext::new(&device, &ring_q).unwrap(), GpuContext::new(&device, &ring_qp).unwrap());
        let mut values = common::random_values(&ring_q, &mut rng);
        for (s, &p_s) in q.iter().enumerate() {
            values[s * n..s * n + 4].copy_from_slice(&[p_s / 2, p_s / 2 + 1, 0, p_s - 1]);
        }
        let source = DevicePoly::upload(&gpu_q, &Poly::<Coeff>::from_limbs(&ring_q, values.clone()).unwrap()).unwrap();
        for centered in [false, true] {
            for (first, count) in [(0, q_count), (1, q_count - 1), (q_count - 1, 1)] {
                if count == 0 {
                    continue;
                }
                let label = format!(
                    "N = 2^{log_n}, q {q_count} x {q_bits} bits, digits {first}..+{count}, centered {centered}"
                );
                let got = DevicePolyBatch::<Eval>::forward_extending_limbs(&gpu_qp, &source, first, count, centered)
                    .unwrap()
                    .download()
                    .unwrap();
                assert_eq!(got.len(), count, "{label}");
                for (t, got) in got.iter().enumerate() {
                    let s = first + t;
                    let p_s = q[s];
                    let mut extended = Vec::with_capacity(all.len() * n);
                    for (i, &p_i) in all.iter().enumerate() {
                        extended.extend(values[s * n..(s + 1) * n].iter().map(|&x| {
                            if i == s {
                                return x;
                            }
                            let negative = centered && x > p_s / 2;
                            let r = (if negative { p_s - x } else { x }) % p_i;
                            if negative && r != 0 { p_i - r } else { r }
                        }));
                    }
                    let want = Poly::<Coeff>::from_limbs(&ring_qp, extended).unwrap().forward().unwrap();
                    if let Some(diff) = first_difference(got.as_slice(), want.as_slice(), n) {
                        panic!("{label}: digit {t}: {diff}");
                    }
                }
            }
        }
        // Bad requests: no digit, digits past q's limbs, a source ring that is not a prefix.
        let err = |r: Result<DevicePolyBatch<Eval>, GpuError>| matches!(r, Err(GpuError::Poly(_)));
        assert!(err(DevicePolyBatch::<Eval>::forward_extending_limbs(&gpu_qp, &source, 0, 0, true)));
        assert!(err(DevicePolyBatch::<Eval>::forward_extending_limbs(&gpu_qp, &source, 1, q_count, true)));
        let other = DevicePoly::upload(
            &gpu_qp,
            &Poly::<Coeff>::from_limbs(&ring_qp, common::random_values(&ring_qp, &mut rng)).unwrap(),
        )
        .unwrap();
        assert!(err(DevicePolyBatch::<Eval>::forward_extending_limbs(&gpu_q, &other, 0, 1, true)));
    }
}
