#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BGV on the GPU against the CPU, bit for bit: with the same seeds, keys, ciphertexts after
//! every operation (modulus switching down the whole chain, relinearization and rotations below
//! the top, balancing of correction factors, switching to and from BFV) and decryptions are
//! equal on both backends, for random parameter sets (proptest: degree, primes, special
//! primes, `t` prime / power of two / 3, transform, seeds); the phase reduction kernel equals
//! the host's on random and edge phases; random circuits reach each preset's estimated depth
//! on the GPU. Needs feature `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
#[path = "../../poly-cuda/tests/common/gpu_cases.rs"]
mod gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use std::sync::Arc;

    use bgv_encrypt::{BgvBackend, BgvParameters, BgvParametersBuilder, DecryptionTables, Preset};
    use poly::{Backend, CpuBackend, Poly, RingContext, TransformKind};
    use poly_cuda::GpuBackend;
    use proptest::prelude::*;

    use crate::common::{random_circuit, session};
    use crate::gpu_cases::{self, Regressions};

    const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu.proptest-regressions"), source: file!() };

    fn gpu_backend() -> Option<GpuBackend> {
        gpu_cases::device().map(GpuBackend::from_device)
    }

    /// A random parameter set: `N = 2^10..2^13`, 2 to 5 ciphertext primes of 40 to 60 bits, 1 to
    /// 3 special primes of 50 to 61 bits, `t` in {65537, 2^16, 3}, NTT/DGT/HDGT, a seed salt.
    fn random_set() -> impl Strategy<Value = (u32, Vec<u32>, Vec<u32>, u64, TransformKind, u64)> {
        let transforms =
            prop_oneof![Just(TransformKind::Ntt), Just(TransformKind::Dgt), Just(TransformKind::HierarchicalDgt)];
        (
            10u32..=13,
            proptest::collection::vec(40u32..=60, 2..=5),
            proptest::collection::vec(50u32..=61, 1..=3),
            proptest::sample::select(vec![65537u64, 1 << 16, 3]),
            transforms,
            any::<u64>(),
        )
    }

    fn build(log_n: u32, bits: &[u32], special: &[u32], t: u64, transform: TransformKind) -> Arc<BgvParameters> {
        BgvParametersBuilder::new(1 << log_n)
            .ciphertext_moduli_bits(bits)
            .special_moduli_bits(special)
            .plaintext_modulus(t)
            .transform(transform)
            .allow_insecure(true)
            .build()
            .unwrap()
    }

    fn compare(gpu: &GpuBackend, params: &Arc<BgvParameters>, salt: u64) {
        let cpu = session(CpuBackend, params, salt);
        let device = session(gpu.clone(), params, salt);
        assert_eq!(cpu.len(), device.len());
        for (i, (c, g)) in cpu.iter().zip(&device).enumerate() {
            assert!(c == g, "{params:?}: item {i} differs between CPU and GPU");
        }
    }

    /// Fixed sets (one and several special primes, each transform) and random ones.
    #[test]
    fn gpu_equals_cpu_on_sessions() {
        let Some(gpu) = gpu_backend() else { return };
        for (bits, special, transform) in [
            (vec![50u32, 45, 45], vec![55u32], TransformKind::Ntt),
            (vec![60, 40, 40, 40], vec![50, 50], TransformKind::Dgt),
            (vec![55, 55], vec![58, 58, 58], TransformKind::HierarchicalDgt),
        ] {
            compare(&gpu, &build(12, &bits, &special, 65537, transform), 0);
        }
        gpu_cases::check(8, REGRESSIONS, random_set(), |(log_n, bits, special, t, transform, salt)| {
            compare(&gpu, &build(log_n, &bits, &special, t, transform), salt);
        });
    }

    /// `bgv_reduce_phase` (kernels/bgv.cu) equals `DecryptionTables::reduce_host` word for word
    /// on uniformly random phases (any value modulo q, edges near +-q/2 included) and on zero,
    /// for 1, 4 and 12 primes and `t` odd prime, power of two, 3 and near 2^60.
    #[test]
    fn gpu_phase_reduction_equals_host() {
        let Some(gpu) = gpu_backend() else { return };
        let degree = 4096;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (count, bits) in [(1usize, 61u32), (4, 45), (12, 60)] {
            let moduli = modarith::generate_ntt_primes(bits, 2 * degree as u64, count, &[]).unwrap();
            let ring = RingContext::new(degree, &moduli, TransformKind::Ntt).unwrap();
            let context = gpu.context(&ring).unwrap();
            let mut words = Vec::with_capacity(count * degree);
            for m in ring.moduli() {
                words.extend((0..degree).map(|j| if j < 4 { 0 } else { next() % m.value() }));
            }
            let host_poly = Poly::from_limbs(&ring, words.clone()).unwrap();
            let device_poly = gpu.upload(&context, &host_poly).unwrap();
            for t in [65537u64, 1 << 16, 3, (1 << 60) - 93] {
                let tables = DecryptionTables::new(&moduli, t).unwrap();
                let prepared = gpu.prepare_decryption(&tables).unwrap();
                for correction_inv in [1u64, t - 1] {
                    let host = tables.reduce_host(&words, degree, correction_inv).unwrap();
                    let device = gpu.reduce_phase(&tables, &prepared, &device_poly, correction_inv).unwrap();
                    assert!(host == device, "{count} x {bits} bits, t {t}");
                }
            }
        }
    }

    /// Random circuits of every preset's estimated depth on the GPU (automatic switching),
    /// checked slot by slot against plaintext arithmetic after every step.
    #[test]
    fn gpu_circuits_reach_each_presets_depth() {
        let Some(gpu) = gpu_backend() else { return };
        let base = gpu_cases::run_seed();
        eprintln!("gpu cases: circuits of seed {base} + preset index (PROPTEST_RNG_SEED={base} draws them again)");
        for (i, preset) in Preset::all().into_iter().enumerate() {
            let params = preset.build().unwrap();
            let depth = params.estimated_depth();
            eprintln!("{}: depth {depth}", preset.name());
            random_circuit(gpu.clone(), &params, depth, base.wrapping_add(i as u64), false);
        }
    }
}
