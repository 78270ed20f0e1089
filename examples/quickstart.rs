//! Quickstart: build a ring for each transform (NTT, DGT, hierarchical DGT), sample two random
//! polynomials from an OS seed, multiply them in the evaluation domain through a backend, and
//! check the product against the schoolbook negacyclic convolution.
//!
//! Run with `cargo run --release --example quickstart`. Exits non-zero on any mismatch.

use std::error::Error;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hegpu::prelude::*;
use hegpu::{modarith, poly};

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
    println!("{} backend", backend.name());
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

fn main() -> ExitCode {
    let result = Seed::from_os().map_err(Box::<dyn Error>::from).and_then(|seed| check_backend(&CpuBackend, &seed));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("quickstart: a product did not match the reference convolution");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("quickstart: {error}");
            ExitCode::FAILURE
        }
    }
}
