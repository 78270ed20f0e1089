//! CPU transforms per RNS limb: our NTT, DGT and hierarchical DGT (`poly`) next to fhe.rs's
//! NTT (`fhe-math` 0.1.1), forward and inverse, on the same primes in the same run.
//!
//! Ids are `{transform}_{direction}/{implementation}/{N}/{primes}x{bits}`, e.g.
//! `ntt_forward/ours/4096/1x60`; one iteration transforms every limb of one polynomial
//! in place (each limb with its own plan). `cargo xtask bench` runs this and prints the table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use modarith::{Modulus, generate_ntt_primes};
use poly::dgt::DgtPlan;
use poly::hdgt::HdgtPlan;
use poly::ntt::NttPlan;

const LOG_DEGREES: [u32; 5] = [12, 13, 14, 15, 16];
const PRIME_COUNTS: [usize; 2] = [1, 16];
const PRIME_BITS: u32 = 60;

/// A transform over one limb, in place.
trait LimbTransform {
    fn forward(&self, limb: &mut [u64]);
    fn inverse(&self, limb: &mut [u64]);
}

impl LimbTransform for NttPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

impl LimbTransform for DgtPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

impl LimbTransform for HdgtPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

/// fhe-math's safe, constant-time entry points (output reduced to `[0, p)`, as ours).
impl LimbTransform for fhe_math::ntt::NttOperator {
    fn forward(&self, limb: &mut [u64]) {
        fhe_math::ntt::NttOperator::forward(self, limb);
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.backward(limb);
    }
}

/// SplitMix64: deterministic, non-zero-looking inputs without another dependency.
fn random_limbs(moduli: &[Modulus], degree: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    moduli.iter().flat_map(|m| (0..degree).map(|_| m.reduce(next())).collect::<Vec<_>>()).collect()
}

fn bench_limbs<T: LimbTransform>(
    criterion: &mut Criterion,
    transform: &str,
    implementation: &str,
    plans: &[T],
    input: &[u64],
    degree: usize,
) {
    let label = format!("{degree}/{}x{PRIME_BITS}", plans.len());
    for direction in ["forward", "inverse"] {
        let mut group = criterion.benchmark_group(format!("{transform}_{direction}"));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1200))
            .throughput(Throughput::Elements(input.len() as u64));
        // Repeated in-place transforms keep the data canonical and in cache, as a
        // transform inside a larger computation would see it.
        let mut data = input.to_vec();
        group.bench_function(BenchmarkId::new(implementation, &label), |b| {
            b.iter(|| {
                for (plan, limb) in plans.iter().zip(data.chunks_exact_mut(degree)) {
                    if direction == "forward" { plan.forward(limb) } else { plan.inverse(limb) }
                }
                black_box(&mut data);
            })
        });
        group.finish();
    }
}

fn transforms(criterion: &mut Criterion) {
    // Primes = 1 mod 2^17 serve every degree here, so all sizes use the same primes.
    let max_degree = 1u64 << LOG_DEGREES[LOG_DEGREES.len() - 1];
    let primes = generate_ntt_primes(PRIME_BITS, 2 * max_degree, PRIME_COUNTS[PRIME_COUNTS.len() - 1], &[]).unwrap();
    for log_degree in LOG_DEGREES {
        let degree = 1usize << log_degree;
        for count in PRIME_COUNTS {
            let moduli: Vec<Modulus> = primes[..count].iter().map(|&p| Modulus::new(p).unwrap()).collect();
            let input = random_limbs(&moduli, degree, u64::from(log_degree) << 8 | count as u64);

            let ntt: Vec<NttPlan> = moduli.iter().map(|m| NttPlan::new(*m, degree).unwrap()).collect();
            let dgt: Vec<DgtPlan> = moduli.iter().map(|m| DgtPlan::new(*m, degree).unwrap()).collect();
            let hdgt: Vec<HdgtPlan> = moduli.iter().map(|m| HdgtPlan::new(*m, degree).unwrap()).collect();
            let fhe: Vec<fhe_math::ntt::NttOperator> = primes[..count]
                .iter()
                .map(|&p| fhe_math::ntt::NttOperator::new(&fhe_math::zq::Modulus::new(p).unwrap(), degree).unwrap())
                .collect();

            bench_limbs(criterion, "ntt", "ours", &ntt, &input, degree);
            bench_limbs(criterion, "ntt", "fhe-math", &fhe, &input, degree);
            bench_limbs(criterion, "dgt", "ours", &dgt, &input, degree);
            bench_limbs(criterion, "hdgt", "ours", &hdgt, &input, degree);
        }
    }
}

criterion_group!(benches, transforms);
criterion_main!(benches);
