#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The API every scheme shares on the GPU against the CPU, bit for bit (`common::api`):
//! rotations by any step (the step's key and compositions of the keys held; hoisted, with
//! hoisting forced on below its tuned degree), slot sums, BGV circuits over extension-field
//! slots (`t = p^r`),
//! replication, scalar operations, polynomials (Paterson-Stockmeyer), the operators of a
//! bound evaluator and clones, under BGV
//! and BFV (HPS and BEHZ), each checked against plaintext arithmetic on both backends, and
//! every ciphertext word equal between them; keys whose bytes carry their uniform seeds, the
//! CPU's bytes on both. Needs feature `cuda`; skips, saying so, when no
//! device is found.

#[cfg(feature = "cuda")]
mod common;

#[cfg(feature = "cuda")]
mod on_device {
    use bgv_encrypt::BgvContext;
    use poly::CpuBackend;
    use poly_cuda::GpuBackend;

    use crate::common::api::api_session;
    use crate::common::polynomial::polynomial_session;
    use crate::common::{assert_same, gpu_backend, small_params};

    #[test]
    fn bgv_api_is_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        for (log_n, special) in [(12u32, &[58u32][..]), (13, &[58, 58][..])] {
            let params = small_params(log_n, &[55, 55, 55], special, 65537);
            let cpu = api_session(&BgvContext::new(CpuBackend, &params).unwrap(), 7);
            let gpu_words = api_session(&BgvContext::new(gpu.clone(), &params).unwrap(), 7);
            assert_same(&cpu, &gpu_words, &format!("BGV, N = 2^{log_n}"));
            // rotate_rows_many hoisted at these degrees too (the default tuning hoists from
            // 2^14 up): the same words.
            let mut tuning = poly_cuda::GpuTuning::default();
            tuning.rns.hoisting_min_log_n = 0;
            let hoisting = GpuBackend::from_device(poly_cuda::GpuDevice::with_tuning(0, tuning).unwrap());
            let hoisted_words = api_session(&BgvContext::new(hoisting, &params).unwrap(), 7);
            assert_same(&cpu, &hoisted_words, &format!("BGV, N = 2^{log_n}, hoisting on"));
        }
    }

    /// Keys with their uniform halves as seeds: made on the GPU, the CPU's bytes; the CPU's
    /// bytes loaded on the GPU (the `a_j` sampled there again), the same keys and products.
    #[test]
    fn seeded_keys_are_the_cpus_bytes() {
        let Some(gpu) = gpu_backend() else { return };
        for params in [crate::common::wire::bgv_params(), small_params(13, &[55, 55, 55], &[58, 58], 65537)] {
            let cpu = crate::common::wire::seeded_keys_session(&BgvContext::new(CpuBackend, &params).unwrap());
            let gpu_context = BgvContext::new(gpu.clone(), &params).unwrap();
            let on_gpu = crate::common::wire::seeded_keys_session(&gpu_context);
            assert_same(&cpu, &on_gpu, &format!("seeded keys, N = {}", params.degree()));
            let loaded: bgv_encrypt::RelinKey<GpuBackend> = gpu_context.load_bytes(&cpu[1]).unwrap();
            assert_eq!(gpu_context.to_bytes(&loaded).unwrap(), cpu[1]);
            let galois: bgv_encrypt::GaloisKeys<GpuBackend> = gpu_context.load_bytes(&cpu[2]).unwrap();
            assert_eq!(gpu_context.to_bytes(&galois).unwrap(), cpu[2]);
        }
    }

    /// Hoisted automorphisms through the core (`common::hoisting`): over `Phi_m` (the
    /// Bluestein permutation of a whole batch of digits), over `x^N + 1` with the NTT and the
    /// DGT (inverse, coefficient automorphism, forward), with one-prime and hybrid digits: the
    /// CPU's words.
    #[test]
    fn hoisted_automorphisms_are_the_cpus_words() {
        use crate::common::hoisting::{hoisted_automorphisms, negacyclic_automorphism};
        let Some(gpu) = gpu_backend() else { return };
        let ring = crate::common::phi_m::PlainRing::new(1705, 257);
        let params = crate::common::phi_m::params(1705, &[55, 50, 50], &[56], 257);
        let automorphism = |a: &[u64], g| ring.automorphism(a, g);
        let cpu = hoisted_automorphisms(CpuBackend, &params, &[2, 4, 16, 1704], automorphism);
        let on_gpu = hoisted_automorphisms(gpu.clone(), &params, &[2, 4, 16, 1704], automorphism);
        assert_same(&cpu, &on_gpu, "hoisted, Phi_1705");
        for (transform, special) in [
            (poly::TransformKind::Ntt, &[50u32][..]),
            (poly::TransformKind::Ntt, &[50, 50][..]),
            (poly::TransformKind::Dgt, &[50, 50][..]),
        ] {
            let builder = bgv_encrypt::BgvParametersBuilder::new(1 << 13).transform(transform);
            let params = crate::common::with_moduli(builder, &[50, 45, 45, 45], special, 65537);
            let automorphism = |a: &[u64], g| negacyclic_automorphism(a, g, 65537);
            let elements = [3, 9, 16383, 25];
            let cpu = hoisted_automorphisms(CpuBackend, &params, &elements, automorphism);
            let on_gpu = hoisted_automorphisms(gpu.clone(), &params, &elements, automorphism);
            assert_same(&cpu, &on_gpu, &format!("hoisted, {transform:?}, {} special", special.len()));
        }
    }

    /// BGV with `t = p^r` over extension-field slots (`common::extension`), both ring kinds:
    /// random circuits of products, plaintext products, rotations and the Frobenius, checked
    /// slot by slot on both backends, every ciphertext the CPU's words.
    #[test]
    fn extension_field_slots_are_the_cpus_words() {
        use crate::common::extension::extension_circuit;
        let Some(gpu) = gpu_backend() else { return };
        let sets = [
            (small_params(10, &[60, 50, 50, 50], &[60], 257 * 257), vec![257u64, 5, 2047, 25]),
            (crate::common::phi_m::params(1705, &[60, 50, 50, 50], &[60], 256), vec![2, 4, 3, 1704]),
        ];
        for (i, (params, elements)) in sets.iter().enumerate() {
            let (cpu, cpu_products) = extension_circuit(CpuBackend, params, elements, 40, 10 + i as u64);
            let (on_gpu, gpu_products) = extension_circuit(gpu.clone(), params, elements, 40, 10 + i as u64);
            assert_eq!(cpu_products, gpu_products);
            assert_same(&cpu, &on_gpu, &format!("extension-field slots, set {i}"));
        }
    }

    /// Digit extraction's polynomial (Chen-Han, by Paterson-Stockmeyer) on slots of constants,
    /// `t = 2^8` over `Phi_1705` and `t = 97^2` over `x^1024 + 1`: the lowest digit in every
    /// slot on both backends, the CPU's words.
    #[test]
    fn lowest_digits_are_the_cpus_words() {
        use crate::common::extension::lowest_digits_of_constant_slots;
        let Some(gpu) = gpu_backend() else { return };
        let sets = [
            (crate::common::phi_m::params(1705, &[60, 50, 50, 50, 50, 50], &[60], 256), 2u64, 8u32),
            (small_params(10, &[60, 50, 50, 50, 50, 50, 50, 50, 50, 50], &[60], 97 * 97), 97, 2),
        ];
        for (i, (params, p, e)) in sets.iter().enumerate() {
            let cpu = lowest_digits_of_constant_slots(CpuBackend, params, *p, *e, i as u64);
            let on_gpu = lowest_digits_of_constant_slots(gpu.clone(), params, *p, *e, i as u64);
            assert_same(&cpu.0, &on_gpu.0, &format!("lowest digits, t = {p}^{e}"));
        }
    }

    /// One step of digit extraction (the lowest digit removed by its polynomial, the plaintext
    /// space divided by 2; `common::extension::digit_step_on_constant_slots`): the CPU's words.
    #[test]
    fn digit_step_is_the_cpus_words() {
        use crate::common::extension::digit_step_on_constant_slots;
        let Some(gpu) = gpu_backend() else { return };
        let cpu = digit_step_on_constant_slots(CpuBackend, 3);
        assert_same(&cpu, &digit_step_on_constant_slots(gpu.clone(), 3), "digit step");
        let cpu = crate::common::extension::digits_removed_from_constant_slots(CpuBackend, 4);
        let on_gpu = crate::common::extension::digits_removed_from_constant_slots(gpu.clone(), 4);
        assert_same(&cpu, &on_gpu, "three digits removed");
    }

    /// Bootstrapping's first step (`common::raise`: a bottom-level ciphertext of `t = 9` raised
    /// to `3^8` at the top over `x^4096 + 1`, and of `t = 4` to `2^12` over `Phi_1705`, the
    /// message in the high digits): the CPU's words.
    #[test]
    fn raised_ciphertext_is_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        let (cpu, _) = crate::common::raise::raised_to_the_top(CpuBackend);
        let (on_gpu, _) = crate::common::raise::raised_to_the_top(gpu.clone());
        assert_same(&cpu, &on_gpu, "raised ciphertext");
        let (cpu, _) = crate::common::raise::raised_over_phi_m(CpuBackend);
        let (on_gpu, _) = crate::common::raise::raised_over_phi_m(gpu.clone());
        assert_same(&cpu, &on_gpu, "raised ciphertext over Phi_1705");
    }

    /// Rotations, shifts, the Frobenius, total sums and replication on extension-field slots
    /// (`common::hypercube`), good and bad dimensions: the CPU's words.
    #[test]
    fn hypercube_operations_are_the_cpus_words() {
        use crate::common::hypercube::hypercube_session;
        let Some(gpu) = gpu_backend() else { return };
        let params = crate::common::phi_m::params(1705, &[60, 50, 50, 50], &[60], 256);
        let rotations = [(0, 1), (0, 7), (1, 1)];
        let cpu = hypercube_session(CpuBackend, &params, &rotations, true, 1);
        assert_same(&cpu, &hypercube_session(gpu.clone(), &params, &rotations, true, 1), "hypercube, Phi_1705");
        let params = small_params(10, &[60, 50, 50, 50], &[60], 257);
        let rotations = [(0, 1), (0, 5), (1, 1)];
        let cpu = hypercube_session(CpuBackend, &params, &rotations, false, 2);
        assert_same(&cpu, &hypercube_session(gpu.clone(), &params, &rotations, false, 2), "hypercube, x^1024 + 1");
    }

    /// Polynomials by Paterson-Stockmeyer (`common::polynomial`) under BGV and BFV (HPS and
    /// BEHZ): checked against the plaintext polynomial on both backends, the same words.
    #[test]
    fn polynomials_are_the_cpus_words() {
        let Some(gpu) = gpu_backend() else { return };
        let bgv = small_params(12, &[50, 50, 50, 50, 50, 50, 50, 50], &[58], 65537);
        let cpu = polynomial_session(&BgvContext::new(CpuBackend, &bgv).unwrap(), 1);
        assert_same(&cpu, &polynomial_session(&BgvContext::new(gpu.clone(), &bgv).unwrap(), 1), "BGV polynomials");
        for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
            let params = bfv::BfvParameters::from_core(bgv.core(), 65537, variant).unwrap();
            let cpu = polynomial_session(&bfv::BfvContext::new(CpuBackend, &params).unwrap(), 2);
            let gpu_words = polynomial_session(&bfv::BfvContext::new(gpu.clone(), &params).unwrap(), 2);
            assert_same(&cpu, &gpu_words, &format!("BFV {variant:?} polynomials"));
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
            let mut tuning = poly_cuda::GpuTuning::default();
            tuning.rns.hoisting_min_log_n = 0;
            let hoisting = GpuBackend::from_device(poly_cuda::GpuDevice::with_tuning(0, tuning).unwrap());
            let hoisted_words = api_session(&bfv::BfvContext::new(hoisting, &params).unwrap(), 8);
            assert_same(&cpu, &hoisted_words, &format!("BFV {variant:?}, hoisting on"));
        }
    }
}
