//! `DevicePoly::inverse_of_mul_add_lifted` (and `_to_host`) against exact arithmetic: the CPU
//! inverse of `c + a b`, each coefficient's centered CRT representative in `(-q/2, q/2]` built
//! with num-bigint, reduced modulo `t` and multiplied by the factor. Planted coefficients at
//! 0, +-1 and just inside +-q/2, N = 2^10..2^12, 1 to 128 limbs (one slot to eight per cluster
//! block), `t` from 2 to just below 2^60; typed errors for bad operands. On devices with
//! clusters (compute capability 9.0 and up) the fused path must exist for those shapes, and
//! must not where it does not apply (N > 2^12, DGT). Skips, saying why, when
//! there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Zero};
use poly::{Coeff, Eval, Poly, PolyError, RingContext, TransformKind};
use poly_cuda::cudarc::driver::sys::CUdevice_attribute;
use poly_cuda::raw::{CenteredLift, LiftFinish};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice, GpuError, GpuTuning};
use rand::Rng;
use rand::rngs::StdRng;

use common::{device, ring};

/// `(q/q_i)^{-1} mod q_i`, `(q/q_i) mod t` per limb, `q mod t` and `q` of `ring`.
fn lift_constants(ring: &RingContext, t: u64) -> (Vec<u64>, Vec<u64>, u64, BigUint) {
    let primes: Vec<u64> = ring.moduli().iter().map(|m| m.value()).collect();
    let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
    let mut inverses = Vec::new();
    let mut terms = Vec::new();
    for &p in &primes {
        let punctured = &q / p;
        let residue = (&punctured % p).iter_u64_digits().next().unwrap_or(0);
        // p is prime: residue^(p - 2) mod p.
        let inverse = BigUint::from(residue).modpow(&BigUint::from(p - 2), &BigUint::from(p));
        inverses.push(inverse.iter_u64_digits().next().unwrap_or(0));
        terms.push((&punctured % t).iter_u64_digits().next().unwrap_or(0));
    }
    let q_mod_t = (&q % t).iter_u64_digits().next().unwrap_or(0);
    (inverses, terms, q_mod_t, q)
}

/// The exact lift of every coefficient of `x` (coefficient form over `ring`): the CRT value
/// centered into `(-q/2, q/2]`, modulo `t`, times `factor` modulo `t`.
fn exact_lift(ring: &RingContext, x: &[u64], t: u64, factor: u64) -> Vec<u64> {
    let n = ring.degree();
    let primes: Vec<u64> = ring.moduli().iter().map(|m| m.value()).collect();
    let (inverses, _, _, q) = lift_constants(ring, t);
    let punctured: Vec<BigUint> = primes.iter().map(|&p| &q / p).collect();
    let half = &q >> 1u32;
    let q_signed = BigInt::from(q.clone());
    let t_signed = BigInt::from(t);
    (0..n)
        .map(|j| {
            let mut value = BigUint::zero();
            for (i, &p) in primes.iter().enumerate() {
                let y = u128::from(x[i * n + j]) * u128::from(inverses[i]) % u128::from(p);
                value += &punctured[i] * BigUint::from(y as u64);
            }
            value %= &q;
            let centered = if value > half { BigInt::from(value) - &q_signed } else { BigInt::from(value) };
            let mut reduced = centered % &t_signed;
            if reduced < BigInt::zero() {
                reduced += &t_signed;
            }
            let r = reduced.to_biguint().and_then(|r| r.iter_u64_digits().next()).unwrap_or(0);
            (u128::from(r) * u128::from(factor) % u128::from(t)) as u64
        })
        .collect()
}

/// The residues of `value` (below q) in every limb.
fn residues(ring: &RingContext, value: &BigUint) -> Vec<u64> {
    ring.moduli().iter().map(|m| (value % m.value()).iter_u64_digits().next().unwrap_or(0)).collect()
}

