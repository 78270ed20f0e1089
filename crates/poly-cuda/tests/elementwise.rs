//! GPU element-wise operations, automorphisms and the `Backend` implementation against the
//! CPU reference, bit-exact, on fixed shapes and random ones (proptest, `common::gpu_cases`);
//! errors for bad input. Skips, saying why, without a CUDA device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::{Backend, Coeff, CpuBackend, Eval, Poly, PolyError, RingContext, TransformKind};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuBackend, GpuContext, GpuDevice, GpuError};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::gpu_cases::{self, Regressions};
use common::{device, ring};

/// Every element-wise operation on one ring, GPU against CPU.
fn check_elementwise(device: &Arc<GpuDevice>, ring: &Arc<RingContext>, rng: &mut StdRng) {
    let label = format!("N = {}, {} limbs, {}", ring.degree(), ring.num_limbs(), ring.transform().name());
    let gpu = GpuContext::new(device, ring).unwrap();
    let a = Poly::<Eval>::from_limbs(ring, common::edge_values(ring, rng)).unwrap();
    let b = Poly::<Eval>::from_limbs(ring, common::edge_values(ring, rng)).unwrap();
    let c: Poly<Eval> = common::random_poly(ring, rng);
    let (da, db, dc) = (
        DevicePoly::upload(&gpu, &a).unwrap(),
        DevicePoly::upload(&gpu, &b).unwrap(),
        DevicePoly::upload(&gpu, &c).unwrap(),
    );

    // The tensor product of (a, b) with (c, a), and of (a, b) with itself (a square: aliased
    // inputs), against the CPU's products and multiply-add.
    for (d0, d1, dd0, dd1) in [(&c, &a, &dc, &da), (&a, &b, &da, &db)] {
        let mut middle = a.mul(d1).unwrap();
        middle.mul_add_assign(&b, d0).unwrap();
        let want = [a.mul(d0).unwrap(), middle, b.mul(d1).unwrap()];
        let got = da.tensor(&db, dd0, dd1).unwrap();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.download().unwrap(), *w, "{label}: tensor output {k}");
        }
    }
    assert_eq!(da.download().unwrap(), a, "{label}: tensor changed an input");
    // The same two products from batches: [a, b, c, a] (two pairs) and [a, b] (a square).
    for (batch, (d0, d1)) in
        [(vec![a.clone(), b.clone(), c.clone(), a.clone()], (&c, &a)), (vec![a.clone(), b.clone()], (&a, &b))]
    {
        let mut middle = a.mul(d1).unwrap();
        middle.mul_add_assign(&b, d0).unwrap();
        let want = vec![a.mul(d0).unwrap(), middle, b.mul(d1).unwrap()];
        let uploaded = DevicePolyBatch::upload(&gpu, &batch).unwrap();
        if ring.transform() != TransformKind::Ntt {
            assert!(matches!(uploaded.tensor(), Err(GpuError::Unsupported { .. })), "{label}: DGT batch tensor");
            continue;
        }
        let got = uploaded.tensor().unwrap();
        assert_eq!(got.download().unwrap(), want, "{label}: batch tensor of {}", batch.len());
        assert_eq!(uploaded.download().unwrap(), batch, "{label}: batch tensor changed its input");
    }
    let three = DevicePolyBatch::upload(&gpu, &[a.clone(), b.clone(), c.clone()]).unwrap();
    assert!(matches!(three.tensor(), Err(GpuError::Poly(PolyError::InvalidParameter { .. }))), "{label}: batch of 3");

    let mut sum = da.duplicate().unwrap();
    sum.add_assign(&db).unwrap();
    assert_eq!(sum.download().unwrap(), a.add(&b).unwrap(), "{label}: add");

    let mut diff = da.duplicate().unwrap();
    diff.sub_assign(&db).unwrap();
    assert_eq!(diff.download().unwrap(), a.sub(&b).unwrap(), "{label}: sub");

    // Several polynomials per launch (1, 3 and 6: more than one launch's four).
    for count in [1usize, 3, 6] {
        let left: Vec<Poly<Eval>> = (0..count).map(|_| common::random_poly(ring, rng)).collect();
        let right: Vec<Poly<Eval>> = (0..count).map(|_| common::random_poly(ring, rng)).collect();
        let dl: Vec<DevicePoly<Eval>> = left.iter().map(|p| DevicePoly::upload(&gpu, p).unwrap()).collect();
        let dr: Vec<DevicePoly<Eval>> = right.iter().map(|p| DevicePoly::upload(&gpu, p).unwrap()).collect();
        for subtract in [false, true] {
            let got = DevicePoly::add_sub_many(&dl, &dr, subtract).unwrap();
            assert_eq!(got.len(), count);
            for (k, g) in got.iter().enumerate() {
                let want = if subtract { left[k].sub(&right[k]) } else { left[k].add(&right[k]) }.unwrap();
                assert_eq!(g.download().unwrap(), want, "{label}: add_sub_many({subtract}) {k} of {count}");
            }
        }
        let mut acc: Vec<DevicePoly<Eval>> = dl.iter().map(|p| p.duplicate().unwrap()).collect();
        DevicePoly::add_assign_many(&mut acc, &dr).unwrap();
        for (k, g) in acc.iter().enumerate() {
            assert_eq!(
                g.download().unwrap(),
                left[k].add(&right[k]).unwrap(),
                "{label}: add_assign_many {k} of {count}"
            );
        }
        // Inputs untouched.
        for (k, d) in dr.iter().enumerate() {
            assert_eq!(d.download().unwrap(), right[k], "{label}: add_assign_many changed b[{k}]");
        }
    }

    let mut neg = da.duplicate().unwrap();
    neg.neg_assign().unwrap();
    assert_eq!(neg.download().unwrap(), a.neg(), "{label}: neg");

    let mut prod = da.duplicate().unwrap();
    prod.mul_assign(&db).unwrap();
    assert_eq!(prod.download().unwrap(), a.mul(&b).unwrap(), "{label}: mul");

    let mut acc = dc.duplicate().unwrap();
    acc.mul_add_assign(&da, &db).unwrap();
    let mut expected = c.clone();
    expected.mul_add_assign(&a, &b).unwrap();
    assert_eq!(acc.download().unwrap(), expected, "{label}: mul_add");

    for scalar in [0u64, 1, rng.r#gen(), u64::MAX] {
        let mut scaled = da.duplicate().unwrap();
        scaled.scalar_mul_assign(scalar).unwrap();
        assert_eq!(scaled.download().unwrap(), a.scalar_mul(scalar), "{label}: scalar {scalar}");
    }
    let scalars: Vec<u64> = ring.moduli().iter().map(|m| rng.gen_range(0..m.value())).collect();
    let mut scaled = da.duplicate().unwrap();
    scaled.scalar_mul_per_limb_assign(&scalars).unwrap();
    assert_eq!(scaled.download().unwrap(), a.scalar_mul_per_limb(&scalars).unwrap(), "{label}: per-limb scalars");

    // The inputs were not touched by the in-place operations on their duplicates.
    assert_eq!(da.download().unwrap(), a, "{label}: input changed");

    let coeff = Poly::<Coeff>::from_limbs(ring, a.as_slice().to_vec()).unwrap();
    let dcoeff = DevicePoly::upload(&gpu, &coeff).unwrap();
    let two_n = 2 * ring.degree() as u64;
    for g in [1u64, 3, 5, two_n - 1, two_n + 3, rng.gen_range(0..u64::MAX / 2) * 2 + 1] {
        assert_eq!(
            dcoeff.automorphism(g).unwrap().download().unwrap(),
            coeff.automorphism(g).unwrap(),
            "{label}: g = {g}"
        );
        // On evaluations (a permutation for the NTT; the backend's transform path otherwise).
        let evaluations = coeff.clone().forward().unwrap();
        let devaluations = DevicePoly::upload(&gpu, &evaluations).unwrap();
        let expected = CpuBackend.automorphism_eval(&evaluations, g).unwrap();
        let got = GpuBackend::from_device(Arc::clone(device)).automorphism_eval(&devaluations, g).unwrap();
        assert_eq!(got.download().unwrap(), expected, "{label}: automorphism on evaluations, g = {g}");
        if ring.transform() == TransformKind::Ntt {
            assert_eq!(devaluations.automorphism_ntt(g).unwrap().download().unwrap(), expected, "{label}: g = {g}");
        }
    }
}

