#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Bluestein transform and its inverse on the GPU equal the CPU reference (`BluesteinPlan::forward`, `inverse`) word
//! for word, over several primes at once, for `m` of one, two and three prime factors with
//! `M = 2^11 .. 2^16` (the last, `m = 21845`, `phi(m) = 2^14`, is one of HElib's); random
//! inputs and the edges 0 and `p - 1`. Needs feature `cuda`; skips, saying so, without a device.

#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
#[test]
fn gpu_bluestein_equals_cpu() {
    use cyclotomic::gpu::GpuBluestein;
    use cyclotomic::{BluesteinPlan, bluestein_primes};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    let Some(device) = gpu_cases::device() else { return };
    let seed = gpu_cases::run_seed();
    eprintln!("gpu cases: gpu_bluestein_equals_cpu: inputs of seed {seed} (PROPTEST_RNG_SEED={seed} draws them again)");
    let mut rng = StdRng::seed_from_u64(seed);
    for (m, count) in [(1023usize, 3usize), (4369, 2), (21845, 3), (3 * 5 * 7 * 11 * 13, 1)] {
        let primes = bluestein_primes(55, m as u64, count).unwrap();
        let gpu = GpuBluestein::new(&device, m, &primes).unwrap();
        let plans: Vec<BluesteinPlan> =
            primes.iter().map(|&p| BluesteinPlan::new(modarith::Modulus::new(p).unwrap(), m).unwrap()).collect();
        for case in 0..3 {
            let mut x = Vec::with_capacity(m * count);
            for &p in &primes {
                x.extend((0..m).map(|j| match (case, j) {
                    (0, 0) => 0,
                    (0, 1) => p - 1,
                    _ => rng.gen_range(0..p),
                }));
            }
            let got = gpu.forward(&x).unwrap();
            let back = gpu.inverse(&x).unwrap();
            for (i, plan) in plans.iter().enumerate() {
                let want = plan.forward(&x[i * m..(i + 1) * m]).unwrap();
                assert!(got[i * m..(i + 1) * m] == want[..], "m = {m}, prime {i}, case {case}: forward");
                let want = plan.inverse(&x[i * m..(i + 1) * m]).unwrap();
                assert!(back[i * m..(i + 1) * m] == want[..], "m = {m}, prime {i}, case {case}: inverse");
            }
            assert!(gpu.inverse(&got).unwrap() == x, "m = {m}, case {case}: inverse(forward(x))");
        }
        assert!(gpu.forward(&vec![0; m * count + 1]).is_err());
    }
}
