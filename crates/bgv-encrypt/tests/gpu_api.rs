#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The API every scheme shares on the GPU against the CPU, bit for bit (`common::api`):
//! rotations by any step (the step's key and compositions of the keys held), slot sums,
//! replication, scalar operations, the operators of a bound evaluator and clones, under BGV
//! and BFV (HPS and BEHZ), each checked against plaintext arithmetic on both backends, and
//! every ciphertext word equal between them. Needs feature `cuda`; skips, saying so, when no
//! device is found.

#[cfg(feature = "cuda")]
mod common;

#[cfg(feature = "cuda")]
mod on_device {
    use bgv_encrypt::BgvContext;
    use poly::CpuBackend;
    use poly_cuda::GpuBackend;

    use crate::common::api::api_session;
    use crate::common::small_params;

    fn gpu_backend() -> Option<GpuBackend> {
        hegpu_test_support::gpu_cases::device().map(GpuBackend::from_device)
    }

    fn assert_same(cpu: &[Vec<u64>], gpu: &[Vec<u64>], what: &str) {
        assert_eq!(cpu.len(), gpu.len(), "{what}: number of records");
        for (i, (c, g)) in cpu.iter().zip(gpu).enumerate() {
            assert!(c == g, "{what}: record {i} differs between CPU and GPU");
        }
    }

    #[test]
    fn bgv_api_is_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        for (log_n, special) in [(12u32, &[58u32][..]), (13, &[58, 58][..])] {
            let params = small_params(log_n, &[55, 55, 55], special, 65537);
            let cpu = api_session(&BgvContext::new(CpuBackend, &params).unwrap(), 7);
            let gpu_words = api_session(&BgvContext::new(gpu.clone(), &params).unwrap(), 7);
            assert_same(&cpu, &gpu_words, &format!("BGV, N = 2^{log_n}"));
        }
    }

    #[test]
    fn bfv_api_is_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
            let bgv = small_params(12, &[55, 55, 55], &[58], 65537);
            let params = bfv::BfvParameters::from_core(bgv.core(), 65537, variant).unwrap();
            let cpu = api_session(&bfv::BfvContext::new(CpuBackend, &params).unwrap(), 8);
            let gpu_words = api_session(&bfv::BfvContext::new(gpu.clone(), &params).unwrap(), 8);
            assert_same(&cpu, &gpu_words, &format!("BFV {variant:?}"));
        }
    }
}
