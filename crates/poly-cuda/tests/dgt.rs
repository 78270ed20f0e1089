//! GPU DGT and hierarchical DGT against the CPU reference (`poly::dgt::DgtPlan`,
//! `poly::hdgt::HdgtPlan`), bit-exact: forward, inverse, round trips and the Gaussian
//! evaluation-domain product: random cases (proptest, `common::gpu_cases`: degrees 2^3..2^17,
//! 1..64 limbs, prime sizes, plans and splits, batches, data) and fixed ones (every degree, every
//! HDGT split the kernels accept, small shapes of every kernel); errors for bad input.
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use modarith::Modulus;
use poly::dgt::{DgtPlan, gaussian_pointwise_mul};
use poly::hdgt::HdgtPlan;
use poly::{Coeff, Eval, Poly, PolyError, RingContext, TransformKind};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::dgt::{MAX_FLAT_DEGREE, MAX_SUB_TRANSFORM};
use poly_cuda::{DevicePoly, DevicePolyBatch, DgtSchedule, GpuContext, GpuDevice, GpuDgtPlan, GpuError};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::gpu_cases::{self, Regressions};
use common::{device, first_difference, ring};

/// `count` distinct primes `1 mod 2N` of `bits` bits.
fn primes(degree: usize, bits: u32, count: usize) -> Vec<Modulus> {
    modarith::generate_ntt_primes(bits, 2 * degree as u64, count, &[])
        .unwrap()
        .into_iter()
        .map(|p| Modulus::new(p).unwrap())
        .collect()
}

/// `polys` polynomials of random canonical values, `[poly][limb][N]`, with the extremes
/// (0, 1, p-1) planted in every limb.
fn random_batch(moduli: &[Modulus], degree: usize, polys: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut values = Vec::with_capacity(polys * moduli.len() * degree);
    for _ in 0..polys {
        for m in moduli {
            let p = m.value();
            let start = values.len();
            values.extend((0..degree).map(|_| rng.gen_range(0..p)));
            for (slot, v) in [0, 1, p - 1, p - 1, 0].into_iter().enumerate() {
                values[start + rng.gen_range(0..degree)] = v;
                values[start + slot % degree] = v;
            }
        }
    }
    values
}

/// Applies the CPU transform of limb `i % L` to every limb of the batch.
fn cpu_per_limb(values: &[u64], degree: usize, limbs: usize, f: impl Fn(usize, &mut [u64])) -> Vec<u64> {
    let mut out = values.to_vec();
    for (i, limb) in out.chunks_exact_mut(degree).enumerate() {
        f(i % limbs, limb);
    }
    out
}

fn upload(device: &Arc<GpuDevice>, values: &[u64]) -> CudaSlice<u64> {
    device.stream().clone_htod(values).unwrap()
}

fn download(device: &Arc<GpuDevice>, buffer: &CudaSlice<u64>) -> Vec<u64> {
    device.stream().clone_dtoh(buffer).unwrap()
}

/// Forward, inverse and round trip of `gpu` on a random batch against the CPU `dgt` plans.
fn check_plan(device: &Arc<GpuDevice>, gpu: &GpuDgtPlan, dgt: &[DgtPlan], polys: usize, rng: &mut StdRng, label: &str) {
    let n = gpu.degree();
    let limbs = dgt.len();
    let moduli: Vec<Modulus> = dgt.iter().map(|p| *p.modulus()).collect();

    let coefficients = random_batch(&moduli, n, polys, rng);
    let expected = cpu_per_limb(&coefficients, n, limbs, |l, a| dgt[l].forward_inplace(a).unwrap());
    let mut buffer = upload(device, &coefficients);
    gpu.forward(&mut buffer).unwrap();
    if let Some(diff) = first_difference(&download(device, &buffer), &expected, n) {
        panic!("{label}: forward differs from the CPU DGT: {diff}");
    }
    gpu.inverse(&mut buffer).unwrap();
    if let Some(diff) = first_difference(&download(device, &buffer), &coefficients, n) {
        panic!("{label}: GPU inverse(forward(a)) != a: {diff}");
    }

    // Random evaluations, not the image of the coefficients above.
    let evaluations = random_batch(&moduli, n, polys, rng);
    let expected = cpu_per_limb(&evaluations, n, limbs, |l, a| dgt[l].inverse_inplace(a).unwrap());
    let mut buffer = upload(device, &evaluations);
    gpu.inverse(&mut buffer).unwrap();
    if let Some(diff) = first_difference(&download(device, &buffer), &expected, n) {
        panic!("{label}: inverse differs from the CPU DGT: {diff}");
    }
}