/// Random coefficients over `ring` with 0, 1, -1 and +-(q/2 - q/2^40) planted: the lift is
/// exact for `|x_c| < q/2 - L 2^-63 q` (kernels/include/centered_lift.cuh; nearer to `+-q/2`
/// only a phase whose noise budget is spent comes), so the planted extremes sit just inside.
fn planted_coefficients(ring: &RingContext, q: &BigUint, rng: &mut StdRng) -> Vec<u64> {
    let n = ring.degree();
    let mut x = common::random_values(ring, rng);
    let near_half = (q >> 1u32) - (q >> 40u32);
    let planted = [BigUint::zero(), BigUint::one(), q - 1u32, near_half.clone(), q - &near_half, near_half - 1u32];
    for (slot, value) in planted.iter().enumerate() {
        let j = (slot * 613 + 5) % n;
        for (i, r) in residues(ring, value).into_iter().enumerate() {
            x[i * n + j] = r;
        }
    }
    x
}

/// Whether `device` has thread block clusters (compute capability 9.0 and up).
fn has_clusters(device: &Arc<GpuDevice>) -> bool {
    device.cuda_context().attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR).unwrap() >= 9
}

/// `c + a b = forward(x)` for planted `x`: both lifted paths against the exact lift. Returns
/// whether the fused path ran.
fn check_lift(device: &Arc<GpuDevice>, ring: &Arc<RingContext>, t: u64, rng: &mut StdRng, label: &str) -> bool {
    let n = ring.degree();
    let gpu = GpuContext::new(device, ring).unwrap();
    let (inverses, terms, q_mod_t, q) = lift_constants(ring, t);
    let x = planted_coefficients(ring, &q, rng);
    let target = Poly::<Coeff>::from_limbs(ring, x.clone()).unwrap().forward().unwrap();
    let a = Poly::<Eval>::from_limbs(ring, common::random_values(ring, rng)).unwrap();
    let b = Poly::<Eval>::from_limbs(ring, common::random_values(ring, rng)).unwrap();
    let c = target.sub(&a.mul(&b).unwrap()).unwrap();
    let factor = if rng.gen_bool(0.5) { 1 } else { rng.gen_range(0..t) };

    let lift = CenteredLift::new(&gpu, &inverses, &terms, t, q_mod_t).unwrap();
    let (gc, ga, gb) = (
        DevicePoly::upload(&gpu, &c).unwrap(),
        DevicePoly::upload(&gpu, &a).unwrap(),
        DevicePoly::upload(&gpu, &b).unwrap(),
    );
    let Some(words) = gc.inverse_of_mul_add_lifted(&ga, &gb, &lift, factor).unwrap() else {
        assert!(
            gc.inverse_of_mul_add_lifted_to_host(&ga, &gb, &lift, factor).unwrap().is_none(),
            "{label}: paths agree"
        );
        return false;
    };
    let expected = exact_lift(ring, &x, t, factor);
    let on_device = device.download_words(&words).unwrap();
    if let Some(diff) = common::first_difference(&on_device, &expected, n) {
        panic!("{label}: lifted inverse (device) differs from the exact lift: {diff}");
    }
    let to_host = gc.inverse_of_mul_add_lifted_to_host(&ga, &gb, &lift, factor).unwrap().unwrap();
    if let Some(diff) = common::first_difference(&to_host, &expected, n) {
        panic!("{label}: lifted inverse (host) differs from the exact lift: {diff}");
    }
    // The inputs are untouched.
    assert_eq!(gc.to_vec().unwrap(), c.as_slice(), "{label}: c changed");
    assert_eq!(ga.to_vec().unwrap(), a.as_slice(), "{label}: a changed");
    assert_eq!(gb.to_vec().unwrap(), b.as_slice(), "{label}: b changed");
    true
}

