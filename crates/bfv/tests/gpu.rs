#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! GPU against CPU, bit for bit: with the same seeds, keys, ciphertexts and every evaluated
//! ciphertext are equal on both backends, for fixed cases and random ones (proptest over the
//! batching presets up to `N = 2^14`, variants, transforms and seeds; `hegpu_test_support::gpu_cases`);
//! random circuits of every preset's depth and the squaring chains behind the documented depths.
//! Needs feature `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use bfv::{BatchEncoder, BfvBackend, BfvContext, Ciphertext, MulVariant, Preset};
    use poly::{CpuBackend, Seed, TransformKind};
    use poly_cuda::GpuBackend;
    use proptest::prelude::*;

    use crate::common::{COMBINATIONS, preset_params, run_circuit, squaring_chain};
    use crate::gpu_cases::{self, Regressions};

    /// Committed failing cases of this file's random tests (see `gpu_cases`).
    const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu.proptest-regressions"), source: file!() };

    /// The seed `[byte; 32]` with `salt`'s bytes xored in (salt 0: `[byte; 32]`).
    fn salted(byte: u8, salt: u64) -> Seed {
        let salt = salt.to_le_bytes();
        Seed::from(core::array::from_fn(|i| byte ^ salt[i % 8]))
    }

    /// A random case of a session: a preset with batching (the sessions encode slots and
    /// rotate them) of `N <= 2^14` (the CPU reference of larger ones takes too long per case), a
    /// variant, a transform and a seed salt.
    fn random_session() -> impl Strategy<Value = (Preset, MulVariant, TransformKind, u64)> {
        let presets: Vec<Preset> = Preset::all()
            .into_iter()
            .filter(|preset| {
                let params = preset_params(*preset, MulVariant::Hps, TransformKind::Ntt);
                params.degree() <= 1 << 14 && BatchEncoder::new(&params).is_ok()
            })
            .collect();
        let variants = prop_oneof![Just(MulVariant::Hps), Just(MulVariant::Behz)];
        let transforms =
            prop_oneof![Just(TransformKind::Ntt), Just(TransformKind::Dgt), Just(TransformKind::HierarchicalDgt)];
        (proptest::sample::select(presets), variants, transforms, any::<u64>())
    }

    /// Everything a small session computes, downloaded to the host.
    fn session<B: BfvBackend>(
        backend: B,
        preset: Preset,
        variant: MulVariant,
        transform: TransformKind,
        salt: u64,
    ) -> Vec<Vec<u64>> {
        let seed = |byte: u8| salted(byte, salt);
        let params = preset_params(preset, variant, transform);
        let context = BfvContext::new(backend.clone(), &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let n = params.degree() as u64;
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
        let a: Vec<u64> = (0..n).map(|i| (i * 31 + 5 + salt % 1000) % t).collect();
        let b: Vec<u64> = (0..n).map(|i| (i * i + 1 + salt % 997) % t).collect();
        let ca = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk, &seed(4)).unwrap();
        let cb = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &pk, &seed(5)).unwrap();
        let sym = context
            .expand(
                &context.encrypt_symmetric_with_seeds(&encoder.encode(&b).unwrap(), &sk, &seed(6), &seed(7)).unwrap(),
            )
            .unwrap();
        let product = context.mul(&ca, &cb).unwrap();
        let relin = context.relinearize(&product, &rk).unwrap();
        let square = context.square_relin(&sym, &rk).unwrap();
        let mixed = context
            .mul_plain(
                &context.add_plain(&context.sub(&relin, &square).unwrap(), &encoder.encode(&a).unwrap()).unwrap(),
                &encoder.encode(&b).unwrap(),
            )
            .unwrap();

        // Keys through their byte encodings work as the originals (the bytes are compared
        // across backends below through the keys' polynomials).
        let rk_again = context.relin_key_from_bytes(&context.relin_key_to_bytes(&rk).unwrap()).unwrap();
        let relin_again = context.relinearize(&product, &rk_again).unwrap();
        assert!(context.download(&relin_again).unwrap() == context.download(&relin).unwrap(), "decoded relin key");
        let pk_again = context.public_key_from_bytes(&context.public_key_to_bytes(&pk).unwrap()).unwrap();
        let ca_again = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &pk_again, &seed(4)).unwrap();
        assert!(context.download(&ca_again).unwrap() == context.download(&ca).unwrap(), "decoded public key");

        let mut out = Vec::new();
        let (pk_b, pk_a) = pk.polys();
        out.push(backend.download(pk_b).unwrap().into_vec());
        out.push(backend.download(pk_a).unwrap().into_vec());
        for (kb, ka) in rk.digits() {
            out.push(backend.download(kb).unwrap().into_vec());
            out.push(backend.download(ka).unwrap().into_vec());
        }
        let mut push = |ct: &Ciphertext<B>| {
            for p in context.download(ct).unwrap() {
                out.push(p.into_vec());
            }
        };
        // Encryption of a plaintext already on the backend, and decryption leaving it there.
        let resident_a = context.upload_plaintext(&encoder.encode(&a).unwrap()).unwrap();
        let resident_ca = context.encrypt_with_seed(&resident_a, &pk, &seed(4)).unwrap();
        let round_trip = context.decrypt_resident(&relin, &sk).unwrap();
        let again = context.encrypt_with_seed(&round_trip, &pk, &seed(8)).unwrap();
        let resident_b = context.upload_plaintext(&encoder.encode(&b).unwrap()).unwrap();
        let resident_mixed = context
            .mul_plain(&context.add_plain(&context.sub(&relin, &square).unwrap(), &resident_a).unwrap(), &resident_b)
            .unwrap();
        let resident_sub = context.sub_plain(&ca, &resident_b).unwrap();
        let resident_sym = context
            .expand(&context.encrypt_symmetric_with_seeds(&resident_b, &sk, &seed(6), &seed(7)).unwrap())
            .unwrap();
        for ct in [
            &ca,
            &cb,
            &sym,
            &product,
            &relin,
            &square,
            &mixed,
            &resident_ca,
            &again,
            &resident_mixed,
            &resident_sub,
            &resident_sym,
        ] {
            push(ct);
        }
        out.push(context.decrypt(&mixed, &sk).unwrap().coefficients().to_vec());
        out.push(context.decrypt_resident(&mixed, &sk).unwrap().to_plaintext().unwrap().coefficients().to_vec());
        out.push(round_trip.to_plaintext().unwrap().coefficients().to_vec());
        // Batch encoding and decoding with the transform on the backend.
        let encoded = encoder.encode_resident(&context, &a).unwrap();
        assert!(encoded.to_plaintext().unwrap() == encoder.encode(&a).unwrap(), "encode_resident");
        out.push(encoded.to_plaintext().unwrap().coefficients().to_vec());
        let slots = encoder.decode_resident(&context, &context.decrypt_resident(&mixed, &sk).unwrap()).unwrap();
        assert!(slots == encoder.decode(&context.decrypt(&mixed, &sk).unwrap()).unwrap(), "decode_resident");
        out.push(slots);
        // Past the shallow presets' depth: compare the budget or the exhausted noise.
        out.push(match context.noise_budget(&mixed, &sk) {
            Ok(budget) => vec![u64::from(budget)],
            Err(bfv::BfvError::NoiseBudgetExhausted { noise_bits, .. }) => vec![1 << 20, noise_bits],
            Err(other) => panic!("{other}"),
        });
        out
    }

    /// The GPU backend, or `None` when this test is skipped (no driver or no device, and
    /// `HEGPU_REQUIRE_GPU` unset; see `gpu_cases::device`). Any other failure fails the test.
    fn gpu_backend() -> Option<GpuBackend> {
        gpu_cases::device().map(GpuBackend::from_device)
    }

    /// Digit removal (`common::digits`: two digits of `Z_{31^3}` removed in every slot, the
    /// polynomials of degree 61 and 31 evaluated by Paterson-Stockmeyer) gives the CPU's words,
    /// with HPS and BEHZ.
    #[test]
    fn gpu_digit_removal_equals_cpu() {
        let Some(gpu) = gpu_backend() else { return };
        for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
            let cpu = crate::common::digits::two_digits_removed(poly::CpuBackend, variant);
            let words = crate::common::digits::two_digits_removed(gpu.clone(), variant);
            assert!(words == cpu, "{variant:?}: the GPU's digit removal differs from the CPU's");
        }
    }

    /// Bootstrapping's first step (`common::raise`: a product's ciphertext of `t = 9` raised
    /// with the bootstrapping key to `3^8`) gives the CPU's words, with HPS and BEHZ.
    #[test]
    fn gpu_raise_equals_cpu() {
        let Some(gpu) = gpu_backend() else { return };
        for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
            let (cpu, _) = crate::common::raise::raised_with_the_key(poly::CpuBackend, variant);
            let (on_gpu, _) = crate::common::raise::raised_with_the_key(gpu.clone(), variant);
            assert!(on_gpu == cpu, "{variant:?}: the GPU's raise differs from the CPU's");
        }
    }

    /// The device plaintext scaling and lift (`kernels/bfv.cu`) equal the host's word for word,
    /// from host and from device coefficients, for odd, even, power-of-two and near-2^60 `t`, at
    /// `m = 0`, `t - 1` and random `m`, on 1 and 5 limbs of 61 bits and 3 of 30 bits.
    #[test]
    fn gpu_plaintext_scaling_equals_host() {
        use poly::{Backend, RingContext};
        use rlwe::PlaintextEmbedding::{Lifted, Scaled};
        use rlwe::{PlaintextBackend, PlaintextScaling, PlaintextWords};
        let Some(gpu) = gpu_backend() else { return };
        let degree = 4096;
        let primes = modarith::generate_ntt_primes(61, 2 * degree as u64, 5, &[]).unwrap();
        // Primes below most of the t values too (the reductions modulo q_i then matter).
        let small_primes = modarith::generate_ntt_primes(30, 2 * degree as u64, 3, &[]).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for moduli in [&primes[..1], &primes[..], &small_primes[..]] {
            let limbs = moduli.len();
            let ring = RingContext::new(degree, moduli, TransformKind::Ntt).unwrap();
            let context = gpu.context(&ring).unwrap();
            for t in [2u64, 3, 256, 65_537, 1 << 40, (1 << 60) - 1, (1 << 59) + 1] {
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                };
                let delta: Vec<u64> = ring.moduli().iter().map(|m| next() % m.value()).collect();
                let scaling = PlaintextScaling::new(ring.moduli(), &delta, next() % t, t).unwrap();
                let mut m: Vec<u64> = (0..degree).map(|_| next() % t).collect();
                m[0] = 0;
                m[1] = t - 1;
                let host = scaling.scale_host(&ring, &m).unwrap();
                let device = gpu.embed_plaintext(&context, &scaling, Scaled, PlaintextWords::Host(&m)).unwrap();
                assert_eq!(gpu.download(&device).unwrap(), host, "t {t}, {limbs} limbs");
                // The same from coefficients already on the device, and the lift both ways.
                let words = gpu.upload_plain_words(&m).unwrap();
                let device = gpu.embed_plaintext(&context, &scaling, Scaled, PlaintextWords::Resident(&words)).unwrap();
                assert_eq!(gpu.download(&device).unwrap(), host, "t {t}, {limbs} limbs, resident");
                let lifted = scaling.lift_host(&ring, &m).unwrap();
                let device = gpu.embed_plaintext(&context, &scaling, Lifted, PlaintextWords::Host(&m)).unwrap();
                assert_eq!(gpu.download(&device).unwrap(), lifted, "lift: t {t}, {limbs} limbs");
                let device = gpu.embed_plaintext(&context, &scaling, Lifted, PlaintextWords::Resident(&words)).unwrap();
                assert_eq!(gpu.download(&device).unwrap(), lifted, "lift: t {t}, {limbs} limbs, resident");
            }
        }
    }

    /// Every output of `session` on the CPU and on the GPU, compared.
    fn compare_sessions(gpu: &GpuBackend, preset: Preset, variant: MulVariant, transform: TransformKind, salt: u64) {
        let on_cpu = session(CpuBackend, preset, variant, transform, salt);
        let on_gpu = session(gpu.clone(), preset, variant, transform, salt);
        assert_eq!(on_cpu.len(), on_gpu.len());
        for (index, (c, g)) in on_cpu.iter().zip(&on_gpu).enumerate() {
            assert!(
                c == g,
                "{} {variant:?} {transform:?} (salt {salt}): output {index} differs between CPU and GPU",
                preset.name()
            );
        }
        eprintln!("{} {variant:?} {transform:?}: GPU = CPU on {} outputs", preset.name(), on_cpu.len());
    }

    /// Fixed cases: both variants and every transform, one special prime and hybrid digits.
    #[test]
    fn gpu_equals_cpu_bit_for_bit() {
        let Some(gpu) = gpu_backend() else { return };
        let cases = [
            (Preset::Secure { log_degree: 12 }, MulVariant::Hps, TransformKind::Ntt),
            (Preset::Secure { log_degree: 12 }, MulVariant::Behz, TransformKind::Ntt),
            (Preset::Secure { log_degree: 13 }, MulVariant::Behz, TransformKind::Dgt),
            (Preset::Phantom { log_degree: 14, hybrid: true }, MulVariant::Hps, TransformKind::HierarchicalDgt),
            (Preset::Phantom { log_degree: 14, hybrid: false }, MulVariant::Behz, TransformKind::Ntt),
        ];
        for (preset, variant, transform) in cases {
            compare_sessions(&gpu, preset, variant, transform, 0);
        }
    }

    /// 8 random cases (`random_session`).
    #[test]
    fn gpu_equals_cpu_on_random_sessions() {
        let Some(gpu) = gpu_backend() else { return };
        gpu_cases::check(8, REGRESSIONS, random_session(), |(preset, variant, transform, salt)| {
            compare_sessions(&gpu, preset, variant, transform, salt);
        });
    }

    /// Galois keys, rotated ciphertexts (rows left and right, the row swap, a composition,
    /// `apply_galois` with a non-rotation element) and their decryptions, downloaded; the
    /// decryptions are checked against the rotated slot vector on the way.
    fn rotation_session<B: BfvBackend>(
        backend: B,
        preset: Preset,
        variant: MulVariant,
        transform: TransformKind,
        salt: u64,
    ) -> Vec<Vec<u64>> {
        let seed = |byte: u8| salted(byte, salt);
        let params = preset_params(preset, variant, transform);
        let context = BfvContext::new(backend.clone(), &params).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let n = params.degree();
        let row = n / 2;
        let values: Vec<u64> = (0..n as u64).map(|i| (i * i * 7 + 3 * i + 1 + salt % 1009) % t).collect();
        let rotated_plain = |steps: usize| -> Vec<u64> {
            values.chunks_exact(row).flat_map(|half| (0..row).map(move |i| half[(i + steps) % row])).collect()
        };
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let swap = context.galois_element_for_row_swap();
        let other = 2 * n as u64 - 5; // -5 mod 2N: neither a row rotation nor the swap
        let elements =
            [context.galois_element_for_row_rotation(1), context.galois_element_for_row_rotation(-3), swap, other];
        let keys = context.galois_keys_from_seed(&sk, &elements, &seed(8)).unwrap();
        let ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &pk, &seed(4)).unwrap();
        let left = context.rotate_rows(&ct, 1, &keys).unwrap();
        let right = context.rotate_rows(&ct, -3, &keys).unwrap();
        let swapped = context.rotate_columns(&ct, &keys).unwrap();
        let composed = context.rotate_rows(&swapped, 1, &keys).unwrap();
        let general = context.apply_galois(&ct, other, &keys).unwrap();

        let decode = |c: &Ciphertext<B>| encoder.decode(&context.decrypt(c, &sk).unwrap()).unwrap();
        let name = preset.name();
        assert!(decode(&left) == rotated_plain(1), "{name} {variant:?} {transform:?}: left 1");
        assert!(decode(&right) == rotated_plain(row - 3), "{name} {variant:?} {transform:?}: right 3");
        let swapped_plain: Vec<u64> = values[row..].iter().chain(&values[..row]).copied().collect();
        assert!(decode(&swapped) == swapped_plain, "{name} {variant:?} {transform:?}: swap");

        let mut out = Vec::new();
        for element in keys.elements() {
            for (kb, ka) in keys.key(element).unwrap() {
                out.push(backend.download(kb).unwrap().into_vec());
                out.push(backend.download(ka).unwrap().into_vec());
            }
        }
        for c in [&left, &right, &swapped, &composed, &general] {
            for p in context.download(c).unwrap() {
                out.push(p.into_vec());
            }
            out.push(context.decrypt(c, &sk).unwrap().coefficients().to_vec());
            out.push(vec![u64::from(context.noise_budget(c, &sk).unwrap())]);
        }
        out
    }

    /// Rotation outputs on the CPU and on the GPU, compared.
    fn compare_rotations(gpu: &GpuBackend, preset: Preset, variant: MulVariant, transform: TransformKind, salt: u64) {
        let on_cpu = rotation_session(CpuBackend, preset, variant, transform, salt);
        let on_gpu = rotation_session(gpu.clone(), preset, variant, transform, salt);
        assert_eq!(on_cpu.len(), on_gpu.len());
        for (index, (c, g)) in on_cpu.iter().zip(&on_gpu).enumerate() {
            assert!(
                c == g,
                "{} {variant:?} {transform:?} (salt {salt}): rotation output {index} differs between CPU and GPU",
                preset.name()
            );
        }
        eprintln!("{} {variant:?} {transform:?}: rotations GPU = CPU on {} outputs", preset.name(), on_cpu.len());
    }

    /// Galois keys and rotated ciphertexts from the GPU equal the CPU's word for word with the
    /// same seeds: NTT presets of both variants (one special prime and hybrid), DGT and HDGT.
    #[test]
    fn gpu_rotations_equal_cpu_bit_for_bit() {
        let Some(gpu) = gpu_backend() else { return };
        let cases = [
            (Preset::Secure { log_degree: 12 }, MulVariant::Hps, TransformKind::Ntt),
            (Preset::Secure { log_degree: 12 }, MulVariant::Behz, TransformKind::Ntt),
            (Preset::Secure { log_degree: 13 }, MulVariant::Behz, TransformKind::Dgt),
            (Preset::Phantom { log_degree: 14, hybrid: true }, MulVariant::Hps, TransformKind::Ntt),
            (Preset::Phantom { log_degree: 14, hybrid: true }, MulVariant::Behz, TransformKind::HierarchicalDgt),
        ];
        for (preset, variant, transform) in cases {
            compare_rotations(&gpu, preset, variant, transform, 0);
        }
    }

    /// 6 random cases (`random_session`).
    #[test]
    fn gpu_rotations_equal_cpu_on_random_sessions() {
        let Some(gpu) = gpu_backend() else { return };
        gpu_cases::check(6, REGRESSIONS, random_session(), |(preset, variant, transform, salt)| {
            compare_rotations(&gpu, preset, variant, transform, salt);
        });
    }

    /// Random circuits of each preset's documented depth, three ciphertexts wide, with every
    /// variant and transform (NTT, DGT, HDGT), for the presets whose degree `select` accepts.
    /// The circuits are drawn from a random seed, printed (`PROPTEST_RNG_SEED` sets it).
    fn circuits_on_gpu(select: impl Fn(usize) -> bool) {
        let Some(gpu) = gpu_backend() else { return };
        let base = gpu_cases::run_seed();
        eprintln!(
            "gpu cases: {}: circuits of seed {base} + preset index (PROPTEST_RNG_SEED={base} draws them again)",
            gpu_cases::test_name()
        );
        for (index, preset) in Preset::all().into_iter().enumerate() {
            let degree = preset_params(preset, MulVariant::Hps, TransformKind::Ntt).degree();
            if !select(degree) {
                continue;
            }
            let depth = preset.depth().unwrap();
            for (variant, transform) in COMBINATIONS {
                let params = preset_params(preset, variant, transform);
                let start = std::time::Instant::now();
                let budget = run_circuit(gpu.clone(), &params, depth, 3, base.wrapping_add(index as u64));
                eprintln!(
                    "{} {variant:?} {transform:?}: depth {depth} ok, budget left {budget}, {:.2} s",
                    preset.name(),
                    start.elapsed().as_secs_f64()
                );
            }
        }
    }

    #[test]
    fn gpu_circuits_at_every_preset_depth_up_to_2_pow_14() {
        circuits_on_gpu(|n| n <= 1 << 14);
    }

    #[test]
    fn gpu_circuits_at_every_preset_depth_2_pow_15_and_16() {
        circuits_on_gpu(|n| n >= 1 << 15);
    }

    /// The measurement behind [`Preset::depth`] on the GPU, for every preset (the CPU runs the
    /// presets it can afford, in `presets.rs`): see `common::squaring_chain`.
    #[test]
    fn gpu_squaring_chains_exceed_every_documented_depth() {
        let Some(gpu) = gpu_backend() else { return };
        for preset in Preset::all() {
            let chain = squaring_chain(gpu.clone(), preset);
            let documented = preset.depth().unwrap();
            eprintln!("{}: squaring chain {chain}, documented depth {documented}", preset.name());
            assert!(
                crate::common::chain_leaves_margin(chain, documented),
                "{}: chain {chain}, documented depth {documented}",
                preset.name()
            );
        }
    }

    /// Every object of one session made from seeds (plaintext, ciphertexts at the top, one
    /// level down and of three polynomials, a seeded ciphertext, the four keys), serialized
    /// through postcard and JSON by its context: `(postcard, JSON)` per object, in that order.
    #[cfg(feature = "serde")]
    fn serialized_session<B: BfvBackend>(backend: B) -> Vec<(Vec<u8>, Vec<u8>)> {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let c = BfvContext::new(backend, &params).unwrap();
        let seed = |byte: u8| salted(byte, 0);
        let plain = BatchEncoder::new(&params).unwrap().encode(&[5, 6, 7]).unwrap();
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
    fn reloaded<C: bfv::rlwe::serde_support::Codec<T>, T>(context: &C, bytes: &[u8]) -> Vec<u8> {
        use bfv::rlwe::serde_support::{ContextSeed, Serializable};
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
        let context = BfvContext::new(gpu, &params).unwrap();
        type G = GpuBackend;
        let bytes: Vec<&[u8]> = on_cpu.iter().map(|(binary, _)| &binary[..]).collect();
        assert_eq!(reloaded::<_, bfv::Plaintext>(&context, bytes[0]), bytes[0]);
        for &ciphertext in &bytes[1..4] {
            assert_eq!(reloaded::<_, Ciphertext<G>>(&context, ciphertext), ciphertext);
        }
        assert_eq!(reloaded::<_, bfv::SeededCiphertext<G>>(&context, bytes[4]), bytes[4]);
        assert_eq!(reloaded::<_, bfv::PublicKey<G>>(&context, bytes[5]), bytes[5]);
        assert_eq!(reloaded::<_, bfv::RelinKey<G>>(&context, bytes[6]), bytes[6]);
        assert_eq!(reloaded::<_, bfv::GaloisKeys<G>>(&context, bytes[7]), bytes[7]);
        assert_eq!(reloaded::<_, bfv::SecretKey<G>>(&context, bytes[8]), bytes[8]);
        let secret: bfv::SecretKey<G> = context.load(&mut postcard::Deserializer::from_bytes(bytes[8])).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        for (&ciphertext, expected) in bytes[1..4].iter().zip([[5, 6, 7], [5, 6, 7], [25, 36, 49]]) {
            let loaded: Ciphertext<G> = context.load(&mut postcard::Deserializer::from_bytes(ciphertext)).unwrap();
            assert_eq!(&encoder.decode(&context.decrypt(&loaded, &secret).unwrap()).unwrap()[..3], &expected);
        }
    }
}
