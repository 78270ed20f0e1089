#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Scheme switching on the GPU against the CPU, bit for bit: with the same seeds, a BGV product
//! switched to BFV below the top level and back, and a BFV product switched to BGV, give the
//! same polynomials, correction factors and decryptions on both backends, for NTT, DGT and
//! hierarchical DGT rings and `t` prime, a power of two and 3; and the round trips of the CPU
//! test and the circuit written once over `rlwe::Evaluator` decrypt right under both schemes on
//! the GPU. Needs feature `cuda`; skips, saying so, when no device is
//! found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use bgv_encrypt::BgvParametersBuilder;
    use poly::{CpuBackend, TransformKind};
    use poly_cuda::GpuBackend;

    use crate::common::{bfv_bgv_round_trips, bfv_twin, one_circuit, small_params, switching_session};
    use crate::gpu_cases;

    fn gpu_backend() -> Option<GpuBackend> {
        gpu_cases::device().map(GpuBackend::from_device)
    }

    #[test]
    fn gpu_switching_equals_cpu() {
        let Some(gpu) = gpu_backend() else { return };
        let transforms = [TransformKind::Ntt, TransformKind::Dgt, TransformKind::HierarchicalDgt];
        for (i, (transform, t)) in transforms.into_iter().zip([65_537u64, 1 << 16, 3]).enumerate() {
            let params = BgvParametersBuilder::new(1 << (11 + i))
                .ciphertext_moduli_bits(&[55, 50, 50])
                .special_moduli_bits(&[58])
                .plaintext_modulus(t)
                .transform(transform)
                .allow_insecure(true)
                .build()
                .unwrap();
            let cpu = switching_session(CpuBackend, &params);
            let device = switching_session(gpu.clone(), &params);
            assert_eq!(cpu.len(), device.len());
            for (j, (a, b)) in cpu.iter().zip(&device).enumerate() {
                assert!(a == b, "{transform:?}, t = {t}: output {j} differs");
            }
        }
    }

    #[test]
    fn gpu_round_trips_decrypt_right() {
        let Some(gpu) = gpu_backend() else { return };
        bfv_bgv_round_trips(gpu, 2);
    }

    /// The circuit written once over `rlwe::Evaluator` under BFV and BGV on the GPU: both give
    /// the plaintext result (checked inside), the same slots as on the CPU.
    #[test]
    fn gpu_one_circuit_under_either_scheme() {
        let Some(gpu) = gpu_backend() else { return };
        let params = small_params(12, &[55, 55, 55, 55], &[58], 65537);
        let bgv = bgv_encrypt::BgvContext::new(gpu.clone(), &params).unwrap();
        let bfv_context = bfv::BfvContext::new(gpu, &bfv_twin(&params)).unwrap();
        let cpu = one_circuit(&bgv_encrypt::BgvContext::new(CpuBackend, &params).unwrap(), 65537, 5);
        assert_eq!(one_circuit(&bgv, 65537, 5), cpu);
        assert_eq!(one_circuit(&bfv_context, 65537, 5), cpu);
    }
}
