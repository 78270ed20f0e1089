//! Paired timing of the CPU transforms against fhe-math's NTT, for ratios that hold on a
//! shared, loaded machine: each round times one batch of every implementation back to
//! back (order rotated per round), and a ratio is taken within each round, so load that
//! changes over seconds cancels out. Reports per implementation the median time per
//! polynomial (all limbs) and the median, 10th and 90th percentile of its per-round ratio
//! to fhe-math. Cases and inputs are those of the `transforms` benchmark.
//!
//! `cargo bench -p benches --bench ntt_paired [-- FILTER]`, FILTER a substring of
//! `forward/4096/16x60`-style case names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{LOG_DEGREES, LimbTransform, PRIME_COUNTS, Plans, case_label, primes, random_limbs, transform_limbs};

const ROUNDS: usize = 61;
/// Each batch runs about this long, so timer resolution and scheduling ticks do not matter.
const BATCH_TARGET: Duration = Duration::from_millis(1);

const IMPLEMENTATIONS: [&str; 4] = ["NTT ours", "DGT ours", "HDGT ours", "NTT fhe-math"];

/// Seconds for `iterations` transforms of all limbs with `plans`.
fn time_batch<T: LimbTransform>(plans: &[T], data: &mut [u64], degree: usize, forward: bool, iterations: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..iterations {
        transform_limbs(plans, data, degree, forward);
        black_box(&mut *data);
    }
    start.elapsed().as_secs_f64()
}

fn run_implementation(plans: &Plans, which: usize, data: &mut [u64], degree: usize, forward: bool, n: u32) -> f64 {
    match which {
        0 => time_batch(&plans.ntt, data, degree, forward, n),
        1 => time_batch(&plans.dgt, data, degree, forward, n),
        2 => time_batch(&plans.hdgt, data, degree, forward, n),
        _ => time_batch(&plans.fhe, data, degree, forward, n),
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index]
}

fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

fn format_us(seconds: f64) -> String {
    let us = seconds * 1e6;
    if us >= 100.0 { format!("{us:.0}") } else { format!("{us:.1}") }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let all_primes = primes(PRIME_COUNTS[PRIME_COUNTS.len() - 1]);
    let fhe = IMPLEMENTATIONS.len() - 1;

    print!("| direction | N | primes |");
    for name in IMPLEMENTATIONS {
        print!(" {name} (us) |");
    }
    for name in &IMPLEMENTATIONS[..fhe] {
        print!(" {name} / fhe-math: median [p10, p90] |");
    }
    println!("\n|---|---:|---|{}", "---:|".repeat(IMPLEMENTATIONS.len() + fhe));

    for (direction, forward) in [("forward", true), ("inverse", false)] {
        for log_degree in LOG_DEGREES {
            let degree = 1usize << log_degree;
            for count in PRIME_COUNTS {
                let label = case_label(degree, count);
                if filter.as_ref().is_some_and(|f| !format!("{direction}/{label}").contains(f.as_str())) {
                    continue;
                }
                let primes = &all_primes[..count];
                let plans = Plans::new(primes, degree);
                let mut data = random_limbs(primes, degree, u64::from(log_degree) << 8 | count as u64);

                // Calibrate one batch size for all implementations from fhe-math's speed.
                let once = run_implementation(&plans, fhe, &mut data, degree, forward, 1).max(1e-7);
                let iterations = ((BATCH_TARGET.as_secs_f64() / once).round() as u32).max(1);

                let mut times: Vec<Vec<f64>> = vec![Vec::new(); IMPLEMENTATIONS.len()];
                for round in 0..=ROUNDS {
                    let mut this_round = [0.0; IMPLEMENTATIONS.len()];
                    for k in 0..IMPLEMENTATIONS.len() {
                        let which = (round + k) % IMPLEMENTATIONS.len();
                        this_round[which] = run_implementation(&plans, which, &mut data, degree, forward, iterations)
                            / f64::from(iterations);
                    }
                    if round > 0 {
                        // round 0 warms caches and branch predictors
                        for (which, t) in this_round.iter().enumerate() {
                            times[which].push(*t);
                        }
                    }
                }

                print!("| {direction} | {degree} | {count}x{} |", common::PRIME_BITS);
                for series in &times {
                    print!(" {} |", format_us(percentile(&sorted(series.clone()), 0.5)));
                }
                for series in &times[..fhe] {
                    let ratios = sorted(series.iter().zip(&times[fhe]).map(|(a, b)| a / b).collect());
                    print!(
                        " {:.2} [{:.2}, {:.2}] |",
                        percentile(&ratios, 0.5),
                        percentile(&ratios, 0.1),
                        percentile(&ratios, 0.9)
                    );
                }
                println!();
            }
        }
    }
}
