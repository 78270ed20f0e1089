#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The rings `Z_Q[x]/Phi_m` on the GPU (`cyclotomic::gpu::GpuCyclotomic`) equal the CPU
//! reference word for word: the reduction modulo `Phi_m` of polynomials of every length up to
//! `M` (and beyond) against `CyclotomicRing::reduce` (long division) and `reduce_fast`, and
//! the transforms coefficients -> evaluations -> coefficients against `CyclotomicRing::forward`
//! and `inverse`, over several primes and batches of polynomials, for `m` of one to five prime
//! factors up to HElib's `m = 21845` (`phi(m) = 2^14`, `M = 2^16`) and `m = 32767` (`phi(m) =
//! 27000`, `M = 2^16`); random values and the edges 0 and `p - 1`. Needs feature `cuda`;
//! skips, saying so, without a device.

#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
#[test]
fn gpu_cyclotomic_ring_equals_cpu() {
    use cyclotomic::bluestein_primes;
    use cyclotomic::gpu::GpuCyclotomic;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    let Some(device) = gpu_cases::device() else { return };
    let seed = gpu_cases::run_seed();
    eprintln!(
        "gpu cases: gpu_cyclotomic_ring_equals_cpu: inputs of seed {seed} (PROPTEST_RNG_SEED={seed} draws them again)"
    );
    let mut rng = StdRng::seed_from_u64(seed);
    for (m, count) in [(1023usize, 3usize), (4369, 2), (3 * 5 * 7 * 11 * 13, 1), (21845, 3), (32767, 2)] {
        let primes = bluestein_primes(55, m as u64, count).unwrap();
        let gpu = GpuCyclotomic::new(&device, m, &primes).unwrap();
        let rings = gpu.rings();
        let n = gpu.degree();
        let big_m = rings[0].plan().convolution_length();
        let slow = m <= 4369; // the long division is O((m - n) n) per limb on the CPU
        // Reductions: lengths around n, m and M, in batches of two polynomials.
        for len in [1, n, m, 2 * n - 1, 2 * m - 1, big_m, big_m + 5] {
            let mut input = Vec::new();
            for _ in 0..2 {
                for &p in &primes {
                    input.extend((0..len).map(|j| match j {
                        0 => p - 1,
                        1 => 0,
                        _ => rng.gen_range(0..p),
                    }));
                }
            }
            let got = gpu.reduce(&input, len).unwrap();
            for (row, chunk) in input.chunks_exact(len).enumerate() {
                let ring = &rings[row % count];
                let want = ring.reduce_fast(chunk).unwrap();
                assert!(got[row * n..(row + 1) * n] == want[..], "m = {m}, len = {len}, row {row}: reduce");
                if slow {
                    assert!(want == ring.reduce(chunk.to_vec()), "m = {m}, len = {len}: fast = long division");
                }
            }
        }
        // Transforms, a batch of three polynomials.
        let mut coefficients = Vec::new();
        for _ in 0..3 {
            for &p in &primes {
                coefficients.extend((0..n).map(|_| rng.gen_range(0..p)));
            }
        }
        let evaluations = gpu.forward(&coefficients).unwrap();
        let back = gpu.inverse(&evaluations).unwrap();
        assert!(back == coefficients, "m = {m}: inverse(forward(x)) = x");
        let inverse_of_coefficients = gpu.inverse(&coefficients).unwrap();
        for (row, chunk) in coefficients.chunks_exact(n).enumerate() {
            let ring = &rings[row % count];
            assert!(
                evaluations[row * n..(row + 1) * n] == ring.forward(chunk).unwrap()[..],
                "m = {m}, row {row}: forward"
            );
            assert!(
                inverse_of_coefficients[row * n..(row + 1) * n] == ring.inverse(chunk).unwrap()[..],
                "m = {m}, row {row}: inverse"
            );
        }
        assert!(gpu.reduce(&vec![0; count * 7 + 1], 7).is_err());
        assert!(gpu.forward(&vec![primes[0]; count * n]).is_err());
    }
}
