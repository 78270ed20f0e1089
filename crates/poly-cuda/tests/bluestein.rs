//! Rings `Z_q[x]/Phi_m` (`poly::RingKind::Cyclotomic`, Bluestein's transform) on the GPU
//! against the CPU reference, bit for bit, through the `Backend` trait and `DevicePoly`:
//! transforms, products, element-wise operations, automorphisms, sampling, batches, and the
//! device layout's zero padding; the reduction modulo `Phi_m` alone; fixed `m` (prime, composite, HElib's 21845) and random ones
//! (proptest, `common::gpu_cases`); `m` too small for poly-cuda's NTT is a typed error. Skips,
//! saying why, without a CUDA device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::bluestein::bluestein_primes;
use poly::cyclotomic::gcd;
use poly::reference::ring_product;
use poly::{Backend, Coeff, CpuBackend, Eval, Poly, RingContext, Seed};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuBackend, GpuContext, GpuDevice};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::device;
use common::gpu_cases::{self, Regressions};

fn cyclotomic_ring(m: usize, bits: u32, limbs: usize) -> Arc<RingContext> {
    RingContext::new_cyclotomic(m, &bluestein_primes(bits, m as u64, limbs).unwrap()).unwrap()
}

/// A few units `g` modulo `m` (2, 3, 5, `m - 1`, and some more when they are units).
fn galois_elements(m: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut gs: Vec<u64> = [2, 3, 5, m - 1].into_iter().map(|g| g as u64).collect();
    gs.extend((0..4).map(|_| rng.gen_range(1..m as u64)));
    gs.retain(|&g| gcd(g as usize, m) == 1);
    gs
}

/// The words past `phi(m)` of every device row are zero (the layout of `poly_cuda::bluestein`).
fn assert_zero_padding<R: poly::Representation>(poly: &DevicePoly<R>, label: &str) {
    let context = poly.context();
    let (n, stride) = (context.ring().degree(), context.degree());
    let words = context.device().download_words(poly.device_buffer()).unwrap();
    assert_eq!(words.len(), context.poly_len(), "{label}");
    for (limb, row) in words.chunks_exact(stride).enumerate() {
        assert!(row[n..].iter().all(|&w| w == 0), "{label}: nonzero padding in limb {limb}");
    }
}