#[test]
fn elementwise_operations_match_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("elementwise_operations_match_cpu", 0xe1e0_0001);
    for (log_n, limbs, bits) in [(10u32, 1usize, 30u32), (12, 7, 62), (13, 3, 45), (16, 2, 61), (17, 64, 60)] {
        let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
        check_elementwise(&device, &ring, &mut rng);
    }
}

#[test]
fn gaussian_products_match_cpu_in_dgt_contexts() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("gaussian_products_match_cpu_in_dgt_contexts", 0xe1e0_0002);
    for transform in [TransformKind::Dgt, TransformKind::HierarchicalDgt] {
        let ring = ring(11, 3, 55, transform);
        check_elementwise(&device, &ring, &mut rng);
    }
}

/// Committed failing cases of this file's random tests (see `common::gpu_cases`).
const REGRESSIONS: Regressions =
    Regressions { text: include_str!("elementwise.proptest-regressions"), source: file!() };

/// 12 random cases: `N = 2^10..2^17`, at most 2^20 values, prime sizes up to 62 bits, every
/// transform (Gaussian products in DGT rings).
#[test]
fn random_shapes_match_cpu() {
    let Some(device) = device() else { return };
    let strategy = (10u32..=17).prop_flat_map(|log_n| {
        let max_limbs = 64usize.min((1 << 20) >> log_n).max(1);
        let transform = prop_oneof![
            2 => Just(TransformKind::Ntt),
            1 => Just(TransformKind::Dgt),
            1 => Just(TransformKind::HierarchicalDgt)
        ];
        (Just(log_n), 1..=max_limbs, log_n + 12..=62, transform, any::<u64>())
    });
    gpu_cases::check(12, REGRESSIONS, strategy, |(log_n, limbs, bits, transform, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        check_elementwise(&device, &ring(log_n, limbs, bits, transform), &mut rng);
    });
}

