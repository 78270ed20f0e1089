#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! GPU robustness: many threads sharing one device context give the results of a sequential
//! run, bit for bit (BGV and BFV); running out of device memory is a typed error that leaves
//! the inputs as they were, and the context works again once memory is freed; objects of two
//! device handles mixed in one call are refused. Needs feature `cuda`; skips, saying so,
//! when no device is found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use bgv_encrypt::{BatchEncoder, BgvContext, Preset};
    use poly::Backend;
    use poly_cuda::GpuBackend;

    use crate::common::{keys, mul_mod, random_slots, salted, seed, slot_op, switching::bfv_twin};
    use crate::gpu_cases;

    fn gpu_backend() -> Option<GpuBackend> {
        gpu_cases::device().map(GpuBackend::from_device)
    }

    /// The device's memory, as the tests of this file share it: the out-of-memory test takes
    /// all of it (write), every other test runs beside the others (read), so that no test
    /// meets the out-of-memory test's exhausted device (the test harness runs them at once).
    static DEVICE_MEMORY: std::sync::RwLock<()> = std::sync::RwLock::new(());

    fn shared_memory() -> std::sync::RwLockReadGuard<'static, ()> {
        DEVICE_MEMORY.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Job `i` on one context: a BGV encryption, product, rotation, switch and decryption,
    /// and a BFV product and decryption, all from seeds of `i`; everything downloaded.
    fn job(
        bgv: &BgvContext<GpuBackend>,
        bfv: &bfv::BfvContext<GpuBackend>,
        k: &crate::common::Keys<GpuBackend>,
        bfv_relin: &bfv::RelinKey<GpuBackend>,
        bfv_public: &bfv::PublicKey<GpuBackend>,
        i: u64,
    ) -> Vec<Vec<u64>> {
        let params = bgv.params();
        let encoder = BatchEncoder::new(params).unwrap();
        let t = params.plaintext_modulus();
        let values: Vec<u64> = (0..params.degree() as u64).map(|j| (j * 7 + i * 13) % t).collect();
        let ct = bgv.encrypt_with_seed(&encoder.encode(&values).unwrap(), &k.public, &salted(20, i)).unwrap();
        let product = bgv.mul_relin(&ct, &ct, &k.relin).unwrap();
        let rotated = bgv.rotate_rows(&product, 1, &k.galois).unwrap();
        let low = bgv.mod_switch_to_next(&rotated).unwrap();
        let mut out: Vec<Vec<u64>> = bgv.download(&low).unwrap().into_iter().map(|p| p.into_vec()).collect();
        out.push(encoder.decode(&bgv.decrypt(&low, &k.secret).unwrap()).unwrap());
        let bfv_encoder = bfv::BatchEncoder::new(bfv.params()).unwrap();
        let b = bfv.encrypt_with_seed(&bfv_encoder.encode(&values).unwrap(), bfv_public, &salted(30, i)).unwrap();
        let b2 = bfv.mul_relin(&b, &b, bfv_relin).unwrap();
        out.extend(bfv.download(&b2).unwrap().into_iter().map(|p| p.into_vec()));
        out.push(bfv_encoder.decode(&bfv.decrypt(&b2, &k.secret).unwrap()).unwrap());
        out
    }

    /// 32 jobs on 8 threads sharing one context (and its device stream) equal the same jobs
    /// run one after the other, word for word, and every decryption is right.
    #[test]
    fn gpu_threads_sharing_one_context_equal_a_sequential_run() {
        let _memory = shared_memory();
        threads_equal_a_sequential_run(13, 32, 8);
    }

    /// Sized for `compute-sanitizer --tool racecheck` (docs/robustness.md), which instruments
    /// every shared-memory access and made even 4 jobs of the test above run past 5 minutes:
    /// N = 2^12, a light job (a BGV encryption, Mul+Relin and decryption), 2 threads with one
    /// job each against the sequential run, word for word, and both decryptions right.
    #[test]
    fn gpu_light_jobs_on_two_threads_equal_a_sequential_run() {
        let _memory = shared_memory();
        light_jobs_equal_a_sequential_run(2);
    }

    /// The same jobs from one thread: the kernels of the test above without concurrent
    /// launches, for racecheck to compare with (docs/robustness.md).
    #[test]
    fn gpu_light_jobs_on_one_thread_equal_a_sequential_run() {
        let _memory = shared_memory();
        light_jobs_equal_a_sequential_run(1);
    }

    fn light_jobs_equal_a_sequential_run(threads: u64) {
        let Some(gpu) = gpu_backend() else { return };
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let bgv = BgvContext::new(gpu, &params).unwrap();
        let secret = bgv.secret_key_from_seed(&seed(1)).unwrap();
        let public = bgv.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = bgv.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let values = |i: u64| -> Vec<u64> { (0..params.degree() as u64).map(|j| (j * 7 + i * 13) % t).collect() };
        let light_job = |i: u64| -> (Vec<Vec<u64>>, Vec<u64>) {
            let ct = bgv.encrypt_with_seed(&encoder.encode(&values(i)).unwrap(), &public, &salted(20, i)).unwrap();
            let product = bgv.mul_relin(&ct, &ct, &relin).unwrap();
            let words = bgv.download(&product).unwrap().into_iter().map(|p| p.into_vec()).collect();
            (words, encoder.decode(&bgv.decrypt(&product, &secret).unwrap()).unwrap())
        };
        let jobs = 2u64;
        let sequential: Vec<_> = (0..jobs).map(light_job).collect();
        for (i, (_, slots)) in sequential.iter().enumerate() {
            assert_eq!(*slots, slot_op(&values(i as u64), &values(i as u64), t, mul_mod), "job {i}");
        }
        let parallel: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|thread| {
                    scope.spawn(move || (thread..jobs).step_by(threads as usize).map(light_job).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let mut expected: Vec<_> = Vec::new();
        for thread in 0..threads {
            expected.extend((thread..jobs).step_by(threads as usize).map(|i| sequential[i as usize].clone()));
        }
        assert!(parallel == expected, "the threaded run differs from the sequential one");
    }

    /// `jobs` jobs at N = 2^log_degree on `threads` threads sharing one context equal the
    /// sequential run, and every BFV decryption is the squared slots.
    fn threads_equal_a_sequential_run(log_degree: u32, jobs: u64, threads: u64) {
        let Some(gpu) = gpu_backend() else { return };
        let params = Preset::Secure { log_degree }.build().unwrap();
        let bgv = BgvContext::new(gpu.clone(), &params).unwrap();
        let bfv_params = bfv_twin(&params);
        let bfv = bfv::BfvContext::new(gpu.clone(), &bfv_params).unwrap();
        let k = keys(&bgv);
        let bfv_relin = bfv.relin_key_from_seed(&k.secret, &seed(41)).unwrap();
        let bfv_public = bfv.public_key_from_seed(&k.secret, &seed(40)).unwrap();
        let sequential: Vec<_> = (0..jobs).map(|i| job(&bgv, &bfv, &k, &bfv_relin, &bfv_public, i)).collect();
        let t = params.plaintext_modulus();
        for (i, out) in sequential.iter().enumerate() {
            let values: Vec<u64> = (0..params.degree() as u64).map(|j| (j * 7 + i as u64 * 13) % t).collect();
            let squared = slot_op(&values, &values, t, mul_mod);
            assert_eq!(out[out.len() - 1], squared, "job {i}: BFV");
        }
        let parallel: Vec<(u64, Vec<Vec<u64>>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|thread| {
                    let (bgv, bfv, k, bfv_relin, bfv_public) = (&bgv, &bfv, &k, &bfv_relin, &bfv_public);
                    scope.spawn(move || {
                        (thread..jobs)
                            .step_by(threads as usize)
                            .map(|i| (i, job(bgv, bfv, k, bfv_relin, bfv_public, i)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(parallel.len(), jobs as usize);
        for (i, out) in parallel {
            assert!(out == sequential[i as usize], "job {i}: the threaded run differs from the sequential one");
        }
    }

    /// With the device memory taken (allocated until the driver refuses), a multiplication
    /// returns a typed error and its inputs are unchanged; once the memory is freed the same
    /// call succeeds and decrypts right.
    #[test]
    fn gpu_out_of_memory_is_a_typed_error_and_the_context_recovers() {
        let _memory = DEVICE_MEMORY.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(gpu) = gpu_backend() else { return };
        let params = Preset::Secure { log_degree: 14 }.build().unwrap();
        let context = BgvContext::new(gpu.clone(), &params).unwrap();
        let k = keys(&context);
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(9);
        let values = random_slots(&mut rng, params.degree(), t);
        let ct = context.encrypt(&encoder.encode(&values).unwrap(), &k.public).unwrap();
        let before = context.download(&ct).unwrap();
        let device = std::sync::Arc::clone(gpu.device());
        device.synchronize().unwrap();
        // Take the memory: 1 GiB buffers, then smaller ones down to 1 MiB.
        let mut hog = Vec::new();
        let mut chunk = 1usize << 27; // words
        while chunk >= 1 << 17 {
            // SAFETY: never read; only held to take the memory.
            match unsafe { device.stream().alloc::<u64>(chunk) } {
                Ok(buffer) => hog.push(buffer),
                Err(_) => chunk /= 2,
            }
        }
        assert!(!hog.is_empty());
        let failed = context.mul_relin(&ct, &ct, &k.relin);
        let error = failed.expect_err("a multiplication with no device memory left must fail");
        eprintln!("out of memory, as expected: {error}");
        drop(hog);
        device.trim_memory_pool(0).unwrap();
        assert!(context.download(&ct).unwrap() == before, "the input changed");
        let product = context.mul_relin(&ct, &ct, &k.relin).unwrap();
        let got = encoder.decode(&context.decrypt(&product, &k.secret).unwrap()).unwrap();
        assert_eq!(got, slot_op(&values, &values, t, mul_mod));
    }

    /// Ciphertexts and keys of one device handle used with a context of another are refused.
    #[test]
    fn gpu_objects_of_another_device_handle_are_refused() {
        let _memory = shared_memory();
        let Some(first) = gpu_backend() else { return };
        let second = GpuBackend::new(0).unwrap();
        assert!(!std::sync::Arc::ptr_eq(first.device(), second.device()));
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let a = BgvContext::new(first.clone(), &params).unwrap();
        let b = BgvContext::new(second, &params).unwrap();
        let ka = keys(&a);
        let kb = keys(&b);
        let encoder = BatchEncoder::new(&params).unwrap();
        let ct_a = a.encrypt(&encoder.encode(&[1, 2, 3]).unwrap(), &ka.public).unwrap();
        let ct_b = b.encrypt(&encoder.encode(&[1, 2, 3]).unwrap(), &kb.public).unwrap();
        assert!(b.add(&ct_a, &ct_b).is_err());
        assert!(b.mul_relin(&ct_b, &ct_b, &ka.relin).is_err());
        assert!(b.decrypt(&ct_b, &ka.secret).is_err());
        assert!(b.mul_relin(&ct_a, &ct_a, &kb.relin).is_err());
        // Same-handle objects still work.
        let ok = b.mul_relin(&ct_b, &ct_b, &kb.relin).unwrap();
        assert_eq!(&encoder.decode(&b.decrypt(&ok, &kb.secret).unwrap()).unwrap()[..3], &[1, 4, 9]);
        let _ = first.synchronize();
    }
}
