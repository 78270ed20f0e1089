#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The device pool (`poly_cuda::DevicePool`) with BGV and BFV: a batch of products spread over
//! several workers (device handles, each with its own stream and its own thread) on one
//! device, and over every device when there are several, gives the ciphertext bytes of a
//! sequential run, with keys replicated to every worker through their byte encodings. Needs
//! feature `cuda`; skips, saying so, when no device is found.

#[cfg(feature = "cuda")]
mod common;
#[cfg(feature = "cuda")]
use hegpu_test_support::gpu_cases;

#[cfg(feature = "cuda")]
mod on_device {
    use bgv_encrypt::{BatchEncoder, BgvContext, BgvError, Preset};
    use poly::CpuBackend;
    use poly_cuda::{DevicePool, GpuBackend, Worker};

    use crate::common::{mul_mod, salted, seed, slot_op, switching::bfv_twin};
    use crate::gpu_cases;

    /// Key bytes made once (on the CPU) and loaded by every worker.
    struct KeyBytes {
        secret: Vec<u8>,
        public: Vec<u8>,
        relin: Vec<u8>,
        bfv_secret: Vec<u8>,
        bfv_public: Vec<u8>,
        bfv_relin: Vec<u8>,
    }

    /// A worker's state: both schemes' contexts on its device handle, the keys loaded.
    struct State {
        bgv: BgvContext<GpuBackend>,
        secret: bgv_encrypt::SecretKey<GpuBackend>,
        public: bgv_encrypt::PublicKey<GpuBackend>,
        relin: bgv_encrypt::RelinKey<GpuBackend>,
        bfv: bfv::BfvContext<GpuBackend>,
        bfv_secret: bfv::SecretKey<GpuBackend>,
        bfv_public: bfv::PublicKey<GpuBackend>,
        bfv_relin: bfv::RelinKey<GpuBackend>,
    }

    fn key_bytes(params: &std::sync::Arc<bgv_encrypt::BgvParameters>) -> KeyBytes {
        let bgv = BgvContext::new(CpuBackend, params).unwrap();
        let secret = bgv.secret_key_from_seed(&seed(1)).unwrap();
        let public = bgv.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = bgv.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let bfv = bfv::BfvContext::new(CpuBackend, &bfv_twin(params)).unwrap();
        let bfv_secret = bfv.secret_key_from_seed(&seed(1)).unwrap();
        let bfv_public = bfv.public_key_from_seed(&bfv_secret, &seed(40)).unwrap();
        let bfv_relin = bfv.relin_key_from_seed(&bfv_secret, &seed(41)).unwrap();
        KeyBytes {
            secret: bgv.secret_key_to_bytes(&secret).unwrap(),
            public: bgv.public_key_to_bytes(&public).unwrap(),
            relin: bgv.relin_key_to_bytes(&relin).unwrap(),
            bfv_secret: bfv.secret_key_to_bytes(&bfv_secret).unwrap(),
            bfv_public: bfv.public_key_to_bytes(&bfv_public).unwrap(),
            bfv_relin: bfv.relin_key_to_bytes(&bfv_relin).unwrap(),
        }
    }

    fn state(
        device: &std::sync::Arc<poly_cuda::GpuDevice>,
        params: &std::sync::Arc<bgv_encrypt::BgvParameters>,
        keys: &KeyBytes,
    ) -> Result<State, BgvError> {
        let gpu = GpuBackend::from_device(std::sync::Arc::clone(device));
        let bgv = BgvContext::new(gpu.clone(), params)?;
        let bfv = bfv::BfvContext::new(gpu, &bfv_twin(params))?;
        Ok(State {
            secret: bgv.secret_key_from_bytes(&keys.secret)?,
            public: bgv.public_key_from_bytes(&keys.public)?,
            relin: bgv.relin_key_from_bytes(&keys.relin)?,
            bfv_secret: bfv.secret_key_from_bytes(&keys.bfv_secret)?,
            bfv_public: bfv.public_key_from_bytes(&keys.bfv_public)?,
            bfv_relin: bfv.relin_key_from_bytes(&keys.bfv_relin)?,
            bgv,
            bfv,
        })
    }

    fn values(i: u64, n: usize, t: u64) -> Vec<u64> {
        (0..n as u64).map(|j| (j * 5 + i * 11 + 1) % t).collect()
    }

    /// Job `i`: BGV encrypt, square with relinearization, decrypt; the same in BFV. Returns the
    /// two product ciphertexts' bytes and both decryptions.
    /// A job's outputs: the BGV and BFV product bytes, then both decryptions.
    type JobOutput = (Vec<u8>, Vec<u8>, Vec<u64>, Vec<u64>);

