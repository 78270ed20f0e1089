#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BGV over the rings `Z_q[x]/Phi_m` on the GPU against the CPU, bit for bit: the circuit of
//! `common::phi_m` (keys, encryptions, add/sub/negate, plaintext operations, multiplication
//! with relinearization, modulus switching down the chain, operations between levels,
//! automorphisms by units) checked against plaintext arithmetic modulo `(Phi_m, t)` on each
//! backend, and every key and ciphertext word equal between them (one special prime, and two:
//! hybrid key switching); for rings the GPU opens
//! (`m >= 257`): 315 (`Phi_m` with coefficients beyond `+-1`), 1023 (`2^10 - 1`), 257 (prime,
//! `phi(m) = 2^8` padded to the smallest device row) and HElib's 21845; and the plaintext
//! records of the separate BGV that the one BGV replaced reproduce on the GPU. Needs feature
//! `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
mod common;

#[cfg(feature = "cuda")]
mod on_device {
    use poly::CpuBackend;

    use crate::common::phi_m::{helib_ring_circuit, phi_m_circuit};
    use crate::common::recorded::{HELIB_RECORD, RECORDS, plaintext_record};
    use crate::common::{assert_same, gpu_backend};

    #[test]
    fn circuits_over_phi_m_are_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        for m in [257usize, 315, 1023] {
            for t in [65537u64, 2] {
                let cpu_words = phi_m_circuit(CpuBackend, m, t, &[60]);
                let gpu_words = phi_m_circuit(gpu.clone(), m, t, &[60]);
                assert_same(&cpu_words, &gpu_words, &format!("m = {m}, t = {t}"));
            }
        }
        // Hybrid key switching: two special primes, digits of two primes.
        for m in [257usize, 1023] {
            let cpu_words = phi_m_circuit(CpuBackend, m, 65537, &[60, 60]);
            let gpu_words = phi_m_circuit(gpu.clone(), m, 65537, &[60, 60]);
            assert_same(&cpu_words, &gpu_words, &format!("m = {m}, two special primes"));
        }
    }

    #[test]
    fn helib_ring_21845_is_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        assert_same(&helib_ring_circuit(CpuBackend), &helib_ring_circuit(gpu), "m = 21845");
    }

    /// The plaintext records of the separate BGV that the one BGV replaced (`common::recorded`),
    /// for the recorded rings the GPU opens (`m >= 257`).
    #[test]
    fn recorded_plaintexts_reproduce_on_the_gpu() {
        let Some(gpu) = gpu_backend() else { return };
        let mut checked = 0;
        for (m, t, slots, want) in RECORDS.into_iter().filter(|&(m, ..)| m >= 257) {
            assert_eq!(plaintext_record(gpu.clone(), m, t, 3, slots), want, "m = {m}, t = {t}, slots = {slots}");
            checked += 1;
        }
        assert_eq!(checked, 2);
        assert_eq!(plaintext_record(gpu, 21845, 257, 4, false), HELIB_RECORD);
    }
}