#[test]
fn lifted_inverse_equals_exact_lift() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("lifted_inverse_equals_exact_lift", 0x5eed_1f70);
    let big_t = (1u64 << 60) - 93;
    // (log N, limbs, t): both strided pass sizes (2^5 points at 2^10, 2^6 at 2^11 and 2^12),
    // clusters of 8 to 16 blocks with one to eight limbs each (a short last slot; blocks with
    // none), t from 2 to below 2^60.
    let fused_shapes = [
        (10u32, 1usize, 2u64),
        (10, 17, 65_537),
        (10, 100, big_t),
        (11, 3, 3),
        (11, 16, 1 << 16),
        (12, 2, 65_537),
        (12, 9, 257),
        (12, 40, big_t),
        (12, 96, 1_000_003),
        (12, 128, 65_537),
    ];
    for (log_n, limbs, t) in fused_shapes {
        let bits = rng.gen_range(30..=61);
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        let label = format!("N = 2^{log_n}, {limbs} limbs of {bits} bits, t = {t}");
        let fused = check_lift(&device, &ring, t, &mut rng, &label);
        assert!(fused || !has_clusters(&device), "{label}: the fused path must exist on a device with clusters");
    }
    // No fused path, nothing queued: larger degrees, DGT rings. (Every limb count a ring may
    // have, up to poly::MAX_LIMBS = 128, fits the clusters' shared memory at 2^12: 8 slots of
    // 8 KiB per block; the last fused shape above is the largest.)
    let unfused = [(13u32, 4usize, TransformKind::Ntt), (16, 32, TransformKind::Ntt), (12, 3, TransformKind::Dgt)];
    for (log_n, limbs, transform) in unfused {
        let ring = ring(log_n, limbs, 40, transform);
        let label = format!("{} N = 2^{log_n}, {limbs} limbs", transform.name());
        assert!(!check_lift(&device, &ring, 65_537, &mut rng, &label), "{label}: not fused");
    }
}

/// Devices of this process tuned to smaller clusters (the portable 8 blocks, and 12) lift
/// exactly too; one tuned with the fused lift off (`lift_max_cluster` 0) has no fused path.
#[test]
fn tuned_lift_clusters_equal_exact_lift() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("tuned_lift_clusters_equal_exact_lift", 0x5eed_1f71);
    let shapes = [(10u32, 17usize, 65_537u64), (11, 3, 3), (12, 40, (1u64 << 60) - 93), (12, 128, 65_537)];
    for max_cluster in [8u32, 12, 0] {
        let mut tuning = GpuTuning::default();
        tuning.ntt.lift_max_cluster = max_cluster;
        let tuned = GpuDevice::with_tuning(0, tuning).unwrap();
        for (log_n, limbs, t) in shapes {
            let bits = rng.gen_range(30..=61);
            let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
            let label =
                format!("clusters of at most {max_cluster}: N = 2^{log_n}, {limbs} limbs of {bits} bits, t = {t}");
            let fused = check_lift(&tuned, &ring, t, &mut rng, &label);
            assert_eq!(fused, max_cluster > 0 && has_clusters(&device), "{label}");
        }
    }
}

#[test]
fn lifted_inverse_refuses_bad_operands() {
    let Some(device) = device() else { return };
    let ring = ring(12, 3, 50, TransformKind::Ntt);
    let gpu = GpuContext::new(&device, &ring).unwrap();
    let t = 65_537;
    let (inverses, terms, q_mod_t, _) = lift_constants(&ring, t);
    assert!(matches!(CenteredLift::new(&gpu, &inverses, &terms, 1, 0), Err(GpuError::Unsupported { .. })));
    assert!(matches!(CenteredLift::new(&gpu, &inverses, &terms, 1 << 60, 0), Err(GpuError::Unsupported { .. })));
    assert!(matches!(
        CenteredLift::new(&gpu, &inverses, &terms[1..], t, q_mod_t),
        Err(GpuError::LengthMismatch { .. })
    ));
    assert!(CenteredLift::new(&gpu, &inverses[1..], &terms, t, q_mod_t).is_err());
    let mut big_term = terms.clone();
    big_term[2] = t;
    assert!(matches!(
        CenteredLift::new(&gpu, &inverses, &big_term, t, q_mod_t),
        Err(GpuError::Poly(PolyError::CoefficientOutOfRange { limb: 2, .. }))
    ));
    assert!(matches!(
        CenteredLift::new(&gpu, &inverses, &terms, t, t),
        Err(GpuError::Poly(PolyError::CoefficientOutOfRange { .. }))
    ));
    let lift = CenteredLift::new(&gpu, &inverses, &terms, t, q_mod_t).unwrap();
    let mut rng = common::rng("lifted_inverse_refuses_bad_operands", 7);
    let mut operand = || DevicePoly::upload(&gpu, &common::random_poly::<Eval>(&ring, &mut rng)).unwrap();
    let (c, a, b) = (operand(), operand(), operand());
    assert!(matches!(
        c.inverse_of_mul_add_lifted(&a, &b, &lift, t),
        Err(GpuError::Poly(PolyError::CoefficientOutOfRange { .. }))
    ));
    let other = GpuContext::new(&device, &ring).unwrap();
    let foreign = DevicePoly::upload(&other, &common::random_poly::<Eval>(&ring, &mut rng)).unwrap();
    assert!(matches!(foreign.inverse_of_mul_add_lifted(&foreign, &foreign, &lift, 1), Err(GpuError::WrongContext)));
    let wider = ring_of(&ring, 4);
    let wide_gpu = GpuContext::new(&device, &wider).unwrap();
    let wide = DevicePoly::upload(&wide_gpu, &common::random_poly::<Eval>(&wider, &mut rng)).unwrap();
    assert!(c.inverse_of_mul_add_lifted(&wide, &b, &lift, 1).is_err(), "an operand of another ring is refused");
}

