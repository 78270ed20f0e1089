#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! BGV on the GPU against the CPU, bit for bit: with the same seeds, keys, ciphertexts after
//! every operation (modulus switching down the whole chain, relinearization and rotations below
//! the top, balancing of correction factors) and decryptions are
//! equal on both backends, for random parameter sets (proptest: degree, primes, special
//! primes, `t` prime / power of two / 3, transform, seeds); the phase reduction kernel equals
//! the host's on random and edge phases; random circuits reach each preset's estimated depth
//! on the GPU. Needs feature `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use std::sync::Arc;

    use bgv_encrypt::backend::DecryptionTables;
    use bgv_encrypt::{BgvBackend, BgvParameters, BgvParametersBuilder, Preset};
    use poly::{Backend, CpuBackend, Eval, Poly, RingContext, TransformKind};
    use poly_cuda::GpuBackend;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use crate::common::{gpu_backend, random_circuit, session};
    use crate::gpu_cases::{self, Regressions};

    const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu.proptest-regressions"), source: file!() };

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

    /// The words of `n` products `c_i c_{i+1}` (relinearized) and rotations of `c_i` by one row
    /// step and by two, with keys and ciphertexts from fixed seeds; on the GPU from three host
    /// threads sharing one context: one multiplies, one rotates, one adds meanwhile (work on
    /// the device's stream while the others record their key switches as graphs).
    fn products_and_rotations<B>(
        backend: B,
        params: &Arc<BgvParameters>,
        n: usize,
        threads: bool,
    ) -> (Vec<Vec<u64>>, Vec<Vec<u64>>)
    where
        B: BgvBackend + Send + Sync,
        B::Poly<poly::Eval>: Send + Sync,
        B::Poly<poly::Coeff>: Send + Sync,
        bgv_encrypt::BgvContext<B>: Sync,
    {
        use crate::common::salted;
        let context = bgv_encrypt::BgvContext::new(backend, params).unwrap();
        let encoder = bgv_encrypt::CoefficientEncoder::new(params);
        let t = params.plaintext_modulus();
        let sk = context.secret_key_from_seed(&salted(1, 77)).unwrap();
        let pk = context.public_key_from_seed(&sk, &salted(2, 77)).unwrap();
        let rk = context.relin_key_from_seed(&sk, &salted(3, 77)).unwrap();
        let steps = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_rotation(2)];
        let gk = context.galois_keys_from_seed(&sk, &steps, &salted(4, 77)).unwrap();
        let values: Vec<Vec<u64>> =
            (0..=n).map(|i| (0..params.degree() as u64).map(|j| (j * (i as u64 + 3) + 1) % t).collect()).collect();
        let cts: Vec<_> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                context.encrypt_with_seed(&encoder.encode(v).unwrap(), &pk, &salted(10 + i as u8, 77)).unwrap()
            })
            .collect();
        let words = |ct: &bgv_encrypt::Ciphertext<B>| -> Vec<u64> {
            context.download(ct).unwrap().into_iter().flat_map(|p| p.into_vec()).collect()
        };
        let multiply = || -> Vec<Vec<u64>> {
            (0..n).map(|i| words(&context.mul_relin(&cts[i], &cts[i + 1], &rk).unwrap())).collect()
        };
        let rotate = || -> Vec<Vec<u64>> {
            (0..n).flat_map(|i| [1, 2].map(|step| words(&context.rotate_rows(&cts[i], step, &gk).unwrap()))).collect()
        };
        if !threads {
            return (multiply(), rotate());
        }
        std::thread::scope(|scope| {
            let products = scope.spawn(multiply);
            let rotations = scope.spawn(rotate);
            let sums = scope.spawn(|| {
                for i in 0..4 * n {
                    let (x, y) = (i % n, i % n + 1);
                    let sum = context.add(&cts[x], &cts[y]).unwrap();
                    let want: Vec<u64> = values[x].iter().zip(&values[y]).map(|(a, b)| (a + b) % t).collect();
                    assert_eq!(encoder.decode(&context.decrypt(&sum, &sk).unwrap()).unwrap(), want, "sum {i}");
                }
            });
            sums.join().unwrap();
            (products.join().unwrap(), rotations.join().unwrap())
        })
    }

    /// Key switching recorded as CUDA graphs and replayed (`GpuKeySwitch::switch_key_eval` at
    /// `N <= 2^14`): every replay follows its own inputs and keys (two Galois keys, fresh
    /// ciphertexts each call), also with three host threads on one context, word for word
    /// the CPU's.
    #[test]
    fn replayed_key_switching_follows_inputs_keys_and_threads() {
        let Some(gpu) = gpu_backend() else { return };
        for params in [
            Preset::Phantom { log_degree: 12 }.build().unwrap(),
            build(13, &[50, 50, 50, 50], &[55, 55], 65537, TransformKind::Ntt),
            // The largest degree replayed by default (GpuKeySwitch::EVAL_REPLAY_MAX_DEGREE).
            Preset::Phantom { log_degree: 14 }.build().unwrap(),
        ] {
            let expected = products_and_rotations(CpuBackend, &params, 4, false);
            let single = products_and_rotations(gpu.clone(), &params, 4, false);
            assert!(single == expected, "{params:?}: one thread: GPU differs from CPU");
            let threaded = products_and_rotations(gpu.clone(), &params, 4, true);
            assert!(threaded == expected, "{params:?}: three threads: GPU differs from CPU");
        }
    }

    /// Decryption recorded as a CUDA graph and re-pointed at each call's operands
    /// (`decrypt_resident`, here at `N <= 2^14`): many ciphertexts decrypted back to back before any
    /// result is read, at the top and one level down (another context and correction factor),
    /// from one thread and from three at once;
    /// each plaintext equals its message and the direct path's (`decrypt`). 2^12 runs the lift
    /// fused into the transform, 2^13 and 2^14 the scaled transform and the phase reduction;
    /// DGT rings are not recorded (no fused scale) and run directly. 2^15 is above the replay
    /// bound: there the direct path shares the level's cached scratch between the calls and
    /// the threads.
    #[test]
    fn replayed_decryption_follows_ciphertexts_levels_and_threads() {
        use crate::common::salted;
        let Some(gpu) = gpu_backend() else { return };
        for params in [
            Preset::Phantom { log_degree: 12 }.build().unwrap(),
            build(13, &[50, 50, 50, 50], &[55, 55], 65537, TransformKind::Ntt),
            Preset::Phantom { log_degree: 14 }.build().unwrap(),
            Preset::Phantom { log_degree: 15 }.build().unwrap(),
            build(12, &[50, 45, 45], &[55], 65537, TransformKind::Dgt),
        ] {
            let context = bgv_encrypt::BgvContext::new(gpu.clone(), &params).unwrap();
            let encoder = bgv_encrypt::CoefficientEncoder::new(&params);
            let t = params.plaintext_modulus();
            let sk = context.secret_key_from_seed(&salted(1, 91)).unwrap();
            let pk = context.public_key_from_seed(&sk, &salted(2, 91)).unwrap();
            let messages: Vec<Vec<u64>> =
                (0..6u64).map(|i| (0..params.degree() as u64).map(|j| (j * j * (i + 5) + i) % t).collect()).collect();
            let top: Vec<_> = messages
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    context.encrypt_with_seed(&encoder.encode(m).unwrap(), &pk, &salted(10 + i as u8, 91)).unwrap()
                })
                .collect();
            // One level down: another level's tables and context, correction factor q_l^-1.
            let lower: Vec<_> = top.iter().map(|c| context.mod_switch_to_next(c).unwrap()).collect();
            let check = |label: &str| {
                for (level, cts) in [("top", &top), ("one down", &lower)] {
                    let resident: Vec<_> = cts.iter().map(|c| context.decrypt_resident(c, &sk).unwrap()).collect();
                    for (i, (plain, c)) in resident.iter().zip(cts.iter()).enumerate() {
                        let plain = plain.to_plaintext().unwrap();
                        let direct = context.decrypt(c, &sk).unwrap();
                        assert!(plain == direct, "{params:?}: {label}, {level}, ciphertext {i}: replay != direct");
                        assert_eq!(encoder.decode(&plain).unwrap(), messages[i], "{label}, {level}, ciphertext {i}");
                    }
                }
            };
            check("one thread");
            std::thread::scope(|scope| {
                for thread in 0..3 {
                    let check = &check;
                    scope.spawn(move || check(&format!("thread {thread}")));
                }
            });
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
    /// for 1 to 63 primes and `t` odd prime, power of two, 3 and near 2^60.
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
        // Both sums of the kernel: one-word products (small primes and t) and wide ones.
        let (mut narrow, mut wide) = (0, 0);
        // 1..63 primes: 1, 2, 4 and 8 threads per coefficient (backend::reduce_phase_config).
        for (count, bits) in [(1usize, 61u32), (4, 45), (12, 60), (16, 50), (40, 60), (63, 61)] {
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
                if tables.narrow_products() {
                    narrow += 1
                } else {
                    wide += 1
                }
                let prepared = gpu.prepare_decryption(&tables).unwrap();
                for correction_inv in [1u64, t - 1] {
                    let host = tables.reduce_host(&words, degree, correction_inv).unwrap();
                    let device = gpu.reduce_phase(&tables, &prepared, &device_poly, correction_inv).unwrap();
                    assert!(host == device, "{count} x {bits} bits, t {t}");
                }
            }
        }
        assert!(narrow > 0 && wide > 0, "{narrow} narrow and {wide} wide tables");
    }

    /// The fused decryption (`BgvBackend::decrypt_words` and `decrypt_words_resident`: the
    /// inverse transform with `(q/q_i)^{-1}` folded into its last stage, then the phase
    /// reduction of the scaled words) equals `reduce_host` of the CPU's phase
    /// `inverse(c_0 + acc s)` word for word: random operands (edges near +-q/2 through
    /// `acc = 0`), 1 to 40 primes, NTT and DGT rings (the DGT's per-limb scaling after the
    /// inverse), `t` odd prime, power of two and near 2^60; resident decryptions queued back to
    /// back decrypt the same; operands of a second context over the same primes (the cached
    /// scale is the first's) decrypt the same.
    #[test]
    fn gpu_fused_decryption_equals_host() {
        let Some(gpu) = gpu_backend() else { return };
        let mut rng = StdRng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        for (log_n, count, bits, transform) in [
            (12u32, 1usize, 61u32, TransformKind::Ntt),
            (12, 4, 45, TransformKind::Ntt),
            (13, 12, 60, TransformKind::Ntt),
            (14, 40, 55, TransformKind::Ntt),
            // Above the replay bound: the direct path through the level's cached scratch.
            (15, 16, 40, TransformKind::Ntt),
            (16, 33, 36, TransformKind::Ntt),
            (12, 4, 50, TransformKind::Dgt),
        ] {
            let degree = 1usize << log_n;
            let moduli = modarith::generate_ntt_primes(bits, 4 * degree as u64, count, &[]).unwrap();
            let ring = RingContext::new(degree, &moduli, transform).unwrap();
            let context = gpu.context(&ring).unwrap();
            let mut random = |zero: bool| {
                let words = ring
                    .moduli()
                    .iter()
                    .flat_map(|m| {
                        (0..degree).map(|_| if zero { 0 } else { rng.gen_range(0..m.value()) }).collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>();
                Poly::<Eval>::from_limbs(&ring, words).unwrap()
            };
            for zero_acc in [false, true] {
                let (c0, acc, s) = (random(false), random(zero_acc), random(false));
                let mut phase = c0.clone();
                phase.mul_add_assign(&acc, &s).unwrap();
                let phase = phase.inverse().unwrap();
                let operands = [&c0, &acc, &s].map(|p| gpu.upload(&context, p).unwrap());
                let operands = [&operands[0], &operands[1], &operands[2]];
                for t in [65537u64, 1 << 16, (1 << 60) - 93] {
                    let tables = DecryptionTables::new(&moduli, t).unwrap();
                    let prepared = gpu.prepare_decryption(&tables).unwrap();
                    let label = format!("N = 2^{log_n}, {count} x {bits} bits, {transform:?}, t {t}, acc 0 {zero_acc}");
                    let host = tables.reduce_host(phase.as_slice(), degree, t - 1).unwrap();
                    let device = gpu.decrypt_words(&tables, &prepared, operands, t - 1).unwrap();
                    assert!(host == device, "{label}: decrypt_words");
                    let resident = gpu.decrypt_words_resident(&tables, &prepared, operands, t - 1).unwrap();
                    assert!(
                        host == rlwe::PlaintextBackend::download_plain_words(&gpu, &resident).unwrap(),
                        "{label}: decrypt_words_resident"
                    );
                    // Two more queued back to back before either is read (as a benchmark's loop
                    // does): replayed, or through the one cached scratch in stream order.
                    let again =
                        [0, 1].map(|_| gpu.decrypt_words_resident(&tables, &prepared, operands, t - 1).unwrap());
                    for words in &again {
                        let words = rlwe::PlaintextBackend::download_plain_words(&gpu, words).unwrap();
                        assert!(host == words, "{label}: decrypt_words_resident again");
                    }
                    // Operands of another context over the same primes: a scale of their own.
                    let other = poly_cuda::GpuContext::new(gpu.device(), &ring).unwrap();
                    let moved = [&c0, &acc, &s].map(|p| poly_cuda::DevicePoly::upload(&other, p).unwrap());
                    let moved = [&moved[0], &moved[1], &moved[2]];
                    let device = gpu.decrypt_words(&tables, &prepared, moved, t - 1).unwrap();
                    assert!(host == device, "{label}: decrypt_words, another context");
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

    /// Every object of one session made from seeds (plaintext, ciphertexts at the top, one
    /// level down and of three polynomials, a seeded ciphertext, the four keys), serialized
    /// through postcard and JSON by its context: `(postcard, JSON)` per object, in that order.
    #[cfg(feature = "serde")]
    fn serialized_session<B: BgvBackend>(backend: B) -> Vec<(Vec<u8>, Vec<u8>)> {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let c = bgv_encrypt::BgvContext::new(backend, &params).unwrap();
        let seed = |byte: u8| poly::Seed::from([byte; 32]);
        let plain = bgv_encrypt::BatchEncoder::new(&params).unwrap().encode(&[5, 6, 7]).unwrap();
        let secret = c.secret_key_from_seed(&seed(1)).unwrap();
        let public = c.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = c.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let elements = [c.galois_element_for_row_rotation(1), c.galois_element_for_row_swap()];
        let galois = c.galois_keys_from_seed(&secret, &elements, &seed(4)).unwrap();
        let top = c.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
        let low = c.mod_switch_to_next(&top).unwrap();
        let product = c.mul(&top, &top).unwrap();
        let seeded = c.encrypt_symmetric_with_seeds(&plain, &secret, &seed(6), &seed(7)).unwrap();
        use erased::Both;
        vec![
            c.serializable(&plain).both(),
            c.serializable(&top).both(),
            c.serializable(&low).both(),
            c.serializable(&product).both(),
            c.serializable(&seeded).both(),
            c.serializable(&public).both(),
            c.serializable(&relin).both(),
            c.serializable(&galois).both(),
            c.serializable(&secret).both(),
        ]
    }

    /// A `Serialize` view written through postcard and JSON.
    #[cfg(feature = "serde")]
    mod erased {
        pub trait Both {
            fn both(&self) -> (Vec<u8>, Vec<u8>);
        }

        impl<T: serde::Serialize> Both for T {
            fn both(&self) -> (Vec<u8>, Vec<u8>) {
                (postcard::to_allocvec(self).unwrap(), serde_json::to_vec(self).unwrap())
            }
        }
    }

    /// `bytes` (postcard) loaded as a `T` by `context`'s seed, then serialized again.
    #[cfg(feature = "serde")]
    fn reloaded<C: rlwe::serde_support::Codec<T>, T>(context: &C, bytes: &[u8]) -> Vec<u8> {
        use rlwe::serde_support::{ContextSeed, Serializable};
        use serde::de::DeserializeSeed;
        let value = ContextSeed::<C, T>::new(context).deserialize(&mut postcard::Deserializer::from_bytes(bytes));
        let value = value.unwrap_or_else(|error| panic!("{}: {error}", C::WHAT));
        postcard::to_allocvec(&Serializable::new(context, &value)).unwrap()
    }

    /// serde on the GPU: every object serializes (postcard and JSON) to the same bytes as the
    /// CPU's made from the same seeds; the CPU's bytes load on the GPU through the context's
    /// seed (validated) and serialize back to themselves; a loaded ciphertext decrypts there.
    #[cfg(feature = "serde")]
    #[test]
    fn gpu_serde_equals_cpu() {
        let Some(gpu) = gpu_backend() else { return };
        let on_cpu = serialized_session(CpuBackend);
        let on_gpu = serialized_session(gpu.clone());
        assert_eq!(on_cpu.len(), on_gpu.len());
        for (index, (c, g)) in on_cpu.iter().zip(&on_gpu).enumerate() {
            assert!(c.0 == g.0, "object {index}: postcard bytes differ between CPU and GPU");
            assert!(c.1 == g.1, "object {index}: JSON differs between CPU and GPU");
        }
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let context = bgv_encrypt::BgvContext::new(gpu, &params).unwrap();
        type G = GpuBackend;
        let bytes: Vec<&[u8]> = on_cpu.iter().map(|(binary, _)| &binary[..]).collect();
        assert_eq!(reloaded::<_, bgv_encrypt::Plaintext>(&context, bytes[0]), bytes[0]);
        for &ciphertext in &bytes[1..4] {
            assert_eq!(reloaded::<_, bgv_encrypt::Ciphertext<G>>(&context, ciphertext), ciphertext);
        }
        assert_eq!(reloaded::<_, bgv_encrypt::SeededCiphertext<G>>(&context, bytes[4]), bytes[4]);
        assert_eq!(reloaded::<_, bgv_encrypt::PublicKey<G>>(&context, bytes[5]), bytes[5]);
        assert_eq!(reloaded::<_, bgv_encrypt::RelinKey<G>>(&context, bytes[6]), bytes[6]);
        assert_eq!(reloaded::<_, bgv_encrypt::GaloisKeys<G>>(&context, bytes[7]), bytes[7]);
        assert_eq!(reloaded::<_, bgv_encrypt::SecretKey<G>>(&context, bytes[8]), bytes[8]);
        let secret: bgv_encrypt::SecretKey<G> =
            context.load(&mut postcard::Deserializer::from_bytes(bytes[8])).unwrap();
        let encoder = bgv_encrypt::BatchEncoder::new(&params).unwrap();
        for (&ciphertext, expected) in bytes[1..4].iter().zip([[5, 6, 7], [5, 6, 7], [25, 36, 49]]) {
            let loaded: bgv_encrypt::Ciphertext<G> =
                context.load(&mut postcard::Deserializer::from_bytes(ciphertext)).unwrap();
            assert_eq!(&encoder.decode(&context.decrypt(&loaded, &secret).unwrap()).unwrap()[..3], &expected);
        }
    }
}