/// Every `Backend` operation on one cyclotomic ring, GPU against CPU.
fn check_ring(device: &Arc<GpuDevice>, ring: &Arc<RingContext>, rng: &mut StdRng) {
    let m = ring.cyclotomic_index() as usize;
    let label = format!("m = {m}, phi(m) = {}, {} limbs", ring.degree(), ring.num_limbs());
    let gpu = GpuBackend::from_device(Arc::clone(device));
    let ctx = gpu.context(ring).unwrap();
    let cpu = CpuBackend;
    let a: Poly<Coeff> = common::random_poly(ring, rng);
    let b = Poly::<Coeff>::from_limbs(ring, common::edge_values(ring, rng)).unwrap();
    let (da, db) = (gpu.upload(&ctx, &a).unwrap(), gpu.upload(&ctx, &b).unwrap());
    assert_zero_padding(&da, &label);

    // Transforms and products (also against the exact product modulo (Phi_m, q)).
    let (ea, eb) = (cpu.forward(a.clone()).unwrap(), cpu.forward(b.clone()).unwrap());
    let (dea, deb) =
        (gpu.forward(gpu.duplicate(&da).unwrap()).unwrap(), gpu.forward(gpu.duplicate(&db).unwrap()).unwrap());
    assert_eq!(gpu.download(&dea).unwrap(), ea, "{label}: forward");
    assert_zero_padding(&dea, &label);
    let product = gpu.inverse(gpu.mul(&dea, &deb).unwrap()).unwrap();
    assert_eq!(gpu.download(&product).unwrap(), ring_product(&a, &b).unwrap(), "{label}: product");
    assert_zero_padding(&product, &label);
    assert_eq!(gpu.download(&gpu.inverse(gpu.duplicate(&dea).unwrap()).unwrap()).unwrap(), a, "{label}: round trip");
    let mut acc = gpu.duplicate(&dea).unwrap();
    gpu.mul_add_assign(&mut acc, &dea, &deb).unwrap();
    let mut want = ea.clone();
    want.mul_add_assign(&ea, &eb).unwrap();
    assert_eq!(gpu.download(&acc).unwrap(), want, "{label}: multiply-add");
    // inverse(a * b) and inverse(c + a * b) by the fused paths of DevicePoly.
    assert_eq!(
        dea.duplicate().unwrap().inverse_of_product(&deb).unwrap().download().unwrap(),
        ea.mul(&eb).unwrap().inverse().unwrap(),
        "{label}: inverse of a product"
    );
    assert_eq!(
        deb.inverse_of_mul_add(&dea, &deb).unwrap().download().unwrap(),
        want.sub(&ea).unwrap().add(&eb).unwrap().inverse().unwrap(),
        "{label}: inverse of a multiply-add"
    );

    // Element-wise operations in both representations.
    assert_eq!(gpu.download(&gpu.add(&da, &db).unwrap()).unwrap(), a.add(&b).unwrap(), "{label}: add");
    assert_eq!(gpu.download(&gpu.sub(&dea, &deb).unwrap()).unwrap(), ea.sub(&eb).unwrap(), "{label}: sub");
    assert_eq!(gpu.download(&gpu.neg(&da).unwrap()).unwrap(), a.neg(), "{label}: neg");
    let scalar = rng.r#gen::<u64>();
    assert_eq!(gpu.download(&gpu.scalar_mul(&da, scalar).unwrap()).unwrap(), a.scalar_mul(scalar), "{label}");
    let scalars: Vec<u64> = ring.moduli().iter().map(|q| rng.gen_range(0..q.value())).collect();
    assert_eq!(
        gpu.download(&gpu.scalar_mul_per_limb(&dea, &scalars).unwrap()).unwrap(),
        ea.scalar_mul_per_limb(&scalars).unwrap(),
        "{label}: scalar per limb"
    );

    // Several at once (a ciphertext's polynomials).
    let sums = gpu
        .add_sub_many(
            &[gpu.duplicate(&da).unwrap(), gpu.duplicate(&db).unwrap()],
            &[gpu.duplicate(&db).unwrap(), gpu.duplicate(&da).unwrap()],
            true,
        )
        .unwrap();
    assert_eq!(gpu.download(&sums[0]).unwrap(), a.sub(&b).unwrap(), "{label}: sub many");
    assert_eq!(gpu.download(&sums[1]).unwrap(), b.sub(&a).unwrap(), "{label}: sub many");
    let mut many = [gpu.duplicate(&dea).unwrap(), gpu.duplicate(&deb).unwrap()];
    gpu.add_assign_many(&mut many, &[gpu.duplicate(&deb).unwrap(), gpu.duplicate(&dea).unwrap()]).unwrap();
    for poly in &many {
        assert_eq!(gpu.download(poly).unwrap(), ea.add(&eb).unwrap(), "{label}: add many");
        assert_zero_padding(poly, &label);
    }

    // Automorphisms: coefficients and evaluations.
    for g in galois_elements(m, rng) {
        let want = cpu.automorphism(&a, g).unwrap();
        let got = gpu.automorphism(&da, g).unwrap();
        assert_eq!(gpu.download(&got).unwrap(), want, "{label}: automorphism {g}");
        assert_zero_padding(&got, &label);
        let got = gpu.automorphism_eval(&dea, g).unwrap();
        assert_eq!(
            gpu.download(&got).unwrap(),
            cpu.automorphism_eval(&ea, g).unwrap(),
            "{label}: eval automorphism {g}"
        );
        assert_zero_padding(&got, &label);
    }
    let non_unit = (2..m as u64).find(|&g| gcd(g as usize, m) != 1);
    if let Some(g) = non_unit {
        assert!(gpu.automorphism(&da, g).is_err(), "{label}: non-unit {g}");
        assert!(gpu.automorphism_eval(&dea, g).is_err(), "{label}: non-unit {g}");
    }
    assert_eq!(gpu.download(&da).unwrap(), a, "{label}: an input changed");

    // Sampling: the CPU's words, padding cleared.
    let seed = Seed::from([rng.r#gen::<u8>(); 32]);
    let uniform: DevicePoly<Eval> = gpu.sample_uniform(&ctx, &seed, 7).unwrap();
    assert_eq!(gpu.download(&uniform).unwrap(), cpu.sample_uniform::<Eval>(ring, &seed, 7).unwrap(), "{label}");
    assert_zero_padding(&uniform, &label);
    let ternary = gpu.sample_ternary(&ctx, &seed, 8).unwrap();
    assert_eq!(gpu.download(&ternary).unwrap(), cpu.sample_ternary(ring, &seed, 8).unwrap(), "{label}: ternary");
    assert_zero_padding(&ternary, &label);
    let cbd = gpu.sample_cbd(&ctx, &seed, 9).unwrap();
    assert_eq!(gpu.download(&cbd).unwrap(), cpu.sample_cbd(ring, &seed, 9).unwrap(), "{label}: binomial");
    assert_zero_padding(&cbd, &label);

    // The length-m DFT alone (all m outputs), and its inverse: BluesteinPlan's words.
    let bluestein = ctx.bluestein().unwrap();
    let x: Vec<u64> =
        ring.moduli().iter().flat_map(|q| (0..m).map(|_| rng.gen_range(0..q.value())).collect::<Vec<_>>()).collect();
    let (dft, inverse_dft) = (bluestein.dft(&x, false).unwrap(), bluestein.dft(&x, true).unwrap());
    for (i, plan) in ring.plans().iter().enumerate() {
        let plan = plan.as_bluestein().unwrap().plan();
        let limb = &x[i * m..(i + 1) * m];
        assert_eq!(dft[i * m..(i + 1) * m], plan.forward(limb).unwrap()[..], "{label}: DFT, limb {i}");
        assert_eq!(inverse_dft[i * m..(i + 1) * m], plan.inverse(limb).unwrap()[..], "{label}: inverse DFT, limb {i}");
    }

    // Batches: one launch sequence for several polynomials.
    let batch = DevicePolyBatch::upload(&ctx, &[a.clone(), b.clone(), a.clone()]).unwrap();
    let forward = batch.forward().unwrap();
    assert_eq!(forward.download().unwrap(), vec![ea.clone(), eb.clone(), ea.clone()], "{label}: batch forward");
    assert_eq!(forward.inverse().unwrap().download().unwrap(), vec![a.clone(), b, a], "{label}: batch inverse");
}

/// `m` prime, with two and three prime factors, and HElib's 21845 (phi(m) = 2^14: no padding).
#[test]
fn cyclotomic_rings_match_cpu() {
    let Some(device) = device() else { return };
    let mut rng = common::rng("cyclotomic_rings_match_cpu", 0xb1e5_0001);
    for (m, bits, limbs) in
        [(521usize, 50u32, 1usize), (771, 61, 3), (1023, 45, 2), (1105, 55, 4), (4369, 60, 2), (21845, 58, 3)]
    {
        check_ring(&device, &cyclotomic_ring(m, bits, limbs), &mut rng);
    }
}

/// Scheme code written once against `Backend` gives the CPU's words on the GPU: `b = -a s + e`,
/// rotated, and the phase of the rotated sample.
fn rlwe_phase<B: Backend>(backend: &B, ring: &Arc<RingContext>, seed: &Seed, g: u64) -> Poly<Coeff> {
    let ctx = backend.context(ring).unwrap();
    let s = backend.forward(backend.sample_ternary(&ctx, seed, 0).unwrap()).unwrap();
    let e = backend.sample_cbd(&ctx, seed, 1).unwrap();
    let a: B::Poly<Eval> = backend.sample_uniform(&ctx, seed, 2).unwrap();
    let mut b = backend.neg(&backend.mul(&a, &s).unwrap()).unwrap();
    backend.add_assign(&mut b, &backend.forward(e).unwrap()).unwrap();
    let (s, b, a) = (
        backend.automorphism_eval(&s, g).unwrap(),
        backend.automorphism_eval(&b, g).unwrap(),
        backend.automorphism_eval(&a, g).unwrap(),
    );
    let mut phase = backend.duplicate(&b).unwrap();
    backend.mul_add_assign(&mut phase, &a, &s).unwrap();
    backend.download(&backend.inverse(phase).unwrap()).unwrap()
}

#[test]
fn scheme_code_matches_cpu() {
    let Some(device) = device() else { return };
    let gpu = GpuBackend::from_device(device);
    let seed = Seed::from([5u8; 32]);
    for (m, g) in [(1023usize, 2u64), (4369, 3)] {
        let ring = cyclotomic_ring(m, 55, 2);
        let want = rlwe_phase(&CpuBackend, &ring, &seed, g);
        assert_eq!(rlwe_phase(&gpu, &ring, &seed, g), want, "m = {m}");
        assert_eq!(want, Poly::sample_cbd(&ring, &seed, 1).unwrap().automorphism(g).unwrap(), "m = {m}");
    }
}

/// The reduction modulo `Phi_m` on the device, both methods (the binomial steps in a block's
/// shared memory, the products with `Psi_m` and `Phi_m`), against the CPU's (binomial steps):
/// inputs shorter than `phi(m)`, of `m` words and longer than `m`, two polynomials per call,
/// random and all-`q - 1` words, rows padded past `phi(m)` (zeros there). Against the long
/// division too where it is quick; `m` up to 65535 (`M = 2^17`), whose rows exceed a block's
/// shared memory (no binomial steps: a typed error). Steps with
/// one segment per column (`d` above the block) and with the scan across warps (`d = 1`) both
/// occur: every `m` here has the factor `x - 1` and a divisor above 1024 but 771 and 1105.
#[test]
fn reduction_matches_cpu() {
    use poly_cuda::bluestein::ReductionMethod;
    let Some(device) = device() else { return };
    let mut rng = common::rng("reduction_matches_cpu", 0xb1e5_0002);
    for (m, limbs) in
        [(521usize, 2usize), (771, 2), (1105, 3), (4845, 2), (15709, 1), (21845, 2), (32767, 1), (65535, 1)]
    {
        let primes = bluestein_primes(50, m as u64, limbs).unwrap();
        let gpu = poly_cuda::bluestein::GpuCyclotomic::new(&device, m, &primes).unwrap();
        let n = gpu.degree();
        // Where a row fits a block's shared memory; the default takes the steps where there are
        // at most `CyclotomicTuning::binomial_max_steps` (six: at most two prime factors).
        let binomial = m <= 32767;
        let plan = poly::phi_reduction::PhiReduction::new(m as u64).unwrap();
        let steps = plan.quotient_steps().steps().len() + plan.remainder_steps().steps().len();
        let few_steps = binomial && steps <= device.tuning().cyclotomic.binomial_max_steps;
        assert_eq!(gpu.reduction_method() == ReductionMethod::BinomialSteps, few_steps, "m {m}");
        for len in [n / 2, m, 2 * m + 5] {
            for top in [false, true] {
                let count = 2;
                let values: Vec<u64> = (0..count * limbs)
                    .flat_map(|row| {
                        let q = primes[row % limbs];
                        (0..len).map(|_| if top { q - 1 } else { rng.gen_range(0..q) }).collect::<Vec<_>>()
                    })
                    .collect();
                let want: Vec<Vec<u64>> = values
                    .chunks_exact(len)
                    .enumerate()
                    .map(|(row, chunk)| {
                        let plan = &gpu.rings()[row % limbs];
                        if m <= 1105 { plan.reduce(chunk.to_vec()) } else { plan.reduce_fast(chunk).unwrap() }
                    })
                    .collect();
                let got = gpu.reduce(&values, len).unwrap();
                for (row, want) in want.iter().enumerate() {
                    assert_eq!(got[row * n..(row + 1) * n], want[..], "m {m}, len {len}, row {row}, top {top}");
                }
                for method in [ReductionMethod::BinomialSteps, ReductionMethod::Products] {
                    let stride = n + 3;
                    let got = gpu.reduce_with(method, &values, len, stride);
                    if method == ReductionMethod::BinomialSteps && !binomial {
                        assert!(matches!(got, Err(poly_cuda::GpuError::Unsupported { .. })), "m {m}");
                        continue;
                    }
                    let got = got.unwrap();
                    for (row, want) in want.iter().enumerate() {
                        let row_words = &got[row * stride..(row + 1) * stride];
                        assert_eq!(row_words[..n], want[..], "m {m}, len {len}, row {row}, top {top}, {method:?}");
                        assert_eq!(row_words[n..], [0; 3], "m {m}, {method:?}: padding");
                    }
                }
            }
        }
    }
}

/// Below `m = 257` the transform's convolution (`2m - 1` points, rounded up to a power of two)
/// is shorter than poly-cuda's smallest NTT (2^10): a typed error, not a panic. From 257 on it
/// is 2^10 and the ring opens.
#[test]
fn small_m_is_a_typed_error() {
    let Some(device) = device() else { return };
    for m in [63usize, 127, 255] {
        assert!(GpuContext::new(&device, &cyclotomic_ring(m, 50, 1)).is_err(), "m = {m}");
    }
    for m in [257usize, 511] {
        assert!(GpuContext::new(&device, &cyclotomic_ring(m, 50, 1)).is_ok(), "m = {m}");
    }
}

const REGRESSIONS: Regressions = Regressions { text: include_str!("bluestein.proptest-regressions"), source: file!() };

/// 12 random cases: odd `m` in `513..4096`, 1 to 4 primes of 40 to 62 bits.
#[test]
fn random_cyclotomic_rings_match_cpu() {
    let Some(device) = device() else { return };
    let strategy = (256usize..2048, 40u32..=62, 1usize..=4, any::<u64>());
    gpu_cases::check(12, REGRESSIONS, strategy, |(half, bits, limbs, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        check_ring(&device, &cyclotomic_ring(2 * half + 1, bits, limbs), &mut rng);
    });
}
