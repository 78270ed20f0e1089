#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BGV over `Z_Q[x]/Phi_m` on the GPU (`cyclotomic::gpu::GpuBgv`) equals the CPU reference
//! (`cyclotomic::bgv::Bgv`) bit for bit: public-key encryptions (randomness sampled on the
//! device from the same seeds), sums and tensor products word for word, and decryption on the
//! device equal to the plaintexts and to plaintext arithmetic modulo `(Phi_m, t)`; the product
//! relinearized on the CPU from the GPU's words decrypts on the GPU. `m = 1023` (three
//! primes) and HElib's `m = 21845` (`phi(m) = 2^14`, four primes, 128-bit secure). Needs
//! feature `cuda`; skips, saying so, without a device.

#[cfg(feature = "cuda")]
#[path = "../../poly-cuda/tests/common/gpu_cases.rs"]
mod gpu_cases;

#[cfg(feature = "cuda")]
#[test]
fn gpu_bgv_equals_cpu() {
    use cyclotomic::bgv::{Bgv, BgvParameters, plain_mul_naive};
    use cyclotomic::gpu::GpuBgv;
    use poly::Seed;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    let Some(device) = gpu_cases::device() else { return };
    let seed = gpu_cases::run_seed();
    eprintln!("gpu cases: gpu_bgv_equals_cpu: plaintexts of seed {seed} (PROPTEST_RNG_SEED={seed} draws them again)");
    let mut rng = StdRng::seed_from_u64(seed);
    for (m, t, count) in [(1023usize, 257u64, 3usize), (21845, 65537, 4)] {
        let bgv = Bgv::new(BgvParameters::generate(m, t, 50, count, 58).unwrap()).unwrap();
        let n = bgv.degree();
        let (sk, pk, rk) = bgv.keygen(&Seed::from([9u8; 32])).unwrap();
        let gpu = GpuBgv::new(&device, &bgv, &pk, Some(&sk)).unwrap();
        let enc_seed = Seed::from([seed as u8; 32]);
        let plains: Vec<Vec<u64>> = (0..3)
            .map(|k| (0..n).map(|j| if k == 0 && j < 2 { [0, t - 1][j] } else { rng.gen_range(0..t) }).collect())
            .collect();
        let mut gpu_cts = Vec::new();
        for (k, plain) in plains.iter().enumerate() {
            let counter = 7 + k as u64;
            let ct = gpu.encrypt(plain, &enc_seed, counter).unwrap();
            let want = bgv.encrypt(&pk, plain, &enc_seed, counter).unwrap();
            assert!(gpu.download(&ct).unwrap() == want, "m = {m}, plaintext {k}: encryption");
            assert!(gpu.decrypt(&ct).unwrap() == *plain, "m = {m}, plaintext {k}: decryption");
            gpu_cts.push(ct);
        }
        let sum = gpu.add(&gpu_cts[0], &gpu_cts[1]).unwrap();
        let cpu = [0, 1].map(|k| gpu.download(&gpu_cts[k]).unwrap());
        assert!(gpu.download(&sum).unwrap() == bgv.add(&cpu[0], &cpu[1]).unwrap(), "m = {m}: sum");
        let want_sum: Vec<u64> = plains[0].iter().zip(&plains[1]).map(|(&a, &b)| (a + b) % t).collect();
        assert!(gpu.decrypt(&sum).unwrap() == want_sum, "m = {m}: decrypted sum");
        let product = gpu.mul(&gpu_cts[0], &gpu_cts[1]).unwrap();
        let cpu_product = bgv.mul(&cpu[0], &cpu[1]).unwrap();
        assert!(gpu.download(&product).unwrap() == cpu_product, "m = {m}: tensor product");
        // The naive product modulo (Phi_m, t) costs O(n^2): checked at the small m, and at
        // m = 21845 against the CPU decryption (itself tested against it in the crate's tests).
        let decrypted = gpu.decrypt(&product).unwrap();
        assert!(decrypted == bgv.decrypt(&cpu_product, &sk).unwrap(), "m = {m}: decrypted product = CPU");
        if m == 1023 {
            assert!(decrypted == plain_mul_naive(m, t, &plains[0], &plains[1]).unwrap(), "m = {m}: product");
        }
        let relin = gpu.upload(&bgv.relinearize(&cpu_product, &rk).unwrap()).unwrap();
        assert!(gpu.decrypt(&relin).unwrap() == decrypted, "m = {m}: relinearized on the CPU");
        assert!(gpu.encrypt(&vec![t; n], &enc_seed, 0).is_err());
        assert!(gpu.add(&sum, &product).is_err());
    }
}