/// Gaussian products (out of place and in place) against `gaussian_pointwise_mul`.
fn check_products(device: &Arc<GpuDevice>, gpu: &GpuDgtPlan, polys: usize, rng: &mut StdRng, label: &str) {
    let n = gpu.degree();
    let moduli = gpu.moduli().to_vec();
    let a = random_batch(&moduli, n, polys, rng);
    let b = random_batch(&moduli, n, polys, rng);
    let mut expected = vec![0u64; a.len()];
    for (i, ((out, x), y)) in expected.chunks_exact_mut(n).zip(a.chunks_exact(n)).zip(b.chunks_exact(n)).enumerate() {
        gaussian_pointwise_mul(&moduli[i % moduli.len()], x, y, out).unwrap();
    }
    let (da, db) = (upload(device, &a), upload(device, &b));
    let mut out = upload(device, &vec![0u64; a.len()]);
    gpu.pointwise_mul(&da, &db, &mut out).unwrap();
    if let Some(diff) = first_difference(&download(device, &out), &expected, n) {
        panic!("{label}: Gaussian product differs from the CPU: {diff}");
    }
    let mut acc = upload(device, &a);
    gpu.pointwise_mul_assign(&mut acc, &db).unwrap();
    if let Some(diff) = first_difference(&download(device, &acc), &expected, n) {
        panic!("{label}: in-place Gaussian product differs from the CPU: {diff}");
    }
    assert_eq!(download(device, &da), a, "{label}: product input changed");
}

#[test]
fn flat_and_default_schedules_match_cpu_for_every_degree() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("flat_and_default_schedules_match_cpu_for_every_degree", 0xd67_0001);
    // Small degrees too: the flat kernels cover N = 4 .. 4096.
    for log_n in 2..=17u32 {
        let n = 1usize << log_n;
        let limbs = rng.gen_range(1..=4);
        let bits = rng.gen_range((log_n + 12).max(20)..=61);
        let moduli = primes(n, bits, limbs);
        let dgt: Vec<DgtPlan> = moduli.iter().map(|&m| DgtPlan::new(m, n).unwrap()).collect();
        let gpu = GpuDgtPlan::new(&device, &dgt).unwrap();
        let expected = if n <= MAX_FLAT_DEGREE { "Flat" } else { "Hierarchical" };
        assert!(format!("{:?}", gpu.schedule()).starts_with(expected), "N = {n}: {:?}", gpu.schedule());
        let polys = rng.gen_range(1..=3);
        let label = format!("DGT N = 2^{log_n}, {limbs} limbs of {bits} bits, {polys} polys, {:?}", gpu.schedule());
        check_plan(&device, &gpu, &dgt, polys, &mut rng, &label);
        check_products(&device, &gpu, polys, &mut rng, &label);
    }
}

/// Small shapes of every kernel kind (flat, column and row passes of both directions,
/// length-1 passes, the Gaussian product), quick enough to run under compute-sanitizer.
#[test]
fn small_shapes_of_every_kernel_match_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("small_shapes_of_every_kernel_match_cpu", 0xd67_0006);
    for (log_n, rows) in [(4u32, 0usize), (10, 0), (11, 1), (11, 1024), (12, 32), (13, 64)] {
        let n = 1usize << log_n;
        let moduli = primes(n, 61, 2);
        let dgt: Vec<DgtPlan> = moduli.iter().map(|&m| DgtPlan::new(m, n).unwrap()).collect();
        let gpu = if rows == 0 {
            GpuDgtPlan::new(&device, &dgt).unwrap()
        } else {
            let hdgt: Vec<HdgtPlan> =
                moduli.iter().map(|&m| HdgtPlan::with_split(m, n, rows, n / 2 / rows).unwrap()).collect();
            GpuDgtPlan::hierarchical(&device, &hdgt).unwrap()
        };
        let label = format!("N = 2^{log_n}, {:?}", gpu.schedule());
        check_plan(&device, &gpu, &dgt, 2, &mut rng, &label);
        check_products(&device, &gpu, 2, &mut rng, &label);
    }
}