/// A small computation written once against the `Backend` trait.
fn pipeline<B: Backend>(backend: &B, ring: &Arc<RingContext>, a: &Poly<Coeff>, b: &Poly<Coeff>) -> Vec<Poly<Coeff>> {
    let ctx = backend.context(ring).unwrap();
    let da = backend.upload(&ctx, a).unwrap();
    let db = backend.upload(&ctx, b).unwrap();
    let rotated = backend.automorphism(&da, 5).unwrap();
    let ea = backend.forward(backend.duplicate(&da).unwrap()).unwrap();
    let eb = backend.forward(db).unwrap();
    let mut acc = backend.mul(&ea, &eb).unwrap();
    backend.mul_add_assign(&mut acc, &ea, &ea).unwrap();
    backend.scalar_mul_assign(&mut acc, 12345).unwrap();
    let sum = backend.add(&acc, &ea).unwrap();
    let diff = backend.sub(&sum, &eb).unwrap();
    let negated = backend.neg(&diff).unwrap();
    let out = backend.inverse(negated).unwrap();
    let seed = poly::Seed::from([7u8; 32]);
    let sampled = backend.sample_uniform::<Coeff>(&ctx, &seed, 3).unwrap();
    let ternary = backend.sample_ternary(&ctx, &seed, 4).unwrap();
    let cbd = backend.sample_cbd(&ctx, &seed, 5).unwrap();
    let zero = backend.zero::<Coeff>(&ctx).unwrap();
    backend.synchronize().unwrap();
    [out, rotated, sampled, ternary, cbd, zero].iter().map(|p| backend.download(p).unwrap()).collect()
}

