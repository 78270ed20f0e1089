#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BGV over `Z_Q[x]/Phi_m` on the GPU (`cyclotomic::gpu::GpuBgv`) equals the CPU reference
//! (`cyclotomic::bgv::Bgv`) bit for bit: public-key encryptions (randomness sampled on the
//! device from the same seeds), sums and tensor products word for word, and decryption on the
//! device (its CRT included) equal to the plaintexts and to plaintext arithmetic modulo
//! `(Phi_m, t)`; then a circuit of depth 2 run wholly on the device (multiply, relinearize,
//! modulus switch, multiply by a ciphertext switched down, relinearize at the lower level,
//! switch again, add across correction factors) with every step's words equal to the CPU's and
//! every step decrypting to the plaintext result. `m = 1023` (three primes, `phi(m) = 600`: the
//! decryption pads rows to 1024) and HElib's `m = 21845` (`phi(m) = 2^14`, four primes, 128-bit
//! secure). Needs feature `cuda`; skips, saying so, without a device.

#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

/// `m = 1023`, three primes (`phi(m) = 600`: decryption pads its rows to 1024).
#[cfg(feature = "cuda")]
#[test]
fn gpu_bgv_equals_cpu_small() {
    gpu_bgv_equals_cpu("gpu_bgv_equals_cpu_small", 1023, 257, 3);
}

/// HElib's `m = 21845`, four primes.
#[cfg(feature = "cuda")]
#[test]
fn gpu_bgv_equals_cpu_helib() {
    gpu_bgv_equals_cpu("gpu_bgv_equals_cpu_helib", 21845, 65537, 4);
}

#[cfg(feature = "cuda")]
fn gpu_bgv_equals_cpu(name: &str, m: usize, t: u64, count: usize) {
    use cyclotomic::bgv::{Bgv, BgvParameters, plain_mul_naive};
    use cyclotomic::gpu::GpuBgv;
    use poly::Seed;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    let Some(device) = gpu_cases::device() else { return };
    let seed = gpu_cases::run_seed();
    eprintln!("gpu cases: {name}: plaintexts of seed {seed} (PROPTEST_RNG_SEED={seed} draws them again)");
    let mut rng = StdRng::seed_from_u64(seed);
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
    let relin_cpu = bgv.relinearize(&cpu_product, &rk).unwrap();
    assert!(gpu.decrypt(&gpu.upload(&relin_cpu).unwrap()).unwrap() == decrypted, "m = {m}: uploaded");
    assert!(gpu.encrypt(&vec![t; n], &enc_seed, 0).is_err());
    assert!(gpu.add(&sum, &product).is_err());
    assert!(gpu.relinearize(&product).is_err(), "m = {m}: relinearization without a key");

    // A circuit on the device, every step against the CPU.
    let mut gpu = gpu;
    let mut short = rk.clone();
    short.digits.pop();
    assert!(gpu.set_relin_key(&short).is_err(), "m = {m}: a key of too few digits");
    gpu.set_relin_key(&rk).unwrap();
    let top = count - 1;
    let relin = gpu.relinearize(&product).unwrap();
    assert!(gpu.download(&relin).unwrap() == relin_cpu, "m = {m}: relinearization");
    assert!(gpu.decrypt(&relin).unwrap() == decrypted, "m = {m}: decrypted relinearization");
    let low = gpu.mod_switch(&relin).unwrap();
    let low_cpu = bgv.mod_switch(&relin_cpu).unwrap();
    assert_eq!(low.level(), top - 1);
    assert!(gpu.download(&low).unwrap() == low_cpu, "m = {m}: modulus switch");
    assert!(gpu.decrypt(&low).unwrap() == decrypted, "m = {m}: decrypted after the switch");
    // Depth 2: times the third ciphertext (switched down by mul), relinearized at level
    // top - 1, switched again.
    let third_cpu = gpu.download(&gpu_cts[2]).unwrap();
    let product2 = gpu.mul(&low, &gpu_cts[2]).unwrap();
    let product2_cpu = bgv.mul(&low_cpu, &third_cpu).unwrap();
    assert!(gpu.download(&product2).unwrap() == product2_cpu, "m = {m}: second tensor product");
    assert!(
        gpu.decrypt(&product2).unwrap() == bgv.decrypt(&product2_cpu, &sk).unwrap(),
        "m = {m}: 3 parts, lower level"
    );
    let relin2 = gpu.relinearize(&product2).unwrap();
    let relin2_cpu = bgv.relinearize(&product2_cpu, &rk).unwrap();
    assert_eq!(relin2.level(), top - 1);
    assert!(gpu.download(&relin2).unwrap() == relin2_cpu, "m = {m}: relinearization at a lower level");
    let low2 = gpu.mod_switch(&relin2).unwrap();
    let low2_cpu = bgv.mod_switch(&relin2_cpu).unwrap();
    assert!(gpu.download(&low2).unwrap() == low2_cpu, "m = {m}: second modulus switch");
    assert_ne!(low2.factor(), 1, "m = {m}: the switches leave a correction factor");
    // Plus a fresh ciphertext switched down (another level, another factor: scaled).
    let total = gpu.add(&low2, &gpu_cts[0]).unwrap();
    let total_cpu = bgv.add(&low2_cpu, &cpu[0]).unwrap();
    assert!(gpu.download(&total).unwrap() == total_cpu, "m = {m}: sum across levels and factors");
    let xyz_gpu = gpu.decrypt(&low2).unwrap();
    let total_gpu = gpu.decrypt(&total).unwrap();
    assert!(xyz_gpu == bgv.decrypt(&low2_cpu, &sk).unwrap(), "m = {m}: depth 2 = CPU");
    assert!(total_gpu == bgv.decrypt(&total_cpu, &sk).unwrap(), "m = {m}: sum = CPU");
    if m == 1023 {
        let xyz = plain_mul_naive(m, t, &decrypted, &plains[2]).unwrap();
        assert!(xyz_gpu == xyz, "m = {m}: depth-2 product");
        let want: Vec<u64> = xyz.iter().zip(&plains[0]).map(|(&a, &b)| (a + b) % t).collect();
        assert!(total_gpu == want, "m = {m}: depth-2 product plus x");
    }
    let bottom = gpu.mod_switch_to(&total, 0).unwrap();
    assert!(gpu.download(&bottom).unwrap() == bgv.mod_switch_to(&total_cpu, 0).unwrap(), "m = {m}: level 0");
    assert!(gpu.decrypt(&bottom).unwrap() == total_gpu, "m = {m}: decrypted at level 0");
    assert!(gpu.mod_switch(&bottom).is_err());
    assert!(gpu.mod_switch_to(&low, top).is_err());
}