    fn job(s: &State, i: u64) -> Result<JobOutput, BgvError> {
        let params = s.bgv.params();
        let encoder = BatchEncoder::new(params)?;
        let m = encoder.encode(&values(i, params.degree(), params.plaintext_modulus()))?;
        let ct = s.bgv.encrypt_with_seed(&m, &s.public, &salted(50, i))?;
        let product = s.bgv.mul_relin(&ct, &ct, &s.relin)?;
        let bgv_bytes = s.bgv.ciphertext_to_bytes(&product)?;
        let bgv_slots = encoder.decode(&s.bgv.decrypt(&product, &s.secret)?)?;
        let bfv_encoder = bfv::BatchEncoder::new(s.bfv.params())?;
        let b = s.bfv.encrypt_with_seed(
            &bfv_encoder.encode(&values(i, params.degree(), params.plaintext_modulus()))?,
            &s.bfv_public,
            &salted(60, i),
        )?;
        let b2 = s.bfv.mul_relin(&b, &b, &s.bfv_relin)?;
        let bfv_bytes = s.bfv.ciphertext_to_bytes(&b2)?;
        let bfv_slots = bfv_encoder.decode(&s.bfv.decrypt(&b2, &s.bfv_secret)?)?;
        Ok((bgv_bytes, bfv_bytes, bgv_slots, bfv_slots))
    }

    fn pool_matches_sequential(ordinals: &[usize], streams: usize) {
        let params = Preset::Secure { log_degree: 13 }.build().unwrap();
        let keys = key_bytes(&params);
        let pool = DevicePool::new(ordinals, streams, |device, _| state(device, &params, &keys)).unwrap();
        assert_eq!(pool.workers().len(), ordinals.len() * streams);
        let jobs: Vec<u64> = (0..24).collect();
        let sequential: Vec<_> = jobs.iter().map(|&i| job(pool.workers()[0].state(), i).unwrap()).collect();
        let t = params.plaintext_modulus();
        for (i, (_, _, bgv_slots, bfv_slots)) in sequential.iter().enumerate() {
            let v = values(i as u64, params.degree(), t);
            let squared = slot_op(&v, &v, t, mul_mod);
            assert_eq!(bgv_slots, &squared, "job {i}: BGV");
            assert_eq!(bfv_slots, &squared, "job {i}: BFV");
        }
        let spread = pool.map(jobs.clone(), |worker: &Worker<State>, i| job(worker.state(), i)).unwrap();
        assert_eq!(spread.len(), jobs.len());
        for (i, (got, want)) in spread.iter().zip(&sequential).enumerate() {
            assert!(got == want, "job {i}: the pool's result differs from the sequential run");
        }
        // Every worker at once, each with its own job.
        let per_worker = pool.for_each_worker(|worker| job(worker.state(), 100 + worker.index() as u64)).unwrap();
        for (w, got) in per_worker.iter().enumerate() {
            let want = job(pool.workers()[0].state(), 100 + w as u64).unwrap();
            assert!(got == &want, "worker {w}: differs from the sequential run");
        }
        // An error in one item comes back typed, and the pool keeps working.
        let failing = pool.map(vec![0u64, 1, 2], |worker: &Worker<State>, i| {
            if i == 1 {
                // Three bytes are no ciphertext.
                worker.state().bgv.ciphertext_from_bytes(&[1, 2, 3])?;
            }
            job(worker.state(), i)
        });
        assert!(failing.is_err(), "a malformed item must fail the batch");
        let again = pool.map(vec![3u64], |worker: &Worker<State>, i| job(worker.state(), i)).unwrap();
        assert!(again[0] == sequential[3]);
    }

    /// Three workers (streams) on one device equal a sequential run, byte for byte.
    #[test]
    fn gpu_pool_of_three_streams_on_one_device_equals_a_sequential_run() {
        let Some(_device) = gpu_cases::device() else { return };
        pool_matches_sequential(&[0], 3);
    }

    /// Two workers on every device (when there are several) equal a sequential run.
    #[test]
    fn gpu_pool_over_every_device_equals_a_sequential_run() {
        let Some(_device) = gpu_cases::device() else { return };
        let count = poly_cuda::device_count().unwrap();
        eprintln!("devices: {count}");
        pool_matches_sequential(&(0..count).collect::<Vec<_>>(), 2);
    }

    /// No device or no stream is a typed error.
    #[test]
    fn gpu_pool_needs_a_device_and_a_stream() {
        let Some(_device) = gpu_cases::device() else { return };
        let error = DevicePool::<()>::new(&[], 1, |_, _| Ok::<(), BgvError>(())).unwrap_err();
        assert!(error.to_string().contains("device pool"), "{error}");
        let error = DevicePool::<()>::new(&[0], 0, |_, _| Ok::<(), BgvError>(())).unwrap_err();
        assert!(error.to_string().contains("device pool"), "{error}");
    }
}