#[test]
fn backend_matches_cpu_backend() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("backend_matches_cpu_backend", 0xe1e0_0004);
    let backend = GpuBackend::from_device(device);
    assert_eq!(backend.name(), "CUDA");
    for log_n in [10u32, 14] {
        let ring = ring(log_n, 4, 50, TransformKind::Ntt);
        let a: Poly<Coeff> = common::random_poly(&ring, &mut rng);
        let b: Poly<Coeff> = common::random_poly(&ring, &mut rng);
        assert_eq!(pipeline(&backend, &ring, &a, &b), pipeline(&CpuBackend, &ring, &a, &b), "N = 2^{log_n}");
    }
}

#[test]
fn bad_input_is_rejected_and_left_untouched() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("bad_input_is_rejected_and_left_untouched", 0xe1e0_0005);
    let ring_a = ring(10, 2, 40, TransformKind::Ntt);
    let ring_b = ring(10, 2, 41, TransformKind::Ntt);
    let gpu_a = GpuContext::new(&device, &ring_a).unwrap();
    let gpu_b = GpuContext::new(&device, &ring_b).unwrap();
    let n = ring_a.degree();

    // Wrong length and non-canonical values, with the offending values named.
    let short = vec![0u64; ring_a.poly_len() - 1];
    assert_eq!(
        DevicePoly::<Coeff>::from_limbs(&gpu_a, &short).unwrap_err(),
        GpuError::Poly(PolyError::LengthMismatch { expected: 2 * n, actual: 2 * n - 1 })
    );
    let mut values = common::random_values(&ring_a, &mut rng);
    let p1 = ring_a.moduli()[1].value();
    values[n + 17] = p1;
    assert_eq!(
        DevicePoly::<Coeff>::from_limbs(&gpu_a, &values).unwrap_err(),
        GpuError::Poly(PolyError::CoefficientOutOfRange { limb: 1, index: 17, value: p1, modulus: p1 })
    );

    // A host polynomial of another ring cannot be uploaded into this context.
    let foreign: Poly<Coeff> = common::random_poly(&ring_b, &mut rng);
    assert_eq!(DevicePoly::upload(&gpu_a, &foreign).unwrap_err(), GpuError::Poly(PolyError::ContextMismatch));

    // Operands of different rings: error, and the left operand keeps its values.
    let a: Poly<Eval> = common::random_poly(&ring_a, &mut rng);
    let mut da = DevicePoly::upload(&gpu_a, &a).unwrap();
    let db = DevicePoly::upload(&gpu_b, &common::random_poly::<Eval>(&ring_b, &mut rng)).unwrap();
    assert_eq!(da.add_assign(&db).unwrap_err(), GpuError::Poly(PolyError::ContextMismatch));
    assert_eq!(da.mul_assign(&db).unwrap_err(), GpuError::Poly(PolyError::ContextMismatch));
    let dc = DevicePoly::upload(&gpu_a, &a).unwrap();
    assert_eq!(da.mul_add_assign(&dc, &db).unwrap_err(), GpuError::Poly(PolyError::ContextMismatch));
    assert_eq!(da.download().unwrap(), a);

    // Scalars: one per limb, each canonical.
    assert_eq!(
        da.scalar_mul_per_limb_assign(&[1]).unwrap_err(),
        GpuError::Poly(PolyError::LengthMismatch { expected: 2, actual: 1 })
    );
    let p0 = ring_a.moduli()[0].value();
    assert_eq!(
        da.scalar_mul_per_limb_assign(&[p0, 1]).unwrap_err(),
        GpuError::Poly(PolyError::CoefficientOutOfRange { limb: 0, index: 0, value: p0, modulus: p0 })
    );
    assert_eq!(da.download().unwrap(), a);

    // Even automorphism exponents.
    let coeff = DevicePoly::<Coeff>::from_limbs(&gpu_a, a.as_slice()).unwrap();
    assert_eq!(
        coeff.automorphism(4).unwrap_err(),
        GpuError::Poly(PolyError::InvalidAutomorphism { exponent: 4, degree: n })
    );

    // A context of another backend's device is refused by the backend.
    let backend = GpuBackend::from_device(Arc::clone(&device));
    let other = GpuBackend::new(0).unwrap();
    let ctx = other.context(&ring_a).unwrap();
    assert_eq!(backend.zero::<Coeff>(&ctx).unwrap_err(), GpuError::WrongContext);
}
