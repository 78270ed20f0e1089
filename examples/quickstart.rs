//! Quickstart, in three parts, on the GPU when built with `--features cuda` and a device is
//! present, otherwise on the CPU (it says which):
//!
//! 1. BFV: key generation, encryption of two vectors (batched into slots), homomorphic
//!    multiplication and relinearization, decryption, for both RNS variants (HPS and BEHZ);
//!    the result is checked against the slot-wise product and printed with the noise budget.
//! 2. BGV: the same multiplication, then a switch down the modulus chain, decryption at the
//!    lower level, and the product switched to BFV under the same secret key.
//! 3. The ring layer: for each transform (NTT, DGT, hierarchical DGT), two random polynomials
//!    multiplied in the evaluation domain and checked against the schoolbook convolution.
//!
//! Run with `cargo run --release --example quickstart`. Exits non-zero on any mismatch.

use std::error::Error;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hegpu::prelude::*;
use hegpu::{bgv, modarith, poly};

const DEGREE: usize = 4096;
const PRIME_BITS: u32 = 50;
const NUM_PRIMES: usize = 3;
const TIMED_RUNS: usize = 21;

/// `a * b` through `backend`: both operands to the evaluation domain, product, back.
fn multiply<B: Backend>(backend: &B, a: &B::Poly<Coeff>, b: &B::Poly<Coeff>) -> Result<B::Poly<Coeff>, B::Error> {
    let fa = backend.forward(backend.duplicate(a)?)?;
    let fb = backend.forward(backend.duplicate(b)?)?;
    backend.inverse(backend.mul(&fa, &fb)?)
}

