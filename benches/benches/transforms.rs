//! CPU transforms per RNS limb: our NTT, DGT and hierarchical DGT (`poly`) next to fhe.rs's
//! NTT (`fhe-math` 0.1.1), forward and inverse, on the same primes in the same run.
//!
//! Ids are `{transform}_{direction}/{implementation}/{N}/{primes}x{bits}`, e.g.
//! `ntt_forward/ours/4096/1x60`; one iteration transforms every limb of one polynomial
//! in place (each limb with its own plan). `cargo xtask bench` runs this and prints the
//! table; `ntt_paired` measures the same cases interleaved, for ratios robust to load.
// criterion_group! defines an undocumented `pub fn`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{LOG_DEGREES, LimbTransform, PRIME_COUNTS, Plans, case_label, primes, random_limbs, transform_limbs};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

fn bench_limbs<T: LimbTransform>(
    criterion: &mut Criterion,
    transform: &str,
    implementation: &str,
    plans: &[T],
    input: &[u64],
    degree: usize,
) {
    for (direction, forward) in [("forward", true), ("inverse", false)] {
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
        group.bench_function(BenchmarkId::new(implementation, case_label(degree, plans.len())), |b| {
            b.iter(|| {
                transform_limbs(plans, &mut data, degree, forward);
                black_box(&mut data);
            })
        });
        group.finish();
    }
}

fn transforms(criterion: &mut Criterion) {
    let all_primes = primes(PRIME_COUNTS[PRIME_COUNTS.len() - 1]);
    for log_degree in LOG_DEGREES {
        let degree = 1usize << log_degree;
        for count in PRIME_COUNTS {
            let primes = &all_primes[..count];
            let input = random_limbs(primes, degree, u64::from(log_degree) << 8 | count as u64);
            let plans = Plans::new(primes, degree);
            bench_limbs(criterion, "ntt", "ours", &plans.ntt, &input, degree);
            bench_limbs(criterion, "ntt", "fhe-math", &plans.fhe, &input, degree);
            bench_limbs(criterion, "dgt", "ours", &plans.dgt, &input, degree);
            bench_limbs(criterion, "hdgt", "ours", &plans.hdgt, &input, degree);
        }
    }
}

criterion_group!(benches, transforms);
criterion_main!(benches);
