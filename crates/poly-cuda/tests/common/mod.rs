//! Shared helpers of the GPU tests: the device (or why there is none) and random cases
//! (`hegpu_test_support::gpu_cases`, shared with the other crates), random rings and
//! polynomials.
// Each test binary uses some of these.
#![allow(dead_code, unused_imports)]

use std::sync::Arc;

use poly::{Poly, Representation, RingContext, TransformKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub use hegpu_test_support::gpu_cases;
pub use hegpu_test_support::gpu_cases::device;

/// A ring of degree `2^log_n` with `limbs` distinct NTT primes of `bits` bits.
pub fn ring(log_n: u32, limbs: usize, bits: u32, transform: TransformKind) -> Arc<RingContext> {
    let n = 1usize << log_n;
    let primes = modarith::generate_ntt_primes(bits, 2 * n as u64, limbs, &[]).unwrap();
    RingContext::new(n, &primes, transform).unwrap()
}

/// Uniformly random canonical values for every limb of `ring`.
pub fn random_values(ring: &RingContext, rng: &mut StdRng) -> Vec<u64> {
    let n = ring.degree();
    let mut values = Vec::with_capacity(ring.poly_len());
    for m in ring.moduli() {
        values.extend((0..n).map(|_| rng.gen_range(0..m.value())));
    }
    values
}

/// A uniformly random polynomial of `ring`.
pub fn random_poly<R: Representation>(ring: &Arc<RingContext>, rng: &mut StdRng) -> Poly<R> {
    Poly::from_limbs(ring, random_values(ring, rng)).unwrap()
}

/// Values with the extremes of each limb (0, 1, p-1, p-2) planted among random ones.
pub fn edge_values(ring: &RingContext, rng: &mut StdRng) -> Vec<u64> {
    let mut values = random_values(ring, rng);
    let n = ring.degree();
    for (limb, m) in ring.moduli().iter().enumerate() {
        let p = m.value();
        for (slot, v) in [0, 1, p - 1, p - 2, 0, p - 1].into_iter().enumerate() {
            let index = limb * n + (slot * 997 + limb) % n;
            values[index] = v;
        }
    }
    values
}

/// A seeded generator; the seed is printed so that a failure can be replayed.
pub fn rng(test: &str, seed: u64) -> StdRng {
    eprintln!("{test}: rng seed {seed}");
    StdRng::seed_from_u64(seed)
}

/// The first index where `gpu` and `cpu` differ, with both values, for assertion messages.
pub fn first_difference(gpu: &[u64], cpu: &[u64], n: usize) -> Option<String> {
    if gpu.len() != cpu.len() {
        return Some(format!("lengths differ: gpu {} cpu {}", gpu.len(), cpu.len()));
    }
    gpu.iter().zip(cpu).position(|(a, b)| a != b).map(|i| {
        let mismatches = gpu.iter().zip(cpu).filter(|(a, b)| a != b).count();
        format!("{mismatches} mismatches; first at limb {}, index {}: gpu {} cpu {}", i / n, i % n, gpu[i], cpu[i])
    })
}