/// A ring of `ring`'s degree with `limbs` primes of 50 bits.
fn ring_of(ring: &RingContext, limbs: usize) -> Arc<RingContext> {
    common::ring(ring.degree().trailing_zeros(), limbs, 50, TransformKind::Ntt)
}

/// `centered_lift::finish`, the lift's last step (kernel `centered_lift_finish_test`), against
/// exact arithmetic: `(S - v q) f mod t` with `S = s2 2^128 + s1 2^64 + s0` and `v` the carries
/// plus the fraction's top bit, on random words (a high word `s2` that real phases seldom
/// reach included) for `t` from 2 to below 2^60, even and odd, and extreme constants.
#[test]
fn lift_finish_equals_exact_arithmetic() {
    let Some(device) = device() else { return };
    let stream = device.stream();
    let kernels = device.kernel_set::<poly_cuda::kernel::ModarithTestKernels>().unwrap();
    let mut rng = common::rng("lift_finish_equals_exact_arithmetic", 0xf1_4158);
    const COUNT: usize = 2048;
    let big_t = (1u64 << 60) - 93;
    for t in [2u64, 3, 1 << 16, 65_537, 1_000_003, 1 << 59, big_t, (1 << 60) - 1] {
        for (q_mod_t, factor) in [(0, 1), (t - 1, t - 1), (rng.gen_range(0..t), rng.gen_range(0..t))] {
            let finish = LiftFinish::new(t, q_mod_t, factor).unwrap();
            let mut words: Vec<u64> = Vec::with_capacity(5 * COUNT);
            for i in 0..COUNT {
                let mut case = [rng.r#gen(), rng.gen_range(0..1 << 8), rng.r#gen(), rng.r#gen(), rng.gen_range(0..4)];
                match i {
                    0 => case = [0; 5],
                    1 => case = [u64::MAX, (1 << 8) - 1, u64::MAX, u64::MAX, u64::MAX],
                    2 => case[4] = rng.r#gen(),
                    _ => {}
                }
                words.extend_from_slice(&case);
            }
            let input = stream.clone_htod(&words).unwrap();
            let mut out = stream.alloc_zeros::<u64>(COUNT).unwrap();
            let count = COUNT as i32;
            let mut launch = kernels.centered_lift_finish_test.builder(stream);
            launch.arg(&input).arg_pod(&finish).arg(&mut out).arg(&count);
            // SAFETY: matches `centered_lift_finish_test(const u64* words, Finish finish, u64* out,
            // int count)`: 5 COUNT words in, COUNT out, one thread per case.
            unsafe { launch.launch(poly_cuda::kernel::linear_config(COUNT, COUNT)) }.unwrap();
            let got = stream.clone_dtoh(&out).unwrap();
            stream.synchronize().unwrap();
            for (i, case) in words.chunks_exact(5).enumerate() {
                let sum = (BigUint::from(case[4]) << 128u32) + (BigUint::from(case[3]) << 64u32) + case[2];
                let v = BigUint::from(case[1]) + (case[0] >> 63);
                let r = (BigInt::from(sum) - BigInt::from(v) * q_mod_t) * factor;
                let expected = r.mod_floor(&BigInt::from(t));
                assert_eq!(
                    BigInt::from(got[i]),
                    expected,
                    "t = {t}, q mod t = {q_mod_t}, factor = {factor}, case {i}: {case:?}"
                );
            }
        }
    }
}
