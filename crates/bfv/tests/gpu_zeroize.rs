#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Secrets on the device are overwritten before their memory goes back to the stream-ordered
//! pool (`RlweBackend::zeroize`): after a GPU secret key is dropped, and after relinearization
//! and Galois key generation (their scratch `s^2`, `s` in the coefficient representation and
//! `s(x^g)`), no block that the pool hands out next holds any of their words. A control
//! polynomial freed the same way but not zeroized must be found by the same search, so the
//! search does see freed blocks: without the zeroization the secret would be found too.
//!
//! One test in a binary of its own: the pool belongs to the device, which every test of a
//! binary shares, and a parallel test could take the freed blocks first. Needs feature
//! `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use bfv::{BfvContext, Preset};
    use poly::{Backend, CpuBackend, Eval, Poly, Representation, Seed};
    use poly_cuda::{DevicePoly, GpuBackend, GpuDevice};

    use crate::gpu_cases;

    /// Words compared per search: 16 consecutive words of a limb (1024 bits of a secret).
    const SIGNATURE: usize = 16;
    /// Blocks of each size taken from the pool after a step (a few tens of MiB at `N = 4096`).
    const BLOCKS: usize = 256;

    fn seed(byte: u8) -> Seed {
        Seed::from([byte; 32])
    }

    /// The first words of every limb of `poly`: what the search looks for.
    fn signatures<R: Representation>(poly: &Poly<R>) -> Vec<Vec<u64>> {
        let n = poly.context().degree();
        poly.as_slice().chunks_exact(n).map(|limb| limb[..SIGNATURE].to_vec()).collect()
    }

    /// The words of `BLOCKS` fresh device allocations of each of `sizes` words, all held at once
    /// (so each is other memory): what the pool hands out after the step under test.
    fn reused_blocks(device: &GpuDevice, sizes: &[usize]) -> Vec<Vec<u64>> {
        device.synchronize().unwrap();
        let mut blocks = Vec::new();
        for &words in sizes {
            for _ in 0..BLOCKS {
                // SAFETY: the words are only read (downloaded), never interpreted as anything
                // but u64, which every bit pattern is.
                blocks.push(unsafe { device.stream().alloc::<u64>(words) }.unwrap());
            }
        }
        blocks.iter().map(|block| device.download_words(block).unwrap()).collect()
    }

    fn found(blocks: &[Vec<u64>], signature: &[u64]) -> bool {
        blocks.iter().any(|block| block.windows(signature.len()).any(|window| window == signature))
    }

    /// A polynomial of `ring` with distinctive words, uploaded and freed without zeroizing.
    fn control(gpu: &GpuBackend, ring: &poly_cuda::GpuContext, salt: u64) -> Vec<Vec<u64>> {
        let host_ring = gpu.ring(ring);
        let words: Vec<u64> = (0..host_ring.poly_len() as u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) % host_ring.moduli()[0].value())
            .collect();
        let host = Poly::<Eval>::from_limbs(host_ring, words).unwrap();
        let signatures = signatures(&host);
        drop(DevicePoly::upload(ring, &host).unwrap());
        signatures
    }

    /// Checks the blocks after a step: the control is found, none of `secrets` is.
    fn check(blocks: &[Vec<u64>], control: &[Vec<u64>], secrets: &[(&str, Vec<Vec<u64>>)]) {
        assert!(
            control.iter().any(|signature| found(blocks, signature)),
            "no freed block came back from the pool: the search cannot tell whether secrets were cleared"
        );
        for (what, limbs) in secrets {
            for (limb, signature) in limbs.iter().enumerate() {
                assert!(!found(blocks, signature), "{what} (limb {limb}) is still in freed device memory");
            }
        }
    }

    #[test]
    fn gpu_secrets_are_overwritten_before_their_memory_is_freed() {
        let Some(device) = gpu_cases::device() else { return };
        let gpu = GpuBackend::from_device(device.clone());
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let context = BfvContext::new(gpu.clone(), &params).unwrap();
        let core = context.core();
        let sizes = [params.ring_q().poly_len(), params.core().ring_qp().poly_len()];

        // 1. A secret key, dropped.
        device.trim_memory_pool(0).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let s_q = gpu.download(secret.s_q()).unwrap();
        let s_qp = gpu.download(secret.s_qp()).unwrap();
        let control_q = control(&gpu, core.ring_q(), 1);
        drop(secret);
        let blocks = reused_blocks(&device, &sizes);
        let s_q_coefficients = CpuBackend.inverse(s_q.clone()).unwrap();
        check(
            &blocks,
            &control_q,
            &[
                ("s over q", signatures(&s_q)),
                ("s over qP", signatures(&s_qp)),
                ("s over q (coefficients, as sampled)", signatures(&s_q_coefficients)),
            ],
        );
        drop(blocks);

        // 2. Relinearization key generation: s^2 over qP.
        let secret = context.secret_key_from_seed(&seed(2)).unwrap();
        let s_qp = gpu.download(secret.s_qp()).unwrap();
        let s_squared = CpuBackend.mul(&s_qp, &s_qp).unwrap();
        device.trim_memory_pool(0).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let control_qp = control(&gpu, core.ring_qp(), 2);
        let blocks = reused_blocks(&device, &sizes);
        check(&blocks, &control_qp, &[("s^2", signatures(&s_squared))]);
        drop((blocks, relin));

        // 3. Galois key generation: s in the coefficient representation and s(x^g).
        let element = context.galois_element_for_row_rotation(1);
        let s_coefficients = CpuBackend.inverse(s_qp.clone()).unwrap();
        let permuted = CpuBackend.forward(CpuBackend.automorphism(&s_coefficients, element).unwrap()).unwrap();
        device.trim_memory_pool(0).unwrap();
        let galois = context.galois_keys_from_seed(&secret, &[element], &seed(4)).unwrap();
        let control_qp = control(&gpu, core.ring_qp(), 3);
        let blocks = reused_blocks(&device, &sizes);
        check(
            &blocks,
            &control_qp,
            &[("s (coefficients)", signatures(&s_coefficients)), ("s(x^g)", signatures(&permuted))],
        );
        drop((blocks, galois, secret));
    }
}
