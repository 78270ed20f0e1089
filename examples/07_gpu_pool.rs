//! Example 7: a batch of requests spread over every GPU of the machine with
//! `poly_cuda::DevicePool`. Each worker of the pool is a device handle with a stream and a
//! host thread of its own, holding a BFV context and the evaluation key on its device; the
//! requests (ciphertext bytes, as a client sends them: example 4) go to whichever worker is
//! free, and the answers come back in request order. Several workers per device keep a GPU
//! busy that one stream of small operations leaves idle.
//!
//! Needs the `cuda` feature and a CUDA device; without either it says so and exits cleanly.
//! Run with `cargo run --release --features cuda --example 07_gpu_pool`.

#[cfg(not(feature = "cuda"))]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("07_gpu_pool runs on the GPU: build it with `--features cuda` (README, \"Using the GPU\"); skipped");
    Ok(())
}

#[cfg(feature = "cuda")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    gpu::run()
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::sync::Arc;
    use std::time::Instant;

    use hegpu::bfv::prelude::*;
    use hegpu::poly_cuda::{DevicePool, GpuError, Worker, device_count};

    /// The requests in the batch, and the workers (streams) per device.
    const REQUESTS: u64 = 48;
    const STREAMS_PER_DEVICE: usize = 2;

    /// A worker's state: a context on the worker's own device handle, and the key loaded there.
    struct State {
        context: BfvContext<GpuBackend>,
        relin: RelinKey<GpuBackend>,
    }

    pub fn run() -> Result<(), Box<dyn std::error::Error>> {
        // No driver or no device: nothing to run here, which is not an error. A device that is
        // there but unusable is one.
        let devices = match device_count() {
            Ok(0) | Err(GpuError::DriverNotLoadable) => {
                println!("07_gpu_pool: no CUDA device on this machine; skipped");
                return Ok(());
            }
            Ok(count) => count,
            Err(error) => return Err(error.into()),
        };

        // The client, on the CPU: keys, and the requests as bytes (x in the first slots).
        let params = Preset::Secure { log_degree: 13 }.build()?;
        let t = params.plaintext_modulus();
        let client = BfvContext::new(CpuBackend, &params)?;
        let secret = client.generate_secret_key()?;
        let public = client.generate_public_key(&secret)?;
        let relin_bytes = client.to_bytes(&client.generate_relin_key(&secret)?)?;
        let encoder = BatchEncoder::new(&params)?;
        let inputs: Vec<Vec<u64>> = (0..REQUESTS).map(|r| (0..16).map(|i| r * 100 + i).collect()).collect();
        let mut requests = Vec::new();
        for x in &inputs {
            requests.push(client.to_bytes(&client.encrypt(&encoder.encode(x)?, &public)?)?);
        }

        // The pool: each worker makes its context on its own handle and loads the key from
        // bytes (data on a device belongs to the worker that made it; bytes move between them).
        let pool = DevicePool::all_devices(STREAMS_PER_DEVICE, |device, _| -> Result<State, BfvError> {
            let context = BfvContext::new(GpuBackend::from_device(Arc::clone(device)), &params)?;
            let relin = context.load_bytes::<RelinKey<_>>(&relin_bytes)?;
            Ok(State { context, relin })
        })?;
        println!("{devices} device(s), {} workers, {REQUESTS} requests of x -> x^2 + 1", pool.workers().len());

        let start = Instant::now();
        let responses = pool.map(requests, |worker: &Worker<State>, bytes: Vec<u8>| -> Result<_, BfvError> {
            let State { context, relin } = worker.state();
            let x = context.load_bytes::<Ciphertext<_>>(&bytes)?;
            let y = context.add_scalar(&context.mul_relin(&x, &x, relin)?, 1)?;
            Ok((worker.ordinal(), context.to_bytes(&y)?))
        })?;
        let elapsed = start.elapsed();

        // The client decrypts the answers, in request order whatever worker computed them.
        let mut per_device = vec![0usize; devices];
        for ((ordinal, bytes), x) in responses.iter().zip(&inputs) {
            let slots = encoder.decode(&client.decrypt(&client.load_bytes::<Ciphertext<_>>(bytes)?, &secret)?)?;
            let expected: Vec<u64> = x.iter().map(|&v| (v * v + 1) % t).collect();
            if slots[..x.len()] != expected[..] {
                return Err(format!("request {:?}: mismatch", &x[..2]).into());
            }
            if let Some(count) = per_device.get_mut(*ordinal) {
                *count += 1;
            }
        }
        println!("{REQUESTS} products in {:.1} ms; requests per device: {per_device:?}", elapsed.as_secs_f64() * 1e3);
        println!("ok");
        Ok(())
    }
}