#[test]
fn every_split_matches_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("every_split_matches_cpu", 0xd67_0002);
    // Every split with both sides <= MAX_SUB_TRANSFORM, for a small degree, the largest flat
    // degree and the first hierarchical-only degree.
    for log_n in [3u32, 6, 10, 12, 13] {
        let n = 1usize << log_n;
        let moduli = primes(n, rng.gen_range(30..=61), 2);
        for log_rows in 0..log_n {
            let (rows, cols) = (1usize << log_rows, (n / 2) >> log_rows);
            if rows > MAX_SUB_TRANSFORM || cols > MAX_SUB_TRANSFORM {
                continue;
            }
            let hdgt: Vec<HdgtPlan> = moduli.iter().map(|&m| HdgtPlan::with_split(m, n, rows, cols).unwrap()).collect();
            let dgt: Vec<DgtPlan> = hdgt.iter().map(|h| h.dgt().clone()).collect();
            let gpu = GpuDgtPlan::hierarchical(&device, &hdgt).unwrap();
            assert_eq!(gpu.schedule(), DgtSchedule::Hierarchical { rows, cols });
            check_plan(&device, &gpu, &dgt, 2, &mut rng, &format!("HDGT N = 2^{log_n}, split {rows} x {cols}"));
        }
    }
    // Lopsided splits at the largest degree.
    let n = 1usize << 17;
    let moduli = primes(n, 59, 1);
    for (rows, cols) in [(32, 2048), (2048, 32), (64, 1024), (512, 128)] {
        let hdgt: Vec<HdgtPlan> = moduli.iter().map(|&m| HdgtPlan::with_split(m, n, rows, cols).unwrap()).collect();
        let dgt: Vec<DgtPlan> = hdgt.iter().map(|h| h.dgt().clone()).collect();
        let gpu = GpuDgtPlan::hierarchical(&device, &hdgt).unwrap();
        check_plan(&device, &gpu, &dgt, 1, &mut rng, &format!("HDGT N = 2^17, split {rows} x {cols}"));
    }
}

/// Committed failing cases of this file's random tests (see `common::gpu_cases`).
const REGRESSIONS: Regressions = Regressions { text: include_str!("dgt.proptest-regressions"), source: file!() };

/// How a random case builds its GPU plan: the flat/default schedule of a DGT plan, the HDGT's
/// default split, or a random split with both sides at most `MAX_SUB_TRANSFORM`.
#[derive(Debug, Clone, Copy)]
enum Plan {
    Dgt,
    HdgtDefault,
    /// `log2` of the rows; the columns are `N / 2 / rows` (clamped into the valid range).
    HdgtSplit(u32),
}

/// 16 random cases: `N = 2^3..2^17` (at most 16 limbs from 2^16: the CPU reference's time),
/// prime sizes, 1..3 polynomials, every kind of plan.
#[test]
fn random_parameters_match_cpu() {
    let Some(device) = device() else { return };
    let strategy = (3u32..=17).prop_flat_map(|log_n| {
        let max_limbs = if log_n >= 16 { 16usize } else { 64 };
        let plan = prop_oneof![Just(Plan::Dgt), Just(Plan::HdgtDefault), (0..log_n).prop_map(Plan::HdgtSplit)];
        (Just(log_n), 1..=max_limbs, (log_n + 12).max(20)..=61, plan, 1usize..=3, any::<u64>())
    });
    gpu_cases::check(16, REGRESSIONS, strategy, |(log_n, limbs, bits, plan, polys, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let n = 1usize << log_n;
        let moduli = primes(n, bits, limbs);
        let dgt: Vec<DgtPlan> = moduli.iter().map(|&m| DgtPlan::new(m, n).unwrap()).collect();
        let gpu = match plan {
            Plan::Dgt => GpuDgtPlan::new(&device, &dgt).unwrap(),
            Plan::HdgtDefault => {
                let hdgt: Vec<HdgtPlan> = moduli.iter().map(|&m| HdgtPlan::new(m, n).unwrap()).collect();
                GpuDgtPlan::hierarchical(&device, &hdgt).unwrap()
            }
            Plan::HdgtSplit(log_rows) => {
                // Both sides of the split within one block's sub-transform.
                let log_half = log_n - 1;
                let log_max = MAX_SUB_TRANSFORM.trailing_zeros();
                let log_rows = log_rows.clamp(log_half.saturating_sub(log_max), log_half.min(log_max));
                let (rows, cols) = (1usize << log_rows, (n / 2) >> log_rows);
                let hdgt: Vec<HdgtPlan> =
                    moduli.iter().map(|&m| HdgtPlan::with_split(m, n, rows, cols).unwrap()).collect();
                GpuDgtPlan::hierarchical(&device, &hdgt).unwrap()
            }
        };
        let label = format!("N = 2^{log_n}, {limbs} limbs of {bits} bits, {polys} polys, {:?}", gpu.schedule());
        check_plan(&device, &gpu, &dgt, polys, &mut rng, &label);
        check_products(&device, &gpu, polys, &mut rng, &label);
    });
}