/// Runs the check for every transform on `backend`; `Ok(false)` on a mismatch.
fn check_backend<B: Backend>(backend: &B, seed: &Seed) -> Result<bool, Box<dyn Error>> {
    println!("  ring products through the backend, each transform:");
    let moduli = modarith::generate_ntt_primes(PRIME_BITS, 2 * DEGREE as u64, NUM_PRIMES, &[])?;
    let mut expected: Option<Vec<u64>> = None;
    let mut all_ok = true;
    for transform in TransformKind::ALL {
        let ring = RingContext::new(DEGREE, &moduli, transform)?;
        let context = backend.context(&ring)?;
        // Sampling is a pure function of (seed, index): every transform gets the same a, b.
        let a: B::Poly<Coeff> = backend.sample_uniform(&context, seed, 0)?;
        let b: B::Poly<Coeff> = backend.sample_uniform(&context, seed, 1)?;
        if expected.is_none() {
            let (ha, hb) = (backend.download(&a)?, backend.download(&b)?);
            expected = Some(poly::reference::negacyclic_product(&ha, &hb)?.into_vec());
        }

        let mut times = Vec::with_capacity(TIMED_RUNS);
        let mut product = None;
        for _ in 0..TIMED_RUNS {
            let start = Instant::now();
            let c = multiply(backend, &a, &b)?;
            backend.synchronize()?;
            times.push(start.elapsed());
            product = Some(c);
        }
        times.sort();
        let median = times.get(TIMED_RUNS / 2).copied().unwrap_or(Duration::ZERO);

        let ok = match &product {
            Some(c) => Some(backend.download(c)?.as_slice()) == expected.as_deref(),
            None => false,
        };
        all_ok &= ok;
        println!(
            "  {:<5} N = {DEGREE}, {NUM_PRIMES} x {PRIME_BITS}-bit primes: product in {:>8.1} us (median of {TIMED_RUNS})  {}",
            transform.name(),
            median.as_secs_f64() * 1e6,
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    Ok(all_ok)
}

/// Slots shown and checked by the BFV demo.
const SHOWN: usize = 8;

/// Encrypts two vectors, multiplies them homomorphically, relinearizes and decrypts, for each
/// multiplication variant; `Ok(false)` if a product is wrong.
fn bfv_demo<B: BfvBackend>(backend: &B) -> Result<bool, Box<dyn Error>> {
    let mut all_ok = true;
    for variant in [MulVariant::Hps, MulVariant::Behz] {
        let params = Preset::Secure { log_degree: 13 }.builder()?.variant(variant).build()?;
        let context = BfvContext::new(backend.clone(), &params)?;
        let encoder = BatchEncoder::new(&params)?;
        let t = params.plaintext_modulus();

        let start = Instant::now();
        let secret = context.generate_secret_key()?;
        let public = context.generate_public_key(&secret)?;
        let relin = context.generate_relin_key(&secret)?;
        let keygen = start.elapsed();

        let x: Vec<u64> = (1..=SHOWN as u64).collect();
        let y: Vec<u64> = (1..=SHOWN as u64).map(|v| 1000 * v + 7).collect();
        let start = Instant::now();
        let cx = context.encrypt(&encoder.encode(&x)?, &public)?;
        let cy = context.encrypt(&encoder.encode(&y)?, &public)?;
        let encrypt = start.elapsed() / 2;
        let start = Instant::now();
        let product = context.mul_relin(&cx, &cy, &relin)?;
        backend.synchronize()?;
        let multiply = start.elapsed();
        let slots = encoder.decode(&context.decrypt(&product, &secret)?)?;
        let budget = context.noise_budget(&product, &secret)?;

        let expected: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| a * b % t).collect();
        let ok = slots.get(..SHOWN) == Some(&expected[..]) && slots[SHOWN..].iter().all(|&v| v == 0);
        all_ok &= ok;
        println!(
            "  BFV {:<4} N = {}, log2 q = {}, t = {t}: keygen {:.1} ms, encrypt {:.1} ms, mul+relin {:.1} ms",
            variant.name(),
            params.degree(),
            params.ciphertext_modulus().bits(),
            keygen.as_secs_f64() * 1e3,
            encrypt.as_secs_f64() * 1e3,
            multiply.as_secs_f64() * 1e3,
        );
        println!("    x       = {x:?}");
        println!("    y       = {y:?}");
        println!(
            "    dec(x*y)= {:?}  {} (noise budget left: {budget} bits)",
            &slots[..SHOWN],
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    Ok(all_ok)
}

/// BGV: a multiplication, a modulus switch, decryption at the lower level, and the product
/// switched to BFV (same ring, same `t`, same secret key); `Ok(false)` if a result is wrong.
fn bgv_demo<B: BfvBackend + BgvBackend>(backend: &B) -> Result<bool, Box<dyn Error>> {
    let params = bgv::Preset::Secure { log_degree: 13 }.build()?;
    let context = BgvContext::new(backend.clone(), &params)?;
    let encoder = bgv::BatchEncoder::new(&params)?;
    let t = params.plaintext_modulus();
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;

    let x: Vec<u64> = (1..=SHOWN as u64).collect();
    let y: Vec<u64> = (1..=SHOWN as u64).map(|v| 1000 * v + 7).collect();
    let cx = context.encrypt(&encoder.encode(&x)?, &public)?;
    let cy = context.encrypt(&encoder.encode(&y)?, &public)?;
    let start = Instant::now();
    let product = context.mul_relin(&cx, &cy, &relin)?;
    backend.synchronize()?;
    let multiply = start.elapsed();
    let lower = context.mod_switch_to_next(&product)?;
    let slots = encoder.decode(&context.decrypt(&lower, &secret)?)?;
    let budget = context.noise_budget(&lower, &secret)?;

    // The same ring as a BFV parameter set, and the product moved there.
    let bfv_params = hegpu::bfv::BfvParametersBuilder::new(params.degree())
        .ciphertext_moduli(params.ciphertext_moduli())
        .special_moduli(params.special_moduli())
        .plaintext_modulus(t)
        .build()?;
    let bfv_context = BfvContext::new(backend.clone(), &bfv_params)?;
    let in_bfv = context.to_bfv(&bfv_context, &lower)?;
    let bfv_slots = BatchEncoder::new(&bfv_params)?.decode(&bfv_context.decrypt(&in_bfv, &secret)?)?;

    let expected: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| a * b % t).collect();
    let ok = slots.get(..SHOWN) == Some(&expected[..]) && slots[SHOWN..].iter().all(|&v| v == 0);
    let bfv_ok = bfv_slots == slots;
    println!(
        "  BGV      N = {}, {} primes, t = {t}: mul+relin {:.1} ms, then switched to level {}",
        params.degree(),
        params.ciphertext_moduli().len(),
        multiply.as_secs_f64() * 1e3,
        lower.level()
    );
    println!(
        "    dec(x*y)= {:?}  {} (noise budget left: {budget} bits); as BFV: {}",
        &slots[..SHOWN],
        if ok { "ok" } else { "MISMATCH" },
        if bfv_ok { "same slots" } else { "MISMATCH" }
    );
    Ok(ok && bfv_ok)
}

/// Every part of the quickstart on `backend`.
fn run<B: BfvBackend + BgvBackend>(backend: &B, seed: &Seed) -> Result<bool, Box<dyn Error>> {
    println!("{} backend", backend.name());
    let bfv_ok = bfv_demo(backend)?;
    let bgv_ok = bgv_demo(backend)?;
    let ring_ok = check_backend(backend, seed)?;
    Ok(bfv_ok && bgv_ok && ring_ok)
}

#[cfg(feature = "cuda")]
fn run_on_best_backend(seed: &Seed) -> Result<bool, Box<dyn Error>> {
    match hegpu::poly_cuda::GpuBackend::new(0) {
        Ok(gpu) => run(&gpu, seed),
        Err(error) => {
            println!("no usable GPU ({error}); running on the CPU");
            run(&CpuBackend, seed)
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn run_on_best_backend(seed: &Seed) -> Result<bool, Box<dyn Error>> {
    println!("built without the `cuda` feature; running on the CPU");
    run(&CpuBackend, seed)
}

fn main() -> ExitCode {
    let result = Seed::from_os().map_err(Box::<dyn Error>::from).and_then(|seed| run_on_best_backend(&seed));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("quickstart: a result did not match its reference");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("quickstart: {error}");
            ExitCode::FAILURE
        }
    }
}