/// Through the public polynomial API: `GpuContext` of a DGT or HDGT ring, `DevicePoly` and
/// `DevicePolyBatch` transforms, and a full negacyclic product against the CPU.
#[test]
fn device_polys_of_dgt_rings_match_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("device_polys_of_dgt_rings_match_cpu", 0xd67_0004);
    for transform in [TransformKind::Dgt, TransformKind::HierarchicalDgt] {
        for log_n in [10u32, 12, 13, 17] {
            let limbs = rng.gen_range(1..=5);
            let ring: Arc<RingContext> = ring(log_n, limbs, rng.gen_range(40..=61), transform);
            let label = format!("{} N = 2^{log_n}, {limbs} limbs", transform.name());
            let gpu = GpuContext::new(&device, &ring).unwrap();
            assert!(gpu.dgt_plan().is_some(), "{label}: no DGT plan");
            let a: Poly<Coeff> = common::random_poly(&ring, &mut rng);
            let b: Poly<Coeff> = common::random_poly(&ring, &mut rng);

            let cpu_a = a.clone().forward().unwrap();
            let gpu_a = DevicePoly::upload(&gpu, &a).unwrap().forward().unwrap();
            assert_eq!(gpu_a.download().unwrap(), cpu_a, "{label}: forward");

            let cpu_b = b.clone().forward().unwrap();
            let mut product = gpu_a;
            product.mul_assign(&DevicePoly::upload(&gpu, &b).unwrap().forward().unwrap()).unwrap();
            let cpu_product = cpu_a.mul(&cpu_b).unwrap().inverse().unwrap();
            assert_eq!(product.inverse().unwrap().download().unwrap(), cpu_product, "{label}: product");

            let eval: Poly<Eval> = common::random_poly(&ring, &mut rng);
            let gpu_coeff = DevicePoly::upload(&gpu, &eval).unwrap().inverse().unwrap();
            assert_eq!(gpu_coeff.download().unwrap(), eval.clone().inverse().unwrap(), "{label}: inverse");

            let polys: Vec<Poly<Coeff>> = (0..3).map(|_| common::random_poly(&ring, &mut rng)).collect();
            let got = DevicePolyBatch::upload(&gpu, &polys).unwrap().forward().unwrap().download().unwrap();
            for (i, (got, p)) in got.iter().zip(&polys).enumerate() {
                assert_eq!(got, &p.clone().forward().unwrap(), "{label}: batch forward, polynomial {i}");
            }
        }
    }
}

#[test]
fn bad_input_is_rejected_and_left_untouched() {
    let Some(device) = device() else { return };
    let n = 1usize << 10;
    let moduli = primes(n, 50, 2);
    let dgt: Vec<DgtPlan> = moduli.iter().map(|&m| DgtPlan::new(m, n).unwrap()).collect();
    let gpu = GpuDgtPlan::new(&device, &dgt).unwrap();
    assert_eq!(gpu.num_limbs(), 2);

    // Lengths that are not a positive multiple of L * N.
    let other = upload(&device, &vec![1u64; 2 * n]);
    for len in [n, 2 * n - 1, 2 * n + 2, 3 * n] {
        let values: Vec<u64> = (0..len as u64).map(|i| i % 1000 + 1).collect();
        let mut buffer = upload(&device, &values);
        let mismatch =
            |r: poly_cuda::Result<()>| matches!(r, Err(GpuError::LengthMismatch { actual, .. }) if actual == len);
        assert!(mismatch(gpu.forward(&mut buffer)), "len {len}: forward");
        assert!(mismatch(gpu.inverse(&mut buffer)), "len {len}: inverse");
        assert!(mismatch(gpu.pointwise_mul_assign(&mut buffer, &other)), "len {len}: product");
        assert_eq!(download(&device, &buffer), values, "len {len}: data changed");
    }
    // Product operands of different lengths.
    let a = upload(&device, &vec![1u64; 2 * n]);
    let b = upload(&device, &vec![1u64; 4 * n]);
    let mut out = upload(&device, &vec![5u64; 2 * n]);
    assert_eq!(
        gpu.pointwise_mul(&a, &b, &mut out).unwrap_err(),
        GpuError::LengthMismatch { expected: 2 * n, actual: 4 * n }
    );
    assert_eq!(download(&device, &out), vec![5u64; 2 * n], "product output changed on error");

    // A buffer of another CUDA context (a second device handle has its own context object).
    if let Ok(other_device) = GpuDevice::new(0) {
        let mut foreign = upload(&other_device, &vec![1u64; 2 * n]);
        assert_eq!(gpu.forward(&mut foreign).unwrap_err(), GpuError::WrongContext);
    }

    // Plans: none, of different degrees, of different splits, splits too long for a block.
    assert!(matches!(
        GpuDgtPlan::new(&device, &[]).unwrap_err(),
        GpuError::Poly(PolyError::InvalidModulusCount { count: 0, .. })
    ));
    let other_degree = DgtPlan::new(primes(2 * n, 50, 1)[0], 2 * n).unwrap();
    assert_eq!(
        GpuDgtPlan::new(&device, &[dgt[0].clone(), other_degree]).unwrap_err(),
        GpuError::Poly(PolyError::ContextMismatch)
    );
    let big = 1usize << 13;
    let m = primes(big, 50, 1)[0];
    let split_a = HdgtPlan::with_split(m, big, 64, 64).unwrap();
    let split_b = HdgtPlan::with_split(m, big, 32, 128).unwrap();
    assert!(matches!(
        GpuDgtPlan::hierarchical(&device, &[split_a, split_b]).unwrap_err(),
        GpuError::Poly(PolyError::InvalidSplit { rows: 32, cols: 128, .. })
    ));
    let too_long = HdgtPlan::with_split(m, big, 1, 4096).unwrap();
    assert!(matches!(GpuDgtPlan::hierarchical(&device, &[too_long]).unwrap_err(), GpuError::Unsupported { .. }));

    // An NTT ring has no DGT plan.
    let ntt_ring = ring(10, 1, 50, TransformKind::Ntt);
    assert!(matches!(GpuDgtPlan::from_ring(&device, &ntt_ring).unwrap_err(), GpuError::Unsupported { .. }));
}

/// Events-timed forward and inverse (not a benchmark: a quick figure in the test output;
/// `benches/src/bin/gpu_transforms.rs` has the method). Run with `--nocapture` to see it.
#[test]
fn timing_report() {
    use poly_cuda::cudarc::driver::sys::CUevent_flags;
    let Some(device) = device() else { return };
    let mut rng = common::rng("timing_report", 0xd67_0005);
    let stream = device.stream();
    for (log_n, limbs) in [(12u32, 3usize), (13, 8), (14, 8), (15, 16), (16, 32), (17, 64)] {
        let n = 1usize << log_n;
        let moduli = primes(n, 60, limbs);
        let dgt: Vec<DgtPlan> = moduli.iter().map(|&m| DgtPlan::new(m, n).unwrap()).collect();
        let gpu = GpuDgtPlan::new(&device, &dgt).unwrap();
        let mut buffer = upload(&device, &random_batch(&moduli, n, 1, &mut rng));
        let other = upload(&device, &random_batch(&moduli, n, 1, &mut rng));
        for _ in 0..3 {
            gpu.forward(&mut buffer).unwrap();
            gpu.inverse(&mut buffer).unwrap();
        }
        let time = |op: &mut dyn FnMut()| {
            let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let mut samples = Vec::new();
            for _ in 0..50 {
                let start = stream.record_event(flags).unwrap();
                op();
                let end = stream.record_event(flags).unwrap();
                end.synchronize().unwrap();
                samples.push(start.elapsed_ms(&end).unwrap() * 1e3);
            }
            samples.sort_by(f32::total_cmp);
            samples[samples.len() / 2]
        };
        let forward = time(&mut || gpu.forward(&mut buffer).unwrap());
        let inverse = time(&mut || gpu.inverse(&mut buffer).unwrap());
        let product = time(&mut || gpu.pointwise_mul_assign(&mut buffer, &other).unwrap());
        eprintln!(
            "DGT timing N = 2^{log_n}, {limbs} limbs, {:?}: forward {forward:.1} us, inverse {inverse:.1} us, Gaussian product {product:.1} us (median of 50)",
            gpu.schedule()
        );
    }
}
